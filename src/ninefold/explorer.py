"""The opening explorer: what was played in each position of the stored games, and how
it scored.

An `Explorer` is a SQLite file (the stdlib's ``sqlite3``) holding, for every
position the indexed games reached in their first `plies` plies, each move
played there with how many games went on to a win of X, a draw or a win of O,
per source (`SOURCES`) and per rule set. A position is keyed by `position_key`:
a 63-bit hash of its kernel state (the marks, the side to move and the board it
is sent to), computed in numba; the rules are a column of their own. Positions
are kept as they are: a position and its mirror image are two positions.

Games come from (`read_games_from`, finished games only, through `ninefold.stored_games`):

- a web store (``.sqlite``/``.db`` with a ``web_games`` table): finished games
  only, ``web``;
- an arena results database (a ``games`` table with ``meta``): ``arena``;
- the platform's database (a ``games`` table with ``contests``): its finished
  games, ``platform``;
- match records (``.jsonl``, `benchmarks/strength.py --save`'s, game lines with
  ``moves``) and game records (`ninefold.records`): ``records``.

Each game is indexed once: its id (`StoredGame.key`: the source, the game's
name in its store, its rules and moves, hashed) goes into a table, and a game
already there is skipped, so indexing a store again adds only its new games.

The engine's evaluation of each move (`evaluate`) is the analysis player's
(`ninefold.review.evaluate`) of the position the move leads to, for the
`EVALUATED` most played moves of a position, searched on request for a short
time and kept in the index per position, so the next query of it reads it.

>>> ex = Explorer(":memory:")
>>> moves = (Move.parse("e5"), Move.parse("e4"))
>>> ex.add([StoredGame("records", "doc#1", Board(), moves, "x")])
1
>>> [(str(r.move), r.games, r.x, r.draw, r.o) for r in ex.query(Board()).moves]
[('e5', 1, 1, 0, 0)]
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ninefold import kernel
from ninefold.jitcache import njit
from ninefold.kernel import FORCED, RESULT, RUNNING, SIDE
from ninefold.moves import InvalidPositionError
from ninefold.review import evaluate as evaluate_position
from ninefold.rules import Board, IllegalMoveError, InvalidMoveError, Move, Rules
from ninefold.stored_games import Result, StoredGame, StoredGamesError, read_stored

SOURCES = ("web", "arena", "platform", "records")
DEFAULT_PLIES = 30  # positions indexed per game: the first this many plies
EVAL_MS = 200.0  # the engine's search time for the position after a move, by default
EVALUATED = 12  # the moves of a position the engine evaluates: the most played
BATCH = 2000  # games read before their counts are written
Progress = Callable[[int, int], None]  # (games read, games added)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rules (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS games (
    key BLOB PRIMARY KEY,         -- StoredGame.key
    source INTEGER NOT NULL       -- an index of SOURCES
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS moves (
    pos INTEGER NOT NULL,         -- position_key
    rules INTEGER NOT NULL,       -- rules.id
    source INTEGER NOT NULL,      -- an index of SOURCES
    move INTEGER NOT NULL,        -- the action, 9 * board + cell
    x INTEGER NOT NULL, draw INTEGER NOT NULL, o INTEGER NOT NULL,
    PRIMARY KEY (pos, rules, source, move)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS evals (
    pos INTEGER NOT NULL, rules INTEGER NOT NULL,
    ms REAL NOT NULL,             -- the search time it was made with
    moves TEXT NOT NULL,          -- JSON {"e5": [X's expected score, proven or null], ...}
    PRIMARY KEY (pos, rules)
) WITHOUT ROWID;
"""


TABLES = {"meta", "rules", "games", "moves", "evals"}


class ExplorerError(ValueError):
    """A source or a query the explorer cannot take; one line."""


