"""Players: anything that picks a move for a `Board` under a `Limit`.

`ninefold.players.player` is the interface, `ninefold.players.registry` the
spec strings. Each player module registers its players when it is imported
(`registry.register`), and is imported when it is first needed:
`make_player("mcts")` imports ``ninefold.players.mcts``, and so do the names
below (``MCTSPlayer``...). So
importing this package, or making a cheap player, never imports numba: a bot
answers with those while its search loads (`ninefold.protocols.engine`).
"""

from __future__ import annotations

import importlib
from typing import Any

from ninefold.players.player import BudgetError, GameOverError, Limit, Player, PlayResult
from ninefold.players.registry import (
    REGISTRY,
    PlayerKind,
    PlayerSpecError,
    check_name,
    load_all,
    make_player,
    parse_spec,
    player_kind,
    register,
)
from ninefold.players.warmup import compile_searches, needs_compiling, stderr_progress
from ninefold.system import usable_cpus

# names imported from their modules when first used (the searches import numba)
_LAZY = {
    "AlphaBetaPlayer": "alphabeta",
    "LADDER": "level",
    "LevelPlayer": "level",
    "MCTSPlayer": "mcts",
    "MoveStat": "mcts",
    "NaivePlayer": "naive",
    "RandomPlayer": "naive",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

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
    "check_name",
    "compile_searches",
    "load_all",
    "make_player",
    "needs_compiling",
    "parse_spec",
    "player_kind",
    "register",
    "stderr_progress",
    "strongest_spec",
    "usable_cpus",
]


def strongest_spec(cores: int | None = None) -> str:
    """The spec of the strongest player available on this computer, for `ninefold play`
    and `ninefold bot`: the search with the shipped network, on two threads where the
    process may use two cores (docs/research/strength.md has the measurements).

    >>> strongest_spec(cores=1), strongest_spec(cores=8)
    ('mcts:net=default', 'mcts:net=default,threads=2')
    """
    if cores is None:
        cores = usable_cpus()
    return "mcts:net=default,threads=2" if cores >= 2 else "mcts:net=default"
