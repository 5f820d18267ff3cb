"""Self-play: games of the search against itself, kept as training positions.

Each position keeps the kernel state, the rules' flags, the share of the
search's visits each move got (the policy target), the search's value of the
root and the game's result, both for the side to move (the value targets).
Games start from a random-four opening (or the empty board, one in ten) under
a rules preset drawn from `PRESET_MIX`, so the network sees every rule that
changes what a position is worth; the first `SAMPLE_PLIES` moves are drawn in
proportion to the visits, the rest are the search's best.

`generate` runs the games in worker processes and shows progress.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ninefold import kernel
from ninefold.moves import opening_moves, random_opening
from ninefold.players import mcts_tree as mt
from ninefold.players.mcts import DEFAULT_C, PROVEN_VALUE, Tree
from ninefold.players.net import Net, load_net
from ninefold.rules import PRESETS

PRESET_MIX = {"standard": 0.4, "codingame": 0.3, "open-boards": 0.15, "tic-tac-ku": 0.15}
SAMPLE_PLIES = 8  # moves after the opening drawn in proportion to the visits
EMPTY_SHARE = 0.1  # games from the empty board rather than a random-four opening
GAMES_PER_TASK = 10


@dataclass(frozen=True)
class Searcher:
    """A search as self-play and matches run it: the network file `net` (None: pure
    MCTS, UCT), its exploration `c`, and the playout's share `mix` of a leaf's value."""

    net: str | None = None
    c: float = DEFAULT_C
    mix: float = 0.0

    def __str__(self) -> str:
        name = Path(self.net).name if self.net else "pure MCTS"
        return f"{name} (c={self.c:g}{f', mix={self.mix:g}' if self.net else ''})"

    def load(self) -> Net | None:
        return load_net(self.net) if self.net else None


@dataclass
class Positions:
    """Training positions, one row each (see the module's docstring)."""

    states: np.ndarray  # (n, 24) int16: kernel states
    flags: np.ndarray  # (n,) int8: the rules' kernel flags
    policy: np.ndarray  # (n, 81) float16: share of the root's visits per action
    value: np.ndarray  # (n,) float32: the search's value of the root, 0..1
    result: np.ndarray  # (n,) float32: the game's result, 1 win, 0.5 draw, 0 loss

    def __len__(self) -> int:
        return len(self.flags)

    @classmethod
    def concat(cls, parts: list[Positions]) -> Positions:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in FIELDS))

    def save(self, path: Path) -> None:
        """Write as a .npz (written aside and renamed, so a crash leaves no half file)."""
        tmp = path.with_name(path.name + ".part")
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **{name: getattr(self, name) for name in FIELDS})
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> Positions:
        with np.load(path, allow_pickle=False) as data:
            return cls(*(data[name] for name in FIELDS))


FIELDS = ("states", "flags", "policy", "value", "result")


