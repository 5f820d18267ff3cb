"""What each part of a simulation costs, one core: microseconds a call on random
positions, and each part's ratio to the shipped network's evaluation (the reference,
measured in the same run).

The parts, each in a compiled loop over the same positions (codingame rules, random
games of a given length, the game not over):

- ``playout``: a win-taking random playout to the end (`mcts_tree.playout`, what
  ``mix`` > 0 adds to every leaf);
- ``fast features``: the fast network's features (`fastnet.features`);
- ``fast first layer``: its int16 hidden sums over those features, from the bias;
- ``accumulator update``: the same sums from a parent's, six rows added (what a move
  changes: the mark, its small board's threats, the board sent to), the cost an
  accumulator kept per node would pay instead of the line above;
- ``fast evaluation``, ``fast, no policy``: the whole fast network as the search calls
  it, with and without its policy head's products (256 a legal move);
- ``shipped network``: `net.evaluate_arrays` on the default network as
  ``mcts:net=default`` lays it out (its first layer in int16): the reference.

    .venv/bin/python benchmarks/sim_parts.py [--fast runs/fast/v6.npz] [--plies 12,24,36]

Without ``--fast`` a random fast network of `fastnet.HIDDEN` units stands in (the cost
does not depend on the weights).
"""

from __future__ import annotations

import time

import numpy as np
import typer
from numba import njit
from rich.console import Console
from rich.table import Table

from ninefold import kernel
from ninefold.players import mcts_tree as mt
from ninefold.players import net as netmod
from ninefold.players.fastnet import (
    MAX_ACTIVE,
    evaluate_arrays,
    features,
    for_search,
    load_fast_net,
    random_fast_net,
    sum_rows,
)
from ninefold.rules import Board

app = typer.Typer(add_completion=False)
console = Console()
ACCUMULATOR_ROWS = 6  # rows an accumulator update adds: what a move changes, about


def positions(n: int, plies: int, seed: int) -> tuple[np.ndarray, int]:
    """Kernel states of `n` codingame games after `plies` random moves (not over), and
    the rules' kernel flags."""
    rng = kernel.make_rng(seed)
    flags = Board("codingame").rules.flags
    out = []
    while len(out) < n:
        s = kernel.from_board(Board("codingame"))
        for _ in range(plies):
            if s[kernel.RESULT] >= 0:
                break
            b, c, rng[0] = kernel.random_move(s, rng[0])
            kernel.play(s, b, c, flags)
        if s[kernel.RESULT] < 0:
            out.append(s)
    return np.array(out), flags


@njit(nogil=True)
def _playouts(states: np.ndarray, flags: int, reps: int) -> int:
    x = np.uint64(88172645463325252)
    s = np.empty(states.shape[1], np.int64)
    total = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            s[:] = states[i]
            result, x = mt.playout(s, flags, mt.POLICY_WIN, x)
            total += result
    return total


@njit(nogil=True)
def _features(states: np.ndarray, flags: int, reps: int) -> int:
    idx = np.empty(MAX_ACTIVE, np.int64)
    total = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            total += features(states[i], flags, idx)
    return total


@njit(nogil=True, fastmath=True)
def _first_layer(w1q: np.ndarray, b1q: np.ndarray, rows: np.ndarray, counts: np.ndarray,
                 reps: int) -> int:
    """The hidden sums from the bias, `counts[i]` rows of `rows[i]` a position, as the
    search makes them (`fastnet.sum_rows`)."""
    acc = np.empty(b1q.shape[0], np.int16)
    total = 0
    for _ in range(reps):
        for i in range(rows.shape[0]):
            sum_rows(w1q, b1q, rows[i], counts[i], acc)
            total += acc[0]
    return total


@njit(nogil=True, fastmath=True)
def _accumulator(w1q: np.ndarray, b1q: np.ndarray, rows: np.ndarray, reps: int,
                 added: int) -> int:
    """A child's hidden sums: its parent's copied, `added` rows added."""
    parent = b1q.copy()
    acc = np.empty(b1q.shape[0], np.int16)
    h, total = acc.shape[0], 0
    for _ in range(reps):
        for i in range(rows.shape[0]):
            for j in range(h):
                acc[j] = parent[j]
            for k in range(added):
                r = rows[i, k]
                for j in range(h):
                    acc[j] = acc[j] + w1q[r, j]
            total += acc[0]
    return total


@njit(nogil=True)
def _fast(states: np.ndarray, flags: int, reps: int, w1q: np.ndarray, b1q: np.ndarray,
          w2s: np.ndarray, b2: np.ndarray, top: np.ndarray, wps: np.ndarray,
          bp: np.ndarray) -> float:
    idx = np.empty(MAX_ACTIVE, np.int64)
    acc = np.empty(b1q.shape[0], np.int16)
    hidden = np.empty(b1q.shape[0], np.float32)
    logits = np.zeros(81, np.float32)
    total = 0.0
    for _ in range(reps):
        for i in range(states.shape[0]):
            total += evaluate_arrays(w1q, b1q, w2s, b2, top, wps, bp, states[i], flags, idx,
                                     acc, hidden, logits)
    return total


