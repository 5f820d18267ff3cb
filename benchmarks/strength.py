"""Paired games between two players: W-D-L, score and Elo with a 95% interval.

Each pair of games starts from the same random four-move opening
(`ninefold.rules.random_opening`) with colours swapped, which cancels most of
the first-move advantage and the luck of the opening. Players are spec
strings (`ninefold.players.make_player`); this script adds one more name,
``openspiel``, OpenSpiel's C++ `MCTSBot` with random rollouts (uct_c=2, its
default), for comparisons only::

    .venv/bin/python benchmarks/strength.py mcts openspiel --ms 100 --games 200 --jobs 2
    .venv/bin/python benchmarks/strength.py mcts:c=0.6 mcts:c=1.0 --ms 50 --games 100
    .venv/bin/python benchmarks/strength.py mcts mcts:tm=flat --bank 10000 --inc 500
    .venv/bin/python benchmarks/strength.py mcts @09be2c6 --subprocess --protocol riddles \
        --plot banks.png
    .venv/bin/python benchmarks/strength.py mcts mcts --subprocess --protocol riddles --odds 2

With ``--subprocess`` both sides are bot processes under the arena's
referee, on the platform's clock (the last line: today's bot against the one
of git revision 09be2c6, with its default player, on Riddles' 10 s + 500 ms;
``--plot`` draws each side's bank left and time used by move).
``--odds 2`` gives A twice B's clock (the last line but one: what twice the
time is worth to the same bot). ``--b-turn-ms 300`` tells B's CodinGame bot,
and gives it, 300 ms a turn (`told_turn.py`): with ``sims=`` in B's spec, a
reference whose work a turn does not depend on how much the machine stalls::

    .venv/bin/python benchmarks/strength.py mcts:net=default \
        mcts:net=default,sims=11000@e827b65 --subprocess --b-turn-ms 300 --first-move-ms 3000

``--settle-ms 3000`` starts both bots three seconds before each game's first
request: a ninefold bot loads its search in 0.4 s on one machine and 2 s on
another, and until then answers from its book and a fallback, so at
CodinGame's 100 ms the figure depends on the machine; settled, both searches
play from the first turn, as a bot with nothing to load does. (A bot from
before d92be18 counted its first CodinGame turn from its process's start, so
settled it plays its first move with about 1 ms; later bots get the turn's
1,000 ms from the request's coming: docs/research/bot-timing.md.)::

    .venv/bin/python benchmarks/strength.py mcts:net=default mcts:net=default@e827b65 \
        --subprocess --games 200 --seed 505 --first-move-ms 3000 --settle-ms 3000

``SPEC@REV`` is ninefold as it was at a git revision: its source is exported
once into ``.bench/revisions/`` and run by this Python, warmed up before the
first game.

The time control is per move (``--ms``) or a bank with increment (``--bank``,
``--inc``, as the bot platforms play: the increment is added before each
move, never above the bank's size). A player that overruns a bank loses the
game on time. The script also reports how far the time-limited players went
past their budget (the 50th, 99th percentile and worst move).

OpenSpiel spends two decisions on a free move (choose a board, then a cell);
its adapter gives each decision the full move time, so it gets at least the
time the other side gets.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing as mp
import os
import random
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated

import typer
from botgames import (
    STALL_BLAME_S,
    Request,
    StallProbe,
    bot_requests,
    first_answer,
    fmt_ms,
    lost_on_time,
    ninefold_command,
    openspiel_command,
    percentile,
    platform_control,
    revision_src,
    split_revision,
    warm_cache,
)
from openspiel_mcts import OpenSpielSearch
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ninefold.arena.referee import GameKey, Seat
from ninefold.arena.referee import play_game as referee_game
from ninefold.players import Limit, Player, PlayResult, make_player, register
from ninefold.protocols import PROTOCOLS, BotFault, TimeControl
from ninefold.protocols.process import end_with_parent
from ninefold.rules import Board, Mark, Termination, random_opening

app = typer.Typer(add_completion=False)
console = Console()
WARM_WAIT_MS = 600_000  # a bot at another revision may take this long to compile


# --- OpenSpiel's MCTS as a ninefold player (benchmark only) ---------------------------


@register("openspiel")
class OpenSpielMCTS(Player):
    """OpenSpiel's C++ MCTSBot with one random rollout per leaf (no tree reuse)."""

    def __init__(self, ms: float | None = None, sims: int | None = None, c: float = 2.0,
                 solve: bool = False, seed: int | None = None) -> None:
        self.search = OpenSpielSearch(sims=sims, c=c, solve=solve, seed=seed)
        self.ms = ms

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        if board.rules.name != "standard":
            raise ValueError("OpenSpiel plays the standard rules only")
        ms = limit.move_ms or self.ms
        if self.ms is not None and limit.move_ms is not None:
            ms = min(self.ms, limit.move_ms)
        return PlayResult(self.search.choose(board, ms))


