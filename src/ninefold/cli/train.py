"""`ninefold train`: the network's training commands (they need ``ninefold[train]``).

``rounds`` is ``python -m ninefold.learn`` and ``distill`` is
``python -m ninefold.learn.distill``: the same commands
(`ninefold.learn.commands`), their one-line problems printed as the command
line's ``error: ...``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import typer

from ninefold.cli import _fail, app
from ninefold.learn import distill
from ninefold.learn.commands import TrainingError, rounds

train_app = typer.Typer(
    help="Train the network: self-play in rounds, or distillation.",
    no_args_is_help=True,
)
app.add_typer(train_app, name="train", rich_help_panel="Research")


def _one_line_errors(command: Callable[..., None]) -> Callable[..., None]:
    """`command`, its `TrainingError` printed as ``error: ...`` (exit status 2)."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        except TrainingError as exc:
            _fail(str(exc))

    return run


train_app.command("rounds")(_one_line_errors(rounds))
train_app.command("distill")(_one_line_errors(distill.main))
