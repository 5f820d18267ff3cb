"""The bot's end of a protocol: `BotRunner` runs a ninefold `Player` as a bot on stdin/stdout.

A subclass per protocol reads its lines (`run`) and calls `choose` when a
move is asked for; the budgets come from `ninefold.timing`.
"""

from __future__ import annotations

import contextlib
import os
import random
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any, TextIO

from ninefold import timing
from ninefold.players.base import Limit, Player
from ninefold.protocols import engine
from ninefold.rules import Board, Move, Rules


class BotRunner(ABC):
    """Runs a ninefold `Player` as a bot on a text stream, managing its own time.

    `choose` never lets the player overrun: the player gets a conservative
    budget, and if it is still thinking at the hard deadline a legal move is
    sent anyway (the player's late answer is dropped).
    """

    protocol = "?"
    safety_ms = timing.RUNNER_SAFETY_MS  # kept back for reading, writing and the pipe

    def __init__(self, player: Player, rules: Rules | str = "standard",
                 inp: TextIO | None = None, out: TextIO | None = None,
                 log: TextIO | None = None) -> None:
        self.player = player
        self.rules = Rules.parse(rules)
        self.inp = inp or sys.stdin
        self.out = out or sys.stdout
        self.log = log or sys.stderr
        self.rng = random.Random()
        self._busy = threading.Event()
        # The platform's clock for the first request runs from about when the
        # process started (imports and warm-up count): remember when that was.
        self.started = time.monotonic() - process_age_s()
        self.requests = 0

    def startup_ms(self) -> float:
        """For the first request: time already spent since the process started."""
        if self.requests:
            return 0.0
        return (time.monotonic() - self.started) * 1000.0

    def warm_up(self) -> None:
        """Let the player compile or load whatever it needs before the clock runs
        (an `Engine` loads in the background and answers meanwhile)."""
        if isinstance(self.player, engine.Engine):
            self.player.start()
        else:
            engine.warm_up(self.player, self.rules)

    def say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def note(self, text: str) -> None:
        with contextlib.suppress(Exception):
            self.log.write(f"ninefold: {text}\n")
            self.log.flush()

    def choose(self, board: Board, budget_ms: float, hard_ms: float,
               fallback: list[Move] | None = None) -> Move:
        """A legal move for `board` within `hard_ms` (from now), thinking about `budget_ms`."""
        t0 = time.monotonic()
        legal = fallback if fallback is not None else list(board.legal_moves)
        if not legal:
            raise ValueError("no legal move")
        if len(legal) == 1:
            return legal[0]
        if self._busy.is_set():  # the player is still stuck on an earlier move
            self.note("player still busy: playing a random move")
            return self.rng.choice(legal)
        box: dict[str, Any] = {}
        done = threading.Event()

        def think() -> None:
            self._busy.set()
            try:
                box["move"] = self.player.play(
                    board.copy(), Limit(move_ms=max(1.0, budget_ms))
                ).move
            except Exception as exc:
                box["error"] = exc
            finally:
                self._busy.clear()
                done.set()

        threading.Thread(target=think, daemon=True).start()
        wait_s = max(0.0, hard_ms / 1000.0 - (time.monotonic() - t0))
        if not done.wait(wait_s):
            self.note(f"player overran {hard_ms:.0f} ms: playing a random move")
            return self.rng.choice(legal)
        move = box.get("move")
        if move is None or move not in legal:
            self.note(f"player gave {move!r} ({box.get('error')!r}): playing a random move")
            return self.rng.choice(legal)
        return move

    def bank_budget(self, bank_ms: float, increment_ms: float) -> timing.Plan:
        """(think, hard) times in ms for a request with `bank_ms` left in the bank."""
        return timing.runner_bank_plan(bank_ms, increment_ms, self.safety_ms)

    def turn_budget(self, turn_ms: float) -> timing.Plan:
        """(think, hard) times in ms for a fixed time per turn."""
        return timing.runner_turn_plan(turn_ms, self.safety_ms)

    @abstractmethod
    def run(self) -> int:
        """Play until the input ends; returns the exit status."""


def process_age_s() -> float:
    """Seconds since this process started (0 if unknown)."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def read_lines(stream: TextIO) -> Iterator[str]:
    """The lines of `stream`, stripped, until it ends (empty lines skipped)."""
    for raw in stream:
        line = raw.strip()
        if line:
            yield line
