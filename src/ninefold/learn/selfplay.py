"""Self-play: games of the search against itself, kept as training positions.

Each position keeps the kernel state, the rules' flags, the share of the
search's visits each move got (the policy target), the search's value of the
root and the game's result, both for the side to move (the value targets).
Games start from a random-four opening (or the empty board, one in ten) under
a rules preset drawn from `PRESET_MIX`, so the network sees every rule that
changes what a position is worth (`Openings`; `Openings.only("codingame", 0.75)`
aims a round at one platform's games instead); the first `SAMPLE_PLIES` moves
are drawn in proportion to the visits, the rest are the search's best.

`generate` runs the games in chunks of `GAMES_PER_TASK`, as tasks of a
`ninefold.learn.tasks.Runner` (worker processes, or Ray tasks on a cluster),
and shows progress; a chunk's games are seeded by its first game's index, so
the same call makes the same positions wherever its chunks run, and a chunk
run again makes the same games. `match` plays gating matches the same way, a
pair of games a task. Workers on other machines get the network files by
value (`Nets`), sent once a call.
"""

from __future__ import annotations

import hashlib
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ninefold import kernel
from ninefold.learn.tasks import Runner
from ninefold.moves import opening_moves, random_opening
from ninefold.players.mcts import DEFAULT_C, MCTSPlayer, Snapshot
from ninefold.rules import PRESETS, Board, Mark, Move, Outcome, Rules

PRESET_MIX = {"standard": 0.4, "codingame": 0.3, "open-boards": 0.15, "tic-tac-ku": 0.15}
SAMPLE_PLIES = 8  # moves after the opening drawn in proportion to the visits
EMPTY_SHARE = 0.1  # games from the empty board rather than a random-four opening
GAMES_PER_TASK = 10
NODES = 4_000_000  # the most nodes a player's tree holds (`sims=` makes it smaller)


@dataclass(frozen=True)
class Openings:
    """Where self-play games start: a rules preset drawn from `presets` (name, weight),
    from the empty board in the share `empty` of games, else from a random-four opening.

    >>> Openings.only("codingame", 0.75)
    Openings(presets=(('codingame', 1.0),), empty=0.75)
    """

    presets: tuple[tuple[str, float], ...] = tuple(PRESET_MIX.items())
    empty: float = EMPTY_SHARE

    @classmethod
    def only(cls, preset: str, empty: float) -> Openings:
        """Every game under the rules `preset`, the share `empty` from the empty board."""
        if preset not in PRESETS:
            raise ValueError(f"{preset!r}: not a rules preset ({', '.join(PRESETS)})")
        if not 0.0 <= empty <= 1.0:
            raise ValueError(f"{empty}: the empty board's share is between 0 and 1")
        return cls(((preset, 1.0),), empty)

    def draw(self, rng: random.Random) -> tuple[Rules, list[int]]:
        """One game's rules and opening actions."""
        names, weights = zip(*self.presets, strict=True)
        rules = PRESETS[rng.choices(names, weights=weights)[0]]
        start = [] if rng.random() < self.empty else [
            m.action for m in opening_moves(random_opening(rng))]
        return rules, start


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

    def player(self, sims: int, seed: int) -> MCTSPlayer:
        """This search as an MCTS player of `sims` simulations a move (a draw worth half
        a win, whatever the network)."""
        return MCTSPlayer(sims=sims, c=self.c, net=self.net or "off", mix=self.mix, draw=0.5,
                          nodes=NODES, seed=seed)


