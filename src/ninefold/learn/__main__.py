"""``python -m ninefold.learn``: train the policy-value network from scratch, in rounds.

    python -m ninefold.learn --out runs/net --seed 1
    python -m ninefold.learn --out runs/net --seed 1 --ray auto   # self-play on a Ray cluster

needs ``pip install ninefold[train]`` (PyTorch), and for ``--ray``
``pip install ninefold[cluster]``; see `ninefold.learn.rounds`.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import fields
from pathlib import Path
from typing import Annotated

import typer

from ninefold.extras import MissingExtra, require

app = typer.Typer(add_completion=False)


@app.command()
def main(
    out: Annotated[Path, typer.Option(help="Directory for data, networks and plot.")] = Path(
        "runs/net"),
    rounds: int = typer.Option(4, min=1, help="Rounds of self-play and training."),
    games: int = typer.Option(4000, min=2, help="Self-play games a round."),
    first_games: int = typer.Option(10000, min=2, help="Self-play games of round 0."),
    sims: int = typer.Option(800, min=2, help="Simulations a move in self-play with a network."),
    pure_sims: int = typer.Option(1600, min=2, help="Simulations a move in round 0 (pure MCTS)."),
    c: float = typer.Option(1.0, min=0.0, help="PUCT exploration of the network's search."),
    mix: float = typer.Option(0.5, min=0.0, max=1.0,
                              help="The playout's share of a leaf's value in self-play."),
    epochs: int = typer.Option(12, min=1, help="Training passes over the data a round."),
    window: int = typer.Option(5, min=1, help="Rounds of data trained on."),
    gate_pairs: int = typer.Option(100, min=1, help="Pairs of games in each gating match."),
    gate_sims: int = typer.Option(400, min=2, help="Simulations a move in gating matches."),
    seed: int = typer.Option(1, help="Seed of everything random."),
    workers: int = typer.Option(2, min=1, help="Processes for self-play and matches."),
    ray: str = typer.Option("", help="A Ray cluster's address ('auto', 'host:port', "
                            "'ray://host:10001', 'local': one in this process): self-play and "
                            "matches run there as tasks instead of --workers processes "
                            "(pip install 'ninefold[cluster]')."),
    start: str = typer.Option("", help="A network file to start from: round 0 plays its "
                              "search instead of pure MCTS, and must beat it to be kept "
                              "(e.g. 'default', the shipped network)."),
    device: str = typer.Option("cpu", help="Where PyTorch trains: cpu, cuda, or auto (cuda "
                               "when there is one)."),
) -> None:
    """Train the network in rounds: self-play, training, a gating match."""
    try:
        require("train", "python -m ninefold.learn")
    except MissingExtra as exc:
        sys.exit(str(exc))
    from ninefold.learn.rounds import Plan, device_option, train_rounds
    device_option(device)
    from ninefold.raycluster import ClusterError

    if start:
        start = start_network(start)
    args = locals()
    plan = Plan(**{f.name: args[f.name] for f in fields(Plan) if f.name in args})
    command = "python -m ninefold.learn " + shlex.join(sys.argv[1:])
    try:
        best = train_rounds(plan, out, command)
    except ClusterError as exc:
        sys.exit(f"ninefold.learn: {exc}")
    if best is None or str(best) == plan.start:
        print("no network passed its gating match")
    else:
        print(best)


def start_network(name: str) -> str:
    """The --start network's file (``default``: the shipped one), checked to load."""
    from ninefold.players.net import NetError, load_net
    from ninefold.players.net_inputs import net_path

    path = net_path(name)
    try:
        load_net(path)
    except NetError as exc:
        raise typer.BadParameter(str(exc), param_hint="--start") from None
    return str(path.resolve())


if __name__ == "__main__":
    app()
