"""MCTS simulations per second from the start position, ninefold vs OpenSpiel.

Both searches run in the same process, alternately, for the same number of
rounds, so that load from other processes hits both alike. OpenSpiel's
C++ `pyspiel.MCTSBot` uses its `RandomRolloutEvaluator` (one random rollout a
leaf), as in its own examples. The single-thread rows compare engines on
one core; the two-thread rows (``--threads 2``, the default) show how each
parallel scheme scales on two. The network rows: the search with the shipped
policy-value network (a network evaluation instead of a playout at each
leaf), and, beside the kernel's random playouts a second, the network's
evaluations a second in one thread (positions from random games, the
evaluation called from numba).

    .venv/bin/python benchmarks/mcts_speed.py --seconds 2 --rounds 3
"""

from __future__ import annotations

import time

import numpy as np
import typer
from numba import njit
from rich.console import Console
from rich.table import Table

from ninefold import Board, kernel
from ninefold.players import MCTSPlayer, compile_searches
from ninefold.players.net import Net, Scratch, evaluate, load_net

app = typer.Typer(add_completion=False)
console = Console()


def ninefold_rate(seconds: float, policy: str, solver: bool, seed: int, threads: int = 1,
                  parallel: str = "tree", net: str = "off") -> float:
    """Simulations a second of one fresh search of `seconds` from the empty board."""
    player = MCTSPlayer(ms=seconds * 1000, policy=policy, solver=solver, reuse=False, seed=seed,
                        threads=threads, parallel=parallel, net=net)
    t0 = time.perf_counter()
    result = player.play(Board(), None)
    return result.info["sims"] / (time.perf_counter() - t0)


@njit(cache=True)
def _evaluate_all(net: Net, states: np.ndarray, flags: int, scratch: Scratch,
                  logits: np.ndarray) -> float:
    total = 0.0
    for i in range(states.shape[0]):
        total += evaluate(net, states[i], flags, scratch, logits)
    return total


def positions(n: int, seed: int) -> np.ndarray:
    """Kernel states of `n` positions from random games (every ply of each game)."""
    rng = kernel.make_rng(seed)
    out = []
    while len(out) < n:
        s = kernel.new_state()
        while s[kernel.RESULT] < 0 and len(out) < n:
            out.append(s.copy())
            b, c, x = kernel.random_move(s, rng[0])
            rng[0] = x
            kernel.play(s, b, c, 0)
    return np.array(out)


def evaluation_rate(seconds: float, seed: int) -> float:
    """Network evaluations a second in one thread."""
    net = load_net("default")
    states = positions(20_000, seed)
    scratch, logits = Scratch.make(net), np.empty(81, np.float32)
    _evaluate_all(net, states[:10], 0, scratch, logits)
    done = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        _evaluate_all(net, states, 0, scratch, logits)
        done += len(states)
    return done / (time.perf_counter() - t0)


def playout_rate(seconds: float, seed: int) -> float:
    """The kernel's random playouts a second from the empty board, one thread."""
    return kernel.bench(seconds, seed=seed + 1)["playouts_per_s"]


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
    compile_searches()
    rows: dict[str, list[float]] = {
        "ninefold mcts (win-taking playouts, solver)": [],
        "ninefold mcts (uniform playouts, no solver)": [],
        "OpenSpiel MCTSBot (C++, random rollout)": [],
    }
    if threads > 1:
        rows[f"ninefold mcts:threads={threads} (one shared tree)"] = []
        rows[f"ninefold mcts:threads={threads},parallel=root (a tree each)"] = []
    network = {
        "ninefold mcts:net=default (PUCT, a network evaluation a leaf)": [],
        "network evaluations/s, one thread": [],
        "random playouts/s, one thread (the kernel)": [],
    }
    names = list(rows)
    for r in range(rounds):
        rows[names[0]].append(ninefold_rate(seconds, "win", True, r))
        rows[names[1]].append(ninefold_rate(seconds, "random", False, r))
        rows[names[2]].append(openspiel_rate(seconds, r))
        if threads > 1:
            rows[names[3]].append(ninefold_rate(seconds, "win", True, r, threads, "tree"))
            rows[names[4]].append(ninefold_rate(seconds, "win", True, r, threads, "root"))
        sims, evals, playouts = network.values()
        sims.append(ninefold_rate(seconds, "win", True, r, net="default"))
        evals.append(evaluation_rate(seconds, r))
        playouts.append(playout_rate(seconds, r))
        console.print(f"round {r + 1}: " + ", ".join(
            f"{v[-1]:,.0f}" for v in [*rows.values(), *network.values()]))
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
    table = Table(title=f"With the network, {seconds:g} s runs")
    table.add_column("what")
    table.add_column("median per second", justify="right")
    table.add_column("min..max", justify="right")
    table.add_column("vs pure mcts sims/s", justify="right")
    pure = sorted(rows[names[0]])[len(rows[names[0]]) // 2]
    for name, values in network.items():
        med = sorted(values)[len(values) // 2]
        table.add_row(name, f"{med:,.0f}", f"{min(values):,.0f}..{max(values):,.0f}",
                      f"{med / pure:.2f}x")
    console.print(table)


if __name__ == "__main__":
    app()