@dataclass(frozen=True)
class Nets:
    """Network files carried by value to workers that may not have them (a Ray
    cluster's other nodes): each is written once into the worker machine's
    temporary folder, named by its SHA-256. Empty: the workers read the files
    where they are (worker processes on this machine)."""

    files: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def carry(cls, *searchers: Searcher) -> Nets:
        """The network files of `searchers` (pure MCTS has none)."""
        return cls({s.net: Path(s.net).read_bytes() for s in searchers if s.net})

    def local(self, who: Searcher) -> Searcher:
        """`who`, its network read from a file on this machine."""
        if who.net is None or who.net not in self.files:
            return who
        blob = self.files[who.net]
        path = Path(tempfile.gettempdir(), "ninefold-nets",
                    hashlib.sha256(blob).hexdigest() + ".npz")
        if not path.exists():
            path.parent.mkdir(exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.part")
            tmp.write_bytes(blob)
            os.replace(tmp, path)  # whole, whichever worker writes it first
        return replace(who, net=str(path))


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

    def rows(self, which: slice) -> Positions:
        """The positions of the rows `which` (views, not copies)."""
        return Positions(*(getattr(self, f)[which] for f in FIELDS))

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


def _finished(board: Board) -> Outcome:
    """The outcome of a game played to its end."""
    outcome = board.outcome()
    if outcome is None:
        raise ValueError("the game is not over")
    return outcome


def search_move(player: MCTSPlayer, board: Board) -> Snapshot:
    """`player`'s whole search of `board` (its tree kept from its earlier moves)."""
    *_, last = player.search(board)
    return last


def play_game(player: MCTSPlayer, rules: Rules, start: list[int],
              rng: random.Random) -> Positions:
    """One self-play game of `player` under `rules` from the actions `start`; its
    positions."""
    board = Board(rules)
    for a in start:
        board.push(Move.from_action(a))
    player.new_game()
    rows: list[tuple[np.ndarray, np.ndarray, float, Mark]] = []
    ply = 0
    while not board.is_game_over():
        snap = search_move(player, board)
        actions, visits = snap.children[:2]
        best = snap.best
        assert best is not None
        policy = np.zeros(81, np.float32)
        policy[actions] = visits / max(visits.sum(), 1)
        rows.append((kernel.from_board(board), policy, best.value, board.turn))
        move = best.move
        if ply < SAMPLE_PLIES and visits.sum() > 0:
            move = Move.from_action(int(actions[rng.choices(range(len(actions)),
                                                            weights=visits.tolist())[0]]))
        board.push(move)
        ply += 1
    winner = _finished(board).winner
    n = len(rows)
    return Positions(
        np.array([r[0] for r in rows], np.int16).reshape(n, kernel.STATE_SIZE),
        np.full(n, rules.flags, np.int8),
        np.array([r[1] for r in rows], np.float16).reshape(n, 81),
        np.array([r[2] for r in rows], np.float32),
        np.array([0.5 if winner is None else float(winner == r[3]) for r in rows], np.float32),
    )


def _task(nets: Nets, args: tuple[int, int, int, Searcher, Openings]) -> Positions:
    """Worker: `games` games with seed `seed` (a self-play chunk)."""
    games, seed, sims, who, openings = args
    rng = random.Random(seed)
    player = nets.local(who).player(sims, seed)
    return Positions.concat([play_game(player, *openings.draw(rng), rng) for _ in range(games)])


def _duel(nets: Nets, args: tuple[Searcher, Searcher, int, str, int]) -> float:
    """Worker: one pair of games from one opening, `a` as X then as O; a's points (0-2)."""
    a, b, sims, rules_name, seed = args
    a, b = nets.local(a), nets.local(b)
    rng = random.Random(seed)
    start = opening_moves(random_opening(rng))
    points = 0.0
    for a_side in (Mark.X, Mark.O):
        players = {a_side: a.player(sims, seed), a_side.other: b.player(sims, seed + 1)}
        board = Board(PRESETS[rules_name])
        for move in start:
            board.push(move)
        while not board.is_game_over():
            best = search_move(players[board.turn], board).best
            assert best is not None
            board.push(best.move)
        winner = _finished(board).winner
        points += 0.5 if winner is None else float(winner == a_side)
    return points


def match(a: Searcher, b: Searcher, sims: int, pairs: int, seed: int, runner: Runner,
          rules: str = "standard") -> list[float]:
    """Paired games between two searches at `sims` simulations a move, a pair a task
    of `runner`. Each pair starts from a random-four opening with colours swapped;
    returns a's points per pair (0, 0.5, ... 2)."""
    tasks = [(a, b, sims, rules, seed * 7919 + k) for k in range(pairs)]
    return runner.map(_duel, Nets.carry(a, b) if runner.remote else Nets(), tasks)


def generate(games: int, sims: int, who: Searcher, seed: int, runner: Runner,
             progress: Callable[[int, int, float], None] | None = None,
             per_task: int = GAMES_PER_TASK, openings: Openings = Openings()) -> Positions:
    """`games` self-play games of `who` at `sims` simulations a move, started as
    `openings` says, in chunks of `per_task` games run by `runner`; `progress` is told
    the games done as chunks finish."""
    tasks = [(min(per_task, games - k), seed * 1_000_003 + k, sims, who, openings)
             for k in range(0, games, per_task)]
    played = 0
    t0 = time.perf_counter()

    def done(k: int, _: Positions) -> None:
        nonlocal played
        played += tasks[k][0]
        if progress is not None:
            progress(played, games, time.perf_counter() - t0)

    parts = runner.map(_task, Nets.carry(who) if runner.remote else Nets(), tasks, done)
    return Positions.concat(parts)


def print_progress(done: int, total: int, seconds: float) -> None:
    """A progress line on stderr."""
    rate = done / seconds if seconds else 0.0
    sys.stderr.write(f"\r  self-play {done}/{total} games ({rate:.1f}/s)")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()