# --- games ------------------------------------------------------------------------------


@dataclass
class GameResult:
    score_a: float  # 1 win, 0.5 draw, 0 loss for player A
    a_is_x: bool
    plies: int
    overruns: dict[str, list[float]] = field(default_factory=dict)  # side -> ms past budget
    off_cpu: dict[str, list[float]] = field(default_factory=dict)  # side -> wall ms - CPU ms
    forfeit: str | None = None
    # --subprocess: each side's answered requests, and a fault other than time that ended it
    requests: dict[str, list[Request]] = field(default_factory=dict)
    fault: str = ""
    moves: list[str] = field(default_factory=list)  # the game's moves, opening included
    ended: float = 0.0  # --subprocess: when the game ended (`time.time()`; 0: not known)


@dataclass
class Config:
    spec_a: str
    spec_b: str
    rules: str
    ms: float | None
    bank: float | None
    inc: float
    protocol: str | None = None  # --subprocess: both sides are bot processes speaking it
    safety_ms: float | None = None  # the OpenSpiel bot's safety (its default if None)
    first_move_ms: int = 0  # an allowance for the first answers (not the platform's)
    logs: str | None = None  # --subprocess: the bots' stderr, a file per bot and game here
    odds: float = 1.0  # time odds: A's clock (a move's time, or bank and increment) is
    # this many times B's
    b_turn_ms: int | None = None  # codingame: B's turn, which its bot is told (told_turn.py)
    settle_ms: int = 0  # --subprocess: the bots' time from their start to the first request

    def scale(self, side: str) -> float:
        """How many times the given clock `side` ("A" or "B") gets (`odds`)."""
        return self.odds if side == "A" else 1.0

    def time_control(self, side: str = "B") -> TimeControl:
        """The platform's clock of `side` for --subprocess, with --ms or --bank/--inc
        (A's scaled by `odds`: its time a turn, or its bank, increment and maximum)."""
        assert self.protocol is not None
        f = self.scale(side)
        if side == "B" and self.b_turn_ms is not None:
            return platform_control(self.protocol, turn_ms=self.b_turn_ms)
        return platform_control(
            self.protocol, turn_ms=None if self.ms is None else round(f * self.ms),
            bank_ms=None if self.bank is None else round(f * self.bank),
            increment_ms=round(f * self.inc) if self.bank is not None else None)

    @property
    def shown_side(self) -> str:
        """The side whose clock a match's header and plot show: B's, unless B is told a
        turn of its own (`b_turn_ms`, shown apart)."""
        return "A" if self.b_turn_ms else "B"

    def command(self, side: str) -> str:
        """The command of a side's bot process ("A" or "B"): OpenSpiel's, or ``ninefold
        bot`` (B told its turn with `b_turn_ms`)."""
        assert self.protocol is not None
        spec = self.spec_a if side == "A" else self.spec_b
        if spec == "openspiel":
            return openspiel_command(self.protocol, self.ms, self.safety_ms)
        spec, rev = split_revision(spec)
        src = revision_src(rev) if rev else None
        told = self.b_turn_ms if side == "B" else None
        return ninefold_command(self.protocol, spec or None, self.rules, src, told)


_players: dict[tuple[str, str], Player] = {}


def _player(key: str, spec: str) -> Player:
    """One player per side and spec in each process, kept from game to game."""
    if (key, spec) not in _players:
        _players[(key, spec)] = make_player(spec)
    return _players[(key, spec)]


