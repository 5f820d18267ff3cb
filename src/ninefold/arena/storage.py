"""Arena results in SQLite: one row per finished game, written in one transaction.

A run's configuration (players, schedule, openings, time controls) is stored
with it as JSON, so ``--resume`` rebuilds exactly the same schedule of game
keys; the UNIQUE key makes it impossible to store a game twice. This module
is where typed values become text and back.

>>> import tempfile, os
>>> from ninefold.arena.referee import Seat
>>> path = os.path.join(tempfile.mkdtemp(), "t.db")
>>> cfg = RunConfig([Seat.builtin("random", "a"), Seat.builtin("naive", "b")], games=4)
>>> with Storage(path) as db:
...     db.set_config(cfg)
...     db.config() == cfg
True
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from ninefold.arena.config import Openings, RunConfig
from ninefold.arena.ratings import Sprt
from ninefold.arena.referee import GameKey, GameResult, Seat
from ninefold.protocols import TimeControl
from ninefold.rules import Mark, Outcome, Rules, Termination

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,     -- JSON [player a, player b, round, colour] (GameKey)
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
            try:
                self.conn.executescript(SCHEMA)
            except sqlite3.OperationalError as exc:
                self.conn.close()
                raise StorageError(f"cannot write to {self.path}: {exc}") from None

    def __enter__(self) -> Storage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    # ---- configuration

    def config(self) -> RunConfig | None:
        """The run stored here, or None."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        if row is None:
            return None
        try:
            return config_from_json(json.loads(row[0]))
        except (ValueError, TypeError, KeyError) as exc:
            raise StorageError(
                f"{self.path}: the stored run configuration is damaged ({exc})") from None

    def set_config(self, cfg: RunConfig) -> None:
        with self._writing():
            self.conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('config', ?)",
                (json.dumps(config_to_json(cfg), sort_keys=True),),
            )

    def _writing(self) -> _Writing:
        return _Writing(self)

    # ---- games

    def save(self, result: GameResult, seq: int) -> bool:
        """Store one finished game; False if its key was already stored."""
        outcome = result.outcome
        winner = None if outcome.winner is None else outcome.winner.name.lower()
        with self._writing():
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO games (key, seq, x, o, rules, opening, moves, times_ms, "
                "result, winner, termination, reason, started, seconds) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (str(result.key), seq, result.x, result.o, result.rules.name, result.opening,
                 " ".join(result.moves), json.dumps(result.times_ms), outcome.result(),
                 winner, str(outcome.termination), result.reason, result.started,
                 result.seconds),
            )
            return cur.rowcount == 1

    def done_keys(self) -> set[GameKey]:
        return {_key(row[0], self.path) for row in self.conn.execute("SELECT key FROM games")}

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def games(self) -> list[GameResult]:
        """All stored games in schedule order."""
        try:
            rows = self.conn.execute(
                "SELECT key, x, o, rules, opening, moves, times_ms, winner, termination, "
                "reason, started, seconds FROM games ORDER BY seq, id"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"{self.path}: cannot read the games ({exc})") from None
        games = []
        for (key, x, o, rules, opening, moves, times, winner, termination, reason,
             started, seconds) in rows:
            try:
                times_ms = json.loads(times)
                outcome = Outcome(None if winner is None else Mark[winner.upper()],
                                  Termination(termination))
                parsed_rules = Rules.parse(rules)
            except (TypeError, ValueError, KeyError):
                raise StorageError(f"{self.path}: game {key} is damaged") from None
            games.append(GameResult(
                x=x, o=o, rules=parsed_rules, opening=opening,
                moves=moves.split() if moves else [], times_ms=times_ms, outcome=outcome,
                reason=reason, started=started, seconds=seconds, key=_key(key, self.path),
            ))
        return games


class _Writing:
    """One write transaction; a file that cannot be written is a `StorageError`."""

    def __init__(self, db: Storage) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.conn.__enter__()

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        self.db.conn.__exit__(kind, exc, tb)
        if isinstance(exc, sqlite3.OperationalError):
            raise StorageError(f"cannot write to {self.db.path}: {exc}") from None


def _key(text: str, path: Path) -> GameKey:
    try:
        return GameKey.parse(text)
    except ValueError:
        pass
    parts = text.split("|")  # before version 2: "a|b|round|colour", names without "|"
    if len(parts) == 4 and parts[2].isdigit() and parts[3] in ("0", "1"):
        return GameKey(parts[0], parts[1], int(parts[2]), int(parts[3]))
    raise StorageError(f"{path}: game key {text!r} is damaged")


# ---- a run's configuration as JSON


def config_to_json(cfg: RunConfig) -> dict[str, Any]:
    return {
        "version": 2, "players": [_seat_to_json(p) for p in cfg.players],
        "games": cfg.games, "format": cfg.format, "rules": cfg.rules.name,
        "openings": "random4" if cfg.openings.is_random else list(cfg.openings.codes),
        "seed": cfg.seed, "first_move_ms": cfg.first_move_ms, "slack_ms": cfg.slack_ms,
        "sprt": None if cfg.sprt is None else str(cfg.sprt), "name": cfg.name,
    }


def config_from_json(data: dict[str, Any]) -> RunConfig:
    """The configuration `config_to_json` wrote (or, before version 2, the text
    values of an older ninefold: time controls as text, no allowances as null)."""
    openings = data["openings"]
    return RunConfig(
        players=[_seat_from_json(p) for p in data["players"]], games=data["games"],
        format=data["format"], rules=Rules.parse(data["rules"]),
        openings=Openings() if openings == "random4" else Openings(tuple(openings)),
        seed=data["seed"], first_move_ms=data["first_move_ms"] or 0,
        slack_ms=data["slack_ms"] or 0,
        sprt=None if data["sprt"] is None else Sprt.parse(data["sprt"]), name=data["name"],
    )


def _seat_to_json(seat: Seat) -> dict[str, Any]:
    data = {f.name: getattr(seat, f.name) for f in fields(seat)}
    data["tc"] = None if seat.tc is None else asdict(seat.tc)
    return {k: v for k, v in data.items() if v is not None}


def _seat_from_json(data: dict[str, Any]) -> Seat:
    data = dict(data)
    tc = data.get("tc")
    if isinstance(tc, str):
        data["tc"] = TimeControl.parse(tc, TimeControl.for_protocol(data.get("protocol")))
    elif tc is not None:
        data["tc"] = TimeControl(**tc)
    return Seat(**data)
