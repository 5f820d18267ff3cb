"""Players for the engine's tests that load slowly, as a search does, and the command that
starts the engine's search process with them known (`command`).

The engine makes its player in a child process (`ninefold.protocols.search_process`),
which knows only ninefold's players: `command` imports this module there first.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from ninefold.players import Limit, Player, PlayResult, register, warmup
from ninefold.rules import Board

HERE = str(Path(__file__).resolve().parent)


@register("slowload-test")
class SlowToLoad(Player):
    """A player that takes `delay` seconds to make, as a search loading its kernel."""

    def __init__(self, delay: float = 1.0) -> None:
        # its "search" is a sleep, warmed up as a search is (compiled, says `command`)
        warmup.add("slowload-test", delay, [(time.sleep, lambda: (delay,))])
        warmup.compile_searches("slowload-test")

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        return PlayResult(list(board.legal_moves)[-1], {"slow": True})


@register("lockload-test")
class HoldsTheLock(Player):
    """A player that holds its process's interpreter lock while it loads, in C calls of
    about `hold` seconds each, as numba does loading its compiled functions."""

    def __init__(self, seconds: float = 1.5, hold: float = 0.3) -> None:
        n = 1_000_000
        t0 = time.perf_counter()
        sum(range(n))
        per = (time.perf_counter() - t0) / n
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            sum(range(int(hold / per)))  # one C call: the lock is never let go meanwhile

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        return PlayResult(next(iter(board.legal_moves)), {"held": True})


@register("sleepy-test")
class Sleepy(Player):
    """A player that takes `ms` for every move, whatever its limit."""

    def __init__(self, ms: float = 500.0) -> None:
        self.ms = ms

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        time.sleep(self.ms / 1000.0)
        return PlayResult(next(iter(board.legal_moves)), {"sleepy": True})


@register("ponders-test")
class Ponders(SlowToLoad):
    """A player that loads for `delay` seconds and says, with each move, what it was
    last given to think on after a move (`ponder`) and for how long."""

    def __init__(self, delay: float = 0.3) -> None:
        super().__init__(delay)
        self.pondered: tuple[str, float] | None = None

    def ponder(self, board: Board, stop: threading.Event) -> int:
        t0 = time.monotonic()
        stop.wait(30)
        self.pondered = (board.position(), 1000.0 * (time.monotonic() - t0))
        return 1

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        pondered, self.pondered = self.pondered, None
        return PlayResult(list(board.legal_moves)[-1], {"pondered": pondered})


def command(compiling: bool = False) -> tuple[str, ...]:
    """The engine's search process with these players known; `compiling`: it says the
    search must be compiled, as with an empty numba cache."""
    code = f"import sys; sys.path.insert(0, {HERE!r}); import search_players; "
    code += "from ninefold.protocols import child; "
    if compiling:
        code += "from ninefold.players import warmup; "
        code += "warmup.needs_compiling = lambda names=None: True; "
    return (sys.executable, "-c", code + "child.main()")
