"""`ninefold classic`: classic 3x3 tic-tac-toe in three views."""

from __future__ import annotations

from typing import Literal

import typer

from ninefold.classic import PLAYERS, View
from ninefold.cli import _fail, app, console, err
from ninefold.options import clip
from ninefold.protocols.botmain import choices
from ninefold.rules import Mark

classic_app = typer.Typer(
    help="Classic 3x3 tic-tac-toe: TicTacToe, Pick15 and Magic15.",
    no_args_is_help=True,
)
app.add_typer(classic_app, name="classic", rich_help_panel="Play")
VIEW = choices([view.value for view in View])
COMPUTER = choices(list(PLAYERS))


@classic_app.command("play")
def classic_play(
    view: str = typer.Option("tictactoe", metavar=VIEW, help="The view to start in."),
    first: Literal["human", "computer"] = typer.Option(
        "human", help="Who moves first (and plays X)."),
    marks: str = typer.Option("xo", metavar="<xo|colours>", help="Marks: xo, or green and "
                              "blue squares as in the book."),
    computer: str = typer.Option("naive", metavar=COMPUTER, help="The computer's play."),
    seed: int | None = typer.Option(None, help="Seed for the computer's random choices."),
) -> None:
    """Play classic tic-tac-toe against the computer.

    You are green, it is blue.

    Type a cell (a1-c3) in the TicTacToe view, a number (1-9) in Pick15 and
    Magic15; a view's name switches views, 'undo' takes back your last move,
    'quit' stops.
    """
    from ninefold.classic import View, make_classic_player, parse_marks
    from ninefold.classic.terminal import play

    try:
        shown = View.parse_name(view)
        bot = make_classic_player(computer, seed=seed)
        marks = parse_marks(marks)
    except ValueError as exc:
        _fail(str(exc))
    human = Mark.X if first == "human" else Mark.O
    play(bot, human=human, view=shown, marks=marks, console=console)


@classic_app.command("stats")
def classic_stats(
    games: int = typer.Option(1000, "--games", "-n", min=1, help="How many games."),
    x: str = typer.Option("naive", "--x", metavar=COMPUTER, help="X (moves first)."),
    o: str = typer.Option("centre", "--o", metavar=COMPUTER, help="O."),
    seed: int | None = typer.Option(None, help="Seed: the same seed replays the same games."),
    plot: str | None = typer.Option(None, help="Write a bar plot to this PNG file."),
) -> None:
    """Computer against computer: the results with 95% intervals.

    X wins, O wins and draws, with Wilson intervals and the exact odds."""
    from rich.progress import Progress
    from rich.table import Table

    from ninefold.classic import (
        check_plot_path,
        make_classic_player,
        outcome_probabilities,
        play_match,
        plot_match,
    )

    try:
        path = None if plot is None else check_plot_path(plot)
        odds = outcome_probabilities(make_classic_player(x), make_classic_player(o))
    except ValueError as exc:
        _fail(str(exc))
    if games >= 2000:
        with Progress(console=err, transient=True) as bar:
            task = bar.add_task(f"{x} vs {o}", total=games)
            result = play_match(x, o, games, seed, progress=lambda n: bar.advance(task, n))
    else:
        result = play_match(x, o, games, seed)
    seed_text = "" if seed is None else f", seed {seed}"
    table = Table(title=f"{result.x} (X) vs {result.o} (O): {games:,} games{seed_text}")
    for column in ("result", "games", "share", "95% interval (Wilson)", "exact"):
        table.add_column(column, justify="left" if column == "result" else "right")
    for (label, count, share, low, high), key in zip(
        result.rows(), (Mark.X, Mark.O, None), strict=True
    ):
        table.add_row(label, f"{count:,}", f"{100 * share:.2f}%",
                      f"{100 * low:.2f}% - {100 * high:.2f}%", f"{100 * float(odds[key]):.2f}%")
    console.print(table)
    if path is not None:
        try:
            console.print(f"plot: {plot_match(result, path, odds)}", highlight=False)
        except OSError as exc:
            _fail(f"cannot write the plot {clip(path)}: {exc.strerror or exc}")
