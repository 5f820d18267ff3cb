"""The referee's clock: a `TimeControl` (what the bot is given) and a `Clock` (one game's count).

>>> tc = TimeControl.parse("bank=10000,inc=500")
>>> clock = Clock(tc)
>>> clock.told_ms()
10000
>>> clock.charge(9700.0)   # the bot took 9.7 s: bank = min(max(10000 - 9700, 0) + 500, 10000)
>>> clock.told_ms()
800
>>> TimeControl.parse("turn=100,first=1000").turn_ms_for(0)
1000
>>> TimeControl.parse("slack=-100")
Traceback (most recent call last):
...
ninefold.options.OptionError: time control: slack=-100 must be at least 0
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from ninefold.options import Option, OptionError, Schema
from ninefold.players.player import Limit

DAY_MS = 86_400_000  # no time in a time control may exceed a day

# (key in text, field, least value, what it is in an error message)
_KEYS: tuple[tuple[str, str, int, str], ...] = (
    ("bank", "bank_ms", 1, "the time bank (bank=)"),
    ("inc", "increment_ms", 0, "the increment (inc=)"),
    ("max", "max_bank_ms", 1, "the largest bank (max=)"),
    ("turn", "turn_ms", 1, "the time per turn (turn=)"),
    ("first", "first_turn_ms", 1, "the first turn's time (first=)"),
    ("startup", "first_move_ms", 0, "the first-move allowance (--first-move-ms, startup=)"),
    ("slack", "slack_ms", 0, "the slack (--slack-ms, slack=)"),
)
SCHEMA = Schema("time control", [Option(key, int, low=low, high=DAY_MS)
                                 for key, _, low, _ in _KEYS])


@dataclass(frozen=True)
class TimeControl:
    """How much time a bot has, and how the referee counts it.

    Two kinds, as on the platforms:

    - a **time bank** (AI Games, Riddles): the bot starts with `bank_ms`, which
      is also the maximum (`max_bank_ms` if set); after each answer
      ``bank = min(max(bank - elapsed, 0) + increment_ms, max)``. The bot must
      answer within what is left in its bank.
    - a **fixed time per turn** (CodinGame): `first_turn_ms` for the bot's
      first turn, `turn_ms` for each later one. Used when `turn_ms` is set.

    Two referee allowances that no platform states but every arena needs:
    `first_move_ms` is added to the deadline of a bot's first answer (it
    includes the process start-up: Java or Python can take seconds), and is
    not charged to its bank; `slack_ms` is added to every deadline (pipes and
    process scheduling are not free; CodinGame bots often take 105-108 ms).

    Every value is checked when the value is made, however it is made (text,
    the command line's allowances, a TOML file, storage): whole milliseconds,
    none negative, none above a day (`DAY_MS`).
    """

    bank_ms: int = 10000
    increment_ms: int = 500
    max_bank_ms: int | None = None
    turn_ms: int | None = None
    first_turn_ms: int | None = None
    first_move_ms: int = 0
    slack_ms: int = 0

    def __post_init__(self) -> None:
        for _, name, low, what in _KEYS:
            value = getattr(self, name)
            if value is None and name in ("max_bank_ms", "turn_ms", "first_turn_ms"):
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(f"time control: {what} must be a whole number of ms, "
                                  f"not {value!r}")
            if not low <= value <= DAY_MS:
                raise OptionError(f"time control: {what} must be {low} to {DAY_MS} ms "
                                  f"(a day), not {value}")

    @classmethod
    def for_protocol(cls, protocol: str | None) -> TimeControl:
        """The platform's own time control (no allowances; `PLATFORMS`), the default
        time bank for an unknown protocol.

        >>> print(TimeControl.for_protocol("codingame"), TimeControl.for_protocol("riddles"))
        turn=100,first=1000 bank=10000,inc=500
        """
        return PLATFORMS.get(protocol or "", cls())

    @classmethod
    def parse(cls, text: str, base: TimeControl | None = None) -> TimeControl:
        """``key=value`` pairs separated by commas, changing `base`.

        Keys: ``bank``, ``inc``, ``max`` (a time bank), ``turn``, ``first`` (a
        fixed time per turn), ``startup`` (first-move allowance), ``slack``;
        all whole milliseconds. A protocol name gives its platform's control.
        Raises `OptionError` (a ValueError) with the reason.
        """
        name = text.strip().lower()
        if name in PLATFORMS:
            return cls.for_protocol(name)
        values = SCHEMA.parse(text)
        names = {key: field for key, field, _, _ in _KEYS}
        return replace(base or cls(), **{names[key]: value for key, value in values.items()})

    def with_allowances(self, first_move_ms: int | None, slack_ms: int | None) -> TimeControl:
        """This control with the referee's allowances (None: keep the current one)."""
        changes = {}
        if first_move_ms is not None:
            changes["first_move_ms"] = first_move_ms
        if slack_ms is not None:
            changes["slack_ms"] = slack_ms
        return replace(self, **changes)

    @property
    def is_bank(self) -> bool:
        return self.turn_ms is None

    def turn_ms_for(self, turn: int) -> int:
        """The fixed time for a bot's `turn`-th request (0 = first)."""
        assert self.turn_ms is not None
        return self.first_turn_ms if turn == 0 and self.first_turn_ms else self.turn_ms

    def __str__(self) -> str:
        parts = []
        by_field = {field: key for key, field, _, _ in _KEYS}
        for f in fields(self):
            value = getattr(self, f.name)
            if value in (None, 0):
                continue
            if not self.is_bank and f.name in ("bank_ms", "increment_ms", "max_bank_ms"):
                continue
            parts.append(f"{by_field[f.name]}={value}")
        return ",".join(parts)


# Each protocol's platform and its time control: the one list of the protocols' names.
PLATFORMS: dict[str, TimeControl] = {
    "aigames": TimeControl(),  # a 10 s bank, 500 ms a move
    "riddles": TimeControl(),
    "codingame": TimeControl(turn_ms=100, first_turn_ms=1000),
}
PROTOCOLS = tuple(PLATFORMS)


class Clock:
    """One bot's clock during one game."""

    def __init__(self, tc: TimeControl) -> None:
        self.tc = tc
        self.bank_ms: float = float(tc.bank_ms)
        self.requests = 0  # move requests answered or failed so far
        self.used_ms = 0.0

    def told_ms(self) -> int:
        """The time the bot is told it has for this request."""
        if self.tc.is_bank:
            return int(self.bank_ms)
        return self.tc.turn_ms_for(self.requests)

    def deadline_ms(self) -> float:
        """How long the referee waits for this answer."""
        extra = self.tc.slack_ms + (self.tc.first_move_ms if self.requests == 0 else 0)
        return self.told_ms() + extra

    def limit(self) -> Limit:
        """The same clock as a `Limit` for a built-in player."""
        if self.tc.is_bank:
            return Limit(bank_ms=max(self.bank_ms, 1.0), increment_ms=self.tc.increment_ms,
                         max_bank_ms=self.tc.max_bank_ms or self.tc.bank_ms)
        return Limit(move_ms=self.told_ms())

    def charge(self, elapsed_ms: float) -> None:
        """Count one request that took `elapsed_ms` (answered or not)."""
        if self.requests == 0:
            elapsed_ms = max(0.0, elapsed_ms - self.tc.first_move_ms)
        self.used_ms += elapsed_ms
        if self.tc.is_bank:
            top = self.tc.max_bank_ms or self.tc.bank_ms
            self.bank_ms = min(max(self.bank_ms - elapsed_ms, 0.0) + self.tc.increment_ms, top)
        self.requests += 1
