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


class Storage:
    """A results database (created if missing)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.conn = sqlite3.connect(str(self.path), timeout=30)
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
        return json.loads(row[0]) if row else None

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
        rows = self.conn.execute(
            "SELECT key, x, o, rules, opening, moves, times_ms, result, winner, termination, "
            "reason, started, seconds FROM games ORDER BY seq, id"
        ).fetchall()
        return [
            GameResult(
                x=x, o=o, rules=rules, opening=opening, moves=moves.split() if moves else [],
                times_ms=json.loads(times), result=result, winner=winner,
                termination=termination, reason=reason, started=started, seconds=seconds,
                key=key,
            )
            for (key, x, o, rules, opening, moves, times, result, winner, termination, reason,
                 started, seconds) in rows
        ]
