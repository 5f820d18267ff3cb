"""Small stores of games for the tests that read them (the explorer, the puzzle maker)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def arena_database(path: Path, moves: str = "e5 e4", winner: str = "o") -> Path:
    """An arena results database at `path` holding one game, ``[1]``, of `moves` (won by
    `winner` on a forfeit: ``0-1`` for O, ``1-0`` for X)."""
    from ninefold.arena.storage import SCHEMA

    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.execute("INSERT INTO games (key, seq, x, o, rules, moves, times_ms, result, winner, "
               "termination, reason, started, seconds) VALUES ('[1]', 0, 'a', 'b', "
               "'standard', ?, '[]', ?, ?, 'forfeit', 'crash', 0, 1)",
               (moves, "0-1" if winner == "o" else "1-0", winner))
    db.commit()
    db.close()
    return path