# --- keys ------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def position_key(s: np.ndarray) -> int:
    """A position's key: a 63-bit hash of its marks, side to move and target board."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for i in range(18):
        h = (h ^ np.uint64(s[i])) * np.uint64(0x100000001B3)
        h ^= h >> np.uint64(29)
    h = (h ^ np.uint64(s[FORCED] + 1 + 16 * s[SIDE])) * np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(31)
    return int(h >> np.uint64(1))


@njit(cache=True)
def walk(s: np.ndarray, actions: np.ndarray, flags: int, plies: int,
         keys: np.ndarray) -> int:
    """Play `actions` from state `s` (changed in place), writing the key of each position
    before one of the first `plies` moves into `keys`; the number of moves played, or
    ``-(i + 1)`` where move i is not legal (the game over, a closed board, a full
    square)."""
    for i in range(actions.shape[0]):
        a = actions[i]
        b, c = a // 9, a % 9
        if (s[RESULT] != RUNNING or not (kernel.playable_boards(s) >> b) & 1
                or not (kernel.empty_cells(s, b) >> c) & 1):
            return -(i + 1)
        if i < plies:
            keys[i] = position_key(s)
        kernel.play(s, b, c, flags)
    n: int = actions.shape[0]
    return n


def key_of(board: Board) -> int:
    """The index's key of `board`'s position.

    >>> key_of(Board()) == key_of(Board.from_position(Board().position()))
    True
    """
    key: int = position_key(kernel.from_board(board))
    return key


# --- games -----------------------------------------------------------------------------


def read_games_from(path: Path) -> Iterator[StoredGame]:
    """The finished games stored in `path` (`ninefold.stored_games.read_stored`: web, arena
    and platform databases, match records, game records); `ExplorerError` for a file
    that is none of them or is damaged."""
    try:
        for game in read_stored(path):
            if game.result is not None:
                yield game
    except StoredGamesError as exc:
        raise ExplorerError(str(exc)) from None


# --- the index -------------------------------------------------------------------------


@dataclass(frozen=True)
class MoveRow:
    """One move of a position: the games that played it, and how they ended."""

    move: Move
    games: int
    x: int
    draw: int
    o: int
    eval_x: float | None = None  # the engine's expected score for X after the move
    proven: str | None = None  # "x", "o", "draw": the result the engine proved

    def percent(self, result: Result) -> float:
        """The share of its games that ended so, in percent."""
        return 100.0 * {"x": self.x, "draw": self.draw, "o": self.o}[result] / self.games


@dataclass(frozen=True)
class Answer:
    """What the index holds about a position (moves most played first)."""

    position: str
    games: int
    moves: list[MoveRow] = field(default_factory=list)
    evaluated: bool = False  # the engine's evaluation is in the rows (from the cache or new)


@dataclass
class _Counts:
    rows: dict[tuple[int, int, int, int], list[int]] = field(default_factory=dict)

    def add(self, key: tuple[int, int, int, int], result: Result) -> None:
        row = self.rows.setdefault(key, [0, 0, 0])
        row[("x", "draw", "o").index(result)] += 1


class Explorer:
    """An explorer index in the SQLite file `path` (made if missing; ``":memory:"`` for
    one in memory). `plies` is the number of plies of each game it indexes; an existing
    index keeps the number it was made with."""

    def __init__(self, path: str | Path, plies: int = DEFAULT_PLIES, *,
                 readonly: bool = False) -> None:
        if readonly and not Path(path).is_file():
            raise ExplorerError(f"no explorer index {path}: make one with "
                                f"ninefold explore index --from FILE")
        try:
            self.db = sqlite3.connect(str(path), check_same_thread=False)
            tables = {r[0] for r in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if tables and not tables >= TABLES:  # another program's database: left alone
                self.db.close()
                raise ExplorerError(f"{path} is no explorer index: it holds the tables "
                                    f"{', '.join(sorted(tables))}")
            self.db.executescript(SCHEMA)
            found = self.db.execute("SELECT value FROM meta WHERE key = 'plies'").fetchone()
        except sqlite3.Error as exc:
            raise ExplorerError(f"{path} is no explorer index: {exc}") from None
        if found is None:
            with self.db:
                self.db.execute("INSERT INTO meta VALUES ('plies', ?)", (str(plies),))
        self.plies = int(found[0]) if found else plies
        self._rules = {name: i for i, name in self.db.execute("SELECT id, name FROM rules")}

    def close(self) -> None:
        self.db.close()

    def _rules_id(self, name: str, make: bool = False) -> int | None:
        if name not in self._rules and make:
            cur = self.db.execute("INSERT INTO rules (name) VALUES (?)", (name,))
            assert cur.lastrowid is not None
            self._rules[name] = cur.lastrowid
        return self._rules.get(name)

    # --- building ---

    def add(self, games: Iterable[StoredGame], progress: Progress | None = None) -> int:
        """Index the games not indexed yet; the number added. A game whose moves do not
        fit its rules raises `ExplorerError` naming it (the games before it are kept)."""
        read = added = 0
        counts, keys = _Counts(), np.zeros(self.plies, np.int64)
        seen: dict[bytes, int] = {}  # this batch's games: id -> source
        for game in games:
            read += 1
            if game.result is None:  # not over: nothing to count
                continue
            gid = game.key
            if gid in seen or self.db.execute(
                    "SELECT 1 FROM games WHERE key = ?", (gid,)).fetchone():
                continue
            s = kernel.from_board(game.start)
            actions = np.array([m.action for m in game.moves], np.int64)
            played = walk(s, actions, game.start.rules.flags, self.plies, keys)
            if played < 0:  # the games before it are kept; it is not marked indexed
                self._write(counts, seen)
                raise ExplorerError(f"{game.name}: move {-played} "
                                    f"({game.moves[-played - 1]}) is not legal there")
            source = SOURCES.index(game.source)
            seen[gid] = source
            with self.db:
                rules = self._rules_id(game.start.rules.name, make=True)
            assert rules is not None
            for i in range(min(played, self.plies)):
                counts.add((int(keys[i]), rules, source, int(actions[i])), game.result)
            added += 1
            if len(seen) >= BATCH:
                self._write(counts, seen)
                counts, seen = _Counts(), {}
                if progress:
                    progress(read, added)
        self._write(counts, seen)
        if progress:
            progress(read, added)
        return added

    def add_counts(self, rules: str, source: str, pos: np.ndarray, move: np.ndarray,
                   x: np.ndarray, draw: np.ndarray, o: np.ndarray) -> None:
        """Add counts already summed per (position key, move) (arrays of one length), as a
        bulk loader of generated games does (`benchmarks/explorer_speed.py`)."""
        with self.db:
            rid = self._rules_id(Rules.parse(rules).name, make=True)
            self.db.executemany(_UPSERT, zip(pos.tolist(), [rid] * len(pos),
                                             [SOURCES.index(source)] * len(pos), move.tolist(),
                                             x.tolist(), draw.tolist(), o.tolist(),
                                             strict=True))

    def _write(self, counts: _Counts, ids: dict[bytes, int]) -> None:
        with self.db:
            self.db.executemany(_UPSERT, [(*k, *v) for k, v in counts.rows.items()])
            self.db.executemany("INSERT INTO games VALUES (?, ?)", ids.items())

    def games(self) -> int:
        """The number of games indexed."""
        return int(self.db.execute("SELECT count(*) FROM games").fetchone()[0])

    # --- asking ---

    def query(self, board: Board, source: str | None = None) -> Answer:
        """The moves played from `board`'s position in the indexed games under its rules
        (of one source if given), most played first, with the engine's evaluation if it
        is kept."""
        if source is not None and source not in SOURCES:
            raise ExplorerError(f"unknown source {source[:40]!r}: one of {', '.join(SOURCES)}")
        rules = self._rules_id(board.rules.name)
        pos = key_of(board)
        rows: list[tuple[int, int, int, int]] = []
        if rules is not None:
            where = "pos = ? AND rules = ?" + ("" if source is None else " AND source = ?")
            args = (pos, rules) if source is None else (pos, rules, SOURCES.index(source))
            rows = self.db.execute(f"SELECT move, sum(x), sum(draw), sum(o) FROM moves "
                                   f"WHERE {where} GROUP BY move", args).fetchall()
        kept = self._kept_eval(pos, rules)
        found = [MoveRow(Move.from_action(a), x + d + o, x, d, o,
                         *(kept or {}).get(str(Move.from_action(a)), (None, None)))
                 for a, x, d, o in rows]
        found.sort(key=lambda r: (-r.games, r.move.action))
        return Answer(board.position(), sum(r.games for r in found), found, kept is not None)

    def _kept_eval(self, pos: int, rules: int | None) -> dict[str, tuple[float, str | None]] | None:
        if rules is None:
            return None
        row = self.db.execute("SELECT moves FROM evals WHERE pos = ? AND rules = ?",
                              (pos, rules)).fetchone()
        return None if row is None else {k: (v[0], v[1]) for k, v in json.loads(row[0]).items()}

    def evaluate(self, board: Board, source: str | None = None, ms: float = EVAL_MS) -> Answer:
        """`query` with the engine's evaluation of the moves (`evaluation`), made the first
        time and kept in the index (`keep`)."""
        answer = self.query(board, source)
        if answer.evaluated or board.is_game_over() or not answer.moves:
            return answer
        self.keep(board, evaluation(board, answer, ms))
        return self.query(board, source)

    def keep(self, board: Board, scores: Evaluation) -> None:
        """Keep the engine's evaluation of `board`'s moves (`evaluation`'s)."""
        rules = self._rules_id(board.rules.name, make=True)
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO evals VALUES (?, ?, ?, ?)",
                            (key_of(board), rules, scores.ms, json.dumps(scores.moves)))


