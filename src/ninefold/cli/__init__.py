"""The `ninefold` command: thin wrappers that parse, call the library and print.

One module per group of commands; this one holds the `app` and the helpers
they share.
"""

from __future__ import annotations

import typer
from rich.console import Console

from ninefold.rules import Board, Move, Rules

app = typer.Typer(
    help="Ultimate Tic-Tac-Toe: exact rules, a fast kernel, strong players.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
console = Console()
err = Console(stderr=True)

def _fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(2)


def _rules(text: str) -> Rules:
    try:
        return Rules.parse(text)
    except ValueError as exc:
        _fail(str(exc))
        raise


def _board(rules: str, moves: str = "", position: str | None = None) -> Board:
    try:
        board = Board(_rules(rules)) if position is None else Board.from_position(position)
        for word in moves.replace(",", " ").split():
            board.push(Move.parse(word))
    except ValueError as exc:
        _fail(str(exc))
    return board



def main() -> None:  # pragma: no cover
    app()


# the command modules add their commands to `app` (imported last: they import `app`),
# in the order `ninefold --help` lists them
from ninefold.cli import game  # noqa: E402

# isort: split
from ninefold.cli import classic  # noqa: E402

# isort: split
from ninefold.cli import bot  # noqa: E402

# isort: split
from ninefold.cli import arena  # noqa: E402

__all__ = ["app", "arena", "bot", "classic", "game", "main"]
