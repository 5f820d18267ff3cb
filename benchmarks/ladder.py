"""The level ladder: each `level:N+1` against `level:N` in paired games; Elo per step.

    .venv/bin/python benchmarks/ladder.py --games 100 --top-games 40 --jobs 2

Levels 1-9 count simulations or plies, not time, so the clock (``--ms``, a
per-move limit) only matters for level 10, which thinks for as long as it is
allowed. Prints one row per step and the cumulative Elo above level 1: the
table in docs/research/strength.md comes from here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).parent))

from strength import Config, elo, run_match, summarize

from ninefold.players import LADDER

app = typer.Typer(add_completion=False)
console = Console()


@app.command()
def main(
    games: int = typer.Option(100, help="Games per step (pairs of games)."),
    top_games: int = typer.Option(40, help="Games for the slow steps (level 9 and up)."),
    ms: float = typer.Option(1000.0, help="Time per move; only level 10 uses it all."),
    jobs: int = typer.Option(2, help="Games at once."),
    first: int = typer.Option(1, help="Lowest level of the first step."),
    last: int = typer.Option(9, help="Lowest level of the last step."),
    seed: int = typer.Option(7, help="Seed for the openings."),
) -> None:
    table = Table(title=f"level N+1 vs level N, paired games, {ms:g} ms a move at most")
    for col in ("step", "specs", "games", "W-D-L", "score", "Elo (95% CI)"):
        table.add_column(col)
    for low in range(first, last + 1):
        high = low + 1
        cfg = Config(f"level:{high}", f"level:{low}", "standard", ms, None, 0.0)
        n = games if high < 9 else top_games
        results = run_match(cfg, n, jobs, seed + low)
        console.print(summarize(results, cfg), highlight=False, soft_wrap=True)
        w = sum(r.score_a == 1 for r in results)
        d = sum(r.score_a == 0.5 for r in results)
        score = sum(r.score_a for r in results) / len(results)
        lines = summarize(results, cfg).splitlines()
        ci = lines[2].split("95% CI ")[1]
        table.add_row(
            f"{high} vs {low}", f"{LADDER[high]} vs {LADDER[low]}", str(len(results)),
            f"{w}-{d}-{len(results) - w - d}", f"{100 * score:.1f}%", f"{elo(score):+.0f} {ci}",
        )
    console.print(table)


if __name__ == "__main__":
    app()
