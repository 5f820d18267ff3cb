"""Commands of the bot arena: match, tournament, report, export (see docs/guide/arena.md)."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

import typer

from ninefold.arena.config import DEFAULT_FIRST_MOVE_MS, DEFAULT_SLACK_MS, MAX_GAMES
from ninefold.cli import _fail, app, console, err
from ninefold.cli.bot import _seat
from ninefold.protocols.botmain import RULES_HELP, choices, players_help
from ninefold.protocols.clock import PROTOCOLS

INTERRUPTED = 130  # the exit status of a program stopped by Ctrl-C (128 + SIGINT)


def _run_arena(cfg: Any, db: str, jobs: int, resume: bool, log_dir: str | None,
               check: bool, quiet: bool, changes: dict[str, Any] | None = None,
               games_given: bool = True) -> None:
    from ninefold.arena.checkbot import refuse_failing
    from ninefold.arena.report import head_to_head_text, load
    from ninefold.arena.runner import live_run, plan_run, start_run
    from ninefold.arena.standings import endings_text

    try:
        cfg = plan_run(cfg, db, resume, changes, games_given)
        if check:
            refuse_failing(cfg.players, rules=cfg.rules, log_dir=log_dir,
                           first_move_ms=cfg.first_move_ms, slack_ms=cfg.slack_ms)
        start_run(cfg, db)
        report = live_run(cfg, db, jobs=jobs, log_dir=log_dir, console=console, quiet=quiet)
    except KeyboardInterrupt:
        stored = 0
        with contextlib.suppress(ValueError):
            stored = len(load(db)[1].games) if os.path.exists(db) else 0
        of = f" of {cfg.total_games}" if cfg is not None else ""
        err.print(f"interrupted: {stored}{of} games stored in {db}; --resume continues the run",
                  highlight=False, markup=False)
        raise typer.Exit(INTERRUPTED) from None
    except ValueError as exc:  # ArenaError, StorageError, OptionError: one line each
        _fail(str(exc))
    _, st = load(db)
    if cfg.format == "match" and quiet:  # the live view already shows the match line
        console.print(head_to_head_text(st), highlight=False)
    if report.sprt:
        console.print(f"SPRT ({cfg.sprt}): {report.sprt} accepted after {report.stored} games",
                      highlight=False)
    console.print(f"{report.stored} of {report.total} games stored in {db} "
                  f"({report.played_now} played now). Endings: {endings_text(st.terminations)}",
                  highlight=False, markup=False)


def _settings(games: int | None, rules: str | None, openings: str | None, seed: int | None,
              first_move_ms: int | None, slack_ms: int | None,
              sprt: str | None) -> dict[str, Any]:
    """The run settings given on the command line, parsed (None: not given)."""
    from ninefold.arena.config import Openings
    from ninefold.arena.ratings import Sprt
    from ninefold.rules import Rules

    given: dict[str, Any] = {"games": games, "seed": seed, "first_move_ms": first_move_ms,
                             "slack_ms": slack_ms}
    try:
        if rules is not None:
            given["rules"] = Rules.parse(rules)
        if openings is not None:
            given["openings"] = Openings.parse(openings)
        if sprt is not None:
            given["sprt"] = Sprt.parse(sprt)
    except ValueError as exc:
        _fail(str(exc))
    return {k: v for k, v in given.items() if v is not None}


PROTOCOL = choices(PROTOCOLS)


@app.command("match", rich_help_panel="Bots and arena")
def match_command(
    bot1: str = typer.Option(None, help=players_help(
        "A command with --protocol1, or a player spec")),
    bot2: str = typer.Option(None, help="A command with --protocol2, or a player spec."),
    protocol1: str = typer.Option(None, metavar=PROTOCOL,
                                  help="Protocol of bot 1 if it is a command."),
    protocol2: str = typer.Option(None, metavar=PROTOCOL,
                                  help="Protocol of bot 2 if it is a command."),
    cwd1: str = typer.Option(None, help="Working directory of bot 1."),
    cwd2: str = typer.Option(None, help="Working directory of bot 2."),
    name1: str = typer.Option(None, help="Name of bot 1 in results."),
    name2: str = typer.Option(None, help="Name of bot 2 in results."),
    tc1: str = typer.Option(None, help="Time control of bot 1 (default: its protocol's)."),
    tc2: str = typer.Option(None, help="Time control of bot 2 (default: its protocol's)."),
    memory_mb: int = typer.Option(None, min=1, help="Memory limit of external bots (MB)."),
    cpu_s: int = typer.Option(None, min=1, help="CPU-time limit of external bots per game (s)."),
    games: int = typer.Option(
        None, "--games", "-n", min=1, max=MAX_GAMES,
        help="Number of games [default: 10]; with --resume, more than stored extends the run."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Games played at once."),
    rules: str = typer.Option(None, help=RULES_HELP + " [default: standard]"),
    openings: str = typer.Option(None, help="random4, none, or a file of codes "
                                 "[default: random4]."),
    seed: int = typer.Option(None, help="Seed of the random openings [default: 1]."),
    first_move_ms: int = typer.Option(
        None, min=0,
        help=f"Extra time for a bot's first answer [default: {DEFAULT_FIRST_MOVE_MS}]."),
    slack_ms: int = typer.Option(
        None, min=0, help=f"Extra time on every deadline [default: {DEFAULT_SLACK_MS}]."),
    sprt: str = typer.Option(None, help="Stop early: 'elo0=0,elo1=10,alpha=0.05,beta=0.05'."),
    db: str = typer.Option("match.db", help="SQLite file for the results."),
    resume: bool = typer.Option(False, help="Continue the run stored in --db."),
    log_dir: str = typer.Option(None, help="Folder for the bots' stderr logs."),
    check: bool = typer.Option(True, help="Refuse bots that fail the input test."),
    quiet: bool = typer.Option(False, help="No live view."),
) -> None:
    """Play games between two players or bots.

    In pairs: the same opening twice, colours swapped."""
    from dataclasses import replace

    from ninefold.arena.config import RunConfig

    settings = _settings(games, rules, openings, seed, first_move_ms, slack_ms, sprt)
    cfg = None
    if not resume or bot1 or bot2:
        players = [_seat(bot1, protocol1, cwd1, name1, tc1, memory_mb, cpu_s),
                   _seat(bot2, protocol2, cwd2, name2, tc2, memory_mb, cpu_s)]
        if players[0].name == players[1].name:
            # the same default name twice (say, two "java -cp bin bot.BotStarter"): number them
            players = [p if given else replace(p, name=f"{p.name}-{i}")
                       for i, (p, given) in enumerate(zip(players, (name1, name2), strict=True), 1)]
        try:
            cfg = RunConfig(players=players, name="match", **{"games": 10, **settings})
        except ValueError as exc:
            _fail(str(exc))
    _run_arena(cfg, db, jobs, resume, log_dir, check, quiet, changes=settings,
               games_given=games is not None)


@app.command("tournament", rich_help_panel="Bots and arena")
def tournament_command(
    file: str = typer.Argument(None, help="Tournament TOML file (see docs/guide/arena.md)."),
    db: str = typer.Option("tournament.db", help="SQLite file for the results."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Games played at once."),
    games: int = typer.Option(
        None, "--games", "-n", min=1, max=MAX_GAMES,
        help="Games per pairing; with --resume, more than stored extends the run."),
    resume: bool = typer.Option(False, help="Continue the run stored in --db."),
    log_dir: str = typer.Option(None, help="Folder for the bots' stderr logs."),
    check: bool = typer.Option(True, help="Refuse bots that fail the input test."),
    quiet: bool = typer.Option(False, help="No live view."),
) -> None:
    """Play a round robin or gauntlet described by a TOML file."""
    from ninefold.arena.config import load_toml

    cfg = None
    if file:
        try:
            cfg = load_toml(file, games=games)
        except ValueError as exc:
            _fail(str(exc))
    elif not resume:
        _fail("give a tournament file, or --resume a stored run")
    _run_arena(cfg, db, jobs, resume, log_dir, check, quiet,
               changes=None if games is None else {"games": games})


@app.command("report", rich_help_panel="Bots and arena")
def report_command(
    db: str = typer.Argument(..., help="Results database of a match or tournament."),
    out: str = typer.Option(None, help="Folder for the PNG plots (default: beside the db)."),
    plots: bool = typer.Option(True, help="Write the PNG plots."),
) -> None:
    """Print a run's standings and write its plots.

    The plots: ratings with error bars, and the pairwise scores."""
    from pathlib import Path

    from ninefold.arena.report import head_to_head_text, load, plot, standings_table
    from ninefold.arena.standings import endings_text

    try:
        _, st = load(db)
        console.print(standings_table(st, title=f"{db}"))
        if len(st.names) == 2:
            console.print(head_to_head_text(st), highlight=False)
        console.print(f"endings: {endings_text(st.terminations)}", highlight=False)
        if plots and st.games:
            for path in plot(st, out or Path(db).parent, stem=Path(db).stem):
                console.print(f"wrote {path}", highlight=False)
    except ValueError as exc:  # a missing, foreign or damaged file; an unwritable --out
        _fail(str(exc))


@app.command("export", rich_help_panel="Bots and arena")
def export_command(
    db: str = typer.Argument(..., help="Results database of a match or tournament."),
    output: str = typer.Option("-", "--out", "--output", "-o",
                               help="Game-record file ('-': stdout)."),
    force: bool = typer.Option(False, help="Replace --out if it exists."),
) -> None:
    """Write a run's stored games as game records.

    Each record: the moves, their times, the result and how the game ended."""
    from ninefold.arena.report import export, export_file, load

    try:
        load(db)  # refuse a missing, foreign or damaged file before writing anything
        if output == "-":
            export(db, sys.stdout)
            return
        n = export_file(db, output, force=force)
    except ValueError as exc:
        _fail(str(exc))
    except BrokenPipeError:
        raise  # the command line's root ends a broken pipe quietly
    except OSError as exc:
        _fail(f"cannot write {output}: {exc.strerror or exc}")
    err.print(f"{n} games written to {output}")
