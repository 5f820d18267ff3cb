"""The rules of Ultimate Tic-Tac-Toe and its variants: `Board`, `Move`, `Outcome`.

This is the readable reference implementation. It holds no I/O and no numba;
the fast kernel (`ninefold.kernel`) plays the same rules on integer masks, and
the test suite checks that the two agree move by move.

Boards and cells are numbered 0-8 in reading order (top-left 0, centre 4,
bottom-right 8). A move is (board, cell); its cell names the board the
opponent must play in next.

>>> board = Board()
>>> board.push(Move(4, 4))
>>> board.turn, board.target
(Mark.O, 4)
>>> len(board.legal_moves)
8
>>> Move.parse("e5") in board.legal_moves
False
>>> board.pop()
Move(board=4, cell=4)
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace

# The eight lines of a 3x3 grid, as cell indices in reading order. Shared by
# the small boards, the big board and classic tic-tac-toe.
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)


def has_line(cells: list[Mark | None] | tuple[Mark | None, ...], mark: Mark) -> bool:
    """True if `mark` holds three in a row among nine cells in reading order."""
    return any(cells[a] is mark and cells[b] is mark and cells[c] is mark for a, b, c in LINES)


class Mark(enum.IntEnum):
    """A player: X moves first."""

    X = 0
    O = 1  # noqa: E741 - the game's own name for the second player

    def __bool__(self) -> bool:
        # X is 0, but a mark is never "nothing": `cell or "."` must keep X.
        return True

    @property
    def other(self) -> Mark:
        return Mark.O if self is Mark.X else Mark.X

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Mark.{self.name}"


X = Mark.X
O = Mark.O  # noqa: E741


# --- errors -------------------------------------------------------------------------


class InvalidMoveError(ValueError):
    """Text that cannot be read as a move."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in this position."""


class InvalidPositionError(ValueError):
    """A position (string, opening code) that cannot be read or cannot arise."""


