"""The bot's player, ready at once: the search loads in a child process, a fallback answers.

A platform starts a bot and asks for its first move at once (CodinGame: within
1,000 ms), but the search needs numba, its compiled functions (compiled first,
10-20 s, when the cache is empty) and its tree buffers. `Engine` is a `Player`
that starts the real player in a child process (`start`: a
`ninefold.protocols.child.Child` where `ninefold.protocols.search_process` imports,
compiles or loads, makes and warms up the player) and answers meanwhile with a
cheap pure-Python fallback (`book:then=policy`: an opening book, then the network's
first guess; `quick`, the book then the naive player, for a move given too late).
Nothing the child does holds this process's interpreter lock, so the bot reads
every request and writes every answer on time, even while numba loads on a busy
machine.

A request that comes while the search loads waits for it for its think time
less a margin (`timing.LOADING_MARGIN_MS`): if the search becomes ready
meanwhile it plays the rest of the time, else the fallback answers. A position
the book knows gets the book's move (made offline by a search far longer than a
turn); on a time bank it gets it at once, and on a clock per turn (CodinGame)
only when the search is ready or the wait is over (at most
`timing.BOOK_WAIT_SHARE` of the think time): a turn's time is lost if
unused, and the search goes on loading meanwhile, ready for the turns after
the book's (it takes 1.3-1.6 s to load here; answered at once, the book's
first answers left the next three or four turns to the naive player at
CodinGame's clock, measured). If the search becomes ready during such a
turn, it searches on after the book's move until the turn's wait would have
ended, and the answer waits for it: the next turns keep that tree (at
CodinGame's first turn, about 0.5 s of search otherwise lost). It does not wait while the child
compiles (an empty cache, about 20 s: nothing is gained by waiting). Once the
search is ready it plays every later move but those of the deep lines
(`ninefold.players.book.deep_move`: CodinGame's openings where the second player
is to move, each with the move of a search some seventy turns long), after which
it searches on for the turn as above; if its process ends, the fallback plays on.

The engine is a `search_process.Relay`: it hands on when a request came
(`play_since`), and the search's process takes the time spent since off the
move's clock, once, just before it searches; a request that waits for the
search to load waits from that same moment, for the move's budget as a player
plans it (`timing.move_budget`).

When it becomes ready, one line on stderr says so and how long it took. A
player spec that cannot be made is reported through `on_error` (the bot
command ends the process with the message).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

from ninefold import timing
from ninefold.players.book import BookPlayer, deep_move, load_deep_lines
from ninefold.players.player import Limit, Player, PlayResult
from ninefold.protocols.child import COMMAND, ChildGone
from ninefold.protocols.search_process import Relay, SearchProcess
from ninefold.rules import Board, Move, Rules


class Engine(Relay):
    """The player `spec`, loaded in a child process (`command`: how to start it, see
    `SearchProcess`; `defaults`: options where the spec gives none, see `make_player`);
    `fallback` answers until it is ready."""

    def __init__(self, spec: str, rules: Rules | str = "standard",
                 fallback: Player | None = None, log: TextIO | None = None,
                 on_error: Callable[[Exception], None] | None = None,
                 command: Sequence[str] = COMMAND,
                 defaults: Mapping[str, Any] | None = None) -> None:
        self.spec = spec
        self.rules = Rules.parse(rules)
        self.fallback = fallback or _fallback(log)
        self.quick = BookPlayer()  # the book, then naive: under 1.3 ms (`Runner.rescue`)
        load_deep_lines()  # now, not at the first lookup: 20-80 ms there lost turns on time
        self.log = log
        self.on_error = on_error
        self.search = SearchProcess(spec, self.rules, tuple(command), defaults)
        self.player: SearchProcess | None = None
        self.error: Exception | None = None
        self.load_s: float | None = None
        self._ready = threading.Event()
        self._settled = threading.Event()  # ready, compiling, failed or ended: no wait
        self._thread: threading.Thread | None = None

    @property
    def ready(self) -> bool:
        """True once the real player is loaded and warm."""
        return self._ready.is_set()

    def start(self) -> None:
        """Start the search's process (once); a thread reads what it says."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._load, name="engine-load", daemon=True)
            self._thread.start()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to `timeout_s` for the real player; True if it is ready."""
        return self._ready.wait(timeout_s)

    def settle(self, timeout_s: float) -> None:
        """Wait up to `timeout_s` for the child's first verdict on the spec (ready, failed,
        compiling or ended): a bot whose input ends at once still reports a bad spec."""
        if self._thread is not None:
            self._settled.wait(timeout_s)

    def _load(self) -> None:
        """In the loading thread: start the child, then read it until it ends (this thread
        outlives the child: Linux ends the child when the thread that started it ends)."""
        t0 = time.monotonic()
        try:
            self.search.start()
            for message in self.search.messages():
                if message[0] == "compiling":
                    self._note("compiling the search in a child process (first run, about 20 s)")
                    self._settled.set()  # no request waits for the search meanwhile
                elif message[0] == "ready":
                    self.load_s = time.monotonic() - t0
                    self.player = self.search
                    self._ready.set()
                    self._settled.set()
                    defaulted = message[2]
                    named = f"{self.spec}; defaults {defaulted}" if defaulted else self.spec
                    self._note(f"engine ready after {self.load_s:.2f} s ({named})")
                elif message[0] == "error":
                    self._failed(ValueError(str(message[1])))
        except (OSError, ChildGone) as exc:
            self._failed(exc)
        finally:
            if self.player is not None:
                self._note("the search process has ended: the fallback plays on")
            self.player = None
            self._settled.set()

    def _failed(self, exc: Exception) -> None:
        self.error = exc
        self._note(f"cannot load the player {self.spec}: {exc}")
        if self.on_error is not None:
            self.on_error(exc)

    def _note(self, text: str) -> None:
        with contextlib.suppress(Exception):
            out = self.log or sys.stderr
            out.write(f"ninefold: {text}\n")
            out.flush()

    def new_game(self) -> None:
        if self.player is not None:
            self.player.new_game()
        self.fallback.new_game()

    def close(self) -> None:
        """End the search's process (it also ends with this one)."""
        self.search.close()

    def play_since(self, board: Board, limit: Limit, since: float) -> PlayResult:
        """The search's move (`limit` counted from `since`, a `time.monotonic()` value,
        taken off in the search's process), or the fallback's."""
        deep = deep_move(board) if self.player is not None else None
        if deep is not None:
            return self._deep(deep, board, limit, since)
        loading = None  # a request that came while the search loaded: the fallback's answer,
        book = False    # made before waiting, and whether the book gave it
        until = since   # when the turn's wait for the search ends
        if not self.ready and self._thread is not None:
            loading = self.fallback.play(board, limit)
            book = loading.info.get("reason") == "book"
            if not book or limit.bank_ms is None:  # a turn's time is lost if unused
                think_ms = _think_ms(board, limit)
                until = since + (think_ms - timing.LOADING_MARGIN_MS) / 1000.0
                wait_until = until  # a book position waits for the search a share of it
                if book:
                    wait_until = min(until, since + timing.BOOK_WAIT_SHARE * think_ms / 1000.0)
                self._settled.wait(max(0.0, wait_until - time.monotonic()))
        player = None if book else self.player
        if player is not None:
            with contextlib.suppress(ChildGone):
                return player.play_since(board, limit, since)
        result = loading or self.fallback.play(board, limit)
        if book and self.player is not None:
            self._search_on(self.player, board, result, until)
        # the search's process ended, or the request came while it loaded
        result.info["engine"] = "fallback" if self.ready and not book else "loading"
        return result

    def _deep(self, move: Move, board: Board, limit: Limit, since: float) -> PlayResult:
        """The deep lines' move, the search ready: on a clock per turn the search searches
        on after it for the turn (a turn's time is lost if unused); on a bank it comes
        at once."""
        result = PlayResult(move, {"reason": "book", "engine": "deep lines"})
        if limit.bank_ms is None and self.player is not None:
            until = since + (_think_ms(board, limit) - timing.LOADING_MARGIN_MS) / 1000.0
            self._search_on(self.player, board, result, until)
        return result

    @staticmethod
    def _search_on(search: SearchProcess, board: Board, book: PlayResult,
                   until: float) -> None:
        """The search became ready during a turn the book answers (CodinGame's first: the
        search is ready after about 0.4 s of its 1,000 ms): it searches on after the
        book's move for the rest of the turn, and the answer waits for it, so that the
        next turns keep that tree (a turn's time is lost if unused)."""
        left_s = until - time.monotonic()
        if left_s < timing.SEARCH_ON_LEAST_MS / 1000.0:
            return
        with contextlib.suppress(ChildGone):
            search.search_on(board, book.move, until)
            time.sleep(max(0.0, until - time.monotonic()))
            book.info["searched_on_ms"] = round(1000.0 * left_s)


def _think_ms(board: Board, limit: Limit) -> float:
    """About how long this move may take (`timing.move_budget`, as a player plans it)."""
    budget = timing.move_budget(move_ms=limit.move_ms, bank_ms=limit.bank_ms,
                                increment_ms=limit.increment_ms or 0.0,
                                max_bank_ms=limit.max_bank_ms,
                                empty=sum(cell is None for cell in board.cells))
    return budget.think_ms or timing.DEFAULT_PLAYER_MS


def _fallback(log: TextIO | None) -> Player:
    """The book, then the network's policy (`ninefold.players.policy`); the naive player
    after the book if the network cannot be read."""
    try:
        return BookPlayer(then="policy")
    except ValueError as exc:
        with contextlib.suppress(Exception):
            (log or sys.stderr).write(f"ninefold: {exc}: the naive player answers while "
                                      "the search loads\n")
        return BookPlayer()
