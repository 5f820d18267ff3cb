"""Players: anything that picks a move for a `Board` under a `Limit`.

See `ninefold.players.base` for the interface and spec strings.
"""

from ninefold.players.base import (
    REGISTRY,
    BudgetError,
    GameOverError,
    Limit,
    Player,
    PlayerSpecError,
    PlayResult,
    RandomPlayer,
    make_player,
    parse_spec,
)

__all__ = [
    "strongest_spec",
    "REGISTRY",
    "BudgetError",
    "GameOverError",
    "Limit",
    "PlayResult",
    "Player",
    "PlayerSpecError",
    "RandomPlayer",
    "make_player",
    "parse_spec",
]


def strongest_spec() -> str:
    """The spec of the strongest player available, for `ninefold play`."""
    return "random"
