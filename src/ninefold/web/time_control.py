"""A web game's time control: a bank and an increment (`WebTimeControl`), and the page's presets.

An online game may have a `WebTimeControl` (the competition's 10 s + 500 ms is among
the `CLOCKS`): a side's time runs from the other side's move, from each side's
second move on (`TIMED_FROM_PLY`), and a side whose time runs out loses
(`ninefold.web.games.WebGame.settle` notes it).
"""

from __future__ import annotations

from dataclasses import dataclass

TIMED_FROM_PLY = 2  # a clock runs from this move on: each side's first move is free
MAX_BANK_MS = 3 * 3600 * 1000
MAX_INCREMENT_MS = 60 * 1000


@dataclass(frozen=True)
class WebTimeControl:
    """A game's time control: each side starts with `bank_ms` and gains `increment_ms`
    with each move it makes; with `capped`, the bank never grows past its start (the
    competition's rule: increments that would overflow are lost).

    >>> WebTimeControl(10_000, 500, capped=True).after(9_800.0, spent=100.0)
    10000.0
    >>> WebTimeControl(60_000, 1_000).after(30_000.0, spent=2_500.0)
    28500.0
    """

    bank_ms: int
    increment_ms: int = 0
    capped: bool = False

    def __post_init__(self) -> None:
        if not 1000 <= self.bank_ms <= MAX_BANK_MS:
            raise ValueError("a clock's bank must be 1 s to 3 hours")
        if not 0 <= self.increment_ms <= MAX_INCREMENT_MS:
            raise ValueError("a clock's increment must be 0 to 60 s")

    def after(self, left: float, spent: float) -> float:
        """The time left after a move that took `spent` ms with `left` before it."""
        left = left - spent + self.increment_ms
        return min(left, float(self.bank_ms)) if self.capped else left

    def __str__(self) -> str:
        text = f"{self.bank_ms / 1000:g} s + {self.increment_ms / 1000:g} s"
        return text + " (the bank never grows past its start)" if self.capped else text


CLOCKS = {  # the page's choices; "competition" is the seeds' 10 s bank + 500 ms a move
    "competition": WebTimeControl(10_000, 500, capped=True),
    "blitz": WebTimeControl(180_000, 2_000),
    "rapid": WebTimeControl(600_000, 5_000),
}
