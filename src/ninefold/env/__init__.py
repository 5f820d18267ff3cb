"""Reinforcement-learning environments in the conventions researchers use.

- `ninefold.env.ninefold_uttt_v0`: a PettingZoo AEC environment for two
  agents (``env()`` with PettingZoo's standard wrappers, ``raw_env()``
  without);
- `UTTTEnv` (``gymnasium.make("ninefold.env:ninefold/UTTT-v0")``): one
  agent against any ninefold player;
- `BatchedEnv`: N games stepped together on the numba kernel, with
  auto-reset; its numba functions (`ninefold.env.batch`) can be called from
  numba code.

All three play the same exact rules (every preset, random-four openings),
with ``Discrete(81)`` actions (``9 * board + cell``) and the same planes seen
by the side to move. Gymnasium and PettingZoo come with the ``rl`` extra
(``pip install ninefold[rl]``); the batched environment needs neither.

>>> from ninefold.env import BatchedEnv
>>> BatchedEnv(8, "tic-tac-ku", opening="random", seed=0).reset()[0].shape
(8, 9, 9, 10)
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "BatchedEnv": "batch",
    "IllegalActionError": "batch",
    "PLANES": "batch",
    "ACTION_AT": "batch",
    "UTTTEnv": "single",
    "env": "aec",
    "raw_env": "aec",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = sorted(_LAZY)

try:  # ``gymnasium.make("ninefold/UTTT-v0")`` once this package is imported
    import gymnasium
except ImportError:  # the batched environment needs no Gymnasium
    pass
else:
    if "ninefold/UTTT-v0" not in gymnasium.registry:
        gymnasium.register(id="ninefold/UTTT-v0", entry_point="ninefold.env.single:UTTTEnv")
