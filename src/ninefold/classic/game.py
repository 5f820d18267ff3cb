"""The classic game: one state, `ClassicBoard`, and the three views of it.

Cleve Moler's chapter "TicTacToe Magic" (Experiments in MATLAB) shows three
games that are one game:

- **TicTacToe**: the 3x3 grid. Cells are named like the 9x9 grid's squares:
  column ``a``-``c`` from the left, row ``1``-``3`` from the top (``b2`` is
  the centre).
- **Pick15**: the numbers 1-9; the players take turns picking one; whoever
  holds three numbers that sum to 15 wins.
- **Magic15**: the grid labelled with the Lo-Shu magic square
  ``8 1 6 / 3 5 7 / 4 9 2``.

Number n is the cell where the Lo-Shu square holds n. The eight lines of the
grid are exactly the eight sets of three numbers 1-9 that sum to 15, so a
move in one view is the same move in the others and a win in one is a win in
all. There is one state, `ClassicBoard`; a `View` reads and writes moves and
draws the state. A move is a cell, 0-8 in reading order, as in
`ninefold.rules`.

>>> board = ClassicBoard()
>>> for text in ("8", "4", "2", "5", "6", "7", "1"):   # the chapter's Pick15 game
...     _ = board.push_text(text, View.PICK15)
>>> board.outcome()
Outcome(winner=Mark.X, termination=<Termination.LINE: 'line'>)
>>> print(render(board, View.PICK15))
List : - - 3 - - - - - 9
X    : 1 2 6 8
O    : 4 5 7
X wins with 8 + 1 + 6 = 15
>>> print(render(board, View.TICTACTOE))
   a b c
1  X X X
2  . O O
3  O . X
X wins with a1 b1 c1
>>> print(render(board, View.MAGIC15))
X8 X1 X6
 3 O5 O7
O4  9 X2
X wins with 8 1 6 (top row)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from itertools import combinations

from ninefold.options import clip
from ninefold.rules import (
    LINES,
    IllegalMoveError,
    InvalidMoveError,
    Mark,
    Outcome,
    Termination,
    has_line,
)

# The Lo-Shu magic square in reading order: MAGIC[cell] is the Pick15 number
# of that cell.
MAGIC: tuple[int, ...] = (8, 1, 6, 3, 5, 7, 4, 9, 2)
CELL_OF_NUMBER: dict[int, int] = {n: cell for cell, n in enumerate(MAGIC)}

CELL_NAMES: tuple[str, ...] = ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")
_CELL_OF_NAME: dict[str, int] = {name: cell for cell, name in enumerate(CELL_NAMES)}

CENTRE = 4
CORNERS: tuple[int, ...] = (0, 2, 6, 8)
EDGES: tuple[int, ...] = (1, 3, 5, 7)

# Where each of the eight lines lies, in the order of `rules.LINES`.
LINE_NAMES: tuple[str, ...] = (
    "top row", "middle row", "bottom row",
    "left column", "middle column", "right column",
    "diagonal", "anti-diagonal",
)

# Default player colours, as in the chapter: X (the person) green, O blue.
COLOURS: tuple[str, str] = ("green", "blue")


def _check_cell(cell: object) -> int:
    if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell <= 8:
        raise InvalidMoveError(f"a classic move is a cell 0-8 in reading order, not {cell!r}")
    return cell


# --- views ------------------------------------------------------------------------------


class View(enum.Enum):
    """One of the chapter's three ways to show and enter the same game.

    >>> [View.TICTACTOE.parse("b2"), View.PICK15.parse("5"), View.MAGIC15.parse("5")]
    [4, 4, 4]
    >>> View.PICK15.text(0), View.MAGIC15.text(0), View.TICTACTOE.text(0)
    ('8', '8', 'a1')
    >>> View.PICK15.parse("10")
    Traceback (most recent call last):
    ...
    ninefold.rules.InvalidMoveError: '10' is out of range: Pick15 numbers are 1-9
    """

    TICTACTOE = "tictactoe"
    PICK15 = "pick15"
    MAGIC15 = "magic15"

    @classmethod
    def parse_name(cls, text: str) -> View:
        """The view named `text` (``tictactoe``, ``pick15`` or ``magic15``)."""
        key = text.strip().lower().replace("-", "").replace("_", "")
        for view in cls:
            if view.value == key:
                return view
        raise ValueError(
            f"unknown view {text!r}: choose one of " + ", ".join(v.value for v in cls)
        )

    @property
    def title(self) -> str:
        return {"tictactoe": "TicTacToe", "pick15": "Pick15", "magic15": "Magic15"}[self.value]

    @property
    def hint(self) -> str:
        """The moves of this view, tersely: ``a1-c3`` or ``1-9``."""
        return "a1-c3" if self is View.TICTACTOE else "1-9"

    def text(self, cell: int) -> str:
        """The move `cell` as typed in this view."""
        cell = _check_cell(cell)
        return CELL_NAMES[cell] if self is View.TICTACTOE else str(MAGIC[cell])

    def parse(self, text: str) -> int:
        """The cell a move's text names in this view; raises `InvalidMoveError`."""
        word = text.strip().lower() if isinstance(text, str) else text
        if self is View.TICTACTOE:
            if word in _CELL_OF_NAME:
                return _CELL_OF_NAME[word]
            extra = (" (numbers 1-9 are moves in the Pick15 and Magic15 views)"
                     if isinstance(word, str) and word.isdigit() else "")
            raise InvalidMoveError(f"{text!r} is not a cell: name one a1-c3, column a-c "
                                   f"from the left and row 1-3 from the top{extra}")
        if not isinstance(word, str) or not word.lstrip("+-").isdigit():
            extra = " (cell names are for the TicTacToe view)" if word in _CELL_OF_NAME else ""
            raise InvalidMoveError(
                f"{text!r} is not a number: {self.title} moves are 1-9{extra}"
            )
        number = int(word)
        if number not in CELL_OF_NUMBER:
            raise InvalidMoveError(f"{text!r} is out of range: {self.title} numbers are 1-9")
        return CELL_OF_NUMBER[number]

    def winner(self, board: ClassicBoard) -> Mark | None:
        """Who has won, judged by this view's own rule (see the module docs)."""
        for mark in (Mark.X, Mark.O):
            if self is View.TICTACTOE:
                won = has_line(board.cells, mark)
            elif self is View.PICK15:
                won = any(sum(trio) == 15 for trio in combinations(board.numbers(mark), 3))
            else:
                held = set(board.numbers(mark))
                won = any(line <= held for line in _MAGIC_LINES)
            if won:
                return mark
        return None

    def describe_line(self, line: Sequence[int]) -> str:
        """A line of three cells in this view's words.

        >>> View.PICK15.describe_line((2, 5, 8))
        '6 + 7 + 2 = 15'
        >>> View.MAGIC15.describe_line((2, 5, 8)), View.TICTACTOE.describe_line((2, 5, 8))
        ('6 7 2 (right column)', 'c1 c2 c3')
        """
        if self is View.PICK15:
            return " + ".join(str(MAGIC[c]) for c in line) + " = 15"
        words = " ".join(self.text(c) for c in line)
        if self is View.MAGIC15:
            words += f" ({LINE_NAMES[LINES.index(tuple(line))]})"
        return words


