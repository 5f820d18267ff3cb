"""Text for moves, positions and game records: reading and writing in one place.

**Moves** are squares of the 9x9 grid: a column letter ``a``-``i`` (left to
right) and a row number ``1``-``9`` (top to bottom, the reading order the
engine uses). ``e5`` is the centre cell of the centre board.

>>> from ninefold import Move
>>> parse_move(" E5 "), move_text(Move(0, 0)), move_text(Move(8, 8))
(Move(board=4, cell=4), 'a1', 'i9')

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

>>> from ninefold import Board
>>> board = Board()
>>> board.position()
'standard 9/9/9/9/9/9/9/9/9 x - .........'
>>> board.push(Move.parse("e5"))
>>> board.position()
'standard 9/9/9/9/4x4/9/9/9/9 o 4 .........'
>>> Board.from_position(board.position()) == board
True

**Game records** look like PGN: tag pairs, then the moves with numbers, then
the result. Comments in braces after a move are kept (the arena stores the
time a move took there). Many games may follow one another in a file.

    [Rules "standard"]
    [Opening "53271"]
    [X "mcts:ms=100"]
    [O "random"]
    [Result "1-0"]
    [Termination "line"]

    1. f4 h1 2. d3 a7 3. b2 {12 ms} ... 1-0
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TextIO

from ninefold.rules import (
    Board,
    IllegalMoveError,
    InvalidMoveError,
    InvalidOpeningError,
    InvalidPositionError,
    Mark,
    Move,
    Outcome,
    Rules,
    Termination,
    has_line,
    opening_moves,
)

COLUMNS = "abcdefghi"
ROWS = "123456789"
_MARK_CHAR = {None: ".", Mark.X: "x", Mark.O: "o"}

# --- moves -----------------------------------------------------------------------


def move_text(move: Move) -> str:
    x, y = move.xy
    return COLUMNS[x] + ROWS[y]


def parse_move(text: str) -> Move:
    """Read a square such as ``e5`` (case and surrounding spaces are ignored)."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move must be text like 'e5', not {text!r}")
    t = text.strip().lower()
    if len(t) != 2 or t[0] not in COLUMNS or t[1] not in ROWS:
        raise InvalidMoveError(
            f"cannot read move {text!r}: write a column a-i then a row 1-9, like 'e5'"
        )
    return Move.from_xy(COLUMNS.index(t[0]), ROWS.index(t[1]))


# --- positions ---------------------------------------------------------------------


def position_text(board: Board) -> str:
    rows = []
    for y in range(9):
        row, empties = "", 0
        for x in range(9):
            mark = board.cells[Move.from_xy(x, y).action]
            if mark is None:
                empties += 1
                continue
            if empties:
                row += str(empties)
                empties = 0
            row += _MARK_CHAR[mark]
        rows.append(row + (str(empties) if empties else ""))
    target = "-" if board.target is None else str(board.target)
    owners = "".join(_MARK_CHAR[o] for o in board.owners)
    return f"{board.rules.name} {'/'.join(rows)} {_MARK_CHAR[board.turn]} {target} {owners}"