@njit(nogil=True)
def _shipped(states: np.ndarray, flags: int, reps: int, w1q: np.ndarray, step: np.ndarray,
             w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
             wp_moves: np.ndarray, bp: np.ndarray, wp: np.ndarray, wv: np.ndarray,
             bv: np.ndarray, idx: np.ndarray, h1: np.ndarray, h2: np.ndarray, rows: np.ndarray,
             xs: np.ndarray, sums: np.ndarray) -> float:
    logits = np.zeros(81, np.float32)
    total = 0.0
    for _ in range(reps):
        for i in range(states.shape[0]):
            total += netmod.evaluate_arrays(w1q, step, w1, b1, w2, b2, wp_moves, bp, wp, wv,
                                            bv, states[i], flags, idx, h1, h2, rows, xs, sums,
                                            logits)
    return total


def per_call_us(run, calls: int, rounds: int) -> float:
    """Microseconds a call of `run()` (which makes `calls` calls): the best of `rounds`
    after one to compile and warm up."""
    run()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        run()
        best = min(best, time.process_time() - t0)
    return 1e6 * best / calls


@app.command()
def main(
    fast: str = typer.Option("", help="A fast network's .npz (default: a random one)."),
    plies: str = typer.Option("12,24,36", help="Game lengths of the positions, comma-separated."),
    positions_n: int = typer.Option(500, "--positions", help="Positions of each length."),
    reps: int = typer.Option(20, help="Passes over the positions a round."),
    rounds: int = typer.Option(3, help="Rounds; the best counts."),
) -> None:
    try:
        lengths = [int(p) for p in plies.split(",")]
    except ValueError:
        raise typer.BadParameter(f"--plies must be numbers, not {plies!r}") from None
    if not lengths or min(lengths) < 0 or positions_n < 1 or reps < 1 or rounds < 1:
        raise typer.BadParameter("--plies, --positions, --reps and --rounds must be positive")
    fn = for_search(load_fast_net(fast) if fast else random_fast_net(0))
    no_policy = np.zeros((0, fn.b1q.shape[0]), np.float32)
    sn = netmod.for_search(netmod.load_net("default"), quantised=True)
    scratch = netmod.new_scratch(sn.net)
    net_args = (sn.w1q, sn.step, sn.net.w1, sn.net.b1, sn.net.w2, sn.net.b2, sn.wp_moves,
                sn.net.bp, sn.net.wp, sn.net.wv, sn.net.bv, *scratch)
    table = Table(title=f"microseconds a call, one core ({fast or 'a random fast network'}, "
                        f"{fn.b1q.shape[0]} hidden units; ratio to the shipped network)")
    table.add_column("part")
    for n in lengths:
        table.add_column(f"after {n} plies", justify="right")
    results: dict[str, list[float]] = {}
    for n in lengths:
        states, flags = positions(positions_n, n, seed=n + 1)
        calls = reps * len(states)
        idx = np.empty(MAX_ACTIVE, np.int64)
        counts = np.array([features(s, flags, idx) for s in states])
        rows = np.zeros((len(states), MAX_ACTIVE), np.int64)
        for i, s in enumerate(states):
            features(s, flags, rows[i])
        parts = {
            "playout": lambda: _playouts(states, flags, reps),  # noqa: B023
            "fast features": lambda: _features(states, flags, reps),  # noqa: B023
            "fast first layer": lambda: _first_layer(fn.w1q, fn.b1q, rows,  # noqa: B023
                                                     counts, reps),  # noqa: B023
            "accumulator update": lambda: _accumulator(fn.w1q, fn.b1q, rows,  # noqa: B023
                                                       reps, ACCUMULATOR_ROWS),
            "fast evaluation": lambda: _fast(states, flags, reps, *fn[:7]),  # noqa: B023
            "fast, no policy": lambda: _fast(states, flags, reps, *fn[:5],  # noqa: B023
                                             no_policy, fn.bp),
            "shipped network": lambda: _shipped(states, flags, reps, *net_args),  # noqa: B023
        }
        with console.status(f"timing positions after {n} plies"):
            for name, run in parts.items():
                results.setdefault(name, []).append(per_call_us(run, calls, rounds))
    reference = results["shipped network"]
    for name, values in results.items():
        table.add_row(name, *(f"{v:.3f} ({v / r:.2f}x)"
                              for v, r in zip(values, reference, strict=True)))
    console.print(table)


if __name__ == "__main__":
    app()
