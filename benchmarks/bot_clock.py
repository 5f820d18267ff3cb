"""ninefold as a bot on a platform's clock: start-up and per-turn time, through the real process.

    .venv/bin/python benchmarks/bot_clock.py                       # all three protocols
    .venv/bin/python benchmarks/bot_clock.py --protocols codingame --turns 1000 --load 2
    .venv/bin/python benchmarks/bot_clock.py --starts 5 --turns 300 --plot bot_clock.png

For each protocol it starts ``ninefold bot --protocol P`` as a subprocess, as
a platform does, and times it with the arena's referee: a request is timed
from the write of its first line to the read of the answer
(`ninefold.protocols.connection.BotConnection.ask`). The clocks are the
platforms' own: CodinGame 1,000 ms for the first turn and 100 ms for each
later one; AI Games and Riddles a 10 s bank (its maximum too) + 500 ms a move.

1. **Starts.** `--starts` times: launch the process, write the first request
   at once (the bot moves first) and time until its answer is read, then end
   the process. With an EMPTY numba cache (a fresh ``NUMBA_CACHE_DIR`` per
   start, as in a platform's fresh container; ``--no-cold`` skips these) and
   with a WARM one (the usual cache, filled by one start first). The
   referee waits as long as it takes, so a slow start is measured, not cut.
2. **Turns.** Whole games against a built-in opponent (`--opponent`, thinking
   `--opponent-ms` a move in this process: 90 by default, as public CodinGame
   bots use 90-96 ms of their 100; a faster opponent makes games shorter, so
   more of them is spent while the bot's search loads) until the bot has answered
   `--turns` requests. An answer later than its limit (the turn's time, or the
   bank left) is a time-out; the game goes on unless the answer is later than
   the limit + `--grace-ms`, when the referee gives up on it as a platform
   would have at once. Turn times are of the bot's later turns (the first
   answer of each game is counted only for time-outs); for the bank
   protocols, the bank left at each request from the bot's 10th move on.

``--load N`` keeps N processes spinning on the CPU through the whole run,
each in a session of its own, as other programs on a machine are
(``--load-in-referee-session`` starts them in this script's session instead:
with Linux's autogroup scheduling they then take their CPU from the
referee's share, and the referee reads answers late).
``--control MS`` then plays the same number of CodinGame turns with a control
in ninefold's place: `spin_bot.c`, a C bot that keeps the CPU busy for MS of
each turn and answers at once (no interpreter, no child process). Its
time-outs are the machine's: a bot that uses as much of its turn cannot do
better here.
Each measure is printed beside the issue's target; ``--plot FILE`` also
draws the turn times, banks and first answers (PNG).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer
from botgames import (
    Load,
    Request,
    StallProbe,
    bot_requests,
    first_answer,
    fmt_ms,
    lost_on_time,
    ninefold_command,
    percentile,
    platform_control,
    spin_bot_command,
    warm_cache,
)
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from ninefold.arena.referee import Seat, play_game
from ninefold.protocols import PROTOCOLS, BotFault, Clock, TimeControl
from ninefold.rules import Mark

app = typer.Typer(add_completion=False)
console = Console(width=None if sys.stdout.isatty() else 150)  # a log keeps whole rows

START_WAIT_MS = 600_000  # a start is waited for this long (a cold compile takes ~15 s)
WARM_FIRST_MS = 500.0  # target on a bank: a warm process answers within this of its start
# (on a clock per turn its first request waits for the search, within the first turn:
# the target there is the first turn's limit; ninefold.protocols.engine)
TURN_MEDIAN_SHARE = 0.85  # target (per-turn protocols): the median turn uses this share ...
TURN_P99_SHARE = 0.95  # ... and the 99th percentile stays under this one
BANK_FROM_MOVE = 10  # banks are counted from the bot's 10th move on
BANK_MEDIAN_SHARE = 0.5  # target: the median bank left is under this share of its maximum


@dataclass
class Start:
    """One start: launch to answer read, and write of the request to read of the answer."""

    launch_ms: float
    request_ms: float
    limit_ms: float
    failure: str = ""


@dataclass
class Measures:
    """Everything measured for one protocol."""

    protocol: str
    tc: TimeControl
    bot: str = ""  # another bot than ninefold (the control), named
    cold: list[Start] = field(default_factory=list)
    warm: list[Start] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)  # every request of every game
    given_up: int = 0  # requests the referee stopped waiting for (limit + grace)
    faults: list[str] = field(default_factory=list)  # games the bot lost by a fault
    games: int = 0

    @property
    def name(self) -> str:
        """The protocol, and the bot if it is not ninefold."""
        return self.protocol + (f" ({self.bot})" if self.bot else "")

    @property
    def turns(self) -> list[Request]:
        return [r for r in self.requests if r.turn > 0]

    @property
    def timeouts(self) -> int:
        return sum(r.late for r in self.requests) + self.given_up

    @property
    def banks(self) -> list[float]:
        return [r.limit_ms for r in self.requests if r.turn >= BANK_FROM_MOVE - 1]


def rules_for(protocol: str) -> str:
    return "codingame" if protocol == "codingame" else "standard"


def one_start(protocol: str, player: str | None, env: dict[str, str]) -> Start:
    """Launch a bot, ask for its first move at once, time the answer, end the bot."""
    tc = platform_control(protocol).with_allowances(START_WAIT_MS, 0)
    limit = Clock(tc).told_ms()
    t_launch = time.monotonic()
    try:
        launch_ms, request_ms = first_answer(ninefold_command(protocol, player), protocol,
                                             rules_for(protocol), tc, env)
        return Start(launch_ms, request_ms, limit)
    except BotFault as fault:
        elapsed = 1000 * (time.monotonic() - t_launch)
        return Start(elapsed, elapsed, limit, failure=fault.reason)


def measure_starts(m: Measures, player: str | None, starts: int, cold: bool,
                   progress: Progress) -> None:
    total = starts * (2 if cold else 1)
    bar = progress.add_task(f"{m.protocol}: starts", total=total)
    if cold:
        for _ in range(starts):
            with tempfile.TemporaryDirectory(prefix="ninefold-numba-") as cache:
                m.cold.append(one_start(m.protocol, player, {"NUMBA_CACHE_DIR": cache}))
            progress.advance(bar)
    for _ in range(starts):
        m.warm.append(one_start(m.protocol, player, {}))
        progress.advance(bar)


def measure_turns(m: Measures, command: str, turns: int, opponent: str,
                  opponent_ms: int, grace_ms: int, progress: Progress,
                  logs: Path | None = None) -> None:
    tc = m.tc.with_allowances(0, grace_ms)
    bot = Seat.external(command, m.protocol, name="ninefold", tc=tc)
    other = Seat.builtin(opponent, name="opponent",
                         tc=TimeControl(turn_ms=opponent_ms, slack_ms=START_WAIT_MS))
    bar = progress.add_task(f"{m.name}: turns", total=turns)
    while len(m.requests) < turns:
        mark = Mark.X if m.games % 2 == 0 else Mark.O
        x, o = (bot, other) if mark is Mark.X else (other, bot)
        result = play_game(x, o, rules=rules_for(m.protocol),
                           log_dir=None if logs is None else logs / m.protocol)
        m.games += 1
        answered = bot_requests(result, mark, m.tc)
        m.requests += answered
        if result.winner is mark.other and result.reason.startswith("ninefold"):
            if lost_on_time(result, mark):
                m.given_up += 1
            else:
                m.faults.append(result.reason)
        progress.advance(bar, len(answered))


# --- the report ---------------------------------------------------------------------------


def _ok(good: bool) -> str:
    return "[green]yes[/]" if good else "[red]NO[/]"


def add_rows(table: Table, m: Measures) -> None:
    first_limit = Clock(m.tc).told_ms()
    warm = WARM_FIRST_MS if m.tc.is_bank else first_limit
    warm_target = f"≤ {warm:.0f} ms" + ("" if m.tc.is_bank else " (first turn)")
    for label, starts, target, bound in (
        ("first answer, empty cache", m.cold, f"≤ {first_limit} ms (first turn)", first_limit),
        ("first answer, warm cache", m.warm, warm_target, warm),
    ):
        if not starts:
            continue
        launch = [s.launch_ms for s in starts]
        failed = [s.failure for s in starts if s.failure]
        table.add_row(m.protocol, label + " (launch→read)", str(len(starts)),
                      fmt_ms(statistics.median(launch)), "", fmt_ms(max(launch)), target,
                      _ok(max(launch) <= bound and not failed))
        request = [s.request_ms for s in starts]
        table.add_row("", "  of which request write→read", "",
                      fmt_ms(statistics.median(request)), "", fmt_ms(max(request)), "", "")
        for text in failed[:3]:
            table.add_row("", f"  [red]failed: {text[:70]}[/]", "", "", "", "", "", "")
    turns = [r.ms for r in m.turns]
    shares = [r.ms / r.limit_ms for r in m.turns]
    per_turn = not m.tc.is_bank
    target, good = "", None
    if per_turn and turns:
        target = (f"median ≥ {TURN_MEDIAN_SHARE * m.tc.turn_ms:.0f}, "
                  f"p99 ≤ {TURN_P99_SHARE * m.tc.turn_ms:.0f} ms")
        good = (percentile(shares, 0.5) >= TURN_MEDIAN_SHARE
                and percentile(shares, 0.99) <= TURN_P99_SHARE)
    limit = f"of {m.tc.turn_ms} ms" if per_turn else "of the bank left"
    table.add_row(m.name if not (m.cold or m.warm) else "", "time used a turn (turns 2+)",
                  str(len(turns)), fmt_ms(percentile(turns, 0.5)), fmt_ms(percentile(turns, 0.99)),
                  fmt_ms(max(turns, default=float("nan"))), target,
                  "" if good is None else _ok(good))
    table.add_row("", f"  share {limit}", "", _pct(percentile(shares, 0.5)),
                  _pct(percentile(shares, 0.99)), _pct(max(shares, default=float("nan"))),
                  "", "")
    name = "time-outs" if per_turn else "time losses"
    table.add_row("", f"{name} (answers after the limit)", str(len(m.requests)),
                  str(m.timeouts), "", "", "0", _ok(m.timeouts == 0))
    if m.timeouts:
        firsts = sum(r.late for r in m.requests if r.turn == 0)
        table.add_row("", "  of which first answers of a game", "", str(firsts), "", "", "", "")
        late = ", ".join(f"{r.ms:.0f}" for r in m.requests if r.late)
        table.add_row("", f"  late answers (ms): {late[:60]}", "", "", "", "", "", "")
    if not per_turn:
        top = m.tc.max_bank_ms or m.tc.bank_ms
        banks = m.banks
        table.add_row("", f"bank left at a request (move {BANK_FROM_MOVE}+)", str(len(banks)),
                      fmt_ms(percentile(banks, 0.5)), fmt_ms(percentile(banks, 0.01)) + " (p1)",
                      fmt_ms(min(banks, default=float("nan"))) + " (least)",
                      f"median < {BANK_MEDIAN_SHARE * top:.0f} ms",
                      _ok(bool(banks) and percentile(banks, 0.5) < BANK_MEDIAN_SHARE * top))
    for text in m.faults[:3]:
        table.add_row("", f"  [red]lost by a fault: {text[:70]}[/]", "", "", "", "", "", "")


def _pct(x: float) -> str:
    return "-" if x != x else f"{100 * x:.0f}%"


def report(results: list[Measures], load: int, player: str | None, opponent: str,
           load_where: str = "") -> Table:
    where = f" ({load_where})" if load and load_where else ""
    table = Table(title=f"ninefold bot ({player or 'default player'}) on the platforms' clocks, "
                  f"vs {opponent}; {load} spinning processes{where} on {os.cpu_count()} "
                  "cores")
    for col, justify in (("protocol", "left"), ("measure", "left"), ("n", "right"),
                         ("median", "right"), ("p99", "right"), ("worst", "right"),
                         ("target", "left"), ("met", "left")):
        table.add_column(col, justify=justify)
    for i, m in enumerate(results):
        if i:
            table.add_section()
        add_rows(table, m)
    return table


def plot(results: list[Measures], path: Path) -> None:
    """Per protocol: the turn times (or the banks left) and the first answers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(results), 2, figsize=(11, 3.2 * len(results)), squeeze=False)
    for (left, right), m in zip(axes, results, strict=True):
        if m.tc.is_bank:
            left.scatter([r.turn + 1 for r in m.requests], [r.limit_ms for r in m.requests],
                         s=6, label="bank left at the request")
            left.scatter([r.turn + 1 for r in m.requests], [r.ms for r in m.requests], s=6,
                         label="time used")
            left.axhline(BANK_MEDIAN_SHARE * (m.tc.max_bank_ms or m.tc.bank_ms), color="grey",
                         linestyle=":", label="half the bank's maximum")
            left.set_xlabel("the bot's move in its game")
            left.set_ylabel("ms")
        else:
            left.hist([r.ms for r in m.turns], bins=60)
            for share, style in ((1.0, "-"), (TURN_MEDIAN_SHARE, ":"), (TURN_P99_SHARE, "--")):
                left.axvline(share * (m.tc.turn_ms or 0), color="red", linestyle=style)
            left.set_xlabel("time used a turn, ms (turns 2+; red: limit, 85%, 95%)")
        left.set_title(f"{m.name}: {len(m.requests)} requests, {m.timeouts} late")
        if m.tc.is_bank:
            left.legend(fontsize=7)
        for y, (name, starts) in enumerate((("empty cache", m.cold), ("warm cache", m.warm))):
            right.scatter([s.launch_ms for s in starts], [y] * len(starts), s=18, label=name)
        right.axvline(Clock(m.tc).told_ms(), color="red", label="first-turn limit")
        right.axvline(WARM_FIRST_MS, color="orange", linestyle=":", label="warm target")
        right.set_xscale("log")
        right.set_yticks([0, 1], ["empty", "warm"])
        right.set_ylim(-0.5, 1.5)
        right.set_xlabel("first answer, ms from launch (log)")
        right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


