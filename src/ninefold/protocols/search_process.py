"""The bot's search in a process of its own, asked for moves over a pipe: both ends.

``ninefold bot`` answers a platform from a lean process (`ninefold.protocols.engine`):
the search loads and plays in this child, so that nothing it does can keep the bot
from reading a request or writing an answer on time. Loading numba holds the
interpreter lock for up to hundreds of ms at a time (compiling, for seconds), and on
a busy machine the OS may stop a thread while it holds it: in one process the bot's
answer then waited for the lock (answers 250-400 ms late in 1,000 turns beside two
busy processes, measured). Here the child holds its own lock.

The two ends exchange tuples (`ninefold.protocols.child`: the child's start, its
pipes, its end with the bot's):

- to the child: ``("load", spec, rules, defaults)`` first (`defaults` as
  `make_player`'s), then ``("play", id, board, limit, since)`` (``since``,
  `time.monotonic()` in the bot when the request came: the child takes the time
  spent since, the pipe's included, off the limit, once: `play_since`) and
  ``("new_game",)``; a player that `ponders` searches on between them, from the
  position after its move, until the next message comes; ``("search_on", board,
  move, until)`` has any player search on from `board` after `move` (a move the
  bot gave without asking the child: the book's) until `until` (`time.monotonic()`)
  or the next message, so that the next move keeps what it found;
- from the child: ``("compiling",)`` when the search is not in numba's cache (it
  compiles, 10-20 s), ``("ready", seconds, defaulted)`` (the defaults the player
  took, as `Player.defaulted`; none if it could not load with them) or
  ``("error", text)``, then
  ``("result", id, PlayResult)`` or ``("failed", id, text)`` for each request.

`SearchProcess` is the bot's end: a `Player` that plays through the child once it
is ready (`serve` is the child's end). The child ends when its stdin closes, and
with the bot even when the bot is killed.
"""

from __future__ import annotations

import contextlib
import gc
import queue
import sys
import threading
import time
from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ninefold.players.player import GameOverError, Limit, Player, PlayResult
from ninefold.players.registry import make_player
from ninefold.players.warmup import reporting
from ninefold.protocols.child import COMMAND, Child, ChildGone, Parent
from ninefold.rules import Board, Move, Rules

WARM_UP_MS = 10  # the warm-up move, played before the search says it is ready
GC_AFTER_ANSWER = 1  # the generations the child collects once an answer is sent
TARGET = "ninefold.protocols.search_process:serve"  # the child's function

def warm_up_player(player: Player, rules: Rules) -> None:
    """Let `player` compile or load what it needs: one short move, then a new game."""
    with contextlib.suppress(Exception):
        player.play(Board(rules), Limit(move_ms=WARM_UP_MS))
    player.new_game()
    # what the warm-up made lives on: no collection walks it again (a full collection of
    # a warmed-up bot takes 130-190 ms, longer than a turn; no collect here for that reason)
    gc.freeze()


def play_since(player: Player, board: Board, limit: Limit, since: float) -> PlayResult:
    """`player`'s move on `board` with `limit`, a clock that has run since `since` (a
    `time.monotonic()` value: every process of this computer shares that clock). The
    time spent is taken off here, once, just before the search: a `Relay` hands
    `since` on to the process where its search runs, which takes it off there.

    >>> from ninefold.players.naive import NaivePlayer
    >>> play_since(NaivePlayer(), Board(), Limit(move_ms=100), time.monotonic()).move.action >= 0
    True
    """
    if isinstance(player, Relay):
        return player.play_since(board, limit, since)
    return player.play(board, limit.spent(1000.0 * (time.monotonic() - since)))


class Relay(Player):
    """A player whose search runs elsewhere (another process): it passes on since when
    the clock has run (`play_since`) instead of taking the time off itself."""

    @abstractmethod
    def play_since(self, board: Board, limit: Limit, since: float) -> PlayResult:
        """The move on `board`, `limit` counted from `since` (`time.monotonic()`)."""

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        return self.play_since(board, limit, time.monotonic())


# --- the bot's end -----------------------------------------------------------------------


