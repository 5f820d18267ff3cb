"""The web board's games in SQLite or PostgreSQL: one row a game, rewritten whole by one
statement (its own transaction).

A write says which version of the game it changes (`save(game, changes)`):
if another request changed the game meanwhile, nothing is written and
`Stale` is raised, so two requests racing for one position cannot both
land. A SQLite database is in WAL mode, so readers never wait for a writer,
with ``synchronous=NORMAL``: a commit is not flushed to the disk (no fsync; the
WAL is, at each checkpoint), which makes a write about 25 times cheaper. A
process killed (even with SIGKILL) loses nothing it had written: the
operating system holds the file's pages. A power loss or an operating system
crash may lose the last writes, never the database's consistency. This
module is where a `WebGame` becomes text and back: reading one builds its
board once (`ninefold.web.games.KeptBoards`: from the board of its last read).

The queries are the same on both backends (`Backend`): a SQLite file
(`Sqlite`, the default: one server process), or a PostgreSQL database that
several server processes share (``postgresql+psycopg://...``: the backend in
`ninefold.web.postgres`, which also notifies the other processes of each
change and lets one at a time hold a game's computer move, `GameStore.claim`).

>>> import tempfile, os
>>> from ninefold.web.games import Mode, WebGame
>>> store = GameStore(os.path.join(tempfile.mkdtemp(), "web.db"))
>>> game, tokens = WebGame.new(store.new_id(), Mode.COMPUTER, level=1)
>>> store.add(game)
>>> store.get(game.id) == game
True
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ninefold.files import sqlite_wal
from ninefold.rules import Mark, Move, Rules
from ninefold.web.errors import NotFound, Stale
from ninefold.web.games import Mode, WebGame
from ninefold.web.notation import maybe_side
from ninefold.web.time_control import WebTimeControl

SCHEMA = """
CREATE TABLE IF NOT EXISTS web_games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    mode TEXT NOT NULL,            -- computer, local, online
    rules TEXT NOT NULL,
    opening TEXT,
    moves TEXT NOT NULL,           -- space-separated squares after the opening
    ply INTEGER NOT NULL,          -- the number of moves: the version a write changes
    seats TEXT NOT NULL,           -- JSON {"x": sha256 or null, "o": ...}
    level INTEGER,
    resigned TEXT,                 -- x or o
    draw_offer TEXT,
    agreed_draw INTEGER NOT NULL DEFAULT 0,
    changes INTEGER NOT NULL DEFAULT 0,  -- every write adds one (undo lowers ply)
    clock TEXT,                    -- JSON {"bank_ms", "increment_ms", "capped"}, or null
    left_ms TEXT,                  -- JSON {"x": ms, "o": ms}: time left (clocked games)
    running_since REAL,            -- when the side to move's time began to run
    flagged TEXT,                  -- x or o: whose time ran out
    start TEXT,                    -- the position string the game began from, or null
    invited TEXT                   -- x or o: the seat whose invite link no one opened yet
);
CREATE TABLE IF NOT EXISTS web_reviews (
    key TEXT PRIMARY KEY,          -- ninefold.review.review_key: the game's start and moves
    created REAL NOT NULL,
    ms REAL NOT NULL,              -- the search time a position it was made with
    review TEXT NOT NULL           -- JSON (ninefold.review.Review.to_json)
);
"""
ADDED = {  # columns newer than the table: a database from before gains them
    "clock": "TEXT", "left_ms": "TEXT", "running_since": "REAL", "flagged": "TEXT",
    "start": "TEXT", "invited": "TEXT"}
COLUMNS = (  # what `_row` writes
    "rules", "opening", "moves", "ply", "seats", "level", "resigned", "draw_offer",
    "agreed_draw", "clock", "left_ms", "running_since", "flagged", "start", "invited")
ID_BYTES = 6  # a game's id: 8 URL-safe characters
SQUARES = {str(m): m for m in map(Move.from_action, range(81))}  # a stored move, unparsed
NAMES = {m: name for name, m in SQUARES.items()}  # and back
T = TypeVar("T")


class GameStore:
    """Web games in the SQLite file `db` (created if missing), or in the PostgreSQL
    database at the URL `db` (``postgresql+psycopg://...``: `ninefold.web.postgres`)."""

    def __init__(self, db: str | Path) -> None:
        self.shared = is_postgres(db)  # other processes may change the games too
        self.backend: Backend = _postgres(str(db)) if self.shared else Sqlite(db)

    def _connection(self) -> Database:
        return self.backend.connection()

    async def call(self, method: Callable[..., T], *args: Any) -> T:
        """`method(*args)` (one of this store's) from the event loop: at once on SQLite
        (tens of microseconds), in a thread on PostgreSQL (a round trip to its server)."""
        if self.shared:
            return await asyncio.to_thread(method, *args)
        return method(*args)

    def new_id(self) -> str:
        return secrets.token_urlsafe(ID_BYTES)

    def add(self, game: WebGame) -> None:
        self._connection().execute(
            f"INSERT INTO web_games (id, created, mode, {', '.join(COLUMNS)})"
            f" VALUES (?, ?, ?{', ?' * len(COLUMNS)})",
            (game.id, game.created, game.mode.value, *_row(game)))

    def get(self, game_id: str) -> WebGame:
        row = self._connection().execute(
            f"SELECT id, created, mode, changes, {', '.join(COLUMNS)} FROM web_games"
            " WHERE id = ?",
            (game_id,)).fetchone()
        if row is None:
            raise NotFound(f"no game {game_id!r} here")
        return _game(row)

    def save(self, game: WebGame, changes: int) -> None:
        """Write `game`, read when its change count was `changes` (`WebGame.changes`);
        `Stale` if it has changed since."""
        done = self._connection().execute(  # one statement: its own transaction
            f"UPDATE web_games SET {', '.join(c + '=?' for c in COLUMNS)},"
            " changes=changes + 1 WHERE id = ? AND changes = ?",
            (*_row(game), game.id, changes)).rowcount
        if not done:
            raise Stale("the game changed meanwhile: reload it")
        game.changes = changes + 1

    def unfinished_computer_games(self) -> list[str]:
        """Ids of computer games not over, newest first (their computer may owe a move)."""
        rows = self._connection().execute(
            "SELECT id FROM web_games WHERE mode = 'computer' AND resigned IS NULL"
            " ORDER BY created DESC").fetchall()
        return [r[0] for r in rows]

    def running_clocks(self) -> list[str]:
        """Ids of games whose clock runs (a time may run out while no one asks)."""
        rows = self._connection().execute(
            "SELECT id FROM web_games WHERE running_since IS NOT NULL").fetchall()
        return [r[0] for r in rows]

    def stored_review(self, key: str) -> str | None:
        """The review stored as `key` (``ninefold.review.review_key``), its JSON; None if
        there is none."""
        row = self._connection().execute(
            "SELECT review FROM web_reviews WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def keep_review(self, key: str, ms: float, review: str) -> None:
        """Store the review `review` (JSON) as `key`, made with `ms` ms a position (the
        first one stored stays)."""
        self._connection().execute(
            "INSERT INTO web_reviews (key, created, ms, review) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (key) DO NOTHING", (key, time.time(), ms, review))

    def claim(self, game_id: str) -> AbstractAsyncContextManager[None]:
        """Hold the game's computer move: with several processes on one database, one
        at a time (`ninefold.web.postgres`); nothing to wait for on SQLite."""
        return self.backend.claim(game_id)

    def close(self) -> None:
        self.backend.close()


# --- the backends: what differs between SQLite and PostgreSQL ---------------------------


class Cursor(Protocol):
    """What the queries read off an executed statement (sqlite3's and psycopg's agree)."""

    @property
    def rowcount(self) -> int: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class Database(Protocol):
    """A connection the queries run on: SQL with ``?`` placeholders."""

    def execute(self, sql: str, parameters: tuple[Any, ...] = (), /) -> Cursor: ...


class Backend(Protocol):
    """Where the games are: a connection a thread (each statement its own transaction),
    the claim on a game's computer move."""

    def connection(self) -> Database: ...
    def claim(self, game_id: str) -> AbstractAsyncContextManager[None]: ...
    def close(self) -> None: ...


def is_postgres(db: str | Path) -> bool:
    """`db` names a PostgreSQL database (a ``postgresql...://`` URL), not a SQLite file.

    >>> is_postgres("postgresql+psycopg://me@/games"), is_postgres("web.sqlite")
    (True, False)
    """
    return str(db).startswith(("postgresql:", "postgresql+"))


def _postgres(url: str) -> Backend:
    from ninefold.web.postgres import Postgres  # psycopg only when asked for

    return Postgres(url, SCHEMA, ADDED)


class Sqlite:
    """The games in a SQLite file (WAL, ``synchronous=NORMAL``): one connection a thread."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._local = threading.local()
        db = self._sqlite()
        sqlite_wal(db)
        db.executescript(SCHEMA)
        have = {row[1] for row in db.execute("PRAGMA table_info(web_games)")}
        for name, kind in ADDED.items():
            if name not in have:
                db.execute(f"ALTER TABLE web_games ADD COLUMN {name} {kind}")

    def _sqlite(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA busy_timeout=30000")
            db.execute("PRAGMA synchronous=NORMAL")  # in WAL mode: no fsync a commit
            self._local.db = db
        return db

    def connection(self) -> Database:
        return self._sqlite()

    def claim(self, game_id: str) -> AbstractAsyncContextManager[None]:
        return nullcontext()  # one process: its hub runs one computer move a game

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None



_rules = functools.lru_cache(maxsize=64)(Rules.parse)  # a game's rules, read once a process


def _mark(side: str | None) -> Mark | None:
    return None if side is None else Mark[side.upper()]


def _row(game: WebGame) -> tuple[Any, ...]:
    """The values of `COLUMNS` for `game`."""
    clock = None if game.clock is None else json.dumps(dataclasses.asdict(game.clock))
    return (game.rules.name, game.opening, " ".join(map(NAMES.__getitem__, game.moves)), game.ply,
            json.dumps(game.seats), game.level, maybe_side(game.resigned),
            maybe_side(game.draw_offer),
            int(game.agreed_draw), clock, json.dumps(game.left_ms) if clock else None,
            game.running_since, maybe_side(game.flagged), game.start, maybe_side(game.invited))


def _game(row: tuple[Any, ...]) -> WebGame:
    (gid, created, mode, changes, rules, opening, moves, _ply, seats, level, resigned,
     draw_offer, agreed, clock, left_ms, running_since, flagged, start, invited) = row
    game = WebGame(gid, Mode(mode), _rules(rules), opening,
                   [SQUARES[m] for m in moves.split()], json.loads(seats), level,
                   _mark(resigned), _mark(draw_offer), bool(agreed), created, changes,
                   WebTimeControl(**json.loads(clock)) if clock else None,
                   json.loads(left_ms) if left_ms else {}, running_since, _mark(flagged),
                   start, _mark(invited))
    return game
