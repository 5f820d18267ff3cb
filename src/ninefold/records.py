"""Game records: PGN-like text of whole games, many to a file, read and written.

Tag pairs, then the moves with numbers, then the result. Comments in braces
after a move are kept (the arena stores the time a move took there). Moves and
positions are the text of `ninefold.rules` (``e5``, `Board.position`).

    [Rules "standard"]
    [Opening "53271"]
    [X "mcts:ms=100"]
    [O "random"]
    [Result "1-0"]
    [Termination "line"]

    1. f4 h1 2. d3 a7 3. b2 {12 ms} ... 1-0

Any other tag is kept as it is, in its order, and written back: the web board
adds ``Event``, ``Date`` (``2026.12.02``, UTC), ``UTCTime``, and PGN's
``TimeControl`` (``180+2``: seconds and increment; ``-`` for none).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, TextIO

from ninefold.options import clip
from ninefold.rules import (
    Board,
    IllegalMoveError,
    InvalidMoveError,
    InvalidOpeningError,
    Mark,
    Move,
    Outcome,
    Rules,
    Termination,
    opening_moves,
)


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
        """The Result tag: ``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` while unfinished."""
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
        words.append(str(move))
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


def write_games(games: Iterable[Game], out: IO[str]) -> None:
    """Write `games` to the text file `out`, a blank line after each."""
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
                raise InvalidRecordError(f"line {line_no}: cannot read tag {clip(line)}")
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
                    f"{where}, line {line_no}: {clip(token)} after the result {result_token}"
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
                    move = Move.parse(token)
                    board.push(move)
                except (InvalidMoveError, IllegalMoveError) as exc:
                    raise InvalidRecordError(
                        f"{where}, line {line_no}, move {len(game.moves) + 1}: {exc}"
                    ) from None
                game.moves.append(move)
    result = game.tags.setdefault("Result", result_token or "*")
    if result not in RESULTS:
        raise InvalidRecordError(f"{where}: Result tag {clip(result)} is not one of {RESULTS}")
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
                f"{where}: unknown Termination {clip(term)} (one of {known})"
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
    "RESULTS",
    "Game",
    "InvalidRecordError",
    "read_games",
    "write_game",
    "write_games",
]
