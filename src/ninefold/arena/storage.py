"""Arena results in SQLite: one row per finished game, written in one transaction.

A run's configuration (players, schedule, openings, time controls) is stored
with it, so ``--resume`` rebuilds exactly the same schedule of game keys; the
UNIQUE key makes it impossible to store a game twice.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "t.db")
>>> with Storage(path) as db:
...     db.set_config({"kind": "match"})
...     db.config()
{'kind': 'match'}
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from ninefold.arena.referee import GameResult

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,     -- (pair, opening, colour) from the schedule
    seq INTEGER NOT NULL,         -- position in the schedule
    x TEXT NOT NULL,
    o TEXT NOT NULL,
    rules TEXT NOT NULL,
    opening TEXT,
    moves TEXT NOT NULL,          -- space-separated squares, opening included
    times_ms TEXT NOT NULL,       -- JSON list, one per move after the opening
    result TEXT NOT NULL,         -- 1-0, 0-1, 1/2-1/2
    winner TEXT,                  -- x, o or NULL
    termination TEXT NOT NULL,
    reason TEXT NOT NULL,
    started REAL NOT NULL,
    seconds REAL NOT NULL
);
"""


class StorageError(ValueError):
    """A results file that is not a ninefold results database, or is damaged."""


class Storage:
    """A results database: created if missing, unless `readonly` (for reports).

    A file that is not SQLite, or an SQLite file of some other program, is
    refused with `StorageError` and left exactly as it was.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        if readonly and not self.path.exists():
            raise StorageError(f"no results database {self.path}")
        uri = f"file:{self.path.resolve()}?mode=ro" if readonly else str(self.path)
        try:
            self.conn = sqlite3.connect(uri, timeout=30, uri=readonly)
            tables = {row[0] for row in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"{self.path} is not a results database ({exc})") from None
        if tables and not {"meta", "games"} <= tables:
            self.conn.close()
            raise StorageError(
                f"{self.path} is an SQLite file of another program (tables: "
                f"{', '.join(sorted(tables))}); ninefold leaves it alone"
            )
        if not tables and readonly:
            self.conn.close()
            raise StorageError(f"{self.path} holds no ninefold results")
        if not readonly:
            self.conn.executescript(SCHEMA)

    def __enter__(self) -> Storage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    # ---- configuration

    def config(self) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except ValueError:
            raise StorageError(f"{self.path}: the stored run configuration is damaged") from None

    def set_config(self, config: dict[str, Any]) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('config', ?)",
                (json.dumps(config, sort_keys=True),),
            )

    # ---- games

    def save(self, result: GameResult, seq: int) -> bool:
        """Store one finished game; False if its key was already stored."""
        with self.conn:  # one transaction
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO games (key, seq, x, o, rules, opening, moves, times_ms, "
                "result, winner, termination, reason, started, seconds) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (result.key, seq, result.x, result.o, result.rules, result.opening,
                 " ".join(result.moves), json.dumps(result.times_ms), result.result,
                 result.winner, result.termination, result.reason, result.started,
                 result.seconds),
            )
            return cur.rowcount == 1

    def done_keys(self) -> set[str]:
        return {row[0] for row in self.conn.execute("SELECT key FROM games")}

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def games(self) -> list[GameResult]:
        """All stored games in schedule order."""
        try:
            rows = self.conn.execute(
                "SELECT key, x, o, rules, opening, moves, times_ms, result, winner, termination, "
                "reason, started, seconds FROM games ORDER BY seq, id"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"{self.path}: cannot read the games ({exc})") from None
        games = []
        for (key, x, o, rules, opening, moves, times, result, winner, termination, reason,
             started, seconds) in rows:
            try:
                times_ms = json.loads(times)
            except (TypeError, ValueError):
                raise StorageError(f"{self.path}: game {key} has damaged move times") from None
            games.append(GameResult(
                x=x, o=o, rules=rules, opening=opening, moves=moves.split() if moves else [],
                times_ms=times_ms, result=result, winner=winner,
                termination=termination, reason=reason, started=started, seconds=seconds,
                key=key,
            ))
        return games