def play_game(cfg: Config, opening: str, a_is_x: bool) -> GameResult:
    a = _player("a", cfg.spec_a)
    b = _player("b", cfg.spec_b)
    for p in (a, b):
        p.new_game()
    board = Board(cfg.rules, opening=opening)
    by_mark = {Mark.X: a if a_is_x else b, Mark.O: b if a_is_x else a}
    name = {id(a): "A", id(b): "B"}
    scale = {Mark.X: cfg.scale("A" if a_is_x else "B"), Mark.O: cfg.scale("B" if a_is_x else "A")}
    banks = {m: None if cfg.bank is None else f * cfg.bank for m, f in scale.items()}
    overruns: dict[str, list[float]] = {"A": [], "B": []}
    off_cpu: dict[str, list[float]] = {"A": [], "B": []}
    while not board.is_game_over():
        mark = board.turn
        player = by_mark[mark]
        f = scale[mark]
        if cfg.bank is not None:
            top = f * cfg.bank
            banks[mark] = min(top, banks[mark] + f * cfg.inc) if board.ply >= 6 else top
            limit = Limit(bank_ms=banks[mark], increment_ms=f * cfg.inc, max_bank_ms=top)
        else:
            limit = Limit(move_ms=f * cfg.ms)
        t0, c0 = time.perf_counter(), time.process_time()
        result = player.play(board, limit)
        spent = 1000 * (time.perf_counter() - t0)
        off_cpu[name[id(player)]].append(spent - 1000 * (time.process_time() - c0))
        budget = f * cfg.ms if cfg.bank is None else banks[mark]
        overruns[name[id(player)]].append(spent - budget)
        if cfg.bank is not None:
            banks[mark] -= spent
            if banks[mark] < 0:
                loser_is_a = player is a
                return GameResult(0.0 if loser_is_a else 1.0, a_is_x, board.ply, overruns,
                                  off_cpu, forfeit="A" if loser_is_a else "B")
        board.push(result.move)
    outcome = board.outcome()
    assert outcome is not None
    a_mark = Mark.X if a_is_x else Mark.O
    return GameResult(outcome.score(a_mark), a_is_x, board.ply, overruns, off_cpu,
                      moves=[str(m) for m in board.move_stack])


def stall_blame(results: list[GameResult], stalls: StallProbe) -> list[str]:
    """For each game of this run lost on time, the machine's longest stall just before
    it ended, if any: whether the machine may have made the answer late."""
    lines = []
    for r in results:
        if r.forfeit and r.ended:
            ms = stalls.before(r.ended)
            seen = (f"a machine stall of {ms:.0f} ms" if ms is not None
                    else "no machine stall")
            lines.append(f"  {r.forfeit} lost on time after ply {r.plies}: {seen} in the "
                         f"{STALL_BLAME_S:.0f} s before the game ended")
    return lines


def play_process_game(cfg: Config, opening: str | None, a_is_x: bool,
                      pair: int = 0) -> GameResult:
    """One game (of the `pair`th pair) between two bot processes under the arena's referee,
    on the platform's clock with no allowances: a late answer loses, as on the platform."""
    tcs = {side: cfg.time_control(side) for side in ("A", "B")}
    a = Seat.external(cfg.command("A"), cfg.protocol or "", name="A", tc=tcs["A"])
    b = Seat.external(cfg.command("B"), cfg.protocol or "", name="B", tc=tcs["B"])
    x, o = (a, b) if a_is_x else (b, a)
    result = referee_game(x, o, rules=cfg.rules, opening=opening,
                          first_move_ms=cfg.first_move_ms, log_dir=cfg.logs,
                          key=GameKey("A", "B", pair, 0 if a_is_x else 1),
                          settle_ms=cfg.settle_ms)
    a_mark = Mark.X if a_is_x else Mark.O
    sides = {"A": a_mark, "B": a_mark.other}
    forfeit = next((s for s, m in sides.items() if lost_on_time(result, m)), None)
    fault = result.reason if result.termination in (
        Termination.BOT_FAILURE, Termination.ILLEGAL_MOVE) else ""
    return GameResult(result.outcome.score(a_mark), a_is_x, len(result.moves),
                      {"A": [], "B": []}, {"A": [], "B": []}, forfeit=forfeit,
                      requests={s: bot_requests(result, m, tcs[s]) for s, m in sides.items()},
                      fault=fault, moves=list(result.moves), ended=time.time())


def _job(args: tuple[Config, str | None, bool, int]) -> GameResult:
    cfg, opening, a_is_x, pair = args
    if cfg.protocol:
        return play_process_game(cfg, opening, a_is_x, pair)
    assert opening is not None
    return play_game(cfg, opening, a_is_x)


def elo(score: float) -> float:
    score = min(max(score, 1e-4), 1 - 1e-4)
    return -400 * math.log10(1 / score - 1)


