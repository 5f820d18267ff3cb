"""Commands for bots: run ninefold as a bot, and the platforms' input test."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from ninefold.arena.config import DEFAULT_FIRST_MOVE_MS, DEFAULT_SLACK_MS
from ninefold.cli import _fail, app, console, err
from ninefold.options import clip
from ninefold.players import (
    compile_searches,
    load_all,
    needs_compiling,
    stderr_progress,
    warmup,
)
from ninefold.protocols import botmain

if TYPE_CHECKING:
    from ninefold.arena import Seat

_BOT = {option.name: option for option in botmain.OPTIONS}


def _option(name: str) -> Any:
    """The typer option of ``ninefold bot --NAME``, as `botmain.OPTIONS` describes it."""
    option = _BOT[name]
    return typer.Option(... if option.required else None, help=botmain.option_help(option),
                        metavar=option.metavar)


@app.command("bot", help=botmain.HELP, rich_help_panel="Bots and arena",
             context_settings={"help_option_names": list(botmain.HELP_OPTIONS)})
def bot_command(
    protocol: str = _option("protocol"),
    player: str = _option("player"),
    rules: str = _option("rules"),
) -> None:
    """``ninefold bot``: its help, and the command for callers of `app`; the ``ninefold``
    command runs it the lean way (`ninefold.protocols.botmain`), before typer loads."""
    try:
        code = botmain.run_bot(protocol, player, rules)
    except ValueError as exc:
        _fail(str(exc))
    raise typer.Exit(code)


@app.command("warmup", rich_help_panel="Research")
def warmup_command() -> None:
    """Compile the searches now, so that later runs start warm.

    Compiles every search, the batched RL environment, the prover and the
    puzzles' solver into numba's cache (or finds them there)."""
    import time

    import ninefold.env.batch  # noqa: F401 - registers its numba functions with warmup

    t0 = time.monotonic()
    load_all()
    compiling = needs_compiling()
    compile_searches(progress=stderr_progress)
    _warm_the_solvers()
    did = "compiled the searches into" if compiling else "the searches were already in"
    err.print(f"ninefold: warmup: {did} numba's cache ({', '.join(warmup.parts())}), "
              f"ready ({time.monotonic() - t0:.1f} s)", highlight=False, markup=False)


# An open-boards position where X wins within 9 plies (proof.search's example).
NEAR_WIN = ("open-boards x1xx1xoox/o1ox1xxo1/oxoxxxx1o/1o1xo1xoo/x1ooxo1xx/oox2xoxo/oo2oooox/"
            "xox1xooox/2x1oxxxo x 3 .xo.x...o")


def _warm_the_solvers() -> None:
    """Compile the prover, its walk, the puzzles' solver and the explorer's key by a small
    real call of each (their numba functions are not players' searches, which `warmup`
    registers)."""
    from ninefold import kernel
    from ninefold.explorer import key_of
    from ninefold.proof.search import soonest
    from ninefold.proof.walk import from_strategy
    from ninefold.proof.within import Solver
    from ninefold.rules import Board

    board = Board.from_position(NEAR_WIN)
    from_strategy(soonest(board)[0])
    Solver(board.rules.flags).soonest(kernel.from_board(board), 9)
    key_of(board)


ARENA_HINT = "an external bot needs --protocol1/--protocol2"
CHECK_HINT = "check-bot takes the bot's command and --protocol"


def _seat(text: str | None, protocol: str | None, cwd: str | None, name: str | None,
          tc: str | None, memory_mb: int | None = None, cpu_s: int | None = None,
          hint: str = ARENA_HINT) -> Seat:
    """The `Seat` the options describe, or a one-line error; `hint` names the flags of
    the command that asks (the arena's numbered ones by default)."""
    from ninefold.arena import Seat

    if not text:
        _fail("name both players (--bot1, --bot2), or --resume a stored run")
    try:
        return Seat.parse(text, protocol, name=name, cwd=cwd, tc=tc, memory_mb=memory_mb,
                          cpu_s=cpu_s)
    except ValueError as exc:
        _fail(f"{clip(text)}: {exc} ({hint})")


@app.command("check-bot", rich_help_panel="Bots and arena")
def check_bot_command(
    command: str = typer.Argument(..., help="The bot's command line (quote it)."),
    protocol: str = _option("protocol"),
    cwd: str = typer.Option(None, help="Working directory of the bot."),
    tc: str = typer.Option(None, help="Time control, e.g. 'bank=10000,inc=500' or 'turn=100'."),
    first_move_ms: int = typer.Option(
        DEFAULT_FIRST_MOVE_MS, help="Extra time for the first answer (start-up)."),
    slack_ms: int = typer.Option(DEFAULT_SLACK_MS, help="Extra time on every deadline."),
    log_dir: str = typer.Option(None, help="Folder for the bot's stderr logs."),
) -> None:
    """Test a bot as the platforms do before they let it play.

    Four positions: the first move, a forced board, a free move and a nearly full
    board; exit status 0 if every answer is legal and in time."""
    from ninefold.arena.checkbot import check_bot, passed, verdict

    seat = _seat(command, protocol, cwd, None, tc, hint=CHECK_HINT)
    try:  # the allowances and --tc, checked before any bot is started
        seat.time_control(first_move_ms, slack_ms)
    except ValueError as exc:
        _fail(str(exc))
    checks = check_bot(seat, first_move_ms=first_move_ms, slack_ms=slack_ms, log_dir=log_dir)
    for check in checks:
        console.print(str(check), highlight=False, markup=False)
    console.print(verdict(checks), highlight=False, markup=False)
    raise typer.Exit(0 if passed(checks) else 1)