class InvalidOpeningError(InvalidPositionError):
    """A random-four opening code that is malformed or plays an illegal move."""


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
        (the preset first, the options changing it)."""
        if isinstance(text, Rules):
            return text
        parts = [p.strip() for p in str(text).strip().lower().split(",") if p.strip()]
        if not parts:
            raise ValueError("empty rules: name a preset (" + ", ".join(PRESETS) + ")")
        rules = PRESETS["standard"]
        if "=" not in parts[0]:
            if parts[0] not in PRESETS:
                raise ValueError(
                    f"unknown rules preset {parts[0]!r}: choose one of " + ", ".join(PRESETS)
                )
            rules = PRESETS[parts[0]]
            parts = parts[1:]
        allowed = {"boards": ("closed", "open"), "win": ("line", "five"), "full": ("draw", "count")}
        for part in parts:
            key, _, value = part.partition("=")
            if key not in allowed or value not in allowed[key]:
                raise ValueError(
                    f"bad rules option {part!r}: use "
                    + ", ".join(f"{k}={'|'.join(v)}" for k, v in allowed.items())
                )
            if key == "boards":
                rules = replace(rules, open_boards=value == "open")
            elif key == "win":
                rules = replace(rules, win=value)
            else:
                rules = replace(rules, full_grid=value)
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
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is X else "0-1"

    def score(self, mark: Mark) -> float:
        """1 for a win of `mark`, 0.5 for a draw, 0 for a loss."""
        return 0.5 if self.winner is None else float(self.winner is mark)


# --- moves ------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Move:
    """A move: a small board and a cell in it, both 0-8 in reading order.

    Its text is the square on the 9x9 grid: column letter ``a``-``i`` from the
    left, row number ``1``-``9`` from the top (see `ninefold.notation`).

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
        for name in ("board", "cell"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 8:
                raise InvalidMoveError(f"move {name} must be an integer 0-8, not {value!r}")

    @classmethod
    def from_xy(cls, x: int, y: int) -> Move:
        """The move at column `x`, row `y` of the 9x9 grid (0-8, row 0 on top)."""
        for name, value in (("x", x), ("y", y)):
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 8:
                raise InvalidMoveError(f"{name} must be an integer 0-8, not {value!r}")
        return cls(3 * (y // 3) + x // 3, 3 * (y % 3) + x % 3)

    @property
    def xy(self) -> tuple[int, int]:
        """(column, row) on the 9x9 grid."""
        return 3 * (self.board % 3) + self.cell % 3, 3 * (self.board // 3) + self.cell // 3

    @property
    def action(self) -> int:
        """The flat action number ``9 * board + cell`` (0-80) used by the kernel and RL."""
        return 9 * self.board + self.cell

    @classmethod
    def from_action(cls, action: int) -> Move:
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action <= 80:
            raise InvalidMoveError(f"action must be an integer 0-80, not {action!r}")
        return cls(action // 9, action % 9)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read a move's text, e.g. ``"e5"`` (see `ninefold.notation`)."""
        from ninefold import notation

        return notation.parse_move(text)

    def __str__(self) -> str:
        from ninefold import notation

        return notation.move_text(self)


# --- the board ---------------------------------------------------------------------------


@dataclass
class _Undo:
    """What `Board.pop` needs to restore."""

    target: int | None
    owner_before: Mark | None
    outcome_before: Outcome | None


class Board:
    """A game of Ultimate Tic-Tac-Toe in progress.

    `rules` is a preset name (``standard``, ``codingame``, ``open-boards``,
    ``tic-tac-ku``), an option string or a `Rules`. `opening` is a random-four
    code of five digits 1-9 that plays the first four moves.

    >>> board = Board("standard", opening="53271")
    >>> [str(m) for m in board.move_stack]
    ['f4', 'h1', 'd3', 'a7']
    >>> board.turn, board.target
    (Mark.X, 0)
    """

    def __init__(self, rules: str | Rules = "standard", *, opening: str | None = None) -> None:
        self.rules: Rules = Rules.parse(rules)
        self.cells: list[Mark | None] = [None] * 81  # index 9 * board + cell
        self.owners: list[Mark | None] = [None] * 9  # who won each small board
        self.turn: Mark = X
        self.target: int | None = None  # the board the mover must play in; None = free
        self.move_stack: list[Move] = []
        self.opening: str | None = None
        self._outcome: Outcome | None = None
        self._undo: list[_Undo] = []
        if opening is not None:
            for move in opening_moves(opening):
                self.push(move)
            self.opening = opening.strip()

    # ---- reading the position

    def cell(self, board: int, cell: int) -> Mark | None:
        return self.cells[9 * board + cell]

    def small_board(self, board: int) -> tuple[Mark | None, ...]:
        """The nine cells of one small board."""
        return tuple(self.cells[9 * board : 9 * board + 9])

    def is_full(self, board: int) -> bool:
        return all(c is not None for c in self.cells[9 * board : 9 * board + 9])

    def is_closed(self, board: int) -> bool:
        """No move may be played in this small board any more."""
        if self.owners[board] is not None and not self.rules.open_boards:
            return True
        return self.is_full(board)

    def open_boards(self) -> list[int]:
        """The small boards the side to move may play in."""
        if self._outcome is not None:
            return []
        if self.target is not None:
            return [self.target]
        return [b for b in range(9) if not self.is_closed(b)]

    @property
    def legal_moves(self) -> LegalMoves:
        """The legal moves: iterate, count with `len`, test with `in`."""
        return LegalMoves(self)

    def outcome(self) -> Outcome | None:
        """None while the game goes on, else how it ended."""
        return self._outcome

    def is_game_over(self) -> bool:
        return self._outcome is not None

    def boards_won(self, mark: Mark) -> int:
        return sum(owner is mark for owner in self.owners)

    @property
    def ply(self) -> int:
        """Moves played so far."""
        return len(self.move_stack)

    def why_illegal(self, move: Move) -> str | None:
        """None if `move` is legal, else the reason in words."""
        if self._outcome is not None:
            return f"the game is over ({self._outcome.result()}, {self._outcome.termination})"
        if self.target is not None and move.board != self.target:
            return (
                f"{move} is in board {move.board}, but {self.turn} was sent to board "
                f"{self.target} (squares {_board_span(self.target)})"
            )
        if self.is_closed(move.board):
            state = "won" if self.owners[move.board] is not None else "full"
            return f"{move} is in board {move.board}, which is {state} and closed"
        if self.cells[move.action] is not None:
            return f"{move} is already taken by {self.cells[move.action]}"
        return None

    def is_legal(self, move: Move) -> bool:
        return self.why_illegal(move) is None

    # ---- changing the position

    def push(self, move: Move) -> None:
        """Play `move` for the side to move; raises `IllegalMoveError` if not allowed."""
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(f"illegal move {move}: {reason}")
        mark = self.turn
        b = move.board
        self._undo.append(_Undo(self.target, self.owners[b], self._outcome))
        self.cells[move.action] = mark
        self.move_stack.append(move)
        self.turn = mark.other
        if self.owners[b] is None and has_line(self.small_board(b), mark):
            self.owners[b] = mark
        self._outcome = self._judge()
        self.target = None if self._outcome or self.is_closed(move.cell) else move.cell

    def push_text(self, text: str) -> Move:
        """Parse and play a move; returns it."""
        move = Move.parse(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self.move_stack:
            raise IndexError("pop from a board with no moves")
        move = self.move_stack.pop()
        undo = self._undo.pop()
        self.cells[move.action] = None
        self.owners[move.board] = undo.owner_before
        self.target = undo.target
        self._outcome = undo.outcome_before
        self.turn = self.turn.other
        return move

    def _judge(self) -> Outcome | None:
        """The outcome the owned boards and closed boards decide, if any."""
        for mark in (X, O):
            if self.rules.win == "line" and has_line(self.owners, mark):
                return Outcome(mark, Termination.LINE)
            if self.rules.win == "five" and self.boards_won(mark) >= 5:
                return Outcome(mark, Termination.FIVE_BOARDS)
        if any(not self.is_closed(b) for b in range(9)):
            return None
        if self.rules.full_grid == "count":
            x, o = self.boards_won(X), self.boards_won(O)
            if x != o:
                return Outcome(X if x > o else O, Termination.BOARD_COUNT)
        return Outcome(None, Termination.NO_MOVES)

    def copy(self) -> Board:
        """An independent copy, history included."""
        other = Board.__new__(Board)
        other.rules = self.rules
        other.opening = self.opening
        other.cells = list(self.cells)
        other.owners = list(self.owners)
        other.turn = self.turn
        other.target = self.target
        other.move_stack = list(self.move_stack)
        other._outcome = self._outcome
        other._undo = list(self._undo)
        return other

    # ---- text

    def position(self) -> str:
        """The one-line position string (see `ninefold.notation`)."""
        from ninefold import notation

        return notation.position_text(self)

    @classmethod
    def from_position(cls, text: str) -> Board:
        """The board a position string describes; raises `InvalidPositionError`."""
        from ninefold import notation

        return notation.parse_position(text)

    def __str__(self) -> str:
        from ninefold import notation

        return notation.picture(self)

    def __repr__(self) -> str:
        return f"Board({self.position()!r})"

    def __eq__(self, other: object) -> bool:
        """Same rules and same position (history is not compared)."""
        if not isinstance(other, Board):
            return NotImplemented
        return (self.rules, self.cells, self.owners, self.turn, self.target, self._outcome) == (
            other.rules, other.cells, other.owners, other.turn, other.target, other._outcome
        )

    def __hash__(self) -> int:  # mutable, like python-chess boards
        raise TypeError("Board is mutable and unhashable; hash board.position() instead")


class LegalMoves:
    """A live view of a board's legal moves, in board-then-cell order."""

    def __init__(self, board: Board) -> None:
        self._board = board

    def __iter__(self) -> Iterator[Move]:
        cells = self._board.cells
        for b in self._board.open_boards():
            for c in range(9):
                if cells[9 * b + c] is None:
                    yield Move(b, c)

    def __len__(self) -> int:
        cells = self._board.cells
        return sum(cells[9 * b + c] is None for b in self._board.open_boards() for c in range(9))

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self._board.is_legal(move)

    def __bool__(self) -> bool:
        return self._board.outcome() is None

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(str(m) for m in self)})>"


def _board_span(board: int) -> str:
    first, last = Move(board, 0), Move(board, 8)
    return f"{first}-{last}"


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
        raise InvalidOpeningError(f"opening code must be a string of 5 digits, not {code!r}")
    text = code.strip()
    if len(text) != 5 or not all(ch in "123456789" for ch in text):
        raise InvalidOpeningError(
            f"opening code {code!r} must be exactly 5 digits, each 1-9 (1 = top-left)"
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