def parse_position(text: str) -> Board:
    """The `Board` a position string describes (with an empty move stack)."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position must be text, not {text!r}")
    parts = text.split()
    if len(parts) not in (4, 5):
        raise InvalidPositionError(
            f"a position has 5 fields (rules grid side target owners), got {len(parts)}: {text!r}"
        )
    rules_text, grid_text, side_text, target_text = parts[:4]
    try:
        rules = Rules.parse(rules_text)
    except ValueError as exc:
        raise InvalidPositionError(f"position rules field: {exc}") from None
    board = Board(rules)
    board.cells = _parse_grid(grid_text)

    if side_text not in ("x", "o"):
        raise InvalidPositionError(f"side to move must be 'x' or 'o', not {side_text!r}")
    board.turn = Mark.X if side_text == "x" else Mark.O
    nx, no = board.cells.count(Mark.X), board.cells.count(Mark.O)
    expected = Mark.X if nx == no else Mark.O if nx == no + 1 else None
    if expected is None:
        raise InvalidPositionError(
            f"X has {nx} marks and O {no}: X moves first, so X has as many as O or one more"
        )
    if board.turn is not expected:
        raise InvalidPositionError(
            f"side to move is {board.turn} but the mark counts (X {nx}, O {no}) say {expected}"
        )

    board.owners = _owners(board, parts[4] if len(parts) == 5 else None)
    board._outcome = board._judge()
    if board._outcome is not None:
        _check_final(board)

    if target_text == "-":
        board.target = None
    elif len(target_text) == 1 and target_text in "012345678":
        target = int(target_text)
        if board._outcome is not None:
            raise InvalidPositionError("the game is over, so the target board must be '-'")
        if board.is_closed(target):
            raise InvalidPositionError(
                f"target board {target} is closed: write '-' for a free move"
            )
        mover = board.turn.other
        if not any(board.cells[9 * b + target] is mover for b in range(9)):
            raise InvalidPositionError(
                f"target board {target} needs a {mover} mark in cell {target} of some board "
                "(the move that sent the opponent there)"
            )
        board.target = target
    else:
        raise InvalidPositionError(f"target board must be 0-8 or '-', not {target_text!r}")
    return board


def _parse_grid(text: str) -> list[Mark | None]:
    rows = text.split("/")
    if len(rows) != 9:
        raise InvalidPositionError(f"the grid needs 9 rows separated by '/', got {len(rows)}")
    cells: list[Mark | None] = [None] * 81
    for y, row in enumerate(rows):
        x = 0
        for ch in row:
            if ch in "123456789":
                x += int(ch)
            elif ch in "xo":
                if x < 9:
                    cells[Move.from_xy(x, y).action] = Mark.X if ch == "x" else Mark.O
                x += 1
            else:
                raise InvalidPositionError(
                    f"row {y + 1} of the grid: {ch!r} is not x, o or a digit 1-9"
                )
        if x != 9:
            raise InvalidPositionError(f"row {y + 1} of the grid ({row!r}) has {x} squares, not 9")
    return cells


def _owners(board: Board, text: str | None) -> list[Mark | None]:
    """Board owners from the field, checked against the marks; derived if absent."""
    lines = [
        [m for m in (Mark.X, Mark.O) if has_line(board.small_board(b), m)] for b in range(9)
    ]
    if text is None:
        if any(len(ls) > 1 for ls in lines):
            raise InvalidPositionError(
                "both players have a line in one board: give the owners field"
            )
        return [ls[0] if ls else None for ls in lines]
    if len(text) != 9 or any(ch not in "xo." for ch in text):
        raise InvalidPositionError(f"board owners must be 9 of x, o or '.', not {text!r}")
    owners = [None if ch == "." else Mark.X if ch == "x" else Mark.O for ch in text]
    for b, (owner, have) in enumerate(zip(owners, lines, strict=True)):
        if owner is not None and owner not in have:
            raise InvalidPositionError(f"board {b} is given to {owner}, who has no line in it")
        if owner is None and have:
            raise InvalidPositionError(f"board {b} has a line of {have[0]} but no owner")
        if len(have) > 1 and not board.rules.open_boards:
            raise InvalidPositionError(
                f"board {b} has lines of both players, impossible when won boards close"
            )
    return owners


def _check_final(board: Board) -> None:
    outcome = board.outcome()
    assert outcome is not None
    if outcome.termination in (Termination.LINE, Termination.FIVE_BOARDS):
        if outcome.winner is board.turn:
            raise InvalidPositionError(
                f"{outcome.winner} has already won, yet it is {outcome.winner} to move"
            )
        if board.rules.win == "line":
            loser = outcome.winner.other if outcome.winner is not None else None
            if loser is not None and has_line(board.owners, loser):
                raise InvalidPositionError("both players have three boards in a row")


# --- the picture --------------------------------------------------------------------------


def picture(board: Board) -> str:
    """A 9x9 text picture with the big board beside it and a status line."""
    big = [_MARK_CHAR[o].upper() if o else ("-" if board.is_full(b) else ".")
           for b, o in enumerate(board.owners)]
    out = ["    a b c   d e f   g h i"]
    for y in range(9):
        if y in (3, 6):
            out.append("   -------+-------+-------")
        squares = [
            (board.cells[Move.from_xy(x, y).action] or ".").__str__() for x in range(9)
        ]
        row = f"{y + 1}   " + " | ".join(" ".join(squares[i : i + 3]) for i in (0, 3, 6))
        if y % 3 == 1:
            r = y // 3
            row += "      " + " ".join(big[3 * r : 3 * r + 3])
        out.append(row)
    outcome = board.outcome()
    if outcome is not None:
        who = "draw" if outcome.winner is None else f"{outcome.winner} wins"
        out.append(f"Game over: {outcome.result()} ({who}, {outcome.termination})")
    elif board.target is None:
        out.append(f"{board.turn} to move, in any open board")
    else:
        span = f"{move_text(Move(board.target, 0))}-{move_text(Move(board.target, 8))}"
        out.append(f"{board.turn} to move, in board {board.target} ({span})")
    return "\n".join(out)


# --- game records ---------------------------------------------------------------------------


class InvalidRecordError(ValueError):
    """A game record that cannot be read, or whose moves or result do not fit the rules."""


RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_RESULT_WINNER = {"1-0": Mark.X, "0-1": Mark.O, "1/2-1/2": None}
_TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]$')
_TOKEN = re.compile(r"\{[^}]*\}|\d+\.+|1-0|0-1|1/2-1/2|\*|[^\s{}]+")


@dataclass
class Game:
    """A game record: tags (a mapping, kept in order), moves and move comments.

    >>> from ninefold import Board
    >>> board = Board(opening="53271")
    >>> game = Game.from_board(board, X="alice", O="bob")
    >>> print(game)
    [Rules "standard"]
    [Opening "53271"]
    [X "alice"]
    [O "bob"]
    [Result "*"]
    <BLANKLINE>
    1. f4 h1 2. d3 a7 *
    >>> list(read_games(str(game)))[0].board() == board
    True
    """

    tags: dict[str, str] = field(default_factory=dict)
    moves: list[Move] = field(default_factory=list)
    comments: dict[int, str] = field(default_factory=dict)  # move index -> comment

    @classmethod
    def from_board(cls, board: Board, **tags: str) -> Game:
        """A record of the moves played on `board` (from its starting position)."""
        game = cls({"Rules": board.rules.name})
        if board.opening:
            game.tags["Opening"] = board.opening
        start = board.copy()
        while start.move_stack:
            start.pop()
        if start != Board(board.rules):
            game.tags["Position"] = start.position()
        game.tags.update(tags)
        outcome = board.outcome()
        game.tags["Result"] = outcome.result() if outcome else "*"
        if outcome:
            game.tags["Termination"] = str(outcome.termination)
        game.moves = list(board.move_stack)
        return game

    @property
    def result(self) -> str:
        return self.tags.get("Result", "*")

    @property
    def outcome(self) -> Outcome | None:
        """The recorded outcome (None while unfinished)."""
        if self.result == "*":
            return None
        term = self.tags.get("Termination")
        if term is None:
            # An old record without the reason: take it from the moves.
            final = self.board().outcome()
            return final or Outcome(_RESULT_WINNER[self.result], Termination.ADJUDICATION)
        return Outcome(_RESULT_WINNER[self.result], Termination(term))

    def start_board(self) -> Board:
        """The position before the first move of the record."""
        rules = self.tags.get("Rules", "standard")
        if "Position" in self.tags:
            board = Board.from_position(self.tags["Position"])
            if board.rules != Rules.parse(rules):
                raise InvalidRecordError("the Position tag's rules differ from the Rules tag")
            return board
        return Board(rules)

    def board(self) -> Board:
        """The position after all the moves."""
        board = self.start_board()
        for move in self.moves:
            board.push(move)
        board.opening = self.tags.get("Opening")
        return board

    def __str__(self) -> str:
        return write_game(self)


def write_game(game: Game) -> str:
    """The record's text (ends without a newline)."""
    lines = [f'[{k} "{_escape(v)}"]' for k, v in game.tags.items()]
    start = game.start_board() if "Position" in game.tags else None
    first_mark = start.turn if start else Mark.X
    # A position has no history: its marks count the plies played before it.
    number = 81 - start.cells.count(None) if start else 0
    words: list[str] = []
    for i, move in enumerate(game.moves):
        mover = Mark((first_mark + i) % 2)
        if mover is Mark.X:
            words.append(f"{(number + i) // 2 + 1}.")
        elif i == 0:
            words.append(f"{(number + i) // 2 + 1}...")
        words.append(move_text(move))
        if i in game.comments:
            words.append("{" + _one_line(game.comments[i].replace("}", ")")) + "}")
    words.append(game.result)
    body, line = [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > 79:
            body.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    body.append(line)
    return "\n".join(lines) + "\n\n" + "\n".join(body)


def write_games(games: Iterable[Game], out: TextIO) -> None:
    for game in games:
        out.write(write_game(game) + "\n\n")


# Every character str.splitlines() breaks a line at: none may end up inside a tag or comment.
_LINE_BREAK = re.compile("[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def _one_line(text: str) -> str:
    return _LINE_BREAK.sub(" ", text)


def _escape(value: str) -> str:
    return _one_line(str(value).replace("\\", "\\\\").replace('"', '\\"'))


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def read_games(source: str | TextIO) -> Iterator[Game]:
    """The games in a record text or file, checked move by move.

    Raises `InvalidRecordError` naming the game and line of the first problem.
    """
    text = source if isinstance(source, str) else source.read()
    game_no, start_line = 0, 0
    tags: dict[str, str] = {}
    movetext: list[tuple[int, str]] = []
    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        if line.startswith("["):
            if movetext:
                game_no += 1
                yield _build(game_no, start_line, tags, movetext)
                tags, movetext = {}, []
            if not tags:
                start_line = line_no
            m = _TAG.match(line)
            if not m:
                raise InvalidRecordError(f"line {line_no}: cannot read tag {line[:60]!r}")
            tags[m.group(1)] = _unescape(m.group(2))
        else:
            if not tags and not movetext:
                start_line = line_no
            movetext.append((line_no, line))
    if tags or movetext:
        game_no += 1
        yield _build(game_no, start_line, tags, movetext)


def _build(game_no: int, start_line: int, tags: dict[str, str],
           movetext: list[tuple[int, str]]) -> Game:
    where = f"game {game_no} (from line {start_line})"
    game = Game(dict(tags))
    try:
        board = game.start_board()
    except (ValueError, InvalidRecordError) as exc:
        raise InvalidRecordError(f"{where}: {exc}") from None
    result_token: str | None = None
    for line_no, line in movetext:
        for token in _TOKEN.findall(line):
            if result_token is not None:
                raise InvalidRecordError(
                    f"{where}, line {line_no}: {token!r} after the result {result_token}"
                )
            if token.startswith("{"):
                if not game.moves:
                    raise InvalidRecordError(f"{where}, line {line_no}: comment before any move")
                game.comments[len(game.moves) - 1] = token[1:-1].strip()
            elif re.fullmatch(r"\d+\.+", token):
                continue
            elif token in RESULTS:
                result_token = token
            else:
                try:
                    move = parse_move(token)
                    board.push(move)
                except (InvalidMoveError, IllegalMoveError) as exc:
                    raise InvalidRecordError(
                        f"{where}, line {line_no}, move {len(game.moves) + 1}: {exc}"
                    ) from None
                game.moves.append(move)
    result = game.tags.setdefault("Result", result_token or "*")
    if result not in RESULTS:
        raise InvalidRecordError(f"{where}: Result tag {result!r} is not one of {RESULTS}")
    if result_token is not None and result_token != result:
        raise InvalidRecordError(
            f"{where}: the moves end with {result_token} but the Result tag says {result}"
        )
    _check_outcome(game, board, where)
    return game


def _check_outcome(game: Game, board: Board, where: str) -> None:
    term = game.tags.get("Termination")
    if term is not None:
        try:
            termination = Termination(term)
        except ValueError:
            known = ", ".join(t.value for t in Termination)
            raise InvalidRecordError(
                f"{where}: unknown Termination {term!r} (one of {known})"
            ) from None
    else:
        termination = None
    if termination is not None and game.result == "*":
        raise InvalidRecordError(f"{where}: Termination {termination} but the result is *")
    if game.result == "1/2-1/2" and termination in (
        Termination.TIME_FORFEIT, Termination.ILLEGAL_MOVE, Termination.BOT_FAILURE,
        Termination.RESIGNATION,
    ):
        raise InvalidRecordError(f"{where}: Termination {termination} needs a winner, not a draw")
    final = board.outcome()
    if final is not None:
        if game.result != final.result():
            raise InvalidRecordError(
                f"{where}: the moves end the game {final.result()} ({final.termination}), "
                f"but the record says {game.result}"
            )
        if termination is not None and termination is not final.termination:
            raise InvalidRecordError(
                f"{where}: the moves end by {final.termination}, the record says {termination}"
            )
    elif game.result != "*" and termination in (
        Termination.LINE, Termination.FIVE_BOARDS, Termination.BOARD_COUNT, Termination.NO_MOVES
    ):
        raise InvalidRecordError(
            f"{where}: Termination {termination} but the moves do not end the game"
        )
    if "Opening" in game.tags:
        try:
            expected = opening_moves(game.tags["Opening"])
        except InvalidOpeningError as exc:
            raise InvalidRecordError(f"{where}: {exc}") from None
        if "Position" in game.tags or game.moves[:4] != expected[: len(game.moves)]:
            raise InvalidRecordError(
                f"{where}: the first moves do not match the Opening code {game.tags['Opening']}"
            )


__all__ = [
    "Game",
    "InvalidRecordError",
    "move_text",
    "parse_move",
    "parse_position",
    "picture",
    "position_text",
    "read_games",
    "write_game",
    "write_games",
]
