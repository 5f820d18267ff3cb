"""Network-guided simulations a second on one core: this tree against a git revision.

Each side runs in a process of its own with its source on PYTHONPATH (a
revision's source is exported once into ``.bench/revisions/`` by
`botgames.revision_src`, with its own numba cache there), one search thread,
and the two sides alternate round by round, so load from other processes hits
both alike. Every rate is per second of that process's CPU time. A round
measures, for each side:

- ``net, empty board``: `mcts_tree.search` with the shipped network and the
  player's defaults (``mcts:net=default``: c, mix, draw, win-taking playouts,
  solver), a fresh tree from the empty board;
- ``net, mid-game``: the same from each of a fixed set of positions (random
  openings of 8 to 40 plies, the same for both sides), the time shared out;
- ``no network, empty board``: plain ``mcts`` (UCT, a playout a leaf);
- ``network evaluations``: the search's evaluation alone (`net.evaluate_moves`
  here, `net.evaluate` in a revision without it) on positions from random games.

This tree's side runs the network as ``mcts:net=default`` does, its first
layer in int16; ``--no-quant`` in float32 (``mcts:quant=off``); ``--net PATH``
another weights file (a student of ``python -m ninefold.learn.distill``);
``--mix M`` another playout share of a leaf's value (``mcts:mix=M``); a fast
network's file (`ninefold.players.fastnet`) is searched as ``mcts:net=PATH``
searches it (its evaluations row: `fastnet.evaluate`). The revision's side
always runs its own defaults.

    .venv/bin/python benchmarks/net_speed.py --rev e827b65 --seconds 1 --rounds 3 \
        [--no-quant] [--net PATH] [--mix M]
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import typer
from botgames import revision_src
from numba import njit
from rich.console import Console
from rich.table import Table

from ninefold import kernel

HERE = Path(__file__).resolve()
ROWS = ("net, empty board", "net, mid-game", "no network, empty board", "network evaluations")
NODES = 4_000_000  # tree capacity: a second of network search stays well inside it

app = typer.Typer(add_completion=False)
console = Console()


def openings(n: int, seed: int) -> np.ndarray:
    """Kernel states of `n` random openings of 8 to 40 plies (standard rules)."""
    rng = np.random.default_rng(seed)
    x = kernel.make_rng(seed)
    out = []
    while len(out) < n:
        s = kernel.new_state()
        for _ in range(int(rng.integers(8, 41))):
            b, c, x[0] = kernel.random_move(s, x[0])
            kernel.play(s, b, c, 0)
        if s[kernel.RESULT] < 0:
            out.append(s)
    return np.array(out)


def measure(seconds: float, roots: np.ndarray, states: np.ndarray,
            quant: bool, weights: str = "default", mix: float | None = None) -> dict[str, float]:
    """The rates of `ROWS` for the ninefold on this PYTHONPATH (run in the side's process):
    searches from the empty board and from `roots`, evaluations of `states` (those the
    search makes: with `quant`, and a tree that has it, the int16 first layer); `mix`: the
    playout share of a leaf's value (None: the player's default)."""
    from ninefold.players import mcts as m
    from ninefold.players import mcts_tree as mt
    from ninefold.players import net as netmod

    fast: tuple[object, ...] = ()  # a fast network (ninefold.players.fastnet) as `fnet`
    if weights != "default" and fast_network(weights):
        from ninefold.players import fastnet

        fnet = fastnet.for_search(fastnet.load_fast_net(weights))
        fast, net = (fnet,), None
        hidden = fnet.b1q.shape[0]

        @njit(nogil=True)
        def evaluate(_: None, s: np.ndarray, flags: int, scratch: tuple[np.ndarray, ...],
                     logits: np.ndarray) -> float:
            return fastnet.evaluate(fnet, s, flags, scratch[0], scratch[1], logits)

        scratch = (np.empty(fastnet.MAX_ACTIVE, np.int64), np.empty(hidden, np.int16))
    elif hasattr(netmod, "for_search"):  # the network laid out as this tree's search reads it
        net = netmod.for_search(netmod.load_net(weights), quant)
        evaluate, scratch = netmod.evaluate_moves, netmod.Scratch.make(net.net)
    else:  # a revision whose search reads the `Net` itself
        net = netmod.load_net("default")
        evaluate, scratch = netmod.evaluate, netmod.Scratch.make(net)
    mix = m.DEFAULT_MIX if mix is None else mix
    tree = mt.alloc(NODES)
    rng = kernel.make_rng(1)
    # one thread, as the player searches (a tree that has it: no atomics)
    alone = (False,) if "shared" in inspect.signature(mt.search.py_func).parameters else ()

    def sims_rate(roots: np.ndarray, with_net: bool) -> float:
        done, spent = 0, 0.0
        for root in roots:
            mt.reset(tree)
            t0 = time.process_time()
            while time.process_time() - t0 < seconds / len(roots):
                if with_net:
                    c = m.DEFAULT_FAST_C if fast else m.DEFAULT_NET_C
                    done += mt.search(tree, root, 0, 1000, c, mt.POLICY_WIN, True,
                                      rng, net, mix, m.DEFAULT_NET_DRAW, *alone, *fast)
                else:
                    done += mt.search(tree, root, 0, 1000, m.DEFAULT_C, mt.POLICY_WIN, True, rng,
                                      None, 0.0, 0.5, *alone)
            spent += time.process_time() - t0
        return done / spent

    @njit(nogil=True)  # not cached: each side compiles it against its own `evaluate`
    def evaluate_all(states: np.ndarray, scratch: tuple[np.ndarray, ...],
                     logits: np.ndarray) -> float:
        total = 0.0
        for i in range(states.shape[0]):
            total += evaluate(net, states[i], 0, scratch, logits)
        return total

    empty = kernel.new_state()[None, :]
    logits = np.empty(81, np.float32)
    mt.search(tree, empty[0], 0, 10, 1.0, mt.POLICY_WIN, True, rng, net, 0.5, 0.3, *alone,
              *fast)  # compile
    evaluate_all(states[:2], scratch, logits)
    done = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        evaluate_all(states, scratch, logits)
        done += len(states)
    evals = done / (time.process_time() - t0)
    return {ROWS[0]: sims_rate(empty, True), ROWS[1]: sims_rate(roots, True),
            ROWS[2]: sims_rate(empty, False), ROWS[3]: evals}


def fast_network(weights: str) -> bool:
    """True if `weights` is a fast network's file (`ninefold.players.fastnet`)."""
    try:
        from ninefold.players.fastnet import is_fast_net
    except ImportError:  # a revision from before the fast network
        return False
    return is_fast_net(weights)


