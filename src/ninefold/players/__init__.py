"""Players: anything that picks a move for a `Board` under a `Limit`.

See `ninefold.players.base` for the interface and spec strings. Each player
module registers its players when it is imported (`base.register`); this
package imports them all, so `make_player` knows every name.
"""

from ninefold.players.alphabeta import AlphaBetaPlayer
from ninefold.players.base import (
    REGISTRY,
    BudgetError,
    GameOverError,
    Limit,
    Player,
    PlayerKind,
    PlayerSpecError,
    PlayResult,
    RandomPlayer,
    make_player,
    parse_spec,
    register,
    usable_cpus,
)
from ninefold.players.levels import LADDER, LevelPlayer
from ninefold.players.mcts import MCTSPlayer, MoveStat
from ninefold.players.naive import NaivePlayer
from ninefold.players.warmup import needs_compiling, stderr_progress, warm_up

__all__ = [
    "LADDER",
    "REGISTRY",
    "AlphaBetaPlayer",
    "BudgetError",
    "GameOverError",
    "LevelPlayer",
    "Limit",
    "MCTSPlayer",
    "MoveStat",
    "NaivePlayer",
    "PlayResult",
    "Player",
    "PlayerKind",
    "PlayerSpecError",
    "RandomPlayer",
    "make_player",
    "needs_compiling",
    "parse_spec",
    "register",
    "stderr_progress",
    "strongest_spec",
    "usable_cpus",
    "warm_up",
]


def strongest_spec(cores: int | None = None) -> str:
    """The spec of the strongest player available on this computer, for `ninefold play`.

    Two threads on one tree measured +28 [+0, +56] Elo over one thread at
    100 ms a move (docs/players.md); with one core they would only share it.

    >>> strongest_spec(cores=1), strongest_spec(cores=8)
    ('mcts', 'mcts:threads=2')
    """
    if cores is None:
        cores = usable_cpus()
    return "mcts:threads=2" if cores >= 2 else "mcts"
