"""``python -m ninefold.learn``: train the policy-value network from scratch, in rounds
(the same command as ``ninefold train rounds``: `ninefold.learn.commands.rounds`).

    python -m ninefold.learn --out runs/net --seed 1
    python -m ninefold.learn --out runs/net --seed 1 --ray auto   # self-play on a Ray cluster

needs ``pip install ninefold[train]`` (PyTorch), and for ``--ray``
``pip install ninefold[cluster]``; see `ninefold.learn.rounds`.
"""

from __future__ import annotations

from ninefold.learn.commands import module_app, rounds

app = module_app(rounds, "ninefold.learn")

if __name__ == "__main__":
    app()
