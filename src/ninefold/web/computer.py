"""The computer's moves, off the server's event loop, in worker processes.

A search holds a CPU for up to two seconds (level 10); run on the event loop
it would stop every other request meanwhile. `Computer.move` sends the
board to one of its worker processes (as many as this process may use CPUs, at
most `MAX_WORKERS`; a move waits while all are busy),
each of which keeps one player per level it has been asked for (the first search
of a process loads the compiled search, about a second). The levels that search
nothing (1 and 2) play on the event loop: their move costs less than sending it;
so does every level when the move is forced (`forced_move`: the only legal one).

Each worker is a `ninefold.protocols.child.Child` running `serve`, started when
first needed (and again after it died); it ends with the server, even when the
server is killed with SIGKILL.

The moves waiting are taken client by client (a client: the address that asked,
`ninefold.web.limits.client_key`): a free worker takes the oldest move of the
client that was given a worker longest ago (or never), so a client with many
moves waiting delays another's by at most one move per worker, not by all of its
own (`ninefold.web.hub` caps how many a client may have at once).

`PROOF_LEVEL` is the `proof` player (`player_spec`): a worker's first move at it
reads X's forced win with open boards from the file the package ships (a
fraction of a second), and its later moves are lookups.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
from dataclasses import dataclass

from ninefold.players import Player, make_player
from ninefold.players.level import forced_move, is_instant, make_level
from ninefold.protocols.child import Child, ChildGone, Message, Parent
from ninefold.rules import Board, Move
from ninefold.system import usable_cpus
from ninefold.web.games import PROOF_LEVEL

MAX_WORKERS = 4
TARGET = "ninefold.web.computer:serve"  # a worker's function


def player_spec(level: int) -> str:
    """The player of the computer's level `level`.

    >>> player_spec(3), player_spec(PROOF_LEVEL)
    ('level:3', 'proof')
    """
    return "proof" if level == PROOF_LEVEL else f"level:{level}"


def instant(level: int) -> bool:
    """Whether level `level` plays without a search (`is_instant`): here, not in a worker."""
    return level != PROOF_LEVEL and is_instant(level)


def serve(parent: Parent) -> None:
    """In a worker: answer each ``("move", level, board)`` with ``("move", Move)`` (or
    ``("failed", text)``), one player per level, until the server's end closes."""
    players: dict[int, Player] = {}
    for _, level, board in parent:
        try:
            if level not in players:
                players[level] = make_player(player_spec(level))
            player = players[level]
            player.new_game()
            parent.send(("move", player.play(board).move))
        except Exception as exc:
            parent.send(("failed", f"{type(exc).__name__}: {exc}"))


