"""ninefold: Ultimate Tic-Tac-Toe with exact rules, a fast kernel and strong players.

>>> import ninefold
>>> board = ninefold.Board()
>>> board.push(ninefold.Move.parse("e5"))
>>> board.turn
Mark.O
"""

from ninefold.records import Game, InvalidRecordError, read_games, write_game, write_games
from ninefold.rules import (
    PRESETS,
    Board,
    IllegalMoveError,
    InvalidMoveError,
    InvalidOpeningError,
    InvalidPositionError,
    Mark,
    Move,
    O,
    Outcome,
    Rules,
    Termination,
    X,
    opening_moves,
    random_opening,
)

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "Board",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidOpeningError",
    "InvalidPositionError",
    "InvalidRecordError",
    "Mark",
    "Move",
    "O",
    "Outcome",
    "Rules",
    "Termination",
    "X",
    "opening_moves",
    "random_opening",
    "read_games",
    "write_game",
    "write_games",
]
