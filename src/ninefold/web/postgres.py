"""The web board's games on PostgreSQL: the `ninefold.web.store` backend for a
``postgresql+psycopg://...`` URL (`Postgres`), shared by several server processes.

The table is `ninefold.web.store`'s schema, its floats double precision. Every
change of a game (an UPDATE: a move, a take-back, a flag fall...) notifies the
channel `CHANNEL` with the game's id, in the same transaction, from a trigger:
the other processes' `ninefold.web.notify` listeners hear of it once it is
committed, and a process knows its own changes by their sender, the backend
PIDs of its connections (`Postgres.pids`).

The queries are `ninefold.web.store`'s (``?`` placeholders, turned into
psycopg's ``%s`` here); each thread has its own connection, in autocommit (a
read is one statement), and a write is one transaction. A game's computer
move is claimed with a session advisory lock (`Postgres.claim`), held on a
connection of its own while the move is searched and stored, so of several
processes owing it one move, one searches and the others then find it played;
a process that dies lets go of its claims with its connections.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import psycopg
import sqlalchemy as sa
from psycopg.conninfo import make_conninfo

CHANNEL = "ninefold_web_games"  # NOTIFY's channel; the payload is the game's id
SCHEMA_LOCK = 0x9F01E  # advisory lock: one process creates the table at a time
CLAIMS = 0x9F01F  # the advisory locks' first key: the web games' computer moves
TRIGGER = f"""
CREATE OR REPLACE FUNCTION web_games_notify() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('{CHANNEL}', NEW.id);
    RETURN NULL;
END $$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS web_games_changed ON web_games;
CREATE TRIGGER web_games_changed AFTER UPDATE ON web_games
    FOR EACH ROW EXECUTE FUNCTION web_games_notify();
"""


def conninfo(url: str) -> str:
    """libpq's connection string for the SQLAlchemy URL `url` (the platform's form).

    >>> conninfo("postgresql+psycopg://me@/games?host=/run/pg")
    'dbname=games user=me host=/run/pg'
    """
    parsed = sa.make_url(url)
    parts: dict[str, Any] = {
        "dbname": parsed.database, "user": parsed.username, "password": parsed.password,
        "host": parsed.host, "port": parsed.port, **parsed.query}
    return make_conninfo("", **{k: v for k, v in parts.items() if v is not None})


def claim_key(game_id: str) -> int:
    """The advisory lock (a signed 64-bit key) of game `game_id`'s computer move."""
    digest = hashlib.sha256(f"{CLAIMS}:{game_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _double(sql: str) -> str:
    """SQLite's REAL (8 bytes) as PostgreSQL spells it (its REAL has 4).

    >>> _double("created REAL NOT NULL")
    'created DOUBLE PRECISION NOT NULL'
    """
    return re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql)


class _Connection:
    """A psycopg connection that runs `ninefold.web.store`'s SQL (``?`` placeholders)."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def execute(self, sql: str, parameters: tuple[Any, ...] = (), /) -> psycopg.Cursor[Any]:
        # no parameters: the simple protocol, which runs a script of several statements
        return self.conn.execute(sql.replace("?", "%s"), parameters or None)


class Postgres:
    """The games in the PostgreSQL database at `url` (the table and its trigger made if
    missing, from `schema` and the `added` columns)."""

    def __init__(self, url: str, schema: str, added: dict[str, str]) -> None:
        self.url = url
        self.conninfo = conninfo(url)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[_Connection] = []
        self.pids: set[int] = set()  # the backend PIDs of this process's connections
        with self.transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK,))
            db.execute(_double(schema))
            for name, kind in added.items():
                db.execute(f"ALTER TABLE web_games ADD COLUMN IF NOT EXISTS {name} "
                           + _double(kind))
            db.execute(TRIGGER)

    def connection(self) -> _Connection:
        db: _Connection | None = getattr(self._local, "db", None)
        if db is None or db.conn.closed:
            db = _Connection(psycopg.connect(self.conninfo, autocommit=True))
            self._local.db = db
            with self._lock:
                self._all.append(db)
                self.pids.add(db.conn.info.backend_pid)
        return db

    @contextmanager
    def transaction(self) -> Iterator[_Connection]:
        db = self.connection()
        with db.conn.transaction():
            yield db

    @asynccontextmanager
    async def claim(self, game_id: str) -> AsyncIterator[None]:
        """Wait until no other process holds game `game_id`'s computer move, and hold it
        (on a connection of its own: closing it lets go, even if cancelled meanwhile)."""
        conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
        try:
            await conn.execute("SELECT pg_advisory_lock(%s)", (claim_key(game_id),))
            yield
        finally:
            await conn.close()

    def close(self) -> None:
        """Close every thread's connection."""
        with self._lock:
            for db in self._all:
                db.conn.close()
            self._all.clear()
            self.pids.clear()
        self._local = threading.local()
