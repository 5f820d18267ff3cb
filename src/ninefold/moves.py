"""The words the rules are written in: marks, lines, moves and the grid as text, openings.

Boards and cells are numbered 0-8 in reading order (top-left 0, centre 4,
bottom-right 8). A move is (board, cell); its text is the square on the 9x9
grid: a column letter ``a``-``i`` from the left and a row number ``1``-``9``
from the top. ``e5`` is the centre cell of the centre board.

>>> Move.parse(" E5 "), str(Move(0, 0)), str(Move(8, 8))
(Move(board=4, cell=4), 'a1', 'i9')

This module imports nothing else of ninefold but `ninefold.options`;
`ninefold.rules` builds the `Board` on it and re-exports every name.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass

from ninefold.options import clip

# The eight lines of a 3x3 grid, as cell indices in reading order. Shared by
# the small boards, the big board and classic tic-tac-toe.
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)


def _square_symmetries() -> tuple[tuple[int, ...], ...]:
    """The eight symmetries of a 3x3 square as maps of the indices 0-8: four quarter
    turns, then the same four after a mirror (the identity first)."""
    maps = []
    for k in range(8):
        m = []
        for i in range(9):
            r, c = divmod(i, 3)
            for _ in range(k % 4):
                r, c = c, 2 - r  # a quarter turn
            if k >= 4:
                c = 2 - c  # a mirror
            m.append(3 * r + c)
        maps.append(tuple(m))
    return tuple(maps)


# The board's eight symmetries: square i of a 3x3 grid goes to SYMMETRIES[k][i]. They
# apply to the big board and to every small board alike.
SYMMETRIES: tuple[tuple[int, ...], ...] = _square_symmetries()

COLUMNS = "abcdefghi"
ROWS = "123456789"


def has_line(cells: list[Mark | None] | tuple[Mark | None, ...], mark: Mark) -> bool:
    """True if `mark` holds three in a row among nine cells in reading order."""
    return any(cells[a] is mark and cells[b] is mark and cells[c] is mark for a, b, c in LINES)


def lines_meet(cells: list[Mark | None] | tuple[Mark | None, ...], mark: Mark) -> bool:
    """True if the lines `mark` holds among nine cells share a cell (the move that made
    the first line made them all), or if there are none."""
    common = set(range(9))
    for line in LINES:
        if all(cells[i] is mark for i in line):
            common &= set(line)
    return bool(common)


class Mark(enum.IntEnum):
    """A player: X moves first."""

    X = 0
    O = 1  # noqa: E741 - the game's own name for the second player

    def __bool__(self) -> bool:
        # X is 0, but a mark is never "nothing": `cell or "."` must keep X.
        return True

    @property
    def other(self) -> Mark:
        """The opponent's mark."""
        return Mark.O if self is Mark.X else Mark.X

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Mark.{self.name}"


X = Mark.X
O = Mark.O  # noqa: E741
MARKS = (X, O)  # both, X first: iterating the enum itself costs microseconds a time


# --- errors -------------------------------------------------------------------------


class InvalidMoveError(ValueError):
    """Text that cannot be read as a move."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in this position."""


class InvalidPositionError(ValueError):
    """A position (string, opening code) that cannot be read or cannot arise."""


class InvalidOpeningError(InvalidPositionError):
    """A random-four opening code that is malformed or plays an illegal move."""


# Their public home is `ninefold.rules` (and `ninefold`): tracebacks and doctests name
# them there, as they did before the words moved into this module.
for _error in (InvalidMoveError, IllegalMoveError, InvalidPositionError, InvalidOpeningError):
    _error.__module__ = "ninefold.rules"


# --- moves ------------------------------------------------------------------------------


