"""The bot arena: a referee for built-in players and external bots of every protocol,
matches and tournaments stored in SQLite, ratings, SPRT and reports."""

from ninefold.arena.checkbot import Check, check_bot
from ninefold.arena.match import ArenaError, RunConfig, Standings, open_run, run, schedule
from ninefold.arena.ratings import EloEstimate, Sprt, bradley_terry, match_elo
from ninefold.arena.referee import GameResult, Seat, play_game
from ninefold.arena.storage import Storage

__all__ = [
    "ArenaError",
    "Check",
    "EloEstimate",
    "GameResult",
    "RunConfig",
    "Seat",
    "Sprt",
    "Standings",
    "Storage",
    "bradley_terry",
    "check_bot",
    "match_elo",
    "open_run",
    "play_game",
    "run",
    "schedule",
]
