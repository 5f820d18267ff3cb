"""Where a simulation's time goes: the parts of `mcts_tree.search`, timed by the processor's
cycle counter, for any mcts specs beside the default.

The positions are those of real games: the default plays itself at 30 ms a move from
four random four-move codingame openings (seeded), and the positions at plies 6, 10,
14 and 18 are kept. Each spec's search (as its player runs it: network, fast network,
c, playout share, draw value, solver, ``refine``; one thread) runs ``--sims``
simulations from a fresh tree at each, twice; the second round is timed, each part
of a simulation in cycles (`ninefold.players.cycles`, `mcts_tree.PARTS`), shown in
µs a simulation (the cycle counter's rate measured against the clock). "The rest"
is the loop's own steps between the parts (a simulation's start, the checks at each
node). The mean path length is the simulations' depth in the tree, the nodes they
pass through; the nodes at a second and a fourth visit, a simulation, are how often
a fast network's policy and ``refine=4``'s shipped priors are asked for. A reading
of the counter costs a few ns and does not wait for the instructions before it, so a
part read at each node of the path (the selection, the move played, the fast
policy's check) is overstated a little, and the parts' boundaries blur by tens of
cycles: compare specs, not the absolute sizes of small parts.

    .venv/bin/python benchmarks/sim_profile.py mcts:net=runs/wide/w1024p256.npz \
        mcts:net=runs/wide/w1024p256.npz,refine=4 [--sims 20000]

``--play-ms 100 --games 3`` profiles play instead: each spec plays itself from the
same random four-move codingame openings (``search_speed.py --play-ms``'s), its tree
kept from move to move as in a game, and its searches' parts at plies 4-19 are
summed; "the rest" is then the player's own time between its slices of search too.
"""

from __future__ import annotations

import time
from typing import Annotated

import numpy as np
import typer
from numba import njit
from rich.console import Console
from rich.table import Table
from search_speed import REFERENCE, random_openings, search_rate, searcher, searchers

from ninefold.players import Limit
from ninefold.players import mcts_tree as mt
from ninefold.players.cycles import lap
from ninefold.players.mcts import MCTSPlayer

PLIES = (6, 10, 14, 18)

app = typer.Typer(add_completion=False)
console = Console()


@njit(cache=True)
def _counter(scratch: np.ndarray) -> int:
    return lap(scratch, -1, 0)


def game_positions(games: int = 4, seed: int = 11) -> list[tuple[np.ndarray, int]]:
    """(kernel state, flags) at `PLIES` of `games` games of the default against itself
    at 30 ms a move from random four-move codingame openings."""
    player = searcher(REFERENCE, None)
    out = []
    for board in random_openings(games, seed):
        player.new_game()
        while not board.is_game_over() and board.ply <= max(PLIES):
            result = player.play(board, Limit(move_ms=30))
            if board.ply in PLIES:  # the tree's root is this position now
                out.append((player.trees[0].root_state.copy(), player.trees[0].flags))
            board.push(result.move)
    return out


def profile(player: MCTSPlayer, positions: list[tuple[np.ndarray, int]], sims: int
            ) -> tuple[np.ndarray, int, int, np.ndarray, float]:
    """(cycles by part, total cycles, simulations, `counts`, CPU seconds) of the second of
    two rounds of `player`'s searches from fresh trees at `positions`; `counts`: the
    nodes the simulations passed through, and the nodes visited twice and four times
    (a fast policy's, and ``refine=4``'s shipped priors)."""
    tree, scratch = player.trees[0], np.zeros(1, np.int64)
    parts = np.zeros(len(mt.PARTS), np.int64)
    tree.parts = parts
    for timed in (False, True):
        parts[:] = 0
        total = done = 0
        counts = np.zeros(3, np.int64)
        seconds = 0.0
        for state, flags in positions:
            start = _counter(scratch)
            ran, spent = search_rate(player, state, flags, sims)
            total += _counter(scratch) - start
            done += ran
            seconds += spent
            if timed:
                arrays = tree.arrays
                visits = arrays.visits[:tree.used].astype(np.int64)
                counts += (visits.sum() - visits[tree.root], (visits >= 2).sum(),
                           (visits >= 4).sum())
    tree.parts = None
    return parts, total, done, counts, seconds


def cycles_a_microsecond() -> float:
    """The cycle counter's rate, against the clock over a fifth of a second."""
    scratch = np.zeros(1, np.int64)
    _counter(scratch)  # compiled before the clock starts
    start, clock = _counter(scratch), time.perf_counter()
    time.sleep(0.2)
    return (_counter(scratch) - start) / (time.perf_counter() - clock) / 1e6


