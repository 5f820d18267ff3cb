"""Stored games, read from any store the project writes: one reader for the opening
explorer and the puzzle maker.

`read_stored` takes a path and yields its games (`StoredGame`), finished or not:

- a web store (``.sqlite``/``.db`` with a ``web_games`` table): ``web``; a game is
  finished when it is over on the board, resigned, flagged or drawn by agreement;
- the platform's database (a ``games`` table with ``contests``): ``platform``;
- an arena results database (a ``games`` table without ``contests``): ``arena``;
- match records (``.jsonl``, `benchmarks/strength.py --save`'s: a ``match`` line with
  the rules, then one line per game with its ``moves``; lines without moves skipped)
  and game records (`ninefold.records`, any other file): ``records``.

A file that is none of these, or is damaged, raises `StoredGamesError` (one line).

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "m.jsonl"
>>> _ = path.write_text('{"match": {"rules": "standard"}}\\n'
...                     '{"game": 7, "moves": ["e5", "e4"], "score_a": 1}\\n')
>>> [(g.name, g.game, [str(m) for m in g.moves], g.result) for g in read_stored(path)]
[('m.jsonl#7', 7, ['e5', 'e4'], 'x')]
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ninefold.records import InvalidRecordError, read_games
from ninefold.rules import Board, Mark, Move, Rules

Result = Literal["x", "draw", "o"]


class StoredGamesError(ValueError):
    """A file of games that cannot be read, or is damaged; one line."""


@dataclass(frozen=True)
class StoredGame:
    """A game from a store: where it is (`source`; `name`, its name there; `game`, its id
    in its store; `file`, the store's path), where it started, its moves, and who won
    (``x``, ``draw``, ``o``, or None while it is not over)."""

    source: str
    name: str
    start: Board
    moves: tuple[Move, ...]
    result: Result | None
    game: int | str = 0
    file: str = ""

    @property
    def key(self) -> bytes:
        """The game's id: its source, name, start, and moves, hashed."""
        text = "\n".join([self.source, self.name, self.start.position(),
                          " ".join(str(m) for m in self.moves)])
        return hashlib.sha256(text.encode()).digest()[:16]


_WINNER: dict[str | None, Result] = {"x": "x", "o": "o", None: "draw", "": "draw"}
_MARK: dict[Mark | None, Result] = {Mark.X: "x", Mark.O: "o", None: "draw"}
_SCORE: dict[str, Result] = {"1-0": "x", "0-1": "o", "1/2-1/2": "draw"}


def read_stored(path: Path) -> Iterator[StoredGame]:
    """The games stored in `path` (see the module's docstring for the kinds), finished
    or not; `StoredGamesError` for a file that is none of them or is damaged."""
    if path.suffix in (".sqlite", ".db"):
        yield from _read_database(path)
        return
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StoredGamesError(f"cannot read {path}: "
                               f"{getattr(exc, 'strerror', None) or exc}") from None
    if path.suffix == ".jsonl":
        yield from _read_match(path, text)
        return
    try:
        for i, game in enumerate(read_games(text)):
            outcome = game.outcome
            yield StoredGame("records", f"{path.name}#{i + 1}", game.start_board(),
                             tuple(game.board().move_stack),
                             None if outcome is None else _MARK[outcome.winner], i,
                             path.as_posix())
    except InvalidRecordError as exc:
        raise StoredGamesError(f"{path}: {exc}") from None


def _read_match(path: Path, text: str) -> Iterator[StoredGame]:
    rules = Rules.parse("standard")
    for number, line in enumerate(text.splitlines(), 1):
        try:
            try:
                row = json.loads(line) if line.strip() else {}
            except json.JSONDecodeError as exc:
                raise ValueError(f"not JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise ValueError("a line must be a JSON object")
            if isinstance(row.get("match"), dict):
                rules = Rules.parse(str(row["match"].get("rules", "standard")))
            if not row.get("moves"):
                continue
            moves = tuple(Move.parse(m) for m in row["moves"])
            result: Result | None = None
            if "score_a" in row:
                score_x = row["score_a"] if row.get("a_is_x", True) else 1 - row["score_a"]
                result = "x" if score_x == 1 else "o" if score_x == 0 else "draw"
        except (ValueError, TypeError) as exc:
            raise StoredGamesError(f"{path} line {number}: {exc}") from None
        game = row.get("game", number)
        yield StoredGame("records", f"{path.name}#{game}", Board(rules), moves, result, game,
                         path.as_posix())


def _read_database(path: Path) -> Iterator[StoredGame]:
    if not path.is_file():
        raise StoredGamesError(f"no such file: {path}")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error as exc:
        raise StoredGamesError(f"cannot read {path} as SQLite: {exc}") from None
    try:
        if "web_games" in tables:
            yield from _web_games(db, path)
        elif "games" in tables and "contests" in tables:
            rows = db.execute("SELECT g.id, c.rules, g.moves, g.status, g.result FROM games g "
                              "JOIN contests c ON c.id = g.contest_id")
            for key, rules, moves, status, result in rows:
                done = status == "done" and result is not None
                yield _game("platform", path, key, Board(rules), moves,
                            _SCORE[result] if done else None)
        elif "games" in tables:
            for key, rules, moves, winner in db.execute(
                    "SELECT key, rules, moves, winner FROM games"):
                yield _game("arena", path, key, Board(rules), moves,
                            _WINNER[winner])
        else:
            raise StoredGamesError(f"{path} holds no games: no web_games or games table")
    except sqlite3.Error as exc:
        raise StoredGamesError(f"cannot read {path}: {exc}") from None
    except (ValueError, KeyError) as exc:
        if isinstance(exc, StoredGamesError):
            raise
        raise StoredGamesError(f"{path}: {exc}") from None
    finally:
        db.close()


def _game(source: str, path: Path, key: int | str, start: Board, moves: str,
          result: Result | None) -> StoredGame:
    name = f"platform#{key}" if source == "platform" else f"{path.name}#{key}"
    return StoredGame(source, name, start, tuple(Move.parse(m) for m in moves.split()),
                      result, key, path.as_posix())


def _web_games(db: sqlite3.Connection, path: Path) -> Iterator[StoredGame]:
    """The web store's games; finished: over on the board, resigned, flagged or drawn by
    agreement."""
    rows = db.execute("SELECT id, rules, opening, moves, start, resigned, flagged, "
                      "agreed_draw FROM web_games")
    for key, rules, opening, moves, start, resigned, flagged, agreed in rows:
        if start:
            board = Board.from_position(start)
        else:
            board = Board(rules, opening=opening) if opening else Board(rules)
        first = Board.from_position(board.position()) if start else Board(board.rules)
        for move in (Move.parse(m) for m in moves.split()):
            board.push(move)
        outcome = board.outcome()
        result: Result | None = None
        if outcome is not None:
            result = _MARK[outcome.winner]
        elif resigned or flagged:
            result = "o" if (resigned or flagged) == "x" else "x"
        elif agreed:
            result = "draw"
        # the opening's moves and the game's (from `start`: the game's)
        yield StoredGame("web", f"web#{key}", first, tuple(board.move_stack), result, key,
                         path.as_posix())