def _magic_lines() -> tuple[frozenset[int], ...]:
    """The rows, columns and diagonals of the Lo-Shu square, as sets of numbers."""
    rows = [MAGIC[3 * r : 3 * r + 3] for r in range(3)]
    cols = [MAGIC[c::3] for c in range(3)]
    diagonals = [MAGIC[0::4], MAGIC[2:7:2]]
    return tuple(frozenset(line) for line in (*rows, *cols, *diagonals))


_MAGIC_LINES = _magic_lines()


def parse_move(text: str, view: View | None = None) -> int:
    """The cell a move's text names: in `view` only, or, with no view, in any
    view (a cell name a1-c3 or a number 1-9; the two never clash).

    >>> parse_move("B2"), parse_move(" 5 "), parse_move("8")
    (4, 4, 0)
    >>> parse_move("d4")
    Traceback (most recent call last):
    ...
    ninefold.rules.InvalidMoveError: 'd4' is not a move: name a cell a1-c3 or a number 1-9
    """
    if view is not None:
        return view.parse(text)
    word = text.strip().lower() if isinstance(text, str) else ""
    if word in _CELL_OF_NAME:
        return _CELL_OF_NAME[word]
    if word.isdigit() and int(word) in CELL_OF_NUMBER:
        return CELL_OF_NUMBER[int(word)]
    raise InvalidMoveError(f"{text!r} is not a move: name a cell a1-c3 or a number 1-9")


# --- the game ---------------------------------------------------------------------------


