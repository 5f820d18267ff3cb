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

import math
import multiprocessing as mp
import random
import statistics
import time
from dataclasses import dataclass, field

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ninefold.players import Limit, Player, PlayResult, make_player, register
from ninefold.rules import Board, Mark, Move, random_opening

app = typer.Typer(add_completion=False)
console = Console()


# --- OpenSpiel's MCTS as a ninefold player (benchmark only) ---------------------------


@register("openspiel")
class OpenSpielMCTS(Player):
    """OpenSpiel's C++ MCTSBot with one random rollout per leaf (no tree reuse)."""

    def __init__(self, ms: float | None = None, sims: int | None = None, c: float = 2.0,
                 solve: bool = False, seed: int | None = None) -> None:
        import pyspiel

        self.pyspiel = pyspiel
        self.game = pyspiel.load_game("ultimate_tic_tac_toe")
        self.ms, self.sims, self.c, self.solve = ms, sims, c, solve
        self.seed = seed if seed is not None else random.randrange(1 << 30)

    def _bot(self, limit: Limit):
        ms = limit.move_ms or self.ms
        if self.ms is not None and limit.move_ms is not None:
            ms = min(self.ms, limit.move_ms)
        sims = self.sims or 10**9
        seconds = ms / 1000 if ms else -1.0
        if sims == 10**9 and not ms:
            sims = 1000
        self.seed += 1
        evaluator = self.pyspiel.RandomRolloutEvaluator(1, self.seed)
        return self.pyspiel.MCTSBot(
            self.game, evaluator, self.c, sims, 2000, self.solve, self.seed, False,
            self.pyspiel.ChildSelectionPolicy.UCT, seconds,
        )

    def _state(self, board: Board):
        state = self.game.new_initial_state()
        replay = Board(board.rules)
        for move in board.move_stack:
            if replay.target is None:
                state.apply_action(move.board)
            state.apply_action(move.cell)
            replay.push(move)
        return state

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        if board.rules.name != "standard":
            raise ValueError("OpenSpiel plays the standard rules only")
        state = self._state(board)
        if board.target is None:
            b = self._bot(limit).step(state)
            state.apply_action(b)
        else:
            b = board.target
        c = self._bot(limit).step(state)
        return PlayResult(Move(b, c))


# --- games ------------------------------------------------------------------------------


@dataclass
class GameResult:
    score_a: float  # 1 win, 0.5 draw, 0 loss for player A
    a_is_x: bool
    plies: int
    overruns: dict[str, list[float]] = field(default_factory=dict)  # side -> ms past budget
    off_cpu: dict[str, list[float]] = field(default_factory=dict)  # side -> wall ms - CPU ms
    forfeit: str | None = None


@dataclass
class Config:
    spec_a: str
    spec_b: str
    rules: str
    ms: float | None
    bank: float | None
    inc: float


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
    banks = {Mark.X: cfg.bank, Mark.O: cfg.bank}
    overruns: dict[str, list[float]] = {"A": [], "B": []}
    off_cpu: dict[str, list[float]] = {"A": [], "B": []}
    while not board.is_game_over():
        mark = board.turn
        player = by_mark[mark]
        if cfg.bank is not None:
            banks[mark] = min(cfg.bank, banks[mark] + cfg.inc) if board.ply >= 6 else cfg.bank
            limit = Limit(bank_ms=banks[mark], increment_ms=cfg.inc, max_bank_ms=cfg.bank)
        else:
            limit = Limit(move_ms=cfg.ms)
        t0, c0 = time.perf_counter(), time.process_time()
        result = player.play(board, limit)
        spent = 1000 * (time.perf_counter() - t0)
        off_cpu[name[id(player)]].append(spent - 1000 * (time.process_time() - c0))
        budget = cfg.ms if cfg.bank is None else banks[mark]
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
    return GameResult(outcome.score(a_mark), a_is_x, board.ply, overruns, off_cpu)


def _job(args: tuple[Config, str, bool]) -> GameResult:
    return play_game(*args)


