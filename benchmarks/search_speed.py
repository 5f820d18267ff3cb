"""Simulations a second of players' searches, one thread, against the default's in the same run.

Each spec is an ``mcts`` player spec (``mcts:net=runs/wide/w1024p256.npz,refine=4,mix=0``);
its search is run as the player runs it (`mcts.Tree.search` with the player's network,
fast network, c, playout share, draw value, solver and ``refine``), from an empty tree,
a fixed number of simulations from each of a set of codingame positions (random
openings of 0, 8, 16 and 24 plies, three of each). The reference is
``mcts:net=default``, always measured, first. The specs take turns position by
position within a round, so load from other processes hits them alike; the rate is
simulations per second of this process's CPU time, and the table shows each spec's
lowest and highest round and its median's ratio to the reference's median.

Without ``--play-ms``: one call a search, where the player searches in slices of about a millisecond
between looks at the clock: this is the engine's speed, not the player's overheads.
And a fresh tree a search, where a player keeps its tree from move to move: in play
at 100 ms (trees of about a million nodes kept, real games' positions) the fast
network's searches ran well below their rates here, and their ratio to the default's
too (docs/research/fast-network.md, "Thirteenth session"): measure play with
``--play-ms``.

    .venv/bin/python benchmarks/search_speed.py mcts:net=runs/wide/w1024p256.npz,refine=16 \
        mcts:net=runs/wide/w1024p256.npz,refine=4 [--sims 12000] [--rounds 3]

``--play-ms 100 --games 4`` measures the rate in play instead: each spec plays itself
from the same random four-move codingame openings, its tree kept from move to move as
in a game, and each move's simulations over its time are taken by the game's phase
(plies 4-19, 20-39, 40 on), the medians compared with the default's. Beware a tree
too small for a move (``nodes=``): once it is full, simulations stop expanding nodes,
run fast and are worth little, and the rate rises.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Annotated

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from ninefold import kernel
from ninefold.players import Limit, make_player
from ninefold.players.mcts import MCTSPlayer
from ninefold.rules import Board

REFERENCE = "mcts:net=default"
PLIES = (0, 8, 16, 24)

app = typer.Typer(add_completion=False)
console = Console()


def positions(per_length: int, flags: int) -> list[np.ndarray]:
    """Kernel states after random openings of each length in `PLIES`, `per_length` of each
    (seeds 1, 2, ...), none of them over."""
    out = []
    for plies in PLIES:
        seed = 0
        found = 0
        while found < per_length:
            seed += 1
            s, x = kernel.new_state(), kernel.make_rng(seed)
            for _ in range(plies):
                b, c, x[0] = kernel.random_move(s, x[0])
                kernel.play(s, b, c, flags)
            if s[kernel.RESULT] < 0:
                out.append(s)
                found += 1
    return out


def searcher(spec: str, sims: int | None) -> MCTSPlayer:
    """The player of `spec`, one thread, its tree room for `sims` simulations (at 40
    nodes a simulation: a simulation expands one node, 9 children as a rule); `sims`
    None: the tree the spec gives it (in play)."""
    if spec.split(":")[0] != "mcts":
        raise ValueError(f"{spec!r} is not an mcts player spec")
    options = "threads=1,seed=5"
    if sims is not None and "nodes=" not in spec:
        options += f",nodes={max(2_000_000, 40 * sims)}"
    player = make_player(f"{spec}{',' if ':' in spec else ':'}{options}")
    assert isinstance(player, MCTSPlayer)
    return player


def search_rate(player: MCTSPlayer, state: np.ndarray, flags: int, sims: int) -> tuple[int, float]:
    """(simulations run, CPU seconds) of one search of `player` from an empty tree at `state`."""
    tree = player.trees[0]
    tree.flags = flags
    tree.set_root(state, None)
    start = time.process_time()
    done = tree.search(sims, player.c, player.policy, player.solver, 0, player.net, player.mix,
                       player.draw, player.fnet, player.refine)
    return done, time.process_time() - start


PHASES = ("plies 4-19", "plies 20-39", "plies 40-")


def play_rates(player: MCTSPlayer, openings: list[Board], ms: float) -> list[list[float]]:
    """Simulations a second of each move `player` searched (100 or more simulations: not
    a book move or a proven position), playing itself from each of `openings` at `ms` a
    move with its tree kept from move to move, by phase (`PHASES`)."""
    rates: list[list[float]] = [[] for _ in PHASES]
    for opening in openings:
        player.new_game()
        board = opening.copy()
        while not board.is_game_over():
            result = player.play(board, Limit(move_ms=ms))
            sims, spent = result.info.get("sims", 0), result.info.get("ms", 0.0)
            if sims >= 100 and spent > 0:
                rates[min(board.ply // 20, 2)].append(1000.0 * sims / spent)
            board.push(result.move)
    return rates


def random_openings(games: int, seed: int = 7) -> list[Board]:
    """`games` codingame boards after four random moves each (seeded)."""
    rng = random.Random(seed)
    openings = []
    for _ in range(games):
        board = Board("codingame")
        for _ in range(4):
            board.push(rng.choice(list(board.legal_moves)))
        openings.append(board)
    return openings


def searchers(specs: list[str], sims: int | None, program: str) -> dict[str, MCTSPlayer]:
    """`searcher` of the reference, then of each other spec, by spec; a spec that is not
    an mcts player (or has a bad option) ends `program` with its one-line error."""
    names = [REFERENCE, *[s for s in specs if s != REFERENCE]]
    try:
        return {name: searcher(name, sims) for name in names}
    except ValueError as exc:
        Console(stderr=True).print(f"{program}: {exc}", highlight=False)
        raise typer.Exit(2) from None


def play_table(names: list[str], players: dict[str, MCTSPlayer], ms: float, games: int) -> None:
    """Each player's rates in play (`play_rates`), from the same `games` random four-move
    codingame openings, and their ratio to the reference's, phase by phase."""
    openings = random_openings(games)
    found = {}
    for name in names:
        found[name] = play_rates(players[name], openings, ms)
        console.print(f"{name}: {sum(map(len, found[name]))} moves searched", highlight=False)
    table = Table(title=f"simulations a second in play, one thread, {ms:g} ms a move, the tree "
                  f"kept, {games} self-play games from random four-move codingame openings "
                  "(median of the moves; the ratio to the default's)")
    table.add_column("search", overflow="fold")
    for phase in PHASES:
        table.add_column(phase, justify="right")
    for name in names:
        cells = []
        for k in range(len(PHASES)):
            mine, ref = found[name][k], found[REFERENCE][k]
            if not (mine and ref):
                cells.append("-")
                continue
            rate = statistics.median(mine)
            cells.append(f"{rate:,.0f} ({rate / statistics.median(ref):.2f}x)")
        table.add_row(name, *cells)
    console.print(table)


