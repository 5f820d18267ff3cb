"""MCTS simulations per second from the start position, ninefold vs OpenSpiel.

Both searches run in the same process, alternately, for the same number of
rounds, so that load from other processes hits both alike. OpenSpiel's
C++ `pyspiel.MCTSBot` uses its `RandomRolloutEvaluator` (one random rollout a
leaf), as in its own examples. The single-thread rows compare engines on
one core; the two-thread rows (``--threads 2``, the default) show how each
parallel scheme scales on two.

    .venv/bin/python benchmarks/mcts_speed.py --seconds 2 --rounds 3
"""

from __future__ import annotations

import time

import typer
from rich.console import Console
from rich.table import Table

from ninefold import Board
from ninefold.players import MCTSPlayer, warm_up

app = typer.Typer(add_completion=False)
console = Console()


def ninefold_rate(seconds: float, policy: str, solver: bool, seed: int, threads: int = 1,
                  parallel: str = "tree") -> float:
    """Simulations a second of one fresh search of `seconds` from the empty board."""
    player = MCTSPlayer(ms=seconds * 1000, policy=policy, solver=solver, reuse=False, seed=seed,
                        threads=threads, parallel=parallel)
    t0 = time.perf_counter()
    result = player.play(Board(), None)
    return result.info["sims"] / (time.perf_counter() - t0)


def openspiel_rate(seconds: float, seed: int) -> float:
    """Simulations a second of OpenSpiel's C++ MCTSBot from the empty board."""
    import pyspiel

    game = pyspiel.load_game("ultimate_tic_tac_toe")
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    sims = 1000
    # grow the simulation count until one search lasts about `seconds`
    while True:
        bot = pyspiel.MCTSBot(game, evaluator, 2.0, sims, 4000, False, seed, False)
        state = game.new_initial_state()
        t0 = time.perf_counter()
        bot.step(state)
        dt = time.perf_counter() - t0
        if dt >= seconds * 0.8 or sims >= 50_000_000:
            return sims / dt
        sims = int(sims * min(10.0, max(1.5, seconds / max(dt, 1e-3))))


@app.command()
def main(
    seconds: float = typer.Option(2.0, help="Length of one search."),
    rounds: int = typer.Option(3, help="Alternating rounds of each engine."),
    threads: int = typer.Option(2, help="Threads for the parallel rows (1: none)."),
) -> None:
    warm_up()
    rows: dict[str, list[float]] = {
        "ninefold mcts (win-taking playouts, solver)": [],
        "ninefold mcts (uniform playouts, no solver)": [],
        "OpenSpiel MCTSBot (C++, random rollout)": [],
    }
    if threads > 1:
        rows[f"ninefold mcts:threads={threads} (one shared tree)"] = []
        rows[f"ninefold mcts:threads={threads},parallel=root (a tree each)"] = []
    names = list(rows)
    for r in range(rounds):
        rows[names[0]].append(ninefold_rate(seconds, "win", True, r))
        rows[names[1]].append(ninefold_rate(seconds, "random", False, r))
        rows[names[2]].append(openspiel_rate(seconds, r))
        if threads > 1:
            rows[names[3]].append(ninefold_rate(seconds, "win", True, r, threads, "tree"))
            rows[names[4]].append(ninefold_rate(seconds, "win", True, r, threads, "root"))
        console.print(f"round {r + 1}: " + ", ".join(f"{v[-1]:,.0f}" for v in rows.values()))
    ref = sorted(rows[names[2]])[len(rows[names[2]]) // 2]
    title = f"MCTS simulations/s from the empty board, {seconds:g} s searches"
    table = Table(title=title)
    table.add_column("engine")
    table.add_column("median sims/s", justify="right")
    table.add_column("min..max", justify="right")
    table.add_column("vs OpenSpiel", justify="right")
    for name, values in rows.items():
        med = sorted(values)[len(values) // 2]
        spread = f"{min(values):,.0f}..{max(values):,.0f}"
        table.add_row(name, f"{med:,.0f}", spread, f"{med / ref:.2f}x")
    console.print(table)


if __name__ == "__main__":
    app()
