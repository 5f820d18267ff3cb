"""Rule sets and results: which variant is played, and how a game ended.

`Rules` is three orthogonal options (won boards closed or open, the win by a
line of boards or by five boards, a full grid drawn or counted); `PRESETS`
names the four usual sets. `Outcome` and `Termination` say how a game ended.
`ninefold.rules` re-exports every name.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from ninefold.moves import Mark, X
from ninefold.options import Option, OptionError, Schema, clip, split_pairs

RULES_SCHEMA = Schema(
    "rules",
    [
        Option("boards", str, choices=("closed", "open")),
        Option("win", str, choices=("line", "five")),
        Option("full", str, choices=("draw", "count")),
    ],
)
_OPTIONS = "boards=closed|open, win=line|five, full=draw|count"

# --- rules ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """A rule set, made of three orthogonal options.

    - `open_boards`: a won small board stays playable until it is full; its
      first owner keeps it whatever happens in it later.
    - `win`: ``"line"`` (three owned boards in a row) or ``"five"`` (the first to
      own five boards wins at once, as in Tic-Tac-Ku).
    - `full_grid`: what happens when no legal move remains: ``"draw"``, or
      ``"count"`` (more owned boards wins, equal counts draw).

    >>> Rules.parse("codingame")
    Rules('codingame')
    >>> Rules.parse("standard,win=five").name
    'boards=closed,win=five,full=draw'
    >>> Rules.parse("boards=open,win=five,full=count").name
    'tic-tac-ku'
    """

    open_boards: bool = False
    win: str = "line"
    full_grid: str = "draw"

    def __post_init__(self) -> None:
        if self.win not in ("line", "five"):
            raise ValueError(f"win must be 'line' or 'five', not {self.win!r}")
        if self.full_grid not in ("draw", "count"):
            raise ValueError(f"full_grid must be 'draw' or 'count', not {self.full_grid!r}")

    @property
    def name(self) -> str:
        """The preset's name, or the options spelled out."""
        for name, preset in PRESETS.items():
            if preset == self:
                return name
        boards = "open" if self.open_boards else "closed"
        return f"boards={boards},win={self.win},full={self.full_grid}"

    @property
    def flags(self) -> int:
        """The options as the kernel's bit flags."""
        return (
            (FLAG_OPEN_BOARDS if self.open_boards else 0)
            | (FLAG_WIN_FIVE if self.win == "five" else 0)
            | (FLAG_COUNT_FULL if self.full_grid == "count" else 0)
        )

    @classmethod
    def parse(cls, text: str | Rules) -> Rules:
        """A preset name, options ``key=value`` separated by commas, or both
        (the preset first, the options changing it); `OptionError` if not.

        >>> Rules.parse("boards=open,boards=closed")
        Traceback (most recent call last):
        ...
        ninefold.options.OptionError: rules: 'boards' is given twice
        """
        if isinstance(text, Rules):
            return text
        if not isinstance(text, str):
            raise OptionError(f"rules must be text like 'standard', not {clip(text)}")
        pairs = split_pairs(text, "rules")
        if not pairs:
            raise OptionError(f"empty rules: name a preset ({', '.join(PRESETS)}) or {_OPTIONS}")
        rules = PRESETS["standard"]
        name, value = pairs[0]
        if value is None:
            if name not in PRESETS:
                raise OptionError(
                    f"unknown rules preset {clip(name)}: choose one of {', '.join(PRESETS)}"
                    f" (or options {_OPTIONS})"
                )
            rules, pairs = PRESETS[name], pairs[1:]
        for key, value in pairs:
            if value is None and key in PRESETS:
                raise OptionError(f"rules: the preset {key!r} must come first, before options")
        values = RULES_SCHEMA.parse_pairs(pairs)
        if "boards" in values:
            rules = replace(rules, open_boards=values["boards"] == "open")
        if "win" in values:
            rules = replace(rules, win=values["win"])
        if "full" in values:
            rules = replace(rules, full_grid=values["full"])
        return rules

    def __repr__(self) -> str:
        return f"Rules({self.name!r})"


FLAG_OPEN_BOARDS = 1
FLAG_WIN_FIVE = 2
FLAG_COUNT_FULL = 4

PRESETS: dict[str, Rules] = {
    "standard": Rules(),
    "codingame": Rules(full_grid="count"),
    "open-boards": Rules(open_boards=True),
    "tic-tac-ku": Rules(open_boards=True, win="five", full_grid="count"),
}


# --- results ----------------------------------------------------------------------------


class Termination(enum.Enum):
    """Why a game ended. The first four come from the rules, the rest from a referee."""

    LINE = "line"  # three in a row: owned small boards (or cells, in classic tic-tac-toe)
    FIVE_BOARDS = "five-boards"  # Tic-Tac-Ku: five owned small boards
    BOARD_COUNT = "board-count"  # no legal move left; more owned boards wins
    NO_MOVES = "no-moves"  # no legal move left and no winner: a draw
    TIME_FORFEIT = "time-forfeit"
    ILLEGAL_MOVE = "illegal-move"
    BOT_FAILURE = "bot-failure"  # crashed, unreadable answer, protocol error
    RESIGNATION = "resignation"
    ADJUDICATION = "adjudication"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winner (None for a draw) and the reason.

    >>> Outcome(X, Termination.LINE).result()
    '1-0'
    """

    winner: Mark | None
    termination: Termination

    def result(self) -> str:
        """The result as a game record writes it: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is X else "0-1"

    def score(self, mark: Mark) -> float:
        """1 for a win of `mark`, 0.5 for a draw, 0 for a loss."""
        return 0.5 if self.winner is None else float(self.winner is mark)