def _colour_line(scores: list[float]) -> str:
    """W-D-L, score and Elo with a 95% interval of one colour's games (each game on its
    own: the pairs' two games are of different colours)."""
    n = len(scores)
    if not n:
        return "no games"
    mean = sum(scores) / n
    se = statistics.stdev(scores) / math.sqrt(n) if n > 1 else 0.0
    lo, hi = max(mean - 1.96 * se, 0.0), min(mean + 1.96 * se, 1.0)
    w, d = sum(x == 1 for x in scores), sum(x == 0.5 for x in scores)
    return (f"+{w} ={d} -{n - w - d}, {100 * mean:.1f}%, Elo {elo(mean):+.0f} "
            f"[{elo(lo):+.0f}, {elo(hi):+.0f}]")


def paired_score(results: list[GameResult]) -> tuple[float, float]:
    """A's mean score and its standard error, the two games of a pair (games 2k and
    2k+1: one opening, or one colour-swapped pair) taken as one observation."""
    pairs: dict[int, list[float]] = {}
    for i, r in enumerate(results):
        pairs.setdefault(i // 2, []).append(r.score_a)
    per_pair = [sum(v) / len(v) for v in pairs.values()]
    se = statistics.stdev(per_pair) / math.sqrt(len(per_pair)) if len(per_pair) > 1 else 0.5
    return sum(r.score_a for r in results) / len(results), se


def summarize(results: list[GameResult], cfg: Config) -> str:
    n = len(results)
    wins = sum(r.score_a == 1 for r in results)
    draws = sum(r.score_a == 0.5 for r in results)
    losses = n - wins - draws
    score, se = paired_score(results)
    lo, hi = score - 1.96 * se, score + 1.96 * se
    if cfg.protocol:
        shown = cfg.time_control(cfg.shown_side)
        clock = f"bot processes speaking {cfg.protocol}, {shown}"
    elif cfg.bank is None:
        clock = f"{cfg.ms:g} ms/move"
    else:
        clock = f"bank {cfg.bank:g} ms + {cfg.inc:g} ms"
    if cfg.odds != 1.0:
        clock += f"; time odds: A's clock x{cfg.odds:g}"
        if cfg.protocol:
            clock += f" ({cfg.time_control('A')})"
    if cfg.b_turn_ms is not None:
        clock += f"; B told and given {cfg.b_turn_ms} ms a turn"
    if cfg.settle_ms:
        clock += f"; bots settled {cfg.settle_ms} ms before the first request"
    openings = "colour-swapped pairs" if cfg.protocol == "codingame" else "paired openings"
    lines = [
        f"{cfg.spec_a} vs {cfg.spec_b}  ({cfg.rules}, {clock}, {n} games, "
        f"{(n + 1) // 2} {openings})",
        f"A: +{wins} ={draws} -{losses}   score {100 * score:.1f}% "
        f"[{100 * max(lo, 0):.1f}%, {100 * min(hi, 1):.1f}%]",
        f"Elo A-B: {elo(score):+.0f}  95% CI [{elo(lo):+.0f}, {elo(hi):+.0f}]",
        f"A as X scored {100 * _mean([r.score_a for r in results if r.a_is_x]):.1f}%, "
        f"as O {100 * _mean([r.score_a for r in results if not r.a_is_x]):.1f}%; "
        f"mean game length {_mean([r.plies for r in results]):.1f} plies",
    ]
    for name, x in (("X", True), ("O", False)):
        lines.append(f"A as {name}: {_colour_line([r.score_a for r in results if r.a_is_x == x])}")
    kept = [r for r in results if r.moves]  # (games saved by an older version lack them)
    if kept:
        lines.append(f"distinct games: {len({tuple(r.moves) for r in kept})} of {len(kept)}")
    forfeits = [r.forfeit for r in results if r.forfeit]
    if forfeits or cfg.bank is not None or cfg.protocol:
        lines.append(f"lost on time: A {forfeits.count('A')}, B {forfeits.count('B')}")
        for side in ("A", "B"):
            plies = [r.plies for r in results if r.forfeit == side]
            if plies:  # where in the game: while a bot starts, or later
                lines.append(f"  {side} lost on time after these plies: "
                             + ", ".join(map(str, plies)))
    if cfg.protocol:
        return "\n".join(lines + process_lines(results, cfg))
    for side, spec in (("A", cfg.spec_a), ("B", cfg.spec_b)):
        pairs = [p for r in results for p in zip(r.overruns[side], r.off_cpu[side], strict=True)]
        over = sorted(x for x, _ in pairs)
        if over:
            p50 = over[len(over) // 2]
            p99 = over[min(len(over) - 1, int(0.99 * len(over)))]
            lines.append(
                f"time past budget, {side} ({spec}): median {p50:+.1f} ms, "
                f"99th pct {p99:+.1f} ms, worst {over[-1]:+.1f} ms over {len(over)} moves"
            )
            late = [gap for x, gap in pairs if x > 10]
            if late:
                lines.append(
                    f"  {len(late)} moves more than 10 ms late; in {sum(g > 10 for g in late)} "
                    "of them the process was off the CPU for more than 10 ms "
                    "(wall time - CPU time; other load on the machine)"
                )
    return "\n".join(lines)


def process_lines(results: list[GameResult], cfg: Config) -> list[str]:
    """--subprocess: each side's time a turn (from the write of the request to the read
    of the answer), and its bank left from its 10th move on."""
    lines = []
    for side, spec in (("A", cfg.spec_a), ("B", cfg.spec_b)):
        asked = [q for r in results for q in r.requests.get(side, [])]
        turns = [q.ms for q in asked if q.turn > 0]
        first = [q.ms for q in asked if q.turn == 0]
        lines.append(
            f"{side} ({spec}): time a turn median {fmt_ms(percentile(turns, 0.5))}, 99th pct "
            f"{fmt_ms(percentile(turns, 0.99))}, worst {fmt_ms(max(turns, default=math.nan))} "
            f"over {len(turns)} turns; first answers median {fmt_ms(percentile(first, 0.5))}, "
            f"worst {fmt_ms(max(first, default=math.nan))}"
        )
        if cfg.time_control(side).is_bank:
            banks = [q.limit_ms for q in asked if q.turn >= 9]
            lines.append(
                f"  bank left from its 10th move: median {fmt_ms(percentile(banks, 0.5))}, "
                f"10th pct {fmt_ms(percentile(banks, 0.1))}, least "
                f"{fmt_ms(min(banks, default=math.nan))} over {len(banks)} requests"
            )
    faults = [r.fault for r in results if r.fault]
    if faults:
        lines.append(f"{len(faults)} games lost by a fault, first: {faults[0][:100]}")
    return lines


def plot_requests(results: list[GameResult], cfg: Config, path: Path) -> None:
    """--subprocess --plot: per side, by its move in the game, the median and the 10th-90th
    percentile band of the bank left at the request and of the time it used (a bank);
    or the histogram of the time a turn (a time per turn, its limit in red)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tc = cfg.time_control(cfg.shown_side)
    fig, ax = plt.subplots(figsize=(9, 4.2))
    for side, spec, colour in (("A", cfg.spec_a, "tab:blue"), ("B", cfg.spec_b, "tab:orange")):
        asked = [q for r in results for q in r.requests.get(side, [])]
        if not tc.is_bank:
            ax.hist([q.ms for q in asked if q.turn > 0], bins=60, alpha=0.6, color=colour,
                    label=f"{side}: {spec}")
            continue
        by_turn: dict[int, list[Request]] = {}
        for q in asked:
            by_turn.setdefault(q.turn, []).append(q)
        enough = min(10, len(results))  # games that reached a move, for its band to say much
        turns = [t for t in sorted(by_turn) if len(by_turn[t]) >= enough]
        for attr, style, what in (("limit_ms", "-", "bank left"), ("ms", "--", "time used")):
            rows = [[getattr(q, attr) for q in by_turn[t]] for t in turns]
            ax.plot([t + 1 for t in turns], [percentile(r, 0.5) for r in rows], style,
                    color=colour, label=f"{side} ({spec}): {what}, median")
            ax.fill_between([t + 1 for t in turns], [percentile(r, 0.1) for r in rows],
                            [percentile(r, 0.9) for r in rows], color=colour, alpha=0.15)
    if tc.is_bank:
        ax.axhline((tc.max_bank_ms or tc.bank_ms) / 2, color="grey", linestyle=":",
                   label="half the bank's maximum")
        ax.set_xlabel("the side's move in its game (bands: 10th-90th percentile)")
        ax.set_ylabel("ms")
    else:
        ax.axvline(tc.turn_ms or 0, color="red", label="the turn's limit")
        ax.set_xlabel("time a turn, ms (turns 2+)")
    odds = f"; A's clock x{cfg.odds:g}: {cfg.time_control('A')}" if cfg.odds != 1.0 else ""
    ax.set_title(f"{len(results)} games, {cfg.protocol}: {tc}{odds}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


@app.command()
def main(
    a: str = typer.Argument(..., help="Player A spec (the one whose Elo is reported)."),
    b: str = typer.Argument(..., help="Player B spec, e.g. openspiel."),
    games: int = typer.Option(100, help="Games (rounded up to an even number: pairs)."),
    ms: float = typer.Option(100.0, help="Time per move, ms (ignored with --bank)."),
    bank: float = typer.Option(None, help="Time bank in ms (its maximum too)."),
    inc: float = typer.Option(0.0, help="Increment per move in ms, with --bank."),
    rules: str = typer.Option(None, help="Rules preset (default: standard; codingame for "
                              "--subprocess --protocol codingame)."),
    jobs: int = typer.Option(1, help="Games played at once (processes)."),
    seed: int = typer.Option(1, help="Seed for the openings."),
    subprocess: bool = typer.Option(False, "--subprocess", help=(
        "Both sides as bot processes under the arena's referee, on the platform's clock: "
        "ninefold as `ninefold bot --player SPEC`, openspiel as benchmarks/openspiel_bot.py.")),
    protocol: str = typer.Option("codingame", help="With --subprocess: the bots' protocol."),
    safety_ms: float = typer.Option(None, help="With --subprocess: the OpenSpiel bot's "
                                    "safety, ms (its default: 15)."),
    first_move_ms: int = typer.Option(0, help="With --subprocess: extra time for each bot's "
                                      "first answer (no platform gives it; 0)."),
    save: Annotated[Path | None, typer.Option(help=(
        "Keep each finished game in this file (JSON lines) and, run again with the same "
        "options, play only the games it does not hold yet: a long run can stop and go on."
    ))] = None,
    logs: str = typer.Option(None, help="With --subprocess: keep the bots' stderr in this "
                             "folder, a file per bot and game (DIR/A-X/A_B_PAIR_COLOUR.log): "
                             "a bot's notes, e.g. where a late answer's time went."),
    plot: Annotated[Path | None, typer.Option(help=(
        "With --subprocess: draw each side's bank left and time used by move (a bank), or "
        "its time a turn (PNG)."))] = None,
    odds: float = typer.Option(1.0, help=(
        "Time odds: A's clock is this many times B's (its time a move, or its bank, "
        "increment and maximum): what more time is worth.")),
    b_turn_ms: int = typer.Option(None, help=(
        "With --subprocess --protocol codingame: B's turn in ms, which its bot is told "
        "(benchmarks/told_turn.py). With sims= in B's spec, a reference that does the same "
        "work a turn whatever the machine's stalls.")),
    settle_ms: int = typer.Option(0, min=0, max=60_000, help=(
        "With --subprocess: start both bots this long before each game's first request "
        "(no platform's clock), so that a bot that loads its search first (ninefold's: "
        "0.4-2 s, by machine) plays from its first turn: the engines' strength, not the "
        "machine's start-up.")),
) -> None:
    protocol = protocol.strip().lower()
    if subprocess and protocol not in PROTOCOLS:
        raise typer.BadParameter(f"choose one of {', '.join(PROTOCOLS)}", param_hint="--protocol")
    if subprocess and protocol == "codingame" and bank:
        raise typer.BadParameter("the codingame protocol has a time per turn (--ms), no bank",
                                 param_hint="--bank")
    if subprocess and "openspiel" in (a, b) and protocol != "codingame":
        raise typer.BadParameter("the OpenSpiel bot speaks codingame only",
                                 param_hint="--protocol")
    rules = rules or ("codingame" if subprocess and protocol == "codingame" else "standard")
    if subprocess and protocol != "codingame" and not bank:
        bank, inc = float(TimeControl().bank_ms), float(TimeControl().increment_ms)
    if not 0.01 <= odds <= 100:
        raise typer.BadParameter("give a factor from 0.01 to 100", param_hint="--odds")
    if b_turn_ms is not None and not (subprocess and protocol == "codingame"):
        raise typer.BadParameter("B's turn is told to a codingame bot: add --subprocess "
                                 "--protocol codingame", param_hint="--b-turn-ms")
    if b_turn_ms is not None and b == "openspiel":
        raise typer.BadParameter("B's turn is told to a ninefold bot; the OpenSpiel bot "
                                 "thinks --ms", param_hint="--b-turn-ms")
    if b_turn_ms is not None and not (1 <= b_turn_ms <= 60_000 and odds == 1.0):
        raise typer.BadParameter("give 1 to 60000 ms, without --odds", param_hint="--b-turn-ms")
    if plot and not subprocess:
        raise typer.BadParameter("the plot draws the bots' requests: add --subprocess")
    if settle_ms and not subprocess:
        raise typer.BadParameter("the bots settle as processes: add --subprocess",
                                 param_hint="--settle-ms")
    if plot and not plot.resolve().parent.is_dir():  # said before the games, not after
        raise typer.BadParameter(f"no folder {plot.resolve().parent}", param_hint="--plot")
    if not subprocess and any(split_revision(s)[1] for s in (a, b)):
        raise typer.BadParameter("SPEC@REV plays as a bot process: add --subprocess")
    cfg = Config(a, b, rules, None if bank else ms, bank, inc,
                 protocol=protocol if subprocess else None, safety_ms=safety_ms,
                 first_move_ms=first_move_ms, logs=logs, odds=odds, b_turn_ms=b_turn_ms,
                 settle_ms=settle_ms)
    if subprocess:
        warm_sides(cfg)
    saved = SavedGames(save, cfg, seed) if save else None
    try:
        if not subprocess:
            results = run_match(cfg, games, jobs, seed, saved)
            console.print(summarize(results, cfg), highlight=False, soft_wrap=True)
            return
        with StallProbe() as stalls:  # why a bot may be late: the machine, not the bot
            results = run_match(cfg, games, jobs, seed, saved)
    except (ValueError, OSError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--save") from None
    console.print(summarize(results, cfg), highlight=False, soft_wrap=True)
    console.print(stalls.summary(), highlight=False, soft_wrap=True)
    for line in stall_blame(results, stalls):
        console.print(line, highlight=False, soft_wrap=True)
    if plot:
        plot_requests(results, cfg, plot)
        console.print(f"plot: {plot}")


def warm_sides(cfg: Config) -> None:
    """Fill each ninefold side's numba cache before any game (`botgames.warm_cache`: a
    first start compiles for about 20 s), exporting a ``SPEC@REV`` side's source first,
    so that no game is played while a bot compiles."""
    assert cfg.protocol is not None
    sides = {split_revision(spec)[1]: (side, spec) for side, spec
             in (("B", cfg.spec_b), ("A", cfg.spec_a))
             if spec != "openspiel"}  # a tree is warmed once, whatever its players
    for rev, (side, spec) in sides.items():
        try:
            src = revision_src(rev) if rev else None
            console.print(f"{spec}: warming up ninefold{f' at {rev}' if rev else ''}"
                          " (a first run compiles)")
            if not warm_cache(src, WARM_WAIT_MS / 1000):
                first_answer(cfg.command(side), cfg.protocol, cfg.rules,
                             cfg.time_control(side).with_allowances(WARM_WAIT_MS, 0))
        except (ValueError, BotFault) as exc:
            raise typer.BadParameter(str(getattr(exc, "reason", exc)), param_hint=spec) from None


class SavedGames:
    """The finished games of a run in a file (JSON lines), so that a long run can stop
    and go on later: the first line says what match it is (the options and a digest of
    ninefold's source, unless both sides are pinned at a git revision), each later line
    one finished game. A run given a file that holds another match, or the same one
    played by other source, is refused, as is one with a line that is not a game; a
    last line cut off mid-write (the run was killed) is dropped and that game played
    again. Nothing else is ever removed."""

    def __init__(self, path: Path, cfg: Config, seed: int) -> None:
        self.path = path
        # sides at a git revision (SPEC@REV) are pinned; a side run from this tree is not
        pinned = all(split_revision(spec)[1] for spec in (cfg.spec_a, cfg.spec_b))
        # (no time odds, no settling: no key, as in the files saved before there were any)
        match = {k: v for k, v in asdict(cfg).items()
                 if k != "logs" and not (k == "odds" and v == 1.0)
                 and not (k == "settle_ms" and v == 0)}
        self.head = {"match": match,
                     "seed": seed, "source": "pinned" if pinned else source_digest()}

    def load(self) -> dict[int, GameResult]:
        """The games already played, by their number in the run (ValueError: another
        match, or not such a file)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            self.path.write_text(json.dumps(self.head) + "\n")
            return {}
        text = self.path.read_text()
        try:
            head = json.loads(text.split("\n", 1)[0])
        except json.JSONDecodeError:
            head = None
        if not isinstance(head, dict) or "\n" not in text:
            raise ValueError(f"{self.path}: not a file of saved games")
        if head != self.head:
            changed = sorted(k for k in ("match", "seed", "source") if head.get(k) != self.head[k])
            raise ValueError(f"{self.path} holds games of another run ({', '.join(changed)} "
                             "differ): give another file")
        if not text.endswith("\n"):  # a last line cut off by a kill: played again
            text = text[:text.rindex("\n") + 1]
            with self.path.open("r+") as f:
                f.truncate(len(text.encode()))
        done: dict[int, GameResult] = {}
        for n, line in enumerate(text.split("\n")[1:-1], start=2):
            try:
                row = json.loads(line)
                game = int(row.pop("game"))
                done[game] = _game_result(row)
            except (json.JSONDecodeError, TypeError, ValueError, KeyError, AttributeError):
                raise ValueError(f"{self.path}, line {n}: not a saved game") from None
        return done

    def add(self, game: int, result: GameResult) -> None:
        with self.path.open("a") as f:
            f.write(json.dumps({"game": game, **asdict(result)}) + "\n")
            f.flush()
            os.fsync(f.fileno())


def _game_result(row: dict) -> GameResult:
    requests = {side: [Request(**q) for q in qs] for side, qs in row.pop("requests").items()}
    return GameResult(**row, requests=requests)


def source_digest() -> str:
    """A digest of ninefold's source as it is in this tree (committed or not), the
    shipped network's weights and opening book included."""
    src = Path(__file__).resolve().parent.parent / "src" / "ninefold"
    digest = hashlib.sha256()
    for path in sorted(src.rglob("*")):
        if path.suffix in (".py", ".txt", ".npz") and "__pycache__" not in path.parts:
            digest.update(path.relative_to(src).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def run_match(cfg: Config, games: int, jobs: int, seed: int,
              saved: SavedGames | None = None) -> list[GameResult]:
    """Play `games` paired games (rounded up to pairs) and return their results; with
    `saved`, the games it holds are not played again and each new one is added."""
    a, b = cfg.spec_a, cfg.spec_b
    rng = random.Random(seed)
    pairs = (games + 1) // 2
    tasks = []
    for _ in range(pairs):
        # a CodinGame bot only learns the last move: it cannot start from an opening
        opening = None if cfg.protocol == "codingame" else random_opening(rng)
        tasks += [(cfg, opening, True, len(tasks) // 2), (cfg, opening, False, len(tasks) // 2)]
    results: list[GameResult | None] = [None] * len(tasks)
    done = saved.load() if saved else {}
    for i, r in done.items():
        if i < len(results):
            results[i] = r
    todo = [i for i in range(len(tasks)) if results[i] is None]
    if len(todo) < len(tasks):
        console.print(f"{len(tasks) - len(todo)} games already played (saved), "
                      f"{len(todo)} to play")

    def finished(i: int, r: GameResult) -> None:
        results[i] = r
        if saved:
            saved.add(i, r)
        progress.advance(bar)
        progress.update(bar, description=_running(results, a, b))

    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=console,
    ) as progress:
        bar = progress.add_task(f"{a} vs {b}", total=len(tasks),
                                completed=len(tasks) - len(todo))
        if jobs <= 1:
            for i in todo:
                finished(i, _job(tasks[i]))
        else:
            # a worker dies with this process, even by SIGKILL, and its game's bots with it
            with mp.get_context("spawn").Pool(jobs, initializer=end_with_parent,
                                              initargs=(os.getpid(),)) as pool:
                for i, r in zip(todo, pool.imap(_job, [tasks[i] for i in todo]), strict=True):
                    finished(i, r)
    return [r for r in results if r is not None]


def _running(results: list[GameResult | None], a: str, b: str) -> str:
    done = [r.score_a for r in results if r is not None]
    text = f"{a} vs {b}: {100 * sum(done) / len(done):.0f}%"
    if not console.is_terminal and len(done) % 20 == 0:
        print(f"{len(done)} games, {text}", flush=True)  # progress in a log file
    return text


if __name__ == "__main__":
    app()
