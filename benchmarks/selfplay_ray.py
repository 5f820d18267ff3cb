"""Self-play games an hour: worker processes on this machine vs a local two-node Ray cluster.

The same call (`ninefold.learn.selfplay.generate`: the same games, chunks of
ten) runs alternately on `--workers` processes (a pool a call, as each round
of ``python -m ninefold.learn`` makes one) and on a Ray cluster of two nodes
on this machine, each a raylet of its own with one CPU
(``ray.cluster_utils.Cluster``: a head and a second node, as ``ray start
--head --num-cpus 1`` and ``ray start --address HEAD --num-cpus 1`` make),
so load from other processes hits both alike. One small call on each is run
first and not timed (the workers start and load the compiled search once).
Both must make the same positions: the script checks it.

    .venv/bin/python benchmarks/selfplay_ray.py --games 40 --sims 800 --rounds 2
"""

from __future__ import annotations

import os
import time

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from ninefold.learn.selfplay import FIELDS, Positions, Searcher, generate
from ninefold.learn.tasks import Processes, RayTasks, Runner
from ninefold.players.net_inputs import DEFAULT_PATH
from ninefold.raycluster import ray_module

app = typer.Typer(add_completion=False)
console = Console()


def timed(runner: Runner, games: int, sims: int, who: Searcher, seed: int) -> tuple[float,
                                                                                     Positions]:
    """Seconds of one `generate` call on `runner`, and its positions."""
    t0 = time.perf_counter()
    pos = generate(games, sims, who, seed, runner)
    return time.perf_counter() - t0, pos


@app.command()
def main(
    games: int = typer.Option(40, min=1, help="Self-play games a timed call."),
    sims: int = typer.Option(800, min=2, help="Simulations a move."),
    rounds: int = typer.Option(2, min=1, help="Timed calls on each, alternately."),
    workers: int = typer.Option(2, min=1, help="Processes of the pool."),
    net: bool = typer.Option(True, help="Play the shipped network's search (else pure MCTS)."),
    seed: int = typer.Option(1),
) -> None:
    """Games an hour of the process pool and of a local two-node Ray cluster."""
    from ray.cluster_utils import Cluster

    ray = ray_module()
    who = Searcher(str(DEFAULT_PATH), c=1.0, mix=0.5) if net else Searcher()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1,
                                                            "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    pool = Processes(workers)
    on_ray = RayTasks(cluster.address)
    seconds: dict[str, list[float]] = {"pool": [], "ray": []}
    try:
        cluster.wait_for_nodes()
        layout = on_ray.layout()
        for runner in (pool, on_ray):  # warm-up, not timed
            generate(2 * workers, sims, who, seed + 99, runner, per_task=1)
        for r in range(rounds):
            for name, runner in (("pool", pool), ("ray", on_ray)):
                s, pos = timed(runner, games, sims, who, seed + r)
                seconds[name].append(s)
                if name == "pool":
                    made = pos
                elif not all(np.array_equal(getattr(made, f), getattr(pos, f)) for f in FIELDS):
                    raise SystemExit("Ray made other positions than the pool")
                console.print(f"round {r}: {name} {games} games in {s:.1f} s "
                              f"(load {os.getloadavg()[0]:.1f})", highlight=False)
    finally:
        on_ray.close()
        ray.shutdown()
        cluster.shutdown()
    table = Table(title=f"self-play, {games} games a call at {sims} simulations a move, "
                        f"{who}, {rounds} calls each")
    for col in ("runs on", "seconds a call", "games an hour"):
        table.add_column(col)
    rows = {"pool": f"{workers} worker processes, one machine",
            "ray": f"Ray, {layout['nodes']} nodes of one CPU each ({layout['cpus']} CPUs)"}
    for name, label in rows.items():
        table.add_row(label, ", ".join(f"{s:.1f}" for s in seconds[name]),
                      f"{3600 * games * rounds / sum(seconds[name]):,.0f}")
    console.print(table)


if __name__ == "__main__":
    app()