class Computer:
    """Worker processes playing the computer's moves, answered on the event loop.

    A move waits for an idle worker in its client's queue, first come first served,
    and the clients take turns (the one given a worker longest ago first). The
    loop reads a worker's answer as soon as it comes (a reader on its pipe) and
    gives the worker the next move in the same step: no thread waits on a pipe
    and takes the interpreter's lock back from the requests, and no worker waits
    for a coroutine to be scheduled.
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or max(1, min(MAX_WORKERS, usable_cpus()))
        self._players: dict[int, Player] = {}  # the levels that play at once (`Player.instant`)
        self._children = [Child(TARGET) for _ in range(self.workers)]
        self._idle = list(self._children)
        self._waiting: dict[str, collections.deque[Asked]] = {}  # each client's, in order
        self._served: dict[str, int] = {}  # the turn each client was last given a worker
        self._turns = itertools.count()
        self._asked: dict[Child, Asked] = {}  # the busy workers, and what each was asked

    async def move(self, level: int, board: Board, client: str = "") -> Move:
        """The move level `level` plays on `board`, computed in a worker process, asked by
        `client` (the moves waiting are taken client by client).

        Cancelled (a take-back), it stops waiting; a worker that was given it finishes
        the search and is idle again once its answer is read. A level that searches
        nothing (`Player.instant`: random, naive) plays here: shipping the board to a
        worker would cost a hundred times its move; so does a forced move, at any level."""
        forced = forced_move(board)
        if forced is not None:
            return forced
        if instant(level):
            return self.play_now(level, board)
        asked = Asked(level, board, asyncio.get_running_loop().create_future(), client)
        self._waiting.setdefault(client, collections.deque()).append(asked)
        self._next()
        kind, move = await asked.answer
        if kind == "failed" or not isinstance(move, Move):
            raise RuntimeError(f"the computer's worker answered {move!r}, not a move")
        return move

    def play_now(self, level: int, board: Board) -> Move:
        """The move of level `level`, one that searches nothing (`instant`), played here."""
        if level not in self._players:
            self._players[level] = make_level(level)
        return self._players[level].play(board).move

    def _next(self) -> None:
        """Give the waiting moves to the idle workers."""
        for child, gone in list(self._asked.items()):
            if gone.answer.get_loop().is_closed():  # an event loop gone (tests make several)
                del self._asked[child]
                child.kill()
                self._idle.append(child)
                self._forget(gone.client)
        while self._idle and (asked := self._take()) is not None:
            child = self._idle.pop()
            try:
                if not child.running:
                    child.start()
                child.send(("move", asked.level, asked.board))
            except (ChildGone, OSError) as exc:
                child.kill()  # the next move starts a fresh one
                self._idle.append(child)
                asked.answer.set_exception(exc)
                self._forget(asked.client)
                continue
            self._asked[child] = asked
            asked.fd = child.fileno()
            asked.answer.get_loop().add_reader(asked.fd, self._readable, child)

    def _take(self) -> Asked | None:
        """The next move to give a worker: the oldest of the client with moves waiting
        that was given a worker longest ago (never: first), or None if none waits."""
        while self._waiting:
            client = min(self._waiting, key=lambda c: self._served.get(c, -1))
            waiting = self._waiting[client]
            asked = waiting.popleft()
            if not waiting:
                del self._waiting[client]
            if asked.answer.done():  # cancelled while it waited
                self._forget(client)
                continue
            self._served[client] = next(self._turns)
            return asked
        return None

    def _forget(self, client: str) -> None:
        """`client`'s turn is forgotten once it has no move waiting or searched."""
        if client not in self._waiting and all(a.client != client for a in self._asked.values()):
            self._served.pop(client, None)

    def _readable(self, child: Child) -> None:
        """A worker's pipe has something: its answer, or its end."""
        asked = self._asked[child]
        gone: ChildGone | None = None
        try:
            messages = child.read_ready()
        except ChildGone as exc:
            messages, gone = [], exc
        else:
            if not messages:
                return  # part of the answer: the rest is coming
        asked.answer.get_loop().remove_reader(asked.fd)  # before the pipe closes
        del self._asked[child]
        self._forget(asked.client)
        if gone is not None:
            child.kill()  # the next move starts a fresh one
        if not asked.answer.done():  # not cancelled meanwhile
            if gone is not None:
                asked.answer.set_exception(gone)
            else:
                asked.answer.set_result(messages[0])
        self._idle.append(child)
        self._next()

    def close(self) -> None:
        """End the worker processes (a later move starts them again)."""
        for child, asked in self._asked.items():
            loop = asked.answer.get_loop()
            if not loop.is_closed():
                loop.remove_reader(asked.fd)
            if not asked.answer.done():
                asked.answer.set_exception(ChildGone("the server is closing"))
            self._idle.append(child)
        self._asked.clear()
        for child in self._children:
            child.close()


@dataclass
class Asked:
    """A move asked of the computer, and the future its answer goes to."""

    level: int
    board: Board
    answer: asyncio.Future[Message]
    client: str = ""  # who asked (`ninefold.web.limits.client_key`)
    fd: int = -1  # the pipe of the worker it was given to
