"""The computer's moves, off the server's event loop, in worker processes.

A search holds a CPU for up to two seconds (level 10); run on the event loop
it would stop every other request meanwhile. `Computer.move` sends the
position to a pool of worker processes (as many as this process may use CPUs, at
most `MAX_WORKERS`), each of which keeps one player per level it has been
asked for (the first search of a process loads the compiled search, about a
second). The position string carries everything a player needs.

Workers are started with ``spawn`` (a server runs threads: forking one is
unsafe) and only when a move is first asked for; they end with the server,
even when it is killed with SIGKILL.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from ninefold.players import Player, make_player
from ninefold.protocols.process import end_with_parent
from ninefold.rules import Board, Move
from ninefold.system import usable_cpus

MAX_WORKERS = 4

_players: dict[int, Player] = {}  # in a worker: one player per level


def choose(level: int, position: str) -> str:
    """In a worker: the move level `level` plays in `position` (a position string)."""
    if level not in _players:
        _players[level] = make_player(f"level:{level}")
    player = _players[level]
    player.new_game()
    return str(player.play(Board.from_position(position)).move)


class Computer:
    """A pool of worker processes playing the computer's moves."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or max(1, min(MAX_WORKERS, usable_cpus()))
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"),
                                             initializer=end_with_parent,
                                             initargs=(os.getpid(),))
        return self._pool

    async def move(self, level: int, board: Board) -> Move:
        """The move level `level` plays on `board`, computed in a worker process."""
        loop = asyncio.get_running_loop()
        text = await loop.run_in_executor(self._executor(), choose, level, board.position())
        return Move.parse(text)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