def _index(name: str, value: object, top: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= top:
        raise InvalidMoveError(f"{name} must be an integer 0-{top}, not {clip(value)}")
    return value


@dataclass(frozen=True, order=True)
class Move:
    """A move: a small board and a cell in it, both 0-8 in reading order.

    >>> Move(2, 5)
    Move(board=2, cell=5)
    >>> str(Move(2, 5)), Move(2, 5).xy
    ('i2', (8, 1))
    >>> Move.parse("i2") == Move.from_xy(8, 1) == Move.from_action(23)
    True
    """

    board: int
    cell: int

    def __post_init__(self) -> None:
        _index("move board", self.board, 8)
        _index("move cell", self.cell, 8)

    @classmethod
    def from_xy(cls, x: int, y: int) -> Move:
        """The move at column `x`, row `y` of the 9x9 grid (0-8, row 0 on top)."""
        x, y = _index("x", x, 8), _index("y", y, 8)
        return cls(3 * (y // 3) + x // 3, 3 * (y % 3) + x % 3)

    @property
    def xy(self) -> tuple[int, int]:
        """(column, row) on the 9x9 grid."""
        return 3 * (self.board % 3) + self.cell % 3, 3 * (self.board // 3) + self.cell // 3

    @property
    def action(self) -> int:
        """The flat action number ``9 * board + cell`` (0-80) used by the kernel and RL."""
        return 9 * self.board + self.cell

    def transform(self, k: int) -> Move:
        """This move under the board's symmetry `k` (`SYMMETRIES`: 0 is the identity,
        1-3 quarter turns, 4-7 the same after a mirror).

        >>> str(Move.parse("a1").transform(1)), str(Move.parse("e5").transform(5))
        ('i1', 'e5')
        """
        square = SYMMETRIES[k]
        return Move(square[self.board], square[self.cell])

    @classmethod
    def from_action(cls, action: int) -> Move:
        """The move of an action number, ``9 * board + cell`` (0-80)."""
        action = _index("action", action, 80)
        return cls(action // 9, action % 9)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read a square such as ``e5`` (case and surrounding spaces are ignored)."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be text like 'e5', not {clip(text)}")
        t = text.strip().lower()
        if len(t) != 2 or t[0] not in COLUMNS or t[1] not in ROWS:
            raise InvalidMoveError(
                f"cannot read move {clip(text)}: write a column a-i then a row 1-9, like 'e5'"
            )
        return cls.from_xy(COLUMNS.index(t[0]), ROWS.index(t[1]))

    def __str__(self) -> str:
        x, y = self.xy
        return COLUMNS[x] + ROWS[y]


def board_span(board: int) -> str:
    """The squares of a small board, first to last: ``board_span(4) == 'd4-f6'``."""
    return f"{Move(board, 0)}-{Move(board, 8)}"


# --- the grid: the 81 squares as text -------------------------------------------------

_MARKS = {"x": Mark.X, "o": Mark.O}
_READING_ORDER = [[Move.from_xy(x, y).action for x in range(9)] for y in range(9)]  # rows


def grid_text(cells: list[Mark | None]) -> str:
    """The 81 cells (index ``9 * board + cell``) as nine rows top to bottom, ``/`` between
    them; ``x`` and ``o`` are marks, a digit counts empty squares.

    >>> grid_text([None] * 40 + [Mark.X] + [None] * 40)
    '9/9/9/9/4x4/9/9/9/9'
    """
    rows = []
    for actions in _READING_ORDER:
        row, empties = "", 0
        for action in actions:
            mark = cells[action]
            if mark is None:
                empties += 1
                continue
            if empties:
                row += str(empties)
                empties = 0
            row += "x" if mark is Mark.X else "o"
        rows.append(row + (str(empties) if empties else ""))
    return "/".join(rows)


def read_grid(text: str) -> list[Mark | None]:
    """The 81 cells of a position string's grid field (``9/9/4x4/...``), in reading order."""
    rows = text.split("/")
    if len(rows) != 9:
        raise InvalidPositionError(f"the grid needs 9 rows separated by '/', got {len(rows)}")
    cells: list[Mark | None] = [None] * 81
    for y, row in enumerate(rows):
        x = 0
        for ch in row:
            if ch in "123456789":
                x += int(ch)
            elif ch in _MARKS:
                if x < 9:
                    cells[Move.from_xy(x, y).action] = _MARKS[ch]
                x += 1
            else:
                raise InvalidPositionError(
                    f"row {y + 1} of the grid: {clip(ch)} is not x, o or a digit 1-9"
                )
        if x != 9:
            raise InvalidPositionError(
                f"row {y + 1} of the grid ({clip(row)}) has {x} squares, not 9"
            )
    return cells



# --- the random four-move opening ----------------------------------------------------


def opening_moves(code: str) -> list[Move]:
    """The four moves a random-four code plays (Diamond 2022).

    Digit 1 names the board of X's first move; each next digit names the cell
    of the next move (X, O, X, O), in the board the previous digit sent the
    mover to. Digits are 1-9 in reading order.

    >>> [str(m) for m in opening_moves("53271")]
    ['f4', 'h1', 'd3', 'a7']
    >>> try:
    ...     opening_moves("55555")
    ... except InvalidOpeningError as exc:
    ...     print(exc)
    opening code '55555': digit 3 ('5') plays e5 again, which X already took at move 1
    """
    if not isinstance(code, str):
        raise InvalidOpeningError(f"opening code must be a string of 5 digits, not {clip(code)}")
    text = code.strip()
    if len(text) != 5 or not all(ch in "123456789" for ch in text):
        raise InvalidOpeningError(
            f"opening code {clip(code)} must be exactly 5 digits, each 1-9 (1 = top-left)"
        )
    digits = [int(ch) - 1 for ch in text]
    moves: list[Move] = []
    taken: dict[Move, tuple[Mark, int]] = {}
    board = digits[0]
    for i, cell in enumerate(digits[1:]):
        move = Move(board, cell)
        if move in taken:
            mark, at = taken[move]
            raise InvalidOpeningError(
                f"opening code {code!r}: digit {i + 2} ({text[i + 1]!r}) plays {move} again, "
                f"which {mark} already took at move {at}"
            )
        taken[move] = (Mark(i % 2), i + 1)
        moves.append(move)
        board = cell
    return moves


def random_opening(rng: random.Random | None = None) -> str:
    """A random legal random-four code, uniform over the legal ones."""
    rng = rng or random.Random()
    while True:
        code = "".join(rng.choice("123456789") for _ in range(5))
        try:
            opening_moves(code)
        except InvalidOpeningError:
            continue
        return code