@app.command()
def main(
    protocols: Annotated[str, typer.Option(help="Protocols, comma-separated.")] = ",".join(
        ("codingame", "aigames", "riddles")),
    starts: int = typer.Option(10, help="Starts measured per cache state and protocol."),
    cold: bool = typer.Option(True, help="Measure starts with an empty numba cache too."),
    turns: int = typer.Option(1000, help="Requests answered per protocol (whole games)."),
    load: int = typer.Option(0, help="Processes spinning on the CPU meanwhile."),
    load_in_referee_session: bool = typer.Option(False, "--load-in-referee-session", help=(
        "Start the spinning processes in this script's session, not each in its own.")),
    player: str = typer.Option(None, help="The bot's --player (default: its own)."),
    opponent: str = typer.Option("mcts", help="The built-in opponent's spec."),
    opponent_ms: int = typer.Option(90, help="The opponent's time a move, ms."),
    grace_ms: int = typer.Option(5000, help="How long past its limit an answer is waited for."),
    plot_path: Annotated[Path | None, typer.Option(
        "--plot", help="Also draw the measures (PNG).")] = None,
    logs: Annotated[Path | None, typer.Option(help=(
        "Keep the bot's stderr of each game in this folder (DIR/PROTOCOL/ninefold-X/...): "
        "a late answer says there where its time went."))] = None,
    control: float = typer.Option(None, help=(
        "Then the same CodinGame turns with a control in ninefold's place: a C bot that "
        "keeps the CPU busy for this many ms of each turn (spin_bot.c).")),
) -> None:
    chosen = [p.strip().lower() for p in protocols.split(",") if p.strip()]
    unknown = [p for p in chosen if p not in PROTOCOLS]
    if unknown or not chosen:
        raise typer.BadParameter(f"choose among {', '.join(PROTOCOLS)}", param_hint="--protocols")
    if control is not None and not 0 < control < platform_control("codingame").turn_ms:
        raise typer.BadParameter("give ms within CodinGame's 100 ms turn", param_hint="--control")
    results = []
    try:
        warm_cache()  # the usual cache (the warm starts and the turns), if empty or stale
        control_command = None if control is None else spin_bot_command(control)
    except ValueError as exc:
        console.print(f"error: {exc}", highlight=False)
        raise typer.Exit(1) from None
    spinning = Load(load, own_sessions=not load_in_referee_session)
    with StallProbe() as stalls, spinning, Progress(console=console, transient=True) as progress:
        for protocol in chosen:
            m = Measures(protocol, platform_control(protocol))
            if starts:
                measure_starts(m, player, starts, cold, progress)
            if turns:
                measure_turns(m, ninefold_command(protocol, player), turns, opponent,
                              opponent_ms, grace_ms, progress, logs)
            results.append(m)
        if control_command is not None and turns:
            m = Measures("codingame", platform_control("codingame"),
                         bot=f"control: C, spins {control:g} ms")
            measure_turns(m, control_command, turns, opponent, opponent_ms, grace_ms, progress)
            results.append(m)
    console.print(report(results, load, player, opponent, "in the referee's session"
                         if load_in_referee_session else "each in its own session"))
    console.print(stalls.summary())
    if plot_path:
        plot(results, plot_path)
        console.print(f"plot: {plot_path}")


if __name__ == "__main__":
    app()
