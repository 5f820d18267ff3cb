"""The network-guided search's cost outside the network: this tree's `mcts_tree.search`
against a git revision's, in one process, alternately.

The revision's ``mcts_tree.py`` (exported by `botgames.revision_src`) is
loaded as a module of its own beside this tree's; both use this tree's
kernel and network. Each round runs, for each side, a fixed number of
simulations (one thread, the player's defaults: ``mcts:net=default``'s c,
draw, win-taking playouts and solver) from the empty board and from twelve
mid-game positions (`net_speed.openings`), with ``mix`` 0 and 0.5, with:

- ``net``: the shipped network, first layer in int16 as ``mcts:net=default``;
- ``tiny``: a network with no hidden units, so an evaluation is little more
  than its features (its cost, measured alone, is printed: subtract it for
  the tree's own cost per simulation).

Times are CPU time (`time.process_time`), the sides alternating root by root;
the table shows medians over the rounds. Both sides start from the same
rng seed, so they must build the same trees: the benchmark checks that every
node's visits, wins and status agree, and says so.

    .venv/bin/python benchmarks/tree_speed.py --rev c407942 --sims 20000 --rounds 5 [--nets tiny]
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import typer
from botgames import revision_src
from net_speed import openings
from numba import njit
from rich.console import Console
from rich.table import Table

import ninefold
from ninefold import jitcache, kernel
from ninefold.players import mcts as m
from ninefold.players import mcts_tree as mt
from ninefold.players import net as netmod

app = typer.Typer(add_completion=False)
console = Console()


def load_revision(rev: str) -> ModuleType:
    """The ``mcts_tree`` module of git revision `rev`, as a module of its own.

    Its search calls this tree's network and kernel, so its numba cache is
    keyed on this tree's numba modules as well as its own file
    (`ninefold.jitcache.cover`): a change to this tree's ``net.py`` recompiles it.
    """
    path = revision_src(rev) / "ninefold" / "players" / "mcts_tree.py"
    name = f"mcts_tree_{rev}"
    jitcache.cover(name, Path(ninefold.__file__).parent)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def one_thread(side: ModuleType) -> tuple[bool, ...]:
    """The arguments that tell `side`'s search it has the tree to itself (none before it
    could be told: it then uses atomics)."""
    return (False,) if "shared" in side.search.py_func.__code__.co_varnames else ()


def run(side: ModuleType, tree: Any, root: np.ndarray, sims: int, net: netmod.SearchNet,
        mix: float) -> tuple[float, tuple[np.ndarray, ...]]:
    """CPU seconds of `sims` simulations from `root` in a fresh tree, and the tree
    (simulations run, then visits, wins, status of the nodes in use)."""
    side.reset(tree)
    rng = kernel.make_rng(1)
    t0 = time.process_time()
    done = side.search(tree, root, 0, sims, m.DEFAULT_NET_C, side.POLICY_WIN, True, rng,
                       net, mix, m.DEFAULT_NET_DRAW, *one_thread(side))
    spent = time.process_time() - t0
    used = min(int(tree.meta[side.USED]), tree.visits.shape[0])
    return spent, (np.array([done]), tree.visits[:used].copy(), tree.wins[:used].copy(),
                   tree.status[:used].copy())


@njit(nogil=True)
def _evaluate_all(sn: netmod.SearchNet, states: np.ndarray, scratch: netmod.Scratch,
                  logits: np.ndarray) -> float:
    # the arrays out of their tuples once, as the search takes them (`net.evaluate_arrays`)
    w1q, step, wp_moves = sn.w1q, sn.step, sn.wp_moves
    w1, b1, w2, b2, wp, bp, wv, bv = sn.net
    idx, h1, h2, rows, xs, sums = scratch
    total = 0.0
    for i in range(states.shape[0]):
        total += netmod.evaluate_arrays(w1q, step, w1, b1, w2, b2, wp_moves, bp, wp, wv, bv,
                                        states[i], 0, idx, h1, h2, rows, xs, sums, logits)
    return total


def evaluation_cost(sn: netmod.SearchNet, states: np.ndarray) -> float:
    """CPU seconds of one evaluation of `sn` as the search makes it, over `states`."""
    scratch, logits = netmod.new_scratch(sn.net), np.zeros(81, np.float32)
    _evaluate_all(sn, states[:2], scratch, logits)
    t0 = time.process_time()
    for _ in range(20):
        _evaluate_all(sn, states, scratch, logits)
    return (time.process_time() - t0) / (20 * len(states))


@app.command()
def main(
    rev: str = typer.Option("c407942", help="The git revision to compare with."),
    sims: int = typer.Option(20000, help="Simulations from each root."),
    rounds: int = typer.Option(5, help="Rounds of every case."),
    only: str = typer.Option("net,tiny", "--nets", help="The networks to time, by comma."),
) -> None:
    sides = {"this tree": mt, rev: load_revision(rev)}
    nets = {"net": netmod.for_search(netmod.load_net("default"), True),
            "tiny": netmod.for_search(netmod.random_net(0, 0, 0))}
    roots = {"empty": kernel.new_state()[None, :], "mid-game": openings(12, seed=7)}
    cases = [(n, r, mix) for n in nets if n in only.split(",") for mix in (0.0, 0.5) for r in roots]
    trees = {name: side.alloc(sims * 20) for name, side in sides.items()}
    for name, side in sides.items():  # compile (or load) before any clock
        for net in nets.values():
            run(side, trees[name], roots["empty"][0], 10, net, 0.5)
    times: dict[tuple[str, str, str, float], list[float]] = {}
    same, order = True, list(sides)
    for r in range(rounds):
        for case in cases:
            net, where, mix = case
            spent = dict.fromkeys(sides, 0.0)
            for root in roots[where]:  # the sides alternate root by root
                order.reverse()
                built = {}
                for name in order:
                    seconds, built[name] = run(sides[name], trees[name], root, sims, nets[net],
                                               mix)
                    spent[name] += seconds
                a, b = built.values()
                same = same and all(np.array_equal(u, v) for u, v in zip(a, b, strict=True))
            for name in sides:
                times.setdefault((name, *case), []).append(spent[name] / (sims * len(roots[where])))
        console.print(f"round {r + 1} done")
    states = openings(2000, seed=3)
    tiny_eval = evaluation_cost(nets["tiny"], states)  # the same for both sides
    table = Table(title=f"µs of CPU a simulation, median of {rounds} rounds, {sims} a root")
    for column in ("network", "roots", "mix", "this tree", rev, "ratio", "sims/s now"):
        table.add_column(column, justify="right")
    for case in cases:
        new, old = (float(np.median(times[(name, *case)])) * 1e6 for name in sides)
        table.add_row(case[0], case[1], f"{case[2]:g}", f"{new:.3f}", f"{old:.3f}",
                      f"{old / new:.2f}x", f"{1e6 / new:,.0f}")
    console.print(table)
    console.print(f"a tiny network's evaluation alone: {tiny_eval * 1e6:.3f} µs "
                  f"(the tree's own cost: the tiny rows less about this)")
    console.print("same trees (visits, wins, status of every node): "
                  + ("yes" if same else "NO"))


if __name__ == "__main__":
    app()