class ClassicBoard:
    """A game of classic 3x3 tic-tac-toe in progress; X moves first.

    >>> board = ClassicBoard()
    >>> board.push(4)
    >>> board.push_text("8", View.PICK15)
    0
    >>> board.turn, board.move_stack, board.legal_moves
    (Mark.X, [4, 0], [1, 2, 3, 5, 6, 7, 8])
    >>> board.numbers(Mark.X), board.numbers(Mark.O)
    ((5,), (8,))
    >>> board.push_text("a1")
    Traceback (most recent call last):
    ...
    ninefold.rules.IllegalMoveError: illegal move a1: a1 is already taken by O
    >>> board.pop()
    0
    """

    def __init__(self, moves: Iterable[int | str] = ()) -> None:
        self.cells: list[Mark | None] = [None] * 9
        self.turn: Mark = Mark.X
        self.move_stack: list[int] = []
        for move in moves:
            if isinstance(move, str):
                self.push_text(move)
            else:
                self.push(move)

    # ---- reading the position

    @property
    def legal_moves(self) -> list[int]:
        """The empty cells in reading order; none once the game is over."""
        if self.is_game_over():
            return []
        return [c for c in range(9) if self.cells[c] is None]

    def numbers(self, mark: Mark) -> tuple[int, ...]:
        """The Pick15 numbers `mark` holds, smallest first."""
        return tuple(sorted(MAGIC[c] for c in range(9) if self.cells[c] is mark))

    def winning_line(self) -> tuple[int, int, int] | None:
        """The first completed line (as cells), if any."""
        return _judge(tuple(self.cells))[1]

    def outcome(self) -> Outcome | None:
        """None while the game goes on; else the winner (None for a draw) and why."""
        return _judge(tuple(self.cells))[0]

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    @property
    def ply(self) -> int:
        return len(self.move_stack)

    def key(self) -> tuple[Mark | None, ...]:
        """The position as a hashable value (the side to move follows from it)."""
        return tuple(self.cells)

    def why_illegal(self, cell: int, view: View = View.TICTACTOE,
                    names: Mapping[Mark, str] | None = None) -> str | None:
        """None if `cell` may be played, else the reason in `view`'s words
        (players called by `names`, X and O by default)."""
        _check_cell(cell)
        names = names or {Mark.X: "X", Mark.O: "O"}
        outcome = self.outcome()
        if outcome is not None:
            result = "a draw" if outcome.winner is None else f"{names[outcome.winner]} has won"
            return f"the game is over ({result})"
        owner = self.cells[cell]
        if owner is not None:
            return f"{view.text(cell)} is already taken by {names[owner]}"
        return None

    # ---- changing the position

    def push(self, cell: int) -> None:
        """Play `cell` for the side to move; raises `IllegalMoveError` if not allowed."""
        reason = self.why_illegal(cell)
        if reason is not None:
            raise IllegalMoveError(f"illegal move {CELL_NAMES[cell]}: {reason}")
        self.cells[cell] = self.turn
        self.move_stack.append(cell)
        self.turn = self.turn.other

    def push_text(self, text: str, view: View | None = None,
                  names: Mapping[Mark, str] | None = None) -> int:
        """Parse a move (see `parse_move`), play it and return its cell.

        Errors name the move as `view` does (TicTacToe by default) and the
        players by `names`.
        """
        cell = parse_move(text, view)
        reason = self.why_illegal(cell, view or View.TICTACTOE, names)
        if reason is not None:
            raise IllegalMoveError(f"illegal move {(view or View.TICTACTOE).text(cell)}: {reason}")
        self.push(cell)
        return cell

    def pop(self) -> int:
        """Take back the last move and return its cell."""
        if not self.move_stack:
            raise IndexError("pop from a classic board with no moves")
        cell = self.move_stack.pop()
        self.cells[cell] = None
        self.turn = self.turn.other
        return cell

    def copy(self) -> ClassicBoard:
        other = ClassicBoard()
        other.cells = list(self.cells)
        other.turn = self.turn
        other.move_stack = list(self.move_stack)
        return other

    def __eq__(self, other: object) -> bool:
        """Same position (history is not compared)."""
        if not isinstance(other, ClassicBoard):
            return NotImplemented
        return self.cells == other.cells

    def __hash__(self) -> int:  # mutable, like `rules.Board`
        raise TypeError("ClassicBoard is mutable and unhashable; hash board.key() instead")

    def __str__(self) -> str:
        return render(self, View.TICTACTOE)

    def __repr__(self) -> str:
        moves = " ".join(CELL_NAMES[c] for c in self.move_stack)
        return f"ClassicBoard({moves!r})" if moves else "ClassicBoard()"


@cache
def _judge(cells: tuple[Mark | None, ...]) -> tuple[Outcome | None, tuple[int, int, int] | None]:
    """The outcome of a position and its first completed line (memoised: few positions)."""
    for line in LINES:
        a, b, c = line
        if cells[a] is not None and cells[a] is cells[b] is cells[c]:
            return Outcome(cells[a], Termination.LINE), line
    if None not in cells:
        return Outcome(None, Termination.NO_MOVES), None
    return None, None


# --- pictures ---------------------------------------------------------------------------


MARKS: tuple[str, ...] = ("xo", "colours")  # how players are shown: X and O, or colours


def parse_marks(text: str) -> str:
    """``xo`` or ``colours`` (``colors`` is accepted); `ValueError` for anything else.

    >>> parse_marks("Colors")
    'colours'
    """
    key = text.strip().lower()
    key = "colours" if key == "colors" else key
    if key not in MARKS:
        raise ValueError(f"marks must be xo or colours, not {clip(text)}")
    return key


