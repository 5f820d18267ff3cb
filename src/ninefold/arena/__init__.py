"""The bot arena: a referee for built-in players and external bots of every protocol,
matches and tournaments stored in SQLite, ratings, SPRT and reports.

Modules, bottom up: referee (one game), ratings, config (a run's typed
settings, tournament files), storage (SQLite; the only place values become
text), standings (scores), runner (schedule, run, live view), report (reads
stored runs: tables, plots, export), checkbot (the input test).
"""

from ninefold.arena.checkbot import Check, check_bot
from ninefold.arena.config import (
    DEFAULT_FIRST_MOVE_MS,
    DEFAULT_SLACK_MS,
    ArenaError,
    Openings,
    RunConfig,
    load_toml,
)
from ninefold.arena.ratings import EloEstimate, Sprt, bradley_terry, match_elo
from ninefold.arena.referee import GameKey, GameResult, Seat, play_game
from ninefold.arena.runner import open_run, plan_run, run, schedule
from ninefold.arena.standings import Standings
from ninefold.arena.storage import Storage

__all__ = [
    "DEFAULT_FIRST_MOVE_MS",
    "DEFAULT_SLACK_MS",
    "ArenaError",
    "Check",
    "EloEstimate",
    "GameKey",
    "GameResult",
    "Openings",
    "RunConfig",
    "Seat",
    "Sprt",
    "Standings",
    "Storage",
    "bradley_terry",
    "check_bot",
    "load_toml",
    "match_elo",
    "open_run",
    "plan_run",
    "play_game",
    "run",
    "schedule",
]