def play_profile(player: MCTSPlayer, games: int, ms: float) -> tuple[np.ndarray, int, float]:
    """(cycles by part, simulations, milliseconds) of `player`'s moves at plies 4-19 as it
    plays itself at `ms` a move, its tree kept from move to move, from `games` random
    four-move codingame openings (`search_speed.play_rates`' openings)."""
    parts = np.zeros(len(mt.PARTS), np.int64)
    player.trees[0].parts = parts
    total = np.zeros(len(mt.PARTS), np.int64)
    done, spent = 0, 0.0
    for board in random_openings(games):
        player.new_game()
        while not board.is_game_over() and board.ply < 20:
            parts[:] = 0
            result = player.play(board, Limit(move_ms=ms))
            sims = result.info.get("sims", 0)
            if sims >= 100:  # searched: not a book move or a proven position
                total += parts
                done += sims
                spent += result.info.get("ms", 0.0)
            board.push(result.move)
    player.trees[0].parts = None
    return total, done, spent


def play_table(names: list[str], players: dict[str, MCTSPlayer], games: int, ms: float
               ) -> None:
    """`play_profile`'s parts for each player, in µs a simulation."""
    rate = cycles_a_microsecond()
    table = Table(title=f"µs a simulation, by part, in play (one thread, {ms:g} ms a move, "
                  f"the tree kept, plies 4-19 of {games} self-play games; the rest: the "
                  "player's own steps between its slices of search)")
    table.add_column("part")
    for name in names:
        table.add_column(name, justify="right", overflow="fold")
    rows: list[list[str]] = [[part] for part in mt.PARTS] + [["the rest"], ["a simulation"],
                                                              ["simulations a second"]]
    for name in names:
        parts, done, spent = play_profile(players[name], games, ms)
        console.print(f"{name}: {done:,} simulations", highlight=False)
        whole = 1000.0 * spent / done
        for row, us in zip(rows, [*(parts / rate / done), whole - parts.sum() / rate / done,
                                  whole], strict=False):
            row.append(f"{us:.3f}")
        rows[-1].append(f"{done / spent * 1000:,.0f}")
    for row in rows:
        table.add_row(*row)
    console.print(table)


@app.command()
def main(specs: Annotated[list[str], typer.Argument(help="mcts player specs")],
         sims: Annotated[int, typer.Option(min=1, help="simulations from each position")] = 20_000,
         play_ms: Annotated[float | None, typer.Option(
             "--play-ms", min=1.0, help="Instead: profile play at this many ms a move, the "
             "tree kept from move to move.")] = None,
         games: Annotated[int, typer.Option(min=1, help="With --play-ms: self-play games a "
                                            "spec.")] = 3,
         ) -> None:
    players = searchers(specs, None if play_ms else sims, "sim_profile.py")
    names = list(players)
    if play_ms is not None:
        play_table(names, players, games, play_ms)
        return
    positions = game_positions()
    console.print(f"{len(positions)} positions of real games; {sims:,} simulations each, "
                  "fresh trees", highlight=False)
    table = Table(title="µs a simulation, by part (one thread, CPU time; the second round)")
    table.add_column("part")
    for name in names:
        table.add_column(name, justify="right", overflow="fold")
    found = {}
    for name in names:
        found[name] = profile(players[name], positions, sims)
        console.print(f"{name}: done", highlight=False)
    rows: list[list[str]] = [[part] for part in mt.PARTS] + [["the rest"], ["a simulation"],
                                                              ["simulations a second"],
                                                              ["mean path length"],
                                                              ["nodes at a 2nd visit"],
                                                              ["nodes at a 4th visit"]]
    for name in names:
        parts, total, done, counts, seconds = found[name]
        us = 1e6 * seconds / total / done  # µs a cycle, a simulation
        for row, cycles in zip(rows, [*parts, total - parts.sum(), total], strict=False):
            row.append(f"{cycles * us:.3f}")
        rows[-4].append(f"{done / seconds:,.0f}")
        rows[-3].append(f"{counts[0] / done:.1f}")
        rows[-2].append(f"{counts[1] / done:.2f}")
        rows[-1].append(f"{counts[2] / done:.2f}")
    for row in rows:
        table.add_row(*row)
    console.print(table)


if __name__ == "__main__":
    app()