@app.command()
def main(
    specs: Annotated[list[str], typer.Argument(help="mcts player specs to time beside the "
                                                   "default.")],
    sims: int = typer.Option(12_000, min=1, help="Simulations a search."),
    rounds: int = typer.Option(3, min=1, help="Rounds over the positions."),
    per_length: int = typer.Option(3, min=1, help="Positions of each opening length."),
    play_ms: float | None = typer.Option(None, "--play-ms", min=1.0, help="Instead: play "
                                         "games at this many ms a move, the tree kept, and "
                                         "time each move's search."),
    games: int = typer.Option(4, min=1, help="With --play-ms: self-play games a spec."),
) -> None:
    flags = Board("codingame").rules.flags
    players = searchers(specs, None if play_ms else sims, "search_speed.py")
    names = list(players)
    if play_ms is not None:
        play_table(names, players, play_ms, games)
        return
    roots = positions(per_length, flags)
    for player in players.values():  # compiled and warm before any clock runs
        search_rate(player, roots[0], flags, min(sims, 200))
    rates: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        done = dict.fromkeys(names, 0)
        spent = dict.fromkeys(names, 0.0)
        for state in roots:
            for name in names:
                n, t = search_rate(players[name], state, flags, sims)
                done[name] += n
                spent[name] += t
        for name in names:
            rates[name].append(done[name] / max(spent[name], 1e-9))
        console.print(f"round {r + 1}/{rounds}: " + ", ".join(
            f"{name} {rates[name][-1]:,.0f}" for name in names), highlight=False)
    reference = statistics.median(rates[REFERENCE])
    table = Table(title=f"simulations a second, one thread, {len(roots)} codingame positions x "
                  f"{sims:,} simulations, {rounds} round{'s' if rounds > 1 else ''}")
    table.add_column("search", overflow="fold")
    table.add_column("lowest", justify="right")
    table.add_column("highest", justify="right")
    table.add_column("median / the default's", justify="right")
    for name in names:
        table.add_row(name, f"{min(rates[name]):,.0f}", f"{max(rates[name]):,.0f}",
                      f"{statistics.median(rates[name]) / reference:.2f}x")
    console.print(table)


if __name__ == "__main__":
    app()
