"""Label stored self-play positions with a deeper search: targets past the teacher for the
fast network (`ninefold.learn.fastnet`, whose ``--start`` trains on from a network).

Draws N positions evenly from the ``data_K.npz`` files given, searches each from an
empty tree with the player SPEC for SIMS simulations (two processes, a draw worth half a
win) and writes ``OUT/deep_K.npz`` (`ninefold.learn.selfplay.Positions`, 10,000 a file):
the search's value of its best move as ``value``, its visit shares as ``policy``, the
stored game's result as ``result``. A file already written is kept, so a run that
stops goes on where it stopped.

    .venv/bin/python benchmarks/deep_labels.py runs/deep \
        $(ls runs/fast200/data_*.npz | sort -V | head -97) \
        --spec mcts:net=runs/wide/w1024p256.npz,refine=16,mix=0 --sims 2000 --positions 600000
    .venv/bin/python -m ninefold.learn.fastnet $(ls runs/deep/deep_*.npz | sort -V) --hidden 1024 \
        --policy-units 256 --start runs/wide/w1024p256.npz --teacher-share 0.3 \
        --result-share 0.1 --epochs 3 --lr 3e-4 --out runs/deep/d1.npz

docs/research/fast-network.md ("Twelfth session") has what one round of it gave.
"""

from __future__ import annotations

import threading
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from ninefold.learn.selfplay import Positions
from ninefold.players import make_player
from ninefold.players.mcts import Budget, MCTSPlayer

PER_FILE = 10_000


def searcher(spec: str, seed: int) -> MCTSPlayer:
    """The player of `spec` searching from an empty tree each time, a draw worth half a
    win; `typer.BadParameter` if `spec` is not an MCTS player's."""
    try:
        player = make_player(f"{spec}{',' if ':' in spec else ':'}draw=0.5,reuse=off,seed={seed}")
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--spec") from None
    if not isinstance(player, MCTSPlayer):
        raise typer.BadParameter(f"{spec!r} is not an MCTS player", param_hint="--spec")
    return player


def label(job: tuple[int, Path, str, int, int, np.ndarray, np.ndarray, np.ndarray]) -> str:
    """One file of labels (a worker process)."""
    k, out, spec, sims, seed, states, flags, result = job
    path = out / f"deep_{k}.npz"
    if path.exists():
        return f"{path}: kept"
    player = searcher(spec, seed + k)
    tree = player.trees[0]
    n = len(flags)
    policy = np.zeros((n, 81), np.float16)
    value = np.full(n, 0.5, np.float32)
    t0 = time.perf_counter()
    for i in range(n):
        tree.flags = int(flags[i])
        tree.set_root(states[i].astype(np.int64), None)
        *_, last = player._drive([(tree, 0)], Budget(None, sims), threading.Event(),
                                 time.perf_counter(), iter(()))
        actions, visits = last.children[:2]
        policy[i, actions] = visits / max(int(visits.sum()), 1)
        if last.best is not None:
            value[i] = last.best.value
    Positions(states, flags, policy, value, result).save(path)
    return f"{path}: {n} positions in {time.perf_counter() - t0:.0f} s"


def main(out: Annotated[Path, typer.Argument(help="Folder for the deep_K.npz files.")],
         data: Annotated[list[Path], typer.Argument(help="Self-play positions to draw from.")],
         spec: str = typer.Option("mcts:net=default", help="The searching player."),
         sims: int = typer.Option(2000, min=2, help="Simulations a position."),
         positions: int = typer.Option(100_000, min=1, help="Positions to label."),
         seed: int = typer.Option(7, help="Which positions, and the searches' seeds."),
         workers: int = typer.Option(2, min=1, help="Processes.")) -> None:
    searcher(spec, seed)  # a bad spec is said here, in one line
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    per = -(-positions // len(data))
    drawn = []
    for f in data:
        pos = Positions.load(f)
        rows = rng.choice(len(pos), size=min(per, len(pos)), replace=False)
        drawn.append((pos.states[rows], pos.flags[rows], pos.result[rows]))
    states, flags, result = (np.concatenate([d[i] for d in drawn])[:positions] for i in range(3))
    order = rng.permutation(len(flags))
    states, flags, result = states[order], flags[order], result[order]
    jobs = [(k, out, spec, sims, seed, states[i:i + PER_FILE], flags[i:i + PER_FILE],
             result[i:i + PER_FILE]) for k, i in enumerate(range(0, len(flags), PER_FILE))]
    with Pool(workers) as pool:
        for done, line in enumerate(pool.imap_unordered(label, jobs), 1):
            print(f"{done}/{len(jobs)} {line}", flush=True)


if __name__ == "__main__":
    typer.run(main)
