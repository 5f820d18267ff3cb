"""Runs of one match compared: does one run's interval hold the whole uncertainty?

At CodinGame's clock from the empty board the games are narrow, and the way they
branch at a few positions depends on how many simulations each bot gets a turn,
which moves with the machine's state: two runs of one match have differed by
more than one run's interval (docs/research/fast-network.md, "Fifth session").
So play such a match more than once, each run saved to its own file, and compare
the runs::

    for run in 1 2 3; do
      .venv/bin/python benchmarks/strength.py mcts:net=default mcts:net=default@5f11706 \\
          --subprocess --games 134 --jobs 2 --first-move-ms 3000 --settle-ms 3000 \\
          --save runs/m/run$run.jsonl
    done
    .venv/bin/python benchmarks/compare_runs.py runs/m/run*.jsonl

It prints a row a run (A's W-D-L, its score as X and as O, the Elo with the run's
own 95% interval, the distinct games, the losses on time, each side's median
time a turn), how many of a run's games another run played move for move,
Cochran's Q test of whether the runs differ by more than their own intervals
allow, and two pooled estimates: one that takes the runs as one population
(fixed effect: the weighted mean, its interval from the runs' standard errors)
and one that allows a spread between runs (random effects: DerSimonian and
Laird's between-run variance, and Hartung and Knapp's interval on k-1 degrees of
freedom, never narrower than the fixed one). Where the test finds the runs
differ, only the second is an honest interval; with two or three runs it is
wide, as it should be.

The files must hold one match (the same players, rules, clock and protocol);
runs played by different source or seed are compared, and the report says so.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from scipy import stats
from strength import GameResult, _game_result, _mean, elo, paired_score

app = typer.Typer(add_completion=False)
console = Console()


@dataclass
class Run:
    """One file of games saved by `strength.py --save`."""

    path: Path
    match: dict[str, Any]
    seed: int
    source: str
    games: list[GameResult]

    @classmethod
    def read(cls, path: Path) -> Run:
        """The file's games (ValueError, one line, if it is not such a file)."""
        try:
            lines = path.read_text().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: cannot read it ({type(exc).__name__})") from None
        try:
            head = json.loads(lines[0])
            games = [_game_result({k: v for k, v in json.loads(line).items() if k != "game"})
                     for line in lines[1:] if line.strip()]
            run = cls(path, dict(head["match"]), int(head["seed"]), str(head["source"]), games)
        except (IndexError, ValueError, TypeError, KeyError, AttributeError):
            raise ValueError(f"{path}: not a file of games saved by strength.py --save") from None
        if not run.games:
            raise ValueError(f"{path}: no games yet")
        return run

    def score(self, a_is_x: bool | None = None) -> list[float]:
        """A's scores, of one colour's games if `a_is_x` is given."""
        return [g.score_a for g in self.games if a_is_x is None or g.a_is_x == a_is_x]

    def median_turn(self, side: str) -> float:
        """`side`'s median time a turn after its first, ms (nan: not a bot process)."""
        turns = [q.ms for g in self.games for q in g.requests.get(side, []) if q.turn > 0]
        return statistics.median(turns) if turns else math.nan


@dataclass
class Pooled:
    """The runs' scores pooled, on the score scale (0-1)."""

    fixed: float
    fixed_se: float
    q: float  # Cochran's Q
    p: float  # its p-value: the chance of a spread this large were the runs one population
    tau2: float  # the between-run variance (DerSimonian-Laird)
    random: float
    random_half: float  # half the random-effects 95% interval


def pool(means: list[float], ses: list[float]) -> Pooled:
    """Fixed- and random-effects pooling of runs' means with their standard errors.

    >>> p = pool([0.5, 0.5], [0.02, 0.02])
    >>> round(p.fixed, 3), round(p.q, 3), p.tau2
    (0.5, 0.0, 0.0)
    >>> p = pool([0.58, 0.52], [0.012, 0.012])
    >>> p.p < 0.01, p.tau2 > 0, p.random_half > 1.96 * p.fixed_se
    (True, True, True)
    """
    k = len(means)
    w = [1 / max(se * se, 1e-9) for se in ses]
    fixed = sum(wi * m for wi, m in zip(w, means, strict=True)) / sum(w)
    q = sum(wi * (m - fixed) ** 2 for wi, m in zip(w, means, strict=True))
    df = k - 1
    p = float(stats.chi2.sf(q, df)) if df else math.nan
    c = sum(w) - sum(wi * wi for wi in w) / sum(w)
    tau2 = max(0.0, (q - df) / c) if df and c > 0 else 0.0
    wr = [1 / (1 / wi + tau2) for wi in w]
    random = sum(wi * m for wi, m in zip(wr, means, strict=True)) / sum(wr)
    if df:
        hk = sum(wi * (m - random) ** 2 for wi, m in zip(wr, means, strict=True)) / (df * sum(wr))
        half = float(stats.t.ppf(0.975, df)) * math.sqrt(max(hk, 1 / sum(wr)))
    else:
        half = 1.96 * math.sqrt(1 / sum(wr))
    return Pooled(fixed, math.sqrt(1 / sum(w)), q, p, tau2, random, half)


