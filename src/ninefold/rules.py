"""The rules of Ultimate Tic-Tac-Toe and its variants: the `Board`, with its text.

This is the readable reference implementation. It holds no I/O and no numba;
the fast kernel (`ninefold.kernel`) plays the same rules on integer masks, and
the test suite checks that the two agree move by move. Like python-chess's
FEN beside its `Board`, the one-line position string and the board's picture
live here; the words they are made of (marks, moves, openings) come from
`ninefold.moves`, the rule sets and results from `ninefold.variants`, and this
module re-exports them all.

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

**Positions** are one line of five fields, like chess's FEN::

    <rules> <grid> <side to move> <target board> <board owners>

- rules: a preset (``standard``, ``codingame``, ``open-boards``, ``tic-tac-ku``)
  or options (``boards=open,win=five,full=count``);
- grid: the nine rows top to bottom, separated by ``/``; ``x`` and ``o`` are
  marks, a digit 1-9 counts empty squares;
- side to move: ``x`` or ``o``;
- target board: the board (0-8, reading order) the mover was sent to, or
  ``-`` when the mover may play in any open board (or the game is over);
- board owners: nine characters, ``x``, ``o`` or ``.``, one per small board.
  Needed because with open boards a board keeps its first owner even if the
  other player later completes a line in it too.

>>> board.push(Move.parse("e5"))
>>> board.position()
'standard 9/9/9/9/4x4/9/9/9/9 o 4 .........'
>>> Board.from_position(board.position()) == board
True

`Board.from_position` refuses what no game can reach, as far as it can be
proved cheaply: wrong mark counts, owners without lines, a target or a free
move the last move cannot have given, a board won twice over while won boards
close, a game that went on after it was won.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ninefold.moves import (
    COLUMNS,
    LINES,
    MARKS,
    ROWS,
    SYMMETRIES,
    IllegalMoveError,
    InvalidMoveError,
    InvalidOpeningError,
    InvalidPositionError,
    Mark,
    Move,
    O,
    X,
    board_span,
    grid_text,
    has_line,
    lines_meet,
    opening_moves,
    random_opening,
    read_grid,
)
from ninefold.options import clip
from ninefold.variants import (
    FLAG_COUNT_FULL,
    FLAG_OPEN_BOARDS,
    FLAG_WIN_FIVE,
    PRESETS,
    Outcome,
    Rules,
    Termination,
)

_CHAR = {None: ".", X: "x", O: "o"}
_MOVES = [Move.from_action(a) for a in range(81)]  # by action: moves are values, made once
_MARK = {"x": X, "o": O}
START = "standard 9/9/9/9/9/9/9/9/9 x - ........."


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
        """The mark in `cell` of small board `board` (both 0-8), None if empty."""
        return self.cells[9 * board + cell]

    def small_board(self, board: int) -> tuple[Mark | None, ...]:
        """The nine cells of one small board."""
        return tuple(self.cells[9 * board : 9 * board + 9])

    def is_full(self, board: int) -> bool:
        """Every cell of small board `board` is marked."""
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
        """The game has ended: `outcome` says how."""
        return self._outcome is not None

    def boards_won(self, mark: Mark) -> int:
        """How many small boards `mark` owns."""
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
                f"{self.target} (squares {board_span(self.target)})"
            )
        if self.is_closed(move.board):
            state = "won" if self.owners[move.board] is not None else "full"
            return f"{move} is in board {move.board}, which is {state} and closed"
        if self.cells[move.action] is not None:
            return f"{move} is already taken by {self.cells[move.action]}"
        return None

    def is_legal(self, move: Move) -> bool:
        """`move` may be played now (`why_illegal` says why not)."""
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

    def transform(self, k: int) -> Board:
        """A copy under the board's symmetry `k` (`ninefold.moves.SYMMETRIES`), history
        included: every rule set is symmetric, so it is the same game turned or mirrored.

        >>> board = Board("codingame")
        >>> board.push(Move.parse("a1"))
        >>> turned = board.transform(1)
        >>> turned.position(), [str(m) for m in turned.move_stack]
        ('codingame 8x/9/9/9/9/9/9/9/9 o 2 .........', ['i1'])
        >>> turned.transform(3) == board
        True
        """
        square = SYMMETRIES[k]
        other = self.copy()
        for b in range(9):
            other.owners[square[b]] = self.owners[b]
            for c in range(9):
                other.cells[9 * square[b] + square[c]] = self.cells[9 * b + c]
        other.target = None if self.target is None else square[self.target]
        other.move_stack = [move.transform(k) for move in self.move_stack]
        other._undo = [_Undo(None if u.target is None else square[u.target], u.owner_before,
                             u.outcome_before) for u in self._undo]
        return other

    # ---- text

    def position(self) -> str:
        """The one-line position string (see the module's docstring)."""
        target = "-" if self.target is None else str(self.target)
        owners = "".join(_CHAR[o] for o in self.owners)
        return f"{self.rules.name} {grid_text(self.cells)} {_CHAR[self.turn]} {target} {owners}"

    @classmethod
    def from_position(cls, text: str) -> Board:
        """The board a position string describes, with an empty move stack;
        raises `InvalidPositionError` if it cannot be read or cannot arise."""
        if not isinstance(text, str):
            raise InvalidPositionError(f"a position must be text, not {clip(text)}")
        parts = text.split()
        if not parts:
            raise InvalidPositionError(
                f"empty position: write 5 fields (rules grid side target owners), e.g. {START!r}"
            )
        if len(parts) != 5:
            raise InvalidPositionError(
                f"a position has 5 fields (rules grid side target owners), "
                f"got {len(parts)}: {clip(text)}"
            )
        rules_text, grid_field, side_text, target_text, owners_text = parts
        try:
            board = cls(Rules.parse(rules_text))
        except ValueError as exc:
            raise InvalidPositionError(f"position rules field: {exc}") from None
        board.cells = read_grid(grid_field)
        if side_text not in _MARK:
            raise InvalidPositionError(f"side to move must be 'x' or 'o', not {clip(side_text)}")
        board.turn = _MARK[side_text]
        if len(owners_text) != 9 or any(ch not in "xo." for ch in owners_text):
            raise InvalidPositionError(
                f"board owners must be 9 of x, o or '.', not {clip(owners_text)}"
            )
        board.owners = [_MARK.get(ch) for ch in owners_text]
        if target_text != "-" and (len(target_text) != 1 or target_text not in "012345678"):
            raise InvalidPositionError(
                f"target board must be 0-8 or '-', not {clip(target_text)}"
            )
        board.target = None if target_text == "-" else int(target_text)
        board._check_marks_and_owners()
        board._outcome = board._judge()
        board._check_outcome()
        board._check_target()
        return board

    def _check_marks_and_owners(self) -> None:
        """Mark counts fit the side to move; owners fit the lines; a board won while
        won boards close got no second, separate line."""
        nx, no = self.cells.count(X), self.cells.count(O)
        expected = X if nx == no else O if nx == no + 1 else None
        if expected is None:
            raise InvalidPositionError(
                f"X has {nx} marks and O {no}: X moves first, so X has as many as O or one more"
            )
        if self.turn is not expected:
            raise InvalidPositionError(
                f"side to move is {self.turn} but the mark counts (X {nx}, O {no}) say {expected}"
            )
        for b, owner in enumerate(self.owners):
            cells = self.small_board(b)
            have = [m for m in (X, O) if has_line(cells, m)]
            if owner is not None and owner not in have:
                raise InvalidPositionError(f"board {b} is given to {owner}, who has no line in it")
            if owner is None and have:
                raise InvalidPositionError(f"board {b} has a line of {have[0]} but no owner")
            if self.rules.open_boards or owner is None:
                continue
            if len(have) > 1:
                raise InvalidPositionError(
                    f"board {b} has lines of both players, impossible when won boards close"
                )
            if not lines_meet(cells, owner):
                raise InvalidPositionError(
                    f"board {b} has two lines of {owner} with no square in common: "
                    "the first one closed the board"
                )

    def _check_outcome(self) -> None:
        """A won game: the loser moves next, and the game did not go on after it was won."""
        outcome = self._outcome
        if outcome is None or outcome.winner is None or outcome.termination not in (
            Termination.LINE, Termination.FIVE_BOARDS
        ):
            return  # a running game, or a full grid: nothing more to check cheaply
        winner = outcome.winner
        if winner is self.turn:
            raise InvalidPositionError(f"{winner} has already won, yet it is {winner} to move")
        if self.rules.win == "line":
            if has_line(self.owners, winner.other):
                raise InvalidPositionError("both players have three boards in a row")
            if not lines_meet(self.owners, winner):
                raise InvalidPositionError(
                    f"{winner} has two lines of boards with no board in common: "
                    "the game ended at the first"
                )
        elif self.boards_won(winner) > 5 or self.boards_won(winner.other) >= 5:
            raise InvalidPositionError(
                f"X owns {self.boards_won(X)} boards and O {self.boards_won(O)}: "
                "the game ends when a player owns five"
            )

    def _check_target(self) -> None:
        """The target (or the free move) and the whole position follow from a last move."""
        mover = self.turn.other
        if self.target is not None:
            target = self.target
            if self._outcome is not None:
                raise InvalidPositionError("the game is over, so the target board must be '-'")
            if self.is_closed(target):
                raise InvalidPositionError(
                    f"target board {target} is closed: write '-' for a free move"
                )
            if not any(self.cells[9 * b + target] is mover for b in range(9)):
                raise InvalidPositionError(
                    f"target board {target} needs a {mover} mark in cell {target} of some board "
                    "(the move that sent the opponent there)"
                )
        elif self._outcome is None and any(self.cells) and not any(
            self.cells[9 * b + c] is mover and self.is_closed(c)
            for b in range(9) for c in range(9)
        ):
            raise InvalidPositionError(
                f"target '-' (a free move) needs a {mover} mark in cell c of some board "
                f"with board c closed: no last move of {mover} gives a free move here"
            )
        if any(self.cells) and not self._follows_a_move():
            raise InvalidPositionError(
                f"no last move of {mover} leads here: taking back any {mover} mark leaves a "
                "finished game, a closed board or other owners"
            )

    def _follows_a_move(self) -> bool:
        """True if some mark of the last mover, taken back, leaves a running position
        from which playing it gives exactly this one."""
        mover = self.turn.other
        for move in (Move.from_action(a) for a in range(81)):
            if self.cells[move.action] is not mover:
                continue
            if self.target is not None and move.cell != self.target:
                continue
            before = self.copy()
            before.cells[move.action] = None
            b = move.board
            if before.owners[b] is mover and not has_line(before.small_board(b), mover):
                before.owners[b] = None
            if before.owners[b] is None and any(has_line(before.small_board(b), m) for m in (X, O)):
                continue
            before.turn, before.target = mover, b
            before._outcome = before._judge()
            if before._outcome is not None or before.is_closed(b):
                continue
            before.push(move)
            if before == self:
                return True
        return False

    def __str__(self) -> str:
        """A 9x9 text picture with the big board beside it and a status line."""
        big = [
            _CHAR[o].upper() if o else ("-" if self.is_full(b) else ".")
            for b, o in enumerate(self.owners)
        ]
        out = ["    " + "   ".join(" ".join(COLUMNS[i : i + 3]) for i in (0, 3, 6))]
        for y in range(9):
            if y in (3, 6):
                out.append("   -------+-------+-------")
            squares = [str(self.cells[Move.from_xy(x, y).action] or ".") for x in range(9)]
            row = f"{ROWS[y]}   " + " | ".join(" ".join(squares[i : i + 3]) for i in (0, 3, 6))
            if y % 3 == 1:
                row += "      " + " ".join(big[3 * (y // 3) : 3 * (y // 3) + 3])
            out.append(row)
        out.append(self.status())
        return "\n".join(out)

    def status(self) -> str:
        """One line: who moves where, or how the game ended.

        >>> Board().status()
        'X to move, in any open board'
        """
        outcome = self._outcome
        if outcome is not None:
            who = "draw" if outcome.winner is None else f"{outcome.winner} wins"
            return f"Game over: {outcome.result()} ({who}, {outcome.termination})"
        if self.target is None:
            return f"{self.turn} to move, in any open board"
        return f"{self.turn} to move, in board {self.target} ({board_span(self.target)})"

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
                    yield _MOVES[9 * b + c]

    def __len__(self) -> int:
        cells = self._board.cells
        return sum(cells[9 * b + c] is None for b in self._board.open_boards() for c in range(9))

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self._board.is_legal(move)

    def __bool__(self) -> bool:
        return self._board.outcome() is None

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(str(m) for m in self)})>"


__all__ = [
    "FLAG_COUNT_FULL",
    "FLAG_OPEN_BOARDS",
    "FLAG_WIN_FIVE",
    "LINES",
    "MARKS",
    "PRESETS",
    "START",
    "Board",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidOpeningError",
    "InvalidPositionError",
    "LegalMoves",
    "Mark",
    "Move",
    "O",
    "Outcome",
    "Rules",
    "Termination",
    "X",
    "has_line",
    "opening_moves",
    "random_opening",
]
