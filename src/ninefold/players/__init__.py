"""Players: anything that picks a move for a `Board` under a `Limit`.

See `ninefold.players.base` for the interface and spec strings.
"""

from ninefold.players.alphabeta import AlphaBetaPlayer
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
from ninefold.players.levels import LADDER, LevelPlayer
from ninefold.players.mcts import MCTSPlayer
from ninefold.players.naive import NaivePlayer

REGISTRY["mcts"] = (
    MCTSPlayer,
    {
        "ms": float, "sims": int, "threads": int, "parallel": str, "c": float, "policy": str,
        "solver": bool, "reuse": bool, "nodes": int, "seed": int, "tm": str,
        "margin": str,
    },
)
REGISTRY["naive"] = (NaivePlayer, {"seed": int})
REGISTRY["alphabeta"] = (AlphaBetaPlayer, {"depth": int, "ms": float})
REGISTRY["level"] = (LevelPlayer, {"level": int, "seed": int})

__all__ = [
    "LADDER",
    "REGISTRY",
    "AlphaBetaPlayer",
    "BudgetError",
    "GameOverError",
    "LevelPlayer",
    "Limit",
    "MCTSPlayer",
    "NaivePlayer",
    "PlayResult",
    "Player",
    "PlayerSpecError",
    "RandomPlayer",
    "make_player",
    "parse_spec",
    "strongest_spec",
]


def strongest_spec() -> str:
    """The spec of the strongest player available, for `ninefold play`."""
    return "mcts"
