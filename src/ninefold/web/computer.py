"""The computer's moves, off the server's event loop, in worker processes.

A search holds a CPU for up to two seconds (level 10); run on the event loop
it would stop every other request meanwhile. `Computer.move` sends the
board to one of its worker processes (as many as this process may use CPUs, at
most `MAX_WORKERS`; a move waits, first come first served, while all are busy),
each of which keeps one player per level it has been asked for (the first search
of a process loads the compiled search, about a second).

Each worker is a `ninefold.protocols.child.Child` running `serve`, started when
first needed (and again after it died); it ends with the server, even when the
server is killed with SIGKILL.
"""

from __future__ import annotations

import asyncio
import queue
from concurrent.futures import ThreadPoolExecutor

from ninefold.players import Player, make_player
from ninefold.protocols.child import Child, ChildGone, Parent
from ninefold.rules import Board, Move
from ninefold.system import usable_cpus

MAX_WORKERS = 4
TARGET = "ninefold.web.computer:serve"  # a worker's function


def serve(parent: Parent) -> None:
    """In a worker: answer each ``("move", level, board)`` with ``("move", Move)`` (or
    ``("failed", text)``), one player per level, until the server's end closes."""
    players: dict[int, Player] = {}
    for _, level, board in parent:
        try:
            if level not in players:
                players[level] = make_player(f"level:{level}")
            player = players[level]
            player.new_game()
            parent.send(("move", player.play(board).move))
        except Exception as exc:
            parent.send(("failed", f"{type(exc).__name__}: {exc}"))


class Computer:
    """Worker processes playing the computer's moves; a thread waits on each move."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or max(1, min(MAX_WORKERS, usable_cpus()))
        self._children = [Child(TARGET) for _ in range(self.workers)]
        self._idle: queue.Queue[Child] = queue.Queue()
        for child in self._children:
            self._idle.put(child)
        self._threads: ThreadPoolExecutor | None = None

    def _executor(self) -> ThreadPoolExecutor:
        if self._threads is None:  # as many threads as workers: each finds one idle
            self._threads = ThreadPoolExecutor(self.workers, thread_name_prefix="computer")
        return self._threads

    async def move(self, level: int, board: Board) -> Move:
        """The move level `level` plays on `board`, computed in a worker process."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor(), self._move, level, board)

    def _move(self, level: int, board: Board) -> Move:
        """In a thread: ask an idle worker (started if it is not running) and wait."""
        child = self._idle.get()
        try:
            if not child.running:
                child.start()
            child.send(("move", level, board))
            kind, answer = child.receive()
        except ChildGone:
            child.kill()  # the next move starts a fresh one
            raise
        finally:
            self._idle.put(child)
        if kind == "failed" or not isinstance(answer, Move):
            raise RuntimeError(f"the computer's worker answered {answer!r}, not a move")
        return answer

    def close(self) -> None:
        """End the worker processes, after the moves under way (a later move starts them
        again)."""
        if self._threads is not None:
            self._threads.shutdown(wait=True, cancel_futures=True)
            self._threads = None
        for child in self._children:
            child.close()
