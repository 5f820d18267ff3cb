"""`ninefold classic`: classic 3x3 tic-tac-toe in three views."""

from __future__ import annotations

import typer

from ninefold.cli import _fail, app, console, err
from ninefold.rules import Mark

classic_app = typer.Typer(
    help="Classic 3x3 tic-tac-toe in three views: TicTacToe, Pick15 and Magic15.",
    no_args_is_help=True,
)
app.add_typer(classic_app, name="classic")


@classic_app.command("play")
def classic_play(
    view: str = typer.Option("tictactoe", help="tictactoe, pick15 or magic15."),
    first: str = typer.Option("human", help="Who moves first (and plays X): human or computer."),
    marks: str = typer.Option("xo", help="xo, or colours: green and blue squares as in the book."),
    computer: str = typer.Option("naive", help="random, naive, centre or perfect."),
    seed: int | None = typer.Option(None, help="Seed for the computer's random choices."),
) -> None:
    """Play classic tic-tac-toe against the computer: you are green, it is blue.

    Type a cell (a1-c3) in the TicTacToe view, a number (1-9) in Pick15 and
    Magic15; a view's name switches views, 'undo' takes back your last move,
    'quit' stops.
    """
    from rich.markup import escape

    from ninefold.classic import ClassicBoard, View, player_name, render
    from ninefold.classic_players import make_classic_player

    try:
        shown = View.parse_name(view)
        bot = make_classic_player(computer, seed=seed)
    except ValueError as exc:
        _fail(str(exc))
    marks = {"colors": "colours"}.get(marks.lower(), marks.lower())
    if marks not in ("xo", "colours"):
        _fail(f"--marks must be xo or colours, not {marks!r}")
    if first not in ("human", "computer"):
        _fail(f"--first must be human or computer, not {first!r}")
    human = Mark.X if first == "human" else Mark.O
    colours = ("green", "blue") if human is Mark.X else ("blue", "green")
    board = ClassicBoard()

    def name(mark: Mark) -> str:
        return player_name(mark, marks, colours)

    def who(mark: Mark) -> str:
        return f"{name(mark)} ({mark if marks == 'colours' else colours[mark]})"

    console.print(
        f"You are {who(human)}, the computer ({bot.name}) is {who(human.other)}; X moves first. "
        "Moves: a cell a1-c3 in the TicTacToe view, a number 1-9 in Pick15 and Magic15. "
        "Commands: tictactoe, pick15, magic15 (switch view), undo, quit."
    )
    markup = console.color_system is not None  # plain pictures when colours cannot show
    while True:
        console.print(f"\n[bold]{shown.title}[/]")
        picture = render(board, shown, marks=marks, colours=colours, markup=markup)
        console.print(picture, highlight=False, markup=markup)
        outcome = board.outcome()
        if outcome is not None:
            verdict = ("It's a draw." if outcome.winner is None
                       else "You win!" if outcome.winner is human else "The computer wins.")
            console.print(f"[bold]{verdict}[/]")
            return
        if board.turn is not human:
            cell = bot.choose(board)
            board.push(cell)
            console.print(f"The computer plays {shown.text(cell)}.")
            continue
        try:
            text = input(f"{name(human)} move [{shown.hint}]> ").strip()
        except EOFError:
            console.print("\nbye")
            return
        word = text.lower()
        if word in ("quit", "exit", "q"):
            return
        if word in ("undo", "u"):
            if len(board.move_stack) < (1 if human is Mark.X else 2):
                console.print("[red]nothing to undo: you have not moved yet[/]", highlight=False)
                continue
            board.pop()
            while board.turn is not human:  # back to before your last move
                board.pop()
            continue
        if word in {v.value for v in View}:
            shown = View.parse_name(word)
            continue
        try:
            board.push_text(text, shown, {m: name(m) for m in (Mark.X, Mark.O)})
        except ValueError as exc:
            console.print(f"[red]{escape(str(exc))}[/]", highlight=False)


@classic_app.command("stats")
def classic_stats(
    games: int = typer.Option(1000, "--games", "-n", min=1, help="How many games."),
    x: str = typer.Option("naive", "--x", help="X (moves first): random, naive, centre, perfect."),
    o: str = typer.Option("centre", "--o", help="O: random, naive, centre or perfect."),
    seed: int | None = typer.Option(None, help="Seed: the same seed replays the same games."),
    plot: str | None = typer.Option(None, help="Write a bar plot to this PNG file."),
) -> None:
    """Computer against computer: X wins, O wins and draws with 95% Wilson intervals."""
    from rich.progress import Progress
    from rich.table import Table

    from ninefold.classic_players import (
        make_classic_player,
        outcome_probabilities,
        play_match,
        plot_match,
    )

    if plot is not None and not plot.lower().endswith(".png"):
        _fail(f"--plot must name a .png file, not {plot!r}")
    try:
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
    if plot is not None:
        console.print(f"plot: {plot_match(result, plot, odds)}")