def elo(score: float) -> float:
    score = min(max(score, 1e-4), 1 - 1e-4)
    return -400 * math.log10(1 / score - 1)


def summarize(results: list[GameResult], cfg: Config) -> str:
    n = len(results)
    wins = sum(r.score_a == 1 for r in results)
    draws = sum(r.score_a == 0.5 for r in results)
    losses = n - wins - draws
    score = sum(r.score_a for r in results) / n
    # paired standard error: the two games of an opening are one observation
    pairs: dict[int, list[float]] = {}
    for i, r in enumerate(results):
        pairs.setdefault(i // 2, []).append(r.score_a)
    per_pair = [sum(v) / len(v) for v in pairs.values()]
    se = statistics.stdev(per_pair) / math.sqrt(len(per_pair)) if len(per_pair) > 1 else 0.5
    lo, hi = score - 1.96 * se, score + 1.96 * se
    lines = [
        f"{cfg.spec_a} vs {cfg.spec_b}  ({cfg.rules}, "
        + (f"{cfg.ms:g} ms/move" if cfg.bank is None else f"bank {cfg.bank:g} ms + {cfg.inc:g} ms")
        + f", {n} games, {len(per_pair)} paired openings)",
        f"A: +{wins} ={draws} -{losses}   score {100 * score:.1f}% "
        f"[{100 * max(lo, 0):.1f}%, {100 * min(hi, 1):.1f}%]",
        f"Elo A-B: {elo(score):+.0f}  95% CI [{elo(lo):+.0f}, {elo(hi):+.0f}]",
        f"A as X scored {100 * _mean([r.score_a for r in results if r.a_is_x]):.1f}%, "
        f"as O {100 * _mean([r.score_a for r in results if not r.a_is_x]):.1f}%; "
        f"mean game length {_mean([r.plies for r in results]):.1f} plies",
    ]
    forfeits = [r.forfeit for r in results if r.forfeit]
    if forfeits or cfg.bank is not None:
        lines.append(f"lost on time: A {forfeits.count('A')}, B {forfeits.count('B')}")
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
    rules: str = typer.Option("standard", help="Rules preset."),
    jobs: int = typer.Option(1, help="Games played at once (processes)."),
    seed: int = typer.Option(1, help="Seed for the openings."),
) -> None:
    cfg = Config(a, b, rules, None if bank else ms, bank, inc)
    results = run_match(cfg, games, jobs, seed)
    console.print(summarize(results, cfg), highlight=False, soft_wrap=True)


def run_match(cfg: Config, games: int, jobs: int, seed: int) -> list[GameResult]:
    """Play `games` paired games (rounded up to pairs) and return their results."""
    a, b = cfg.spec_a, cfg.spec_b
    rng = random.Random(seed)
    pairs = (games + 1) // 2
    tasks = []
    for _ in range(pairs):
        opening = random_opening(rng)
        tasks += [(cfg, opening, True), (cfg, opening, False)]
    results: list[GameResult | None] = [None] * len(tasks)
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=console,
    ) as progress:
        bar = progress.add_task(f"{a} vs {b}", total=len(tasks))
        if jobs <= 1:
            for i, t in enumerate(tasks):
                results[i] = _job(t)
                progress.advance(bar)
                progress.update(bar, description=_running(results, a, b))
        else:
            with mp.get_context("spawn").Pool(jobs) as pool:
                for i, r in enumerate(pool.imap(_job, tasks)):
                    results[i] = r
                    progress.advance(bar)
                    progress.update(bar, description=_running(results, a, b))
    return [r for r in results if r is not None]


def _running(results: list[GameResult | None], a: str, b: str) -> str:
    done = [r.score_a for r in results if r is not None]
    text = f"{a} vs {b}: {100 * sum(done) / len(done):.0f}%"
    if not console.is_terminal and len(done) % 20 == 0:
        print(f"{len(done)} games, {text}", flush=True)  # progress in a log file
    return text


if __name__ == "__main__":
    app()
