"""Players: anything that picks a move for a `Board` under a `Limit`.

See `ninefold.players.base` for the interface and spec strings.
"""

import os

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


def strongest_spec(cores: int | None = None) -> str:
    """The spec of the strongest player available on this computer, for `ninefold play`.

    Two threads on one tree measured +28 [+0, +56] Elo over one thread at
    100 ms a move (docs/players.md); with one core they would only share it.

    >>> strongest_spec(cores=1), strongest_spec(cores=8)
    ('mcts', 'mcts:threads=2')
    """
    if cores is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return "mcts:threads=2" if (cores or 1) >= 2 else "mcts"