def search_move(tree: Tree, s: np.ndarray, last: list[int] | None, sims: int, who: Searcher,
                net: Net | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Search `s` (reached from the tree's root by `last`) as `who` (whose network,
    loaded, is `net`); the root's children (actions, visits, wins, status) and the
    index of the best."""
    tree.set_root(s, last)
    tree.search(sims, who.c, mt.POLICY_WIN, True, net=net, mix=who.mix)
    actions, visits, wins, status = tree.children()
    return actions, visits, wins, status, int(mt.best_of(visits, status))


def play_game(tree: Tree, flags: int, start: list[int], sims: int, who: Searcher,
              net: Net | None, rng: random.Random) -> Positions:
    """One self-play game from the actions `start`; its positions."""
    s = kernel.new_state()
    for a in start:
        kernel.play(s, a // 9, a % 9, flags)
    tree.flags = flags
    tree.root_state = None
    rows: list[tuple[np.ndarray, np.ndarray, float, int]] = []
    last: list[int] | None = None
    ply = 0
    while s[kernel.RESULT] < 0:
        actions, visits, wins, status, i = search_move(tree, s, last, sims, who, net)
        policy = np.zeros(81, np.float32)
        policy[actions] = visits / max(visits.sum(), 1)
        value = float(PROVEN_VALUE.get(int(status[i]), wins[i] / max(visits[i], 1)))
        rows.append((s.copy(), policy, value, int(s[kernel.SIDE])))
        if ply < SAMPLE_PLIES and visits.sum() > 0:
            i = rng.choices(range(len(actions)), weights=visits.tolist())[0]
        a = int(actions[i])
        kernel.play(s, a // 9, a % 9, flags)
        last = [a]
        ply += 1
    winner = int(s[kernel.RESULT]) - 1  # -1 draw, 0 X, 1 O
    n = len(rows)
    return Positions(
        np.array([r[0] for r in rows], np.int16).reshape(n, kernel.STATE_SIZE),
        np.full(n, flags, np.int8),
        np.array([r[1] for r in rows], np.float16).reshape(n, 81),
        np.array([r[2] for r in rows], np.float32),
        np.array([0.5 if winner < 0 else float(winner == r[3]) for r in rows], np.float32),
    )


def _task(args: tuple[int, int, int, Searcher]) -> Positions:
    """Worker: `games` games with seed `seed` (a process-pool task)."""
    games, seed, sims, who = args
    rng = random.Random(seed)
    net = who.load()
    tree = Tree(min(200 * sims + 10_000, 4_000_000), seed)
    names, weights = zip(*PRESET_MIX.items(), strict=True)
    parts = []
    for _ in range(games):
        rules = PRESETS[rng.choices(names, weights=weights)[0]]
        start = [] if rng.random() < EMPTY_SHARE else [
            m.action for m in opening_moves(random_opening(rng))]
        parts.append(play_game(tree, rules.flags, start, sims, who, net, rng))
    return Positions.concat(parts)


def _duel(args: tuple[Searcher, Searcher, int, str, int]) -> float:
    """Worker: one pair of games from one opening, `a` as X then as O; a's points (0-2)."""
    a, b, sims, rules_name, seed = args
    rng = random.Random(seed)
    searchers = [a, b]
    nets = [a.load(), b.load()]
    flags = PRESETS[rules_name].flags
    start = [m.action for m in opening_moves(random_opening(rng))]
    points = 0.0
    for a_side in (0, 1):
        trees = [Tree(min(200 * sims + 10_000, 4_000_000), seed + k) for k in range(2)]
        s = kernel.new_state()
        for action in start:
            kernel.play(s, action // 9, action % 9, flags)
        for tree in trees:
            tree.flags = flags
        played: list[int] = []
        seen = [0, 0]  # moves of `played` each tree has seen
        while s[kernel.RESULT] < 0:
            side = int(s[kernel.SIDE])
            who = 0 if side == a_side else 1
            tree = trees[who]
            last = played[seen[who]:] if tree.root_state is not None else None
            actions, _, _, _, i = search_move(tree, s, last, sims, searchers[who], nets[who])
            seen[who] = len(played)
            action = int(actions[i])
            kernel.play(s, action // 9, action % 9, flags)
            played.append(action)
        winner = int(s[kernel.RESULT]) - 1
        points += 0.5 if winner < 0 else float(winner == a_side)
    return points


def match(a: Searcher, b: Searcher, sims: int, pairs: int, seed: int,
          rules: str = "standard", workers: int = 2) -> list[float]:
    """Paired games between two searches at `sims` simulations a move. Each pair
    starts from a random-four opening with colours swapped; returns a's points per
    pair (0, 0.5, ... 2)."""
    tasks = [(a, b, sims, rules, seed * 7919 + k) for k in range(pairs)]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(_duel, tasks))


def generate(games: int, sims: int, who: Searcher, seed: int, workers: int = 2,
             progress: Callable[[int, int, float], None] | None = None) -> Positions:
    """`games` self-play games of `who` at `sims` simulations a move, in `workers`
    processes."""
    tasks = []
    for k in range(0, games, GAMES_PER_TASK):
        tasks.append((min(GAMES_PER_TASK, games - k), seed * 1_000_003 + k, sims, who))
    parts = []
    done = 0
    t0 = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        for part, task in zip(pool.map(_task, tasks), tasks, strict=True):
            parts.append(part)
            done += task[0]
            if progress is not None:
                progress(done, games, time.perf_counter() - t0)
    return Positions.concat(parts)


def print_progress(done: int, total: int, seconds: float) -> None:
    """A progress line on stderr."""
    rate = done / seconds if seconds else 0.0
    sys.stderr.write(f"\r  self-play {done}/{total} games ({rate:.1f}/s)")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()