def run_side(src: Path, seconds: float, positions: Path, quant: bool,
             weights: str = "default", mix: float | None = None) -> dict[str, float]:
    """`measure` in a process of its own with `src` on PYTHONPATH, one thread."""
    env = dict(os.environ, PYTHONPATH=f"{src}{os.pathsep}{HERE.parent}", NUMBA_NUM_THREADS="1")
    done = subprocess.run([sys.executable, str(HERE), "--seconds", str(seconds), "--net", weights,
                           *(["--mix", str(mix)] if mix is not None else []), "--measure",
                           str(positions), "--quant" if quant else "--no-quant"], env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"the run with {src} failed:\n{done.stderr}")
    rates: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return rates


def median(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2]


@app.command()
def main(
    rev: str = typer.Option("e827b65", help="The git revision to compare with."),
    seconds: float = typer.Option(1.0, help="CPU seconds of each row in each round."),
    rounds: int = typer.Option(3, help="Alternating rounds of each side."),
    quant: bool = typer.Option(True, help="This tree's network with its int16 first layer, "
                                          "as mcts:net=default runs it (--no-quant: float32, "
                                          "mcts:quant=off)."),
    weights: str = typer.Option("default", "--net", help="This tree's network: a weights "
                                "file (a smaller one from ninefold.learn.distill); the "
                                "revision's side always runs its default."),
    mix: float | None = typer.Option(
        None, "--mix", min=0.0, max=1.0,
        help="This tree's playout share of a leaf's value (mcts:mix=M); by default the "
             "player's."),
    measure_only: str = typer.Option("", "--measure", hidden=True,
                                     help="(internal) measure this tree on these positions"),
) -> None:
    if measure_only:
        with np.load(measure_only) as data:
            print(json.dumps(measure(seconds, data["roots"], data["states"], quant, weights, mix)))
        return
    from mcts_speed import positions as random_positions  # this tree's players: not in a side

    mine = HERE.parent.parent / "src"
    sides = {"this tree": mine, rev: revision_src(rev)}
    results: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    with tempfile.TemporaryDirectory() as tmp:
        positions = Path(tmp) / "positions.npz"
        np.savez(positions, roots=openings(12, seed=7), states=random_positions(5000, seed=1))
        for src in sides.values():  # fill each side's numba cache before timing
            run_side(src, 0.01, positions, quant, *((weights, mix) if src == mine else ()))
        for r in range(rounds):
            for name, src in (sides.items() if r % 2 == 0 else reversed(sides.items())):
                results[name].append(run_side(src, seconds, positions, quant,
                                              *((weights, mix) if src == mine else ())))
            console.print(f"round {r + 1}: " + "; ".join(
                f"{name}: " + ", ".join(f"{v:,.0f}" for v in results[name][-1].values())
                for name in sides))
    table = Table(title=f"A second of one core, median of {rounds} rounds of {seconds:g} s")
    table.add_column("per second")
    table.add_column("this tree", justify="right")
    table.add_column(rev, justify="right")
    table.add_column("ratio", justify="right")
    for row in ROWS:
        new, old = (median([x[row] for x in results[name]]) for name in sides)
        table.add_row(row if row == ROWS[3] else f"simulations, {row}", f"{new:,.0f}",
                      f"{old:,.0f}", f"{new / old:.2f}x")
    console.print(table)


if __name__ == "__main__":
    app()
