"""The training commands, one definition for both ways in: ``ninefold train rounds``
(``python -m ninefold.learn``) and ``ninefold train distill``
(``python -m ninefold.learn.distill``).

A command's problems that its options do not show (a missing extra, an
unreachable cluster, a network that does not load) raise `TrainingError`, one
line; each way in prints it in its own style (`module_app` here, the command
line's ``error:`` in `ninefold.cli.train`). Importing this module never imports
PyTorch: the commands check for it first (`ninefold.extras.require`).
"""

from __future__ import annotations

import functools
import shlex
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any

import typer

from ninefold.extras import MissingExtra, require

DEVICE = "<cpu|cuda|auto>"  # --device's values (`ninefold.learn.rounds.training_device`)
DEVICE_HELP = "Where PyTorch trains (auto: cuda when there is one)."


class TrainingError(ValueError):
    """What stops a training command before it runs, in one line."""


def given_command(ctx: typer.Context) -> str:
    """The command line as given (the options given on it, in the command's order),
    recorded with the networks a run makes.

    E.g. ``python -m ninefold.learn --out runs/net --seed 1``.
    """
    words = ctx.command_path.split()
    for param in ctx.command.params:
        source = ctx.get_parameter_source(param.name or "")
        if source is None or source.name != "COMMANDLINE" or not param.opts:
            continue
        value = ctx.params[param.name or ""]
        flag = max(param.opts, key=len)
        for one in value if isinstance(value, (list, tuple)) else [value]:
            words += [flag, str(one)]
    return shlex.join(words)


def need_torch(ctx: typer.Context) -> None:
    """`TrainingError` naming the extra to install if PyTorch is missing."""
    try:
        require("train", ctx.command_path)
    except MissingExtra as exc:
        raise TrainingError(str(exc)) from None


def module_app(command: Callable[..., None], name: str) -> typer.Typer:
    """``python -m NAME``: `command` alone, a `TrainingError` printed as ``NAME: ...``
    (or as itself where it names its command), exit status 1."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        except TrainingError as exc:
            text = str(exc)
            sys.exit(text if text.startswith(f"python -m {name}:") else f"{name}: {text}")

    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.command(help=command.__doc__)(run)
    return app


def rounds(
    ctx: typer.Context,
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
                            "matches run there instead of --workers processes."),
    start: str = typer.Option("", help="A network to start from ('default': the shipped "
                              "one): round 0 plays its search, and must beat it to be kept."),
    device: str = typer.Option("cpu", metavar=DEVICE, help=DEVICE_HELP),
) -> None:
    """Train a network in rounds of self-play and training.

    Each round: self-play with the best network so far, training, and a gating
    match the new network must win to be kept. Everything goes into --out; run
    again with more --rounds, it goes on after the last finished round.
    """
    need_torch(ctx)
    from ninefold.learn.rounds import Plan, device_option, train_rounds
    from ninefold.raycluster import ClusterError

    device_option(device)
    if start:
        start = start_network(start)
    args = locals()
    plan = Plan(**{f.name: args[f.name] for f in fields(Plan) if f.name in args})
    try:
        best = train_rounds(plan, out, given_command(ctx))
    except ClusterError as exc:
        raise TrainingError(str(exc)) from None
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
