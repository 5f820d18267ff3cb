"""The `ninefold` command: thin wrappers that parse, call the library and print."""

from __future__ import annotations

import json
import random
import sys
import time

import typer
from rich.console import Console

from ninefold import kernel
from ninefold.notation import parse_move
from ninefold.players import make_player, strongest_spec
from ninefold.rules import Board, Mark, Rules

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
        board = Board.from_position(position) if position else Board(_rules(rules))
        for word in moves.replace(",", " ").split():
            board.push(parse_move(word))
    except ValueError as exc:
        _fail(str(exc))
    return board


@app.command()
def perft(
    depth: int = typer.Argument(..., min=0, max=20, help="Plies to count."),
    rules: str = typer.Option("standard", help="Rules preset or options."),
    moves: str = typer.Option("", help="Moves played first, e.g. 'e5 e4'."),
    position: str | None = typer.Option(None, help="Start from this position string."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object {depth: count}."),
) -> None:
    """Count the leaf positions 1..DEPTH plies ahead (a finished game stops the count)."""
    board = _board(rules, moves, position)
    state = kernel.from_board(board)
    flags = board.rules.flags
    counts: dict[str, int] = {}
    for d in range(1, depth + 1):
        t0 = time.perf_counter()
        counts[str(d)] = int(kernel.perft(state, d, flags))
        if not as_json:
            dt = time.perf_counter() - t0
            console.print(f"perft({d}) = {counts[str(d)]:>14,}   [{dt:.3f} s]")
    if as_json:
        print(json.dumps(counts))


@app.command()
def bench(
    seconds: float = typer.Option(3.0, min=0.1, help="How long to measure."),
    rules: str = typer.Option("standard", help="Rules preset or options."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Kernel speed: uniformly random playouts per second from the empty board, one core."""
    result = kernel.bench(seconds, _rules(rules).flags)
    if as_json:
        print(json.dumps({k: round(v) for k, v in result.items()}))
    else:
        console.print(
            f"{result['playouts_per_s']:,.0f} random playouts/s, "
            f"{result['moves_per_s']:,.0f} moves/s (one core, {seconds:g} s)"
        )


@app.command()
def show(position: str = typer.Argument(..., help="A position string (quote it).")) -> None:
    """Draw a position and list its legal moves."""
    board = _board("standard", position=position)
    console.print(str(board), highlight=False)
    if not board.is_game_over():
        console.print("legal: " + " ".join(str(m) for m in board.legal_moves), highlight=False)


@app.command()
def play(
    opponent: str = typer.Option(None, help="Player spec of the computer (default: strongest)."),
    rules: str = typer.Option("standard", help="Rules preset or options."),
    first: str = typer.Option("human", help="Who plays X: human or computer."),
    ms: int = typer.Option(1000, min=1, help="Computer's time per move, ms."),
    opening: str | None = typer.Option(None, help="Random-four opening code, or 'random'."),
) -> None:
    """Play a game in the terminal against the computer: type moves like e5, or undo, hint, quit."""
    spec = opponent or strongest_spec()
    try:
        computer = make_player(spec)
    except ValueError as exc:
        _fail(str(exc))
    if opening == "random":
        from ninefold.rules import random_opening

        opening = random_opening(random.Random())
    try:
        board = Board(_rules(rules), opening=opening)
    except ValueError as exc:
        _fail(str(exc))
    if first not in ("human", "computer"):
        _fail("--first must be human or computer")
    from ninefold.terminal import play_game

    play_game(board, computer, Mark.O if first == "human" else Mark.X, ms, console)


# --- classic tic-tac-toe (ninefold.classic) -------------------------------------------

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


@app.command()
def analyze(
    position: str = typer.Argument(..., help="A position string (quote it), or 'start'."),
    ms: float = typer.Option(1000.0, min=1, help="Thinking time, ms."),
    threads: int = typer.Option(1, min=1, max=8, help="Search threads."),
    top: int = typer.Option(8, min=1, help="How many moves to list."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Win probability for the side to move, the best moves and the principal variation."""
    from dataclasses import asdict

    from ninefold.players.analysis import analyze as run_analysis

    board = Board() if position.strip() == "start" else _board("standard", position=position)
    try:
        result = run_analysis(board, ms=ms, threads=threads, top=top)
    except ValueError as exc:
        _fail(str(exc))
    if as_json:
        data = asdict(result)
        moves = zip(data["moves"], result.moves, strict=True)
        data["moves"] = [{**m, "move": str(s.move)} for m, s in moves]
        data["pv"] = [str(m) for m in result.pv]
        print(json.dumps(data))
        return
    proven = f" (proven {result.proven})" if result.proven else ""
    console.print(
        f"{result.side_to_move} to move: win probability {100 * result.win_probability:.1f}%"
        f"{proven}   [{result.sims:,} simulations in {result.ms:.0f} ms]",
        highlight=False,
    )
    for m in result.moves:
        tag = f"  proven {m.proven}" if m.proven else ""
        console.print(f"  {m.move!s:4} visits {m.visits:>9,}  value {m.value:.3f}{tag}",
                      highlight=False)
    console.print("pv: " + " ".join(str(m) for m in result.pv), highlight=False)


# --- bot arena: protocols, referee, matches, tournaments (see docs/arena.md) -------------


@app.command("bot")
def bot_command(
    protocol: str = typer.Option(..., help="aigames, riddles or codingame."),
    player: str = typer.Option(None, help="Player spec (default: strongest)."),
    rules: str = typer.Option(None, help="Rules (default: standard; codingame for codingame)."),
) -> None:
    """Run ninefold as a bot on stdin/stdout, speaking a platform's protocol."""
    from ninefold.protocols import runner

    try:
        bot_player = make_player(player or strongest_spec())
        default_rules = "codingame" if protocol.strip().lower() == "codingame" else "standard"
        bot_runner = runner(protocol, bot_player, rules=_rules(rules or default_rules))
    except ValueError as exc:
        _fail(str(exc))
    raise typer.Exit(bot_runner.run())


def _seat(text: str | None, protocol: str | None, cwd: str | None, name: str | None,
          tc: str | None, memory_mb: int | None = None, cpu_s: int | None = None):
    from ninefold.arena import Seat

    if not text:
        _fail("name both players (--bot1, --bot2), or --resume a stored run")
    try:
        return Seat.parse(text, protocol, name=name, cwd=cwd, tc=tc, memory_mb=memory_mb,
                          cpu_s=cpu_s)
    except ValueError as exc:
        _fail(f"{text!r}: {exc} (an external bot needs --protocol1/--protocol2)")


@app.command("check-bot")
def check_bot_command(
    command: str = typer.Argument(..., help="The bot's command line (quote it)."),
    protocol: str = typer.Option(..., help="aigames, riddles or codingame."),
    cwd: str = typer.Option(None, help="Working directory of the bot."),
    tc: str = typer.Option(None, help="Time control, e.g. 'bank=10000,inc=500' or 'turn=100'."),
    first_move_ms: int = typer.Option(3000, help="Extra time for the first answer (start-up)."),
    slack_ms: int = typer.Option(50, help="Extra time on every deadline."),
    log_dir: str = typer.Option(None, help="Folder for the bot's stderr logs."),
) -> None:
    """The platforms' input test: first move, forced board, free move, nearly full board."""
    from ninefold.arena.checkbot import check_bot, passed

    seat = _seat(command, protocol, cwd, None, tc)
    checks = check_bot(seat, first_move_ms=first_move_ms, slack_ms=slack_ms, log_dir=log_dir)
    for check in checks:
        console.print(str(check), highlight=False, markup=False)
    ok = passed(checks)
    console.print("input test passed" if ok else "input test FAILED", highlight=False)
    raise typer.Exit(0 if ok else 1)


def _run_arena(cfg, db: str, jobs: int, resume: bool, log_dir: str | None,
               check: bool, quiet: bool) -> None:
    from ninefold.arena import ArenaError, open_run
    from ninefold.arena.checkbot import refuse_failing
    from ninefold.arena.report import head_to_head_text, live_run, load, terminations_text

    try:
        cfg = open_run(cfg, db, resume)
        if check:
            refuse_failing(cfg.players, rules=cfg.rules, log_dir=log_dir,
                           first_move_ms=cfg.first_move_ms or 0, slack_ms=cfg.slack_ms or 0)
        report = live_run(cfg, db, jobs=jobs, log_dir=log_dir, console=console, quiet=quiet)
    except (ArenaError, ValueError) as exc:  # ValueError: a foreign or damaged results file
        _fail(str(exc))
    _, st = load(db)
    if cfg.format == "match" and quiet:  # the live view already shows the match line
        console.print(head_to_head_text(st), highlight=False)
    if report.sprt:
        console.print(f"SPRT ({cfg.sprt}): {report.sprt} accepted after {report.stored} games",
                      highlight=False)
    console.print(f"{report.stored} of {report.total} games stored in {db} "
                  f"({report.played_now} played now); {terminations_text(st)}", highlight=False)


@app.command("match")
def match_command(
    bot1: str = typer.Option(None, help="Built-in player spec, or a command with --protocol1."),
    bot2: str = typer.Option(None, help="Built-in player spec, or a command with --protocol2."),
    protocol1: str = typer.Option(None, help="Protocol of bot 1 if it is a command."),
    protocol2: str = typer.Option(None, help="Protocol of bot 2 if it is a command."),
    cwd1: str = typer.Option(None, help="Working directory of bot 1."),
    cwd2: str = typer.Option(None, help="Working directory of bot 2."),
    name1: str = typer.Option(None, help="Name of bot 1 in results."),
    name2: str = typer.Option(None, help="Name of bot 2 in results."),
    tc1: str = typer.Option(None, help="Time control of bot 1 (default: its protocol's)."),
    tc2: str = typer.Option(None, help="Time control of bot 2 (default: its protocol's)."),
    memory_mb: int = typer.Option(None, help="Memory limit of external bots (MB)."),
    cpu_s: int = typer.Option(None, help="CPU-time limit of external bots per game (s)."),
    games: int = typer.Option(10, "--games", "-n", min=1, help="Number of games."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Games played at once."),
    rules: str = typer.Option("standard", help="Rules preset or options."),
    openings: str = typer.Option("random4", help="random4, none, or a file of codes."),
    seed: int = typer.Option(1, help="Seed of the random openings."),
    first_move_ms: int = typer.Option(3000, help="Extra time for a bot's first answer."),
    slack_ms: int = typer.Option(50, help="Extra time on every deadline."),
    sprt: str = typer.Option(None, help="Stop early: 'elo0=0,elo1=10,alpha=0.05,beta=0.05'."),
    db: str = typer.Option("match.db", help="SQLite file for the results."),
    resume: bool = typer.Option(False, help="Continue the run stored in --db."),
    log_dir: str = typer.Option(None, help="Folder for the bots' stderr logs."),
    check: bool = typer.Option(True, help="Refuse bots that fail the input test."),
    quiet: bool = typer.Option(False, help="No live view."),
) -> None:
    """Play N games between two players (pairs: same opening, colours swapped)."""
    from ninefold.arena import ArenaError, RunConfig

    cfg = None
    if not resume or bot1 or bot2:
        players = [_seat(bot1, protocol1, cwd1, name1, tc1, memory_mb, cpu_s),
                   _seat(bot2, protocol2, cwd2, name2, tc2, memory_mb, cpu_s)]
        if players[0].name == players[1].name:
            # the same default name twice (say, two "java -cp bin bot.BotStarter"): number them
            from dataclasses import replace

            players = [p if given else replace(p, name=f"{p.name}-{i}")
                       for i, (p, given) in enumerate(zip(players, (name1, name2), strict=True), 1)]
        try:
            cfg = RunConfig(players=players, games=games, rules=rules, openings=openings,
                            seed=seed, first_move_ms=first_move_ms, slack_ms=slack_ms,
                            sprt=sprt, name="match")
        except (ArenaError, ValueError) as exc:
            _fail(str(exc))
    _run_arena(cfg, db, jobs, resume, log_dir, check, quiet)


@app.command("tournament")
def tournament_command(
    file: str = typer.Argument(None, help="Tournament TOML file (see docs/arena.md)."),
    db: str = typer.Option("tournament.db", help="SQLite file for the results."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Games played at once."),
    games: int = typer.Option(None, "--games", "-n", min=1, help="Games per pairing."),
    resume: bool = typer.Option(False, help="Continue the run stored in --db."),
    log_dir: str = typer.Option(None, help="Folder for the bots' stderr logs."),
    check: bool = typer.Option(True, help="Refuse bots that fail the input test."),
    quiet: bool = typer.Option(False, help="No live view."),
) -> None:
    """A round robin or gauntlet described by a TOML file."""
    from ninefold.arena import ArenaError, RunConfig

    cfg = None
    if file:
        try:
            cfg = RunConfig.from_toml(file, games=games)
        except (ArenaError, ValueError) as exc:
            _fail(str(exc))
    elif not resume:
        _fail("give a tournament file, or --resume a stored run")
    _run_arena(cfg, db, jobs, resume, log_dir, check, quiet)


@app.command("report")
def report_command(
    db: str = typer.Argument(..., help="Results database of a match or tournament."),
    out: str = typer.Option(None, help="Folder for the PNG plots (default: beside the db)."),
    plots: bool = typer.Option(True, help="Write the PNG plots."),
) -> None:
    """Print the standings and write plots: ratings with error bars, pairwise scores."""
    from pathlib import Path

    from ninefold.arena.report import (
        head_to_head_text,
        load,
        plot,
        standings_table,
        terminations_text,
    )

    try:
        _, st = load(db)
    except ValueError as exc:  # a missing, foreign or damaged file
        _fail(str(exc))
    console.print(standings_table(st, title=f"{db}"))
    if len(st.names) == 2:
        console.print(head_to_head_text(st), highlight=False)
    console.print(f"terminations: {terminations_text(st) or '-'}", highlight=False)
    if plots and st.games:
        for path in plot(st, out or Path(db).parent, stem=Path(db).stem):
            console.print(f"wrote {path}", highlight=False)


@app.command("export")
def export_command(
    db: str = typer.Argument(..., help="Results database of a match or tournament."),
    output: str = typer.Option("-", "--output", "-o", help="Game-record file ('-': stdout)."),
) -> None:
    """Write the stored games as game records (moves, times, result, termination)."""

    from ninefold.arena.report import export, load

    try:
        load(db)  # refuse a missing, foreign or damaged file before writing anything
        if output == "-":
            export(db, sys.stdout)
            return
        with open(output, "w") as out:
            n = export(db, out)
    except (ValueError, OSError) as exc:
        _fail(str(exc))
    err.print(f"{n} games written to {output}")


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
