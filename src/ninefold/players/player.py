"""What every player is: a `Player` takes a `Board` and a `Limit` and returns a `PlayResult`.

A player may keep state between moves of one game (an MCTS keeps its tree);
`new_game` clears it. Players are named and made from spec strings by
`ninefold.players.registry`; their constructors check their options with
`check_positive`.

>>> from ninefold import Board
>>> from ninefold.players import make_player
>>> result = make_player("random:seed=7").play(Board(), Limit(move_ms=10))
>>> result.move in Board().legal_moves
True
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any

from ninefold.rules import Board, Move


class GameOverError(ValueError):
    """A player was asked to move in a finished game."""


class BudgetError(ValueError):
    """A player was given no time (or no simulations) to think."""


MAX_MS = 86_400_000.0  # a day: a longer time for one move is a slip of the keyboard


def check_positive(name: str, value: float | None, most: float, meaning: str) -> None:
    """Refuse an option that is not None and not in (0, most]: `BudgetError` if it
    leaves no time or work, `ValueError` if it is absurd (`meaning` says what `most` is).

    >>> check_positive("ms", 1e20, MAX_MS, "a day")
    Traceback (most recent call last):
    ...
    ValueError: ms=1e+20 is too much: at most 86400000 (a day)
    """
    if value is None:
        return
    if value <= 0:
        raise BudgetError(f"{name} must be positive, not {value!r}")
    if value > most:
        shown = value if isinstance(value, int) else f"{value:g}"
        raise ValueError(f"{name}={shown} is too much: at most {most:.0f} ({meaning})")


@dataclass(frozen=True)
class Limit:
    """The clock for one move, as a referee gives it.

    `move_ms` is a fixed time for this move; `bank_ms` / `increment_ms` a time
    bank (the increment is already added to `bank_ms` when a move is asked,
    as on the bot platforms), which never holds more than `max_bank_ms` (None:
    no cap known). Players that count work rather than time read `sims` or
    `depth`. A limit with nothing set means: the player's own default.

    >>> Limit(bank_ms=10000, increment_ms=500, max_bank_ms=10000).spent(30)
    Limit(move_ms=None, bank_ms=9970, increment_ms=500, max_bank_ms=10000, sims=None, depth=None)
    """

    move_ms: float | None = None
    bank_ms: float | None = None
    increment_ms: float = 0.0
    max_bank_ms: float | None = None
    sims: int | None = None
    depth: int | None = None

    def __post_init__(self) -> None:
        for name in ("move_ms", "bank_ms", "max_bank_ms", "sims", "depth"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise BudgetError(f"{name} must be positive, not {value!r}")

    def spent(self, ms: float) -> Limit:
        """The same clock once `ms` of it are gone (never less than 1 ms left)."""
        return replace(
            self,
            move_ms=None if self.move_ms is None else max(1.0, self.move_ms - ms),
            bank_ms=None if self.bank_ms is None else max(1.0, self.bank_ms - ms),
        )


@dataclass
class PlayResult:
    """A chosen move and what the player wants to say about it (visits, value, pv...)."""

    move: Move
    info: dict[str, Any] = field(default_factory=dict)


class Player(ABC):
    """A player; subclasses implement `_choose`."""

    spec: str = "?"
    defaulted: str = ""  # the options `make_player` took from its defaults (``key=value,...``)
    ponders: bool = False  # `ponder` thinks on the opponent's time (a bot's search process)
    instant: bool = False  # answers in well under a millisecond, without a search (a server
    # may play it on its event loop rather than ship the board to a worker process)

    def new_game(self) -> None:  # noqa: B027 - optional hook, most players keep no state
        """Forget anything kept from a previous game."""

    def ponder(self, board: Board, stop: threading.Event) -> int:
        """Think about `board`, the position after this player's move, until `stop` is
        set, so that the next move starts from what was found; the work done (0: this
        player keeps nothing between moves, the default)."""
        return 0

    def play(self, board: Board, limit: Limit | None = None) -> PlayResult:
        """Choose a move for the side to move on `board` (which is not changed)."""
        if board.is_game_over():
            raise GameOverError(f"{self.spec}: the game is over, there is no move to choose")
        return self._choose(board, limit or Limit())

    @abstractmethod
    def _choose(self, board: Board, limit: Limit) -> PlayResult: ...

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"
