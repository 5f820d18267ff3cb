"""How far past a per-move time limit players go, on a quiet or a loaded machine.

    .venv/bin/python benchmarks/overrun.py --ms 100 --moves 1000 --load 3
    .venv/bin/python benchmarks/overrun.py mcts mcts:margin=4 mcts:threads=2 --load 3

Each player plays games against itself from random four-move openings (so
tree reuse and compaction happen as in real games), every move with the
same per-move limit; the players take turns move by move, so they see the
same load. ``--load N`` starts N processes that spin on the CPU for the whole
run: with more runnable processes than cores the OS takes the CPU away from
the player for a few ms at a time, which is what makes searches late on a
shared machine. Prints, per player, the time spent past the limit (median,
95th and 99th percentile, worst; measured around `Player.play`, as a
referee would) and how many moves were more than 10 ms late.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from ninefold.players import Limit, make_player
from ninefold.rules import Board, random_opening

app = typer.Typer(add_completion=False)
console = Console()

SPIN = "while True: pass"


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


@app.command()
def main(
    specs: Annotated[
        list[str] | None, typer.Argument(help="Players (default: mcts and mcts:margin=4).")
    ] = None,
    ms: float = typer.Option(100.0, help="Time limit per move, ms."),
    moves: int = typer.Option(600, help="Timed moves per player."),
    load: int = typer.Option(0, help="CPU-spinning processes to run alongside."),
    seed: int = typer.Option(1, help="Seed for the openings."),
) -> None:
    specs = specs or ["mcts", "mcts:margin=4"]
    players = [make_player(s) for s in specs]
    boards = [Board() for _ in specs]
    rng = random.Random(seed)
    over: dict[str, list[float]] = {s: [] for s in specs}
    off_cpu: dict[str, list[float]] = {s: [] for s in specs}
    hogs = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(load)]
    try:
        time.sleep(0.5 if load else 0)
        with Progress(console=console) as progress:
            bar = progress.add_task(f"{ms:g} ms a move, load {load}", total=moves * len(specs))
            for _ in range(moves):
                for i, spec in enumerate(specs):
                    if boards[i].is_game_over() or boards[i].ply == 0:
                        boards[i] = Board(opening=random_opening(rng))
                        players[i].new_game()
                    t0, c0 = time.perf_counter(), time.process_time()
                    result = players[i].play(boards[i], Limit(move_ms=ms))
                    spent = 1000 * (time.perf_counter() - t0)
                    cpu = 1000 * (time.process_time() - c0)
                    over[spec].append(spent - ms)
                    off_cpu[spec].append(spent - cpu)
                    boards[i].push(result.move)
                    progress.advance(bar)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    table = Table(title=f"time past a {ms:g} ms limit, {moves} moves each, "
                  f"{load} spinning processes on {os.cpu_count()} cores")
    for col in ("player", "median", "95th pct", "99th pct", "worst", "> 10 ms late",
                "median off-CPU"):
        table.add_column(col, justify="right")
    for spec in specs:
        xs = over[spec]
        late = sum(x > 10 for x in xs)
        table.add_row(
            spec, f"{_percentile(xs, 0.5):+.1f} ms", f"{_percentile(xs, 0.95):+.1f} ms",
            f"{_percentile(xs, 0.99):+.1f} ms", f"{max(xs):+.1f} ms",
            f"{late} ({100 * late / len(xs):.1f}%)",
            f"{_percentile(off_cpu[spec], 0.5):.1f} ms",
        )
    console.print(table)


if __name__ == "__main__":
    app()
