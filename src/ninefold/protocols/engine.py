"""The bot's player, ready at once: the search loads in the background, a fallback answers.

A platform starts a bot and asks for its first move at once (CodinGame: within
1,000 ms), but the search needs numba, its compiled functions (compiled first,
10-20 s, when the cache is empty) and its tree buffers. `Engine` is a `Player`
that starts loading the real player in a background thread (`start`: the
import, the compiled functions, the buffers and a warm-up move) and answers
meanwhile with a cheap pure-Python fallback (`book`: an opening book, then the
naive player). A request that comes while the search loads is answered from
the book at once if the book knows the position; otherwise it waits for the
search for all its think time but a margin (`timing.engine_wait_ms`): if the
search becomes ready meanwhile it plays the rest of the time, else the
fallback answers. It stops waiting as soon as the loader finds that a child
process must compile the search (an empty cache, about 20 s: nothing is gained
by waiting), and when the loading thread has lately waited for a CPU
(`Contention`: the answer would wait, unseen, for the interpreter lock the
loader holds) it waits a margin less. Once the search is ready it plays every
later move.

When it becomes ready, one line on stderr says so and how long it took. A
player spec that cannot be made is reported through `on_error` (the bot
command ends the process with the message).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

from ninefold import timing
from ninefold.players.base import Limit, Player, PlayResult, check_name, make_player, player_kind
from ninefold.players.book import BookPlayer
from ninefold.players.warmup import needs_compiling
from ninefold.rules import Board, Rules

WARM_UP_MS = 10  # the warm-up move, played in the background before the search is ready


def warm_up(player: Player, rules: Rules) -> None:
    """Let `player` compile or load what it needs: one short move, then a new game."""
    with contextlib.suppress(Exception):
        player.play(Board(rules), Limit(move_ms=WARM_UP_MS))
    player.new_game()
    # what the warm-up made lives on: no collection walks it again (a full collection of
    # a warmed-up bot takes 130-190 ms, longer than a turn; no collect here for that reason)
    gc.freeze()


class Engine(Player):
    """The player `spec`, loaded in the background; `fallback` answers until it is ready."""

    def __init__(self, spec: str, rules: Rules | str = "standard",
                 fallback: Player | None = None, log: TextIO | None = None,
                 on_error: Callable[[Exception], None] | None = None) -> None:
        self.spec = spec
        self.rules = Rules.parse(rules)
        self.fallback = fallback or BookPlayer()
        self.log = log
        self.on_error = on_error
        self.player: Player | None = None
        self.error: Exception | None = None
        self.load_s: float | None = None
        self._ready = threading.Event()
        self._settled = threading.Event()  # ready, compiling in a child, or failed: no wait
        self._thread: threading.Thread | None = None
        self._contention = Contention()  # of the loading thread

    @property
    def ready(self) -> bool:
        """True once the real player is loaded and warm."""
        return self._ready.is_set()

    def start(self) -> None:
        """Start loading the real player in the background (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._load, name="engine-load", daemon=True)
            self._thread.start()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to `timeout_s` for the real player; True if it is ready."""
        return self._ready.wait(timeout_s)

    def _load(self) -> None:
        t0 = time.monotonic()
        self._contention.start(threading.get_native_id())
        # while the loader runs Python, a thread that needs the interpreter lock (the
        # main thread, to read a request or write an answer) gets it sooner
        interval = sys.getswitchinterval()
        sys.setswitchinterval(min(interval, timing.LOADING_SWITCH_S))
        try:
            self._load_player()
        finally:
            sys.setswitchinterval(interval)
        if self.player is not None:
            self.load_s = time.monotonic() - t0
            self._ready.set()
            self._note(f"engine ready after {self.load_s:.2f} s ({self.spec})")
        self._settled.set()

    def _load_player(self) -> None:
        try:
            with _without_blas():
                self._load_search()
        except Exception as exc:  # a bad spec, or a search that cannot load here
            self.error = exc
            self._note(f"cannot load the player {self.spec}: {exc}")
            if self.on_error is not None:
                self.on_error(exc)

    def _load_search(self) -> None:
        """Import, compile or load, make and warm up the player (`self.player`)."""
        player_kind(check_name(self.spec))  # imports the player's module (and numba)
        if needs_compiling():
            # compiling in this process would hold the interpreter lock for seconds at
            # a time and make the fallback's answers late: a child fills the cache
            self._note("compiling the search in a child process (first run, about 20 s)")
            self._settled.set()  # no request waits for the search meanwhile
            try:
                _compile_in_child()
            finally:
                self._settled.clear()  # it loads from the cache now: worth a wait again
        player = make_player(self.spec)
        warm_up(player, self.rules)
        self.player = player

    def _note(self, text: str) -> None:
        with contextlib.suppress(Exception):
            out = self.log or sys.stderr
            out.write(f"ninefold: {text}\n")
            out.flush()

    def fallback_knows(self, board: Board) -> bool:
        """True if the fallback has a book move for `board` (made offline by the strong
        search, far longer than a turn): then nothing is gained by waiting."""
        return isinstance(self.fallback, BookPlayer) and self.fallback.knows(board)

    def new_game(self) -> None:
        if self.player is not None:
            self.player.new_game()
        self.fallback.new_game()

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        t0 = time.monotonic()
        think_ms = _think_ms(board, limit)
        if not self.ready:
            # the loader may have kept the main thread from reading this request for a
            # while, unseen: a turn that began while it ran ends early, whoever answers
            think_ms = max(1.0, think_ms - timing.LOADING_MARGIN_MS)
            if self._thread is not None and not self.fallback_knows(board):
                wait_ms = timing.engine_wait_ms(think_ms, self._contention.share())
                self._settled.wait(wait_ms / 1000.0)
        if self.player is None:
            result = self.fallback.play(board, limit)
            result.info["engine"] = "loading"
            return result
        if limit.move_ms is None:
            return self.player.play(board, limit)
        left_ms = think_ms - (time.monotonic() - t0) * 1000.0
        return self.player.play(board, dataclasses.replace(limit, move_ms=max(1.0, left_ms)))


class Contention:
    """The share of the time a thread has lately waited for a CPU while it could run:
    since the last look, or since `start` (Linux's per-thread scheduler statistics; 0
    where they cannot be read).

    The search loads in Python and holds the interpreter lock nearly all the time; on a
    busy machine the OS often takes the CPU from it while it holds the lock, and the
    bot's main thread then waits for the lock, unseen by its clock, before it can read a
    request or write an answer. Each turn looks once: the share since the last turn.
    """

    def __init__(self) -> None:
        self._tid: int | None = None
        self._since: tuple[int, float] | None = None  # (ns waited, at)

    def _waited_ns(self) -> int | None:
        try:
            with open(f"/proc/self/task/{self._tid}/schedstat") as f:
                return int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            return None

    def start(self, tid: int) -> None:
        """Count from now, for the thread `tid` (a native thread id)."""
        self._tid = tid
        waited = self._waited_ns()
        self._since = None if waited is None else (waited, time.monotonic())

    def share(self) -> float:
        """The share of the time since the last look (or `start`) that the thread waited
        for a CPU."""
        if self._since is None:
            return 0.0
        waited0, t0 = self._since
        waited, now = self._waited_ns(), time.monotonic()
        if waited is None or now <= t0:
            return 0.0
        self._since = (waited, now)
        return min(1.0, max(0.0, (waited - waited0) / 1e9 / (now - t0)))


def _think_ms(board: Board, limit: Limit) -> float:
    """About how long this move may take: the move's time, or a bank's planned share."""
    if limit.move_ms is not None:
        return limit.move_ms
    if limit.bank_ms is not None:
        empty = sum(cell is None for cell in board.cells)
        return timing.bank_plan(limit.bank_ms, limit.increment_ms or 0.0, limit.max_bank_ms,
                                empty).think_ms
    return timing.DEFAULT_PLAYER_MS


@contextlib.contextmanager
def _without_blas() -> Iterator[None]:
    """While the search loads, `import scipy.linalg` fails at once: numba, loading its
    first compiled function, checks for a BLAS by importing it (0.37 s of a 1.05 s load,
    measured) and, finding none, registers no linear algebra, which no search uses.
    Afterwards scipy.linalg imports as usual."""
    if "scipy.linalg" in sys.modules:
        yield
        return
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if "scipy.linalg" in sys.modules and sys.modules["scipy.linalg"] is None:
            del sys.modules["scipy.linalg"]


def _compile_in_child() -> None:
    """Fill numba's cache with `ninefold warmup` in a child process (same cache folder)."""
    import subprocess

    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run([sys.executable, "-m", "ninefold", "warmup"], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=timing.CHILD_COMPILE_S, check=False)