def player_name(mark: Mark, marks: str = "xo", colours: Sequence[str] = COLOURS) -> str:
    """What a player is called: ``X``/``O``, or with ``marks="colours"`` its colour.

    >>> player_name(Mark.O), player_name(Mark.O, "colours")
    ('O', 'Blue')
    """
    if marks not in MARKS:
        raise ValueError(f"marks must be xo or colours, not {clip(marks)}")
    return str(mark) if marks == "xo" else colours[mark].capitalize()


def render(
    board: ClassicBoard,
    view: View = View.TICTACTOE,
    *,
    marks: str = "xo",
    colours: Sequence[str] = COLOURS,
    markup: bool = False,
) -> str:
    """A picture of `board` in `view`, with a status line.

    `marks` is ``"xo"`` (X and O) or ``"colours"`` (the chapter's coloured
    squares: players are named by `colours`, X's first). With `markup` the
    text carries Rich markup (colours, struck-out numbers); without it, it is
    plain text, and ``colours`` marks show as the colours' initials.

    >>> board = ClassicBoard(["b2", "a1"])
    >>> print(render(board, View.TICTACTOE, marks="colours"))
       a b c
    1  B . .
    2  . G .
    3  . . .
    Green to move
    >>> print(render(board, View.PICK15, marks="colours", markup=True).splitlines()[0])
    List  : 1 2 3 4 [bold white on green] 5 [/] 6 7 [bold white on blue] 8 [/] 9
    """
    names = {m: player_name(m, marks, colours) for m in (Mark.X, Mark.O)}

    def token(mark: Mark, text: str) -> str:  # a coloured square with text on it
        return f"[bold white on {colours[mark]}] {text} [/]"

    if view is View.PICK15:
        if markup:
            # The chapter's list 1-9: taken numbers coloured (colours) or struck out (xo).
            items = []
            for n in range(1, 10):
                owner = board.cells[CELL_OF_NUMBER[n]]
                if owner is None:
                    items.append(str(n))
                elif marks == "colours":
                    items.append(token(owner, str(n)))
                else:
                    items.append(f"[dim strike]{n}[/]")
        else:
            items = [
                "-" if board.cells[CELL_OF_NUMBER[n]] is not None else str(n)
                for n in range(1, 10)
            ]
        width = max(len("List"), *(len(n) for n in names.values()))
        lines = [f"{'List':<{width}} : " + " ".join(items)]
        for mark in (Mark.X, Mark.O):
            held = " ".join(str(n) for n in board.numbers(mark))
            label = f"{names[mark]:<{width}}"
            if markup:
                label = f"[bold {colours[mark]}]{label}[/]"
            lines.append(f"{label} : {held}".rstrip())
    elif view is View.MAGIC15:
        lines = []
        for r in range(3):
            row = []
            for cell in range(3 * r, 3 * r + 3):
                owner, n = board.cells[cell], MAGIC[cell]
                if owner is None:
                    row.append(f" {n} " if markup else f" {n}")
                elif markup:
                    row.append(token(owner, str(n)))
                else:
                    row.append(f"{names[owner][0]}{n}")
            lines.append(" ".join(row).rstrip())
    else:
        blocks = markup and marks == "colours"  # coloured squares two characters wide
        lines = ["   a  b  c" if blocks else "   a b c"]
        for r in range(3):
            row = []
            for cell in range(3 * r, 3 * r + 3):
                owner = board.cells[cell]
                if owner is None:
                    row.append("[dim]··[/]" if blocks else "[dim]·[/]" if markup else ".")
                elif blocks:
                    row.append(f"[{colours[owner]}]██[/]")
                elif markup:
                    row.append(f"[bold {colours[owner]}]{owner}[/]")
                else:
                    row.append(names[owner][0])
            lines.append(f"{r + 1}  " + " ".join(row))
    lines.append(status(board, view, marks=marks, colours=colours))
    return "\n".join(lines)


def status(
    board: ClassicBoard, view: View = View.TICTACTOE, *, marks: str = "xo",
    colours: Sequence[str] = COLOURS,
) -> str:
    """One line: who is to move, or how the game ended (in `view`'s words).

    >>> status(ClassicBoard(["a1", "b2", "b1", "a3", "c1"]), View.PICK15, marks="colours")
    'Green wins with 8 + 1 + 6 = 15'
    """
    outcome = board.outcome()
    if outcome is None:
        return f"{player_name(board.turn, marks, colours)} to move"
    if outcome.winner is None:
        return "Draw: the board is full and nobody has a line"
    line = board.winning_line()
    assert line is not None
    return f"{player_name(outcome.winner, marks, colours)} wins with {view.describe_line(line)}"