class SearchProcess(Relay):
    """The player `spec` in a child process (a `child.Child` running `serve`;
    `command`: how to start Python there, default `child.COMMAND`). `start` launches
    it and sends what to load; `messages` yields what it says until it ends (one
    thread reads them: the answers to `play` are handed over as they come). A request
    to a search that has ended raises `ChildGone`."""

    def __init__(self, spec: str, rules: Rules, command: Sequence[str] = COMMAND,
                 defaults: Mapping[str, Any] | None = None) -> None:
        self.spec = spec
        self.rules = rules
        self.defaults = dict(defaults or {})
        self.child = Child(TARGET, command)
        self._answers: queue.Queue[tuple[Any, ...] | None] = queue.Queue()
        self._asked = 0
        self._gone = False

    def start(self) -> None:
        """Launch the child and tell it what to load (`OSError` if it cannot start)."""
        self.child.start()
        self._send(("load", self.spec, self.rules, self.defaults))

    def messages(self) -> Iterator[tuple[Any, ...]]:
        """What the child says, until it ends; answers to `play` go to the player."""
        try:
            for message in self.child.messages():
                if message[0] in ("result", "failed"):
                    self._answers.put(message)
                else:
                    yield message
        finally:
            self._gone = True
            self._answers.put(None)  # wakes a request still waiting

    def _send(self, message: tuple[Any, ...]) -> None:
        if self._gone:
            raise ChildGone("the search process has ended")
        try:
            self.child.send(message)
        except ChildGone:
            self._gone = True
            raise

    def new_game(self) -> None:
        with contextlib.suppress(ChildGone):
            self._send(("new_game",))

    def play_since(self, board: Board, limit: Limit, since: float) -> PlayResult:
        if board.is_game_over():
            raise GameOverError(f"{self.spec}: the game is over, there is no move to choose")
        self._asked += 1
        asked = self._asked
        self._send(("play", asked, board, limit, since))
        while True:
            answer = self._answers.get()
            if answer is None:
                self._answers.put(None)  # for any later request too
                raise ChildGone("the search process ended during a move")
            kind, number, payload = answer
            if number != asked:
                continue  # the late answer to a request given up on
            if kind == "failed":
                raise RuntimeError(payload)
            if not isinstance(payload, PlayResult):
                raise RuntimeError(f"the search process answered {payload!r}, not a move")
            return payload

    def search_on(self, board: Board, move: Move, until: float) -> None:
        """Have the child search from `board` after `move` (a move given without it) until
        `until` (a `time.monotonic()` value) or the next request; no answer comes."""
        self._send(("search_on", board, move, until))

    def close(self) -> None:
        """End the child (its stdin closes: it stops after the move it is on) and wait."""
        self.child.close()


# --- the child's end ---------------------------------------------------------------------


def serve(parent: Parent) -> None:
    """The child: load the player it is told, say it is ready, then answer requests
    until the bot's end closes."""
    send = parent.send

    def compiling(done: int, total: int, seconds: float) -> None:
        if done == 0:  # the spec is good, and the search is not in numba's cache
            send(("compiling",))  # the bot's requests stop waiting for the search

    first = parent.receive()
    if first is None or first[0] != "load":
        return
    _, spec, rules, defaults = first
    t0 = time.monotonic()
    try:
        with _without_blas(), reporting(compiling):
            try:
                player = make_player(spec, defaults)  # checks the options, then compiles
                warm_up_player(player, rules)                 # or loads
            except Exception as exc:
                if not defaults:
                    raise
                player = make_player(spec)  # the defaults do not fit here (memory, say)
                warm_up_player(player, rules)
                sys.stderr.write(f"search: loaded without the defaults {defaults}: {exc}\n")
    except Exception as exc:  # a bad spec, or a search that cannot load here
        send(("error", str(exc)))
        return
    send(("ready", time.monotonic() - t0, player.defaulted))
    gc.disable()  # young objects are collected after each answer, off the clock
    pondering = _Pondering(player)
    try:
        for message in parent:
            pondering.stop()
            if message[0] == "new_game":
                player.new_game()
            elif message[0] == "play":
                _, number, board, limit, since = message
                result: PlayResult | None = None
                try:
                    result = play_since(player, board, limit, since)
                except Exception as exc:
                    send(("failed", number, f"{type(exc).__name__}: {exc}"))
                else:
                    send(("result", number, result))
                gc.collect(GC_AFTER_ANSWER)
                if result is not None:
                    pondering.start(board, result.move)
            elif message[0] == "search_on":
                _, board, move, until = message
                pondering.start(board, move, until)
    finally:
        pondering.stop()


class _Pondering:
    """The player thinking on after a move, in a thread while the child waits for the
    next message; stopped before that message is handled: on the opponent's time (if
    the player `ponders`), or on the bot's own until a given time (`search_on`)."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.thread: threading.Thread | None = None
        self.halt = threading.Event()

    def start(self, board: Board, move: Move, until: float | None = None) -> None:
        """Think on from `board` after `move`: until the next message if the player
        `ponders`, or, whatever it says, until `until` (`time.monotonic()`) at the latest."""
        if until is None and not self.player.ponders:
            return
        try:
            after = board.copy()
            after.push(move)
            self.halt = threading.Event()
            if until is not None:
                timer = threading.Timer(max(0.0, until - time.monotonic()), self.halt.set)
                timer.daemon = True
                timer.start()
            thread = threading.Thread(target=self._run, args=(after, self.halt),
                                      name="ponder", daemon=True)
            thread.start()
        except Exception as exc:  # the child serves on, without pondering this time
            print(f"cannot ponder: {type(exc).__name__}: {exc}", file=sys.stderr)
            return
        self.thread = thread

    def _run(self, board: Board, halt: threading.Event) -> None:
        try:
            self.player.ponder(board, halt)
        except Exception as exc:  # the next move searches as if nothing was pondered
            print(f"pondering failed: {type(exc).__name__}: {exc}", file=sys.stderr)

    def stop(self) -> None:
        if self.thread is not None:
            self.halt.set()
            self.thread.join()
            self.thread = None


@contextlib.contextmanager
def _without_blas() -> Iterator[None]:
    """While the search loads, `import scipy.linalg` fails at once: numba, loading its
    first compiled function, checks for a BLAS by importing it (0.37 s of a 1.05 s load,
    measured) and, finding none, registers no linear algebra, which no search uses.
    Afterwards scipy.linalg imports as usual."""
    if "scipy.linalg" in sys.modules:
        yield
        return
    # None blocks the import; the stub types every entry as a module
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if "scipy.linalg" in sys.modules and sys.modules.get("scipy.linalg") is None:
            del sys.modules["scipy.linalg"]
