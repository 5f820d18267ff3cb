"""The web board's words for the rules' values: a mark as ``"x"``/``"o"``, and the board a
pasted position string or game record describes.

>>> side(Mark.X), maybe_side(None)
('x', None)
"""

from __future__ import annotations

from typing import Literal

from ninefold.records import InvalidRecordError, read_games
from ninefold.rules import (
    Board,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Mark,
)


def side(mark: Mark) -> Literal["x", "o"]:
    """A mark as the web board writes it (JSON, seats, the database)."""
    return "x" if mark is Mark.X else "o"


def maybe_side(mark: Mark | None) -> Literal["x", "o"] | None:
    """`side`, or None for no mark (no winner, no draw offer, ...)."""
    return None if mark is None else side(mark)


def read_start(text: str) -> Board:
    """The board a pasted position string or game record describes, its moves on its
    move stack; ValueError saying what is wrong with it.

    >>> read_start("standard 9/9/9/9/4x4/9/9/9/9 o 4 .........").status()
    'O to move, in board 4 (d4-f6)'
    >>> [str(m) for m in read_start('[Rules "standard"]\\n1. e5 e4 *').move_stack]
    ['e5', 'e4']
    """
    text = text.strip()
    fields = text.split()
    if len(fields) == 5 and "/" in fields[1] and not text.startswith("["):
        try:
            return Board.from_position(text)
        except InvalidPositionError as exc:
            raise ValueError(f"not a position: {exc}") from None
    try:
        games = list(read_games(text))
        if len(games) != 1:
            raise ValueError(f"paste one game, not {len(games)}" if games else
                             "paste a position string or a game record")
        return games[0].board()
    except (InvalidRecordError, IllegalMoveError, InvalidMoveError,
            InvalidPositionError) as exc:
        raise ValueError(f"not a game record or a position: {exc}") from None