@dataclass(frozen=True)
class Evaluation:
    """The engine's evaluation of a position's moves: by move, X's expected score after it
    and the result proven (or None); the search time it took in all."""

    moves: dict[str, tuple[float, str | None]]
    ms: float


def evaluation(board: Board, answer: Answer, ms: float = EVAL_MS) -> Evaluation:
    """The engine's evaluation of `answer`'s moves: the position after each of the
    `EVALUATED` most played is searched by the analysis player for `ms` milliseconds
    (`ninefold.review.evaluate`: a position the move ends the game in is scored by its
    result). It reads nothing of the index, so it may run while others ask it."""
    start = time.monotonic()
    scores: dict[str, tuple[float, str | None]] = {}
    for row in answer.moves[:EVALUATED]:
        after = board.copy()
        after.push(row.move)
        found = evaluate_position(after.position(), ms)
        scores[str(row.move)] = (found.x, found.proven)
    return Evaluation(scores, 1000 * (time.monotonic() - start))


_UPSERT = ("INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
           "x = x + excluded.x, draw = draw + excluded.draw, o = o + excluded.o")


def parse_board(position: str | None, moves: str | None, rules: str | None) -> Board:
    """The board a query names: a position string, or `moves` (``"e5 e4"``) from the
    empty board of `rules` (standard by default); one-line `ExplorerError` otherwise, and
    for a position under other rules than `rules`.

    >>> parse_board(None, "e5 e4", None).position()
    'standard 9/9/9/4o4/4x4/9/9/9/9 x 1 .........'
    """
    try:
        wanted = Rules.parse(rules) if rules else None
        if position:
            board = Board.from_position(position)
            if wanted is not None and board.rules != wanted:
                raise ExplorerError(f"the position is under {board.rules.name} rules, "
                                    f"not {wanted.name}")
        else:
            board = Board(wanted or "standard")
        for text in (moves or "").split():
            board.push_text(text)
    except (InvalidPositionError, InvalidMoveError, IllegalMoveError) as exc:
        raise ExplorerError(str(exc)) from None
    except ValueError as exc:
        if isinstance(exc, ExplorerError):
            raise
        raise ExplorerError(str(exc)) from None
    return board