def _elo_span(mean: float, half: float) -> str:
    """A score and its interval, as a percentage and as Elo (an end at 0% or 100% is
    an unbounded Elo).

    >>> _elo_span(0.55, 0.6)
    '55.0% [0.0%, 100.0%], Elo +35 [-inf, +inf]'
    """
    lo, hi = max(mean - half, 0.0), min(mean + half, 1.0)

    def bound(x: float) -> str:
        return "-inf" if x <= 0 else "+inf" if x >= 1 else f"{elo(x):+.0f}"

    return (f"{100 * mean:.1f}% [{100 * lo:.1f}%, {100 * hi:.1f}%], "
            f"Elo {elo(mean):+.0f} [{bound(lo)}, {bound(hi)}]")


def _wdl(scores: list[float]) -> str:
    w, d = sum(x == 1 for x in scores), sum(x == 0.5 for x in scores)
    mean = 100 * sum(scores) / len(scores) if scores else math.nan
    return f"{w}-{d}-{len(scores) - w - d} {mean:.1f}%"


def report(runs: list[Run]) -> list[str]:
    """The comparison, as lines and a table for the console."""
    first = runs[0]
    m = first.match
    out: list[str] = [
        f"{m['spec_a']} vs {m['spec_b']} ({m['rules']}, "
        + (f"bot processes speaking {m['protocol']}, " if m.get("protocol") else "")
        + (f"{m['ms']:g} ms a move" if m.get("ms") else f"bank {m['bank']:g} + {m['inc']:g} ms")
        + f"): {len(runs)} run{'s' * (len(runs) > 1)}, "
        f"{sum(len(r.games) for r in runs)} games"]
    rows = [("run", "games", "A: W-D-L", "A as X", "A as O", "Elo A-B [the run's 95%]",
             "distinct", "lost on time A/B", "turn A/B")]
    seen: dict[tuple[str, ...], set[int]] = {}
    for i, run in enumerate(runs):
        for g in run.games:
            if g.moves:
                seen.setdefault(tuple(g.moves), set()).add(i)
    means, ses = [], []
    for i, run in enumerate(runs):
        mean, se = paired_score(run.games)
        means.append(mean)
        ses.append(se)
        kept = {tuple(g.moves) for g in run.games if g.moves}
        forfeits = [g.forfeit for g in run.games]
        turns = "/".join(f"{run.median_turn(s):.0f}" for s in ("A", "B"))
        rows.append((
            f"{i + 1} {run.path.name}", str(len(run.games)), _wdl(run.score()),
            _wdl(run.score(True)), _wdl(run.score(False)), _elo_span(mean, 1.96 * se),
            str(len(kept)), f"{forfeits.count('A')}/{forfeits.count('B')}",
            "-" if turns == "nan/nan" else f"{turns} ms"))
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    out += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            for row in rows]
    if len(runs) == 1:
        out.append("one run: nothing to compare it with")
        return out
    for i, run in enumerate(runs):
        shared = sum(1 for g in run.games if g.moves and len(seen[tuple(g.moves)]) > 1)
        out.append(f"run {i + 1}: {shared} of its {len(run.games)} games were played move "
                   "for move in another run")
    for what, values in (("seeds", {r.seed for r in runs}), ("sources", {r.source for r in runs})):
        if len(values) > 1:
            out.append(f"the runs' {what} differ: {', '.join(sorted(map(str, values)))}")
    p = pool(means, ses)
    verdict = ("the runs differ by more than their intervals allow"
               if p.p < 0.05 else "the runs agree within their intervals")
    out += [
        f"between runs: Cochran's Q {p.q:.2f} on {len(runs) - 1} degrees of freedom, "
        f"p = {p.p:.3g}: {verdict}",
        f"pooled as one population (fixed effect): {_elo_span(p.fixed, 1.96 * p.fixed_se)}",
        f"pooled allowing a spread between runs (random effects, between-run sd "
        f"{100 * math.sqrt(p.tau2):.1f} points): {_elo_span(p.random, p.random_half)}",
    ]
    for name, x in (("X", True), ("O", False)):
        scores = [100 * _mean(r.score(x)) for r in runs]
        out.append(f"A as {name} by run: " + ", ".join(f"{s:.1f}%" for s in scores)
                   + f" (spread {max(scores) - min(scores):.1f} points)")
    return out


@app.command()
def main(files: list[Path] = typer.Argument(..., help=(  # noqa: B008
        "Files of games saved by strength.py --save, each one run of one match."))) -> None:
    try:
        runs = [Run.read(path) for path in files]
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="FILES") from None
    for run in runs[1:]:
        if run.match != runs[0].match:
            changed = sorted(k for k in run.match.keys() | runs[0].match.keys()
                             if run.match.get(k) != runs[0].match.get(k))
            raise typer.BadParameter(f"{run.path} holds another match than {runs[0].path} "
                                     f"({', '.join(changed)} differ)", param_hint="FILES")
    for item in report(runs):
        console.print(item, highlight=False, markup=False, soft_wrap=True)


if __name__ == "__main__":
    app()
