"""Commands of the bot arena: match, tournament, report, export (see docs/arena.md)."""

from __future__ import annotations

import sys

import typer

from ninefold.cli import _fail, app, console, err
from ninefold.cli.bot import _seat


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
