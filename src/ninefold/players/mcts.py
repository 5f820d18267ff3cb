"""`mcts`: UCT with MCTS-solver on the numba kernel, tree reuse and time management.

Spec options (all optional)::

    mcts:ms=100              think 100 ms a move (the referee's clock may cut it further;
                             at most a day)
    mcts:sims=20000          stop after 20000 simulations (at most 10^10)
    mcts:threads=2           search with two threads (at most the CPUs the process may use)
    mcts:parallel=tree       how threads share the work: ``tree``, one tree searched by
                             all threads (virtual loss); ``root``, a tree per thread,
                             their root statistics summed at the end
    mcts:net=default         value positions with the policy-value network shipped with
                             ninefold (PUCT with its move probabilities as priors), or
                             with the network in a file: ``net=PATH`` (``net=off``: none)
    mcts:mix=0.25            with a network, value a leaf by this share of a playout's
                             result and the rest the network's (default 0.5)
    mcts:draw=0.5            what a draw is worth to this player, 0..1: less plays on for
                             a win, more settles for a draw (default 0.5, half a win;
                             0.3 with a network)
    mcts:c=0.5               exploration constant of UCT, or of PUCT with a network
                             (rewards are 1 / 0.5 / 0; 0 < c <= 10)
    mcts:policy=win          playouts take a move that wins the game at once (``random``: never)
    mcts:solver=off          no MCTS-solver
    mcts:reuse=off           start every move from an empty tree
    mcts:nodes=2000000       tree capacity (per thread with parallel=root; two buffers of
                             it: about 46 MB each; all of them must fit in memory;
                             ``ninefold bot`` on a time bank: 8000000, memory allowing)
    mcts:seed=1              random seed
    mcts:tm=flat             with a time bank, a fixed share a move (``smart``, the default:
                             stop early when decided, think longer when unclear)
    mcts:margin=auto         stop this many ms before a per-move deadline; ``auto`` (the
                             default) stops 4 ms before it, plus the longest recent
                             stall (time the process was off the CPU) up to a quarter
                             of the budget
    mcts:ponder=on           as a bot (``ninefold bot``), go on searching on the
                             opponent's time, from the position after its own move, with
                             one thread; the next move keeps what was found (off by
                             default: it takes a core while the opponent thinks)

The search itself is in `ninefold.players.mcts_tree`; this module turns a
`Board` and a `Limit` into calls to it: it keeps the tree between moves (the
subtree of the moves actually played), decides how long to think, and
combines the trees of several threads.

>>> from ninefold import Board
>>> from ninefold.players import Limit, make_player
>>> player = make_player("mcts:sims=2000,seed=1")
>>> result = player.play(Board(), Limit())
>>> result.move in Board().legal_moves, result.info["sims"] >= 1
(True, True)
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ninefold import kernel, timing
from ninefold.players import mcts_tree as mt
from ninefold.players.base import (
    MAX_MS,
    Limit,
    Player,
    PlayResult,
    check_positive,
    register,
    usable_cpus,
)
from ninefold.players.net import Net, load_net
from ninefold.players.warmup import warm_up
from ninefold.rules import Board, Move, Rules

# Defaults chosen by measurement (docs/players.md has the numbers).
DEFAULT_C = 0.6
DEFAULT_NET_C = 1.0  # PUCT's constant with a network
DEFAULT_MIX = 0.5  # with a network, a leaf's value is half a playout's
DEFAULT_NET_DRAW = 0.3  # with a network, a draw is worth 0.3 (without: 0.5, half a win)
DEFAULT_MS = timing.DEFAULT_PLAYER_MS
# the time budget's numbers live in ninefold.timing
SAFETY_MS = timing.MCTS_SAFETY_MS
STALL_DECAY = timing.STALL_DECAY
STALL_SHARE = timing.STALL_SHARE
# Limits on the options, against typing slips: a search of hours, a tree larger
# than a node index (int32) reaches, an exploration term that drowns the values.
MAX_SIMS = 10**10
MIN_NODES, MAX_NODES = 1000, 2**31 - 100
MAX_C = 10.0
PONDER_CHUNK_MS = 1.0  # pondering looks whether to stop this often


class Tree:
    """One search tree (`mcts_tree.TreeArrays`) and the position at its root."""

    def __init__(self, capacity: int, seed: int, workers: int = 1) -> None:
        self.capacity = capacity
        self.arrays = mt.alloc(capacity)
        self.spare = mt.alloc(capacity)  # compaction copies the kept subtree here
        self.root_state: np.ndarray | None = None
        self.flags = 0  # the rules' kernel flags, set with each new root
        # one random stream per thread searching this tree
        self.rngs = [kernel.make_rng(seed + 104_729 * i) for i in range(workers)]
        mt.reset(self.arrays)

    @property
    def root(self) -> int:
        return int(self.arrays.meta[mt.ROOT])

    @property
    def used(self) -> int:
        """Nodes in use (the counter runs past the capacity once the tree is full)."""
        return min(int(self.arrays.meta[mt.USED]), self.capacity)

    def set_root(self, state: np.ndarray, actions: list[int] | None) -> bool:
        """Move the root to `state`, reached from the old root by `actions` if known.

        Keeps the subtree when possible (True), else starts an empty tree.
        """
        if self.root_state is not None and actions is not None:
            node = self.root
            s = self.root_state.copy()
            for action in actions:
                node = mt.find_child(self.arrays, node, action)
                if node < 0 or s[kernel.RESULT] >= 0:
                    break
                kernel.play(s, action // 9, action % 9, self.flags)
            if node >= 0 and np.array_equal(s, state):
                self.arrays.meta[mt.ROOT] = node
                self.root_state = state.copy()
                if self.used > self.capacity // 2:
                    mt.compact(self.arrays, self.spare)
                    self.arrays, self.spare = self.spare, self.arrays
                return True
        mt.reset(self.arrays)
        self.root_state = state.copy()
        return False

    def search(self, sims: int, c: float, policy: int, solver: bool, worker: int = 0,
               net: Net | None = None, mix: float = 0.0, draw: float = 0.5) -> int:
        assert self.root_state is not None
        return int(mt.search(self.arrays, self.root_state, self.flags, sims, c, policy, solver,
                             self.rngs[worker], net, mix, draw))

    def children(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(actions, visits, wins, status) of the root's children."""
        return mt.children(self.arrays, self.root)

    def pv(self, limit: int = 20) -> list[int]:
        return [int(x) for x in mt.principal_variation(self.arrays, limit)]


@dataclass
class Budget:
    """When to stop one search."""

    deadline: float | None  # perf_counter time, or None
    sims: int | None
    extend_to: float | None = None  # a later deadline allowed when the choice is unclear
    ms: float = 0.0  # the time the deadline allows, for the cap on the stall margin
    least_until: float | None = None  # a time bank: no early stop before this (overflow)
    halfway: float | None = None  # a time bank: the best move is noted here, to see it change


@dataclass(frozen=True)
class MoveStat:
    """One candidate move at the root: how often the search tried it and what it scored.

    `value` is the expected score of the side to move after this move (win 1,
    draw 1/2, loss 0); `proven` is ``"win"``, ``"draw"`` or ``"loss"`` when the
    search solved the move exactly, else None.
    """

    move: Move
    visits: int
    value: float
    proven: str | None = None


PROVEN = {mt.WIN_: "win", mt.DRAW: "draw", mt.LOSS: "loss"}
PROVEN_VALUE = {mt.WIN_: 1.0, mt.DRAW: 0.5, mt.LOSS: 0.0}


def _move_stat(action: int, visits: int, wins: float, status: int) -> MoveStat:
    """A root child's statistics as a `MoveStat` (a proven value beats the average)."""
    status = int(status)
    value = PROVEN_VALUE.get(status, wins / visits if visits else 0.5)
    return MoveStat(Move.from_action(int(action)), int(visits), float(value), PROVEN.get(status))


@register("mcts")
class MCTSPlayer(Player):
    """Monte Carlo tree search (UCT + MCTS-solver) on the numba kernel."""

    def __init__(
        self,
        ms: float | None = None,
        sims: int | None = None,
        threads: int = 1,
        parallel: str = "tree",
        c: float | None = None,
        policy: str = "win",
        solver: bool = True,
        reuse: bool = True,
        nodes: int = 2_000_000,
        seed: int | None = None,
        tm: str = "smart",
        margin: str = "auto",
        net: str = "off",
        mix: float = DEFAULT_MIX,
        draw: float | None = None,
        ponder: bool = False,
    ) -> None:
        check_positive("ms", ms, MAX_MS, "a day")
        check_positive("sims", sims, MAX_SIMS, "hours of search")
        cpus = usable_cpus()
        if not 1 <= threads <= cpus:
            raise ValueError(f"threads={threads} is not possible: this process may use "
                             f"{cpus} CPU{'s' if cpus > 1 else ''} (threads=1..{cpus})")
        if parallel not in ("tree", "root"):
            raise ValueError(f"parallel must be 'tree' or 'root', not {parallel!r}")
        self.net: Net | None = None if net in ("off", "none", "") else load_net(net)
        if c is None:
            c = DEFAULT_C if self.net is None else DEFAULT_NET_C
        if not 0 <= mix <= 1:
            raise ValueError(f"mix must be 0..1 (the share of a playout in a leaf's value), "
                             f"not {mix!r}")
        self.mix = mix
        if draw is None:
            draw = 0.5 if self.net is None else DEFAULT_NET_DRAW
        if not 0 <= draw <= 1:
            raise ValueError(f"draw must be 0..1 (what a draw is worth: 0.5 is half a win), "
                             f"not {draw!r}")
        self.draw = draw
        if not 0 < c <= MAX_C:
            raise ValueError(f"c must be more than 0 and at most {MAX_C:g}, not {c!r}")
        if policy not in ("random", "win"):
            raise ValueError(f"policy must be 'random' or 'win', not {policy!r}")
        if tm not in ("smart", "flat"):
            raise ValueError(f"tm must be 'smart' or 'flat', not {tm!r}")
        if not MIN_NODES <= nodes <= MAX_NODES:
            raise ValueError(f"nodes must be {MIN_NODES}..{MAX_NODES}, not {nodes!r}")
        capacity = nodes if sims is None else min(nodes, 100 * sims + 10_000)
        trees = 1 if parallel == "tree" else threads
        need = 2 * trees * capacity * mt.BYTES_PER_NODE  # two buffers a tree
        memory = _physical_memory()
        if memory is not None and need > memory:
            raise ValueError(f"nodes={nodes} needs {need / 1e9:.1f} GB of trees, more than "
                             f"this computer's {memory / 1e9:.1f} GB of memory")
        try:
            fixed_margin = None if margin == "auto" else float(margin)
        except ValueError:
            raise ValueError(f"margin must be 'auto' or a number of ms, not {margin!r}") from None
        if fixed_margin is not None and not 0 <= fixed_margin < 1e6:
            raise ValueError(f"margin must be 0 ms or more, not {margin!r}")
        self.fixed_margin = fixed_margin
        self._stall_ms = 0.0  # the longest recent stall (decays from move to move)
        self._extend_lock = threading.Lock()
        self._early_best: int | None = None  # the best move halfway through a bank search
        self.ms = ms
        self.sims = sims
        self.threads = threads
        self.parallel = parallel
        self.c = c
        self.policy = mt.POLICY_WIN if policy == "win" else mt.POLICY_RANDOM
        self.solver = solver
        self.reuse = reuse
        self.nodes = nodes
        self.tm = tm
        self.ponders = ponder and reuse  # without reuse nothing pondered would be kept
        self._pondered = 0  # simulations pondered since the last move
        self.seed = seed if seed is not None else int.from_bytes(np.random.bytes(6), "little")
        if parallel == "tree":
            self.trees = [Tree(capacity, self.seed, workers=threads)]
        else:
            self.trees = [Tree(capacity, self.seed + 7919 * i) for i in range(threads)]
        self._history: list[Move] | None = None
        self._rules: Rules | None = None
        self._pool: ThreadPoolExecutor | None = None
        warm_up("mcts" if self.net is None else ["mcts", "mcts-net"])

    def new_game(self) -> None:
        self._history = None  # the trees stay allocated; the next move resets them
        self._pondered = 0

    # ---- budget

    def _budget(self, board: Board, limit: Limit, start: float) -> Budget:
        fewest = min(x for x in (self.sims, limit.sims, 1 << 62) if x is not None)
        sims = fewest if fewest < 1 << 62 else None
        ms_options = [x for x in (self.ms, limit.move_ms) if x is not None]
        extend = least = None
        if limit.bank_ms is not None:
            plan = self._bank_plan(board, limit)
            ms_options.append(plan.think_ms)
            least = plan.least_ms
            if self.tm == "smart":
                extend = timing.extension_ms(plan)
                if self.ms is not None:
                    extend = min(extend, self.ms)
        if not ms_options and sims is None:
            ms_options.append(DEFAULT_MS)
        if not ms_options:
            return Budget(None, sims)
        ms = min(ms_options)
        safety = SAFETY_MS if self.fixed_margin is None else self.fixed_margin
        deadline = start + timing.search_ms(ms, safety) / 1000
        extend_to = start + timing.extended_ms(extend, safety) / 1000 if extend else None
        if extend_to is not None and extend_to <= deadline:
            extend_to = None
        least_until = start + min(least, ms) / 1000 if least else None
        return Budget(deadline, sims, extend_to, ms, least_until, (start + deadline) / 2)

    def _stall_margin(self, budget: Budget) -> float:
        """Seconds to stop early because the process has lately been descheduled.

        On a loaded machine the OS takes the CPU away for a few ms at a time; a
        search whose last chunk is hit by that overruns by as much. So keep the
        longest recent stall in hand (at most a quarter of the budget).
        """
        if self.fixed_margin is not None:
            return 0.0
        return timing.stall_margin_ms(self._stall_ms, budget.ms) / 1000

    def _time_left(self, budget: Budget, now: float) -> float:
        """Seconds from `now` to the deadline, less the stall margin (budget has a deadline)."""
        assert budget.deadline is not None
        return budget.deadline - self._stall_margin(budget) - now

    def _bank_plan(self, board: Board, limit: Limit) -> timing.BankPlan:
        """(least, planned, most) ms for this move from a time bank (`timing.bank_plan`)."""
        empty = sum(cell is None for cell in board.cells)
        return timing.bank_plan(float(limit.bank_ms or 0.0), float(limit.increment_ms or 0.0),
                                limit.max_bank_ms, empty, flat=self.tm == "flat")

    # ---- search

    def _root(self, board: Board) -> None:
        state = kernel.from_board(board)
        actions = None
        if (
            self.reuse
            and self._history is not None
            and self._rules == board.rules
            and board.move_stack[: len(self._history)] == self._history
        ):
            actions = [m.action for m in board.move_stack[len(self._history) :]]
        for tree in self.trees:
            tree.flags = board.rules.flags
            tree.set_root(state, actions)
        self._history = list(board.move_stack)
        self._rules = board.rules

    def _run(
        self, tree: Tree, budget: Budget, stop: threading.Event, worker: int = 0,
        quota: int | None = None,
    ) -> int:
        """One thread's share of the search: chunks of simulations between clock checks.

        `quota` caps this thread's simulations (its share of `sims=`).
        """
        total = 0
        # Small first chunk when the budget is tiny: it runs before any clock check.
        chunk = 64 if budget.deadline is None or budget.ms >= 20 else 8
        per_sim_best = 1.0  # seconds: the fastest chunk's time per simulation
        stall_cap = STALL_SHARE * budget.ms
        last = time.perf_counter()
        while not stop.is_set():
            if quota is not None:
                left = quota - total
                if left <= 0:
                    break
                n = min(chunk, left)
            else:
                n = chunk
            t0 = time.perf_counter()
            done = tree.search(n, self.c, self.policy, self.solver, worker, self.net, self.mix,
                               self.draw)
            t1 = time.perf_counter()
            total += done
            if done:
                per_sim_best = min(per_sim_best, (t1 - t0) / done)
                # wall time since the last check not explained by the work done,
                # capped as it is used, so one long suspension fades in a few moves
                stall_ms = min(1000 * (t1 - last - done * per_sim_best), stall_cap)
                if stall_ms > self._stall_ms:
                    self._stall_ms = stall_ms
            last = t1
            if done < n:  # root proven
                stop.set()
                break
            if budget.deadline is not None:
                left_s = self._time_left(budget, t1)
                if left_s <= 0:
                    if not self._extend(budget):
                        stop.set()
                        break
                    left_s = self._time_left(budget, t1)
                per_sim = max((t1 - t0) / max(done, 1), 1e-7)
                # chunks of about 1 ms, less near the deadline; at most twice the
                # last one, as a chunk of cheap (proven) simulations underestimates
                # the time a simulation takes
                chunk = int(max(8, min(left_s / 2, 0.001) / per_sim))
                chunk = min(chunk, 2 * n + 8)
                sims_left = len(tree.rngs) * left_s / per_sim  # all threads on this tree
                if budget.extend_to is not None:
                    if self._early_best is None and t1 >= (budget.halfway or t1):
                        self._early_best = self._best_action(tree)
                    if (t1 >= (budget.least_until or t1)  # else the bank would overflow
                            and self._decided(tree, sims_left)):
                        stop.set()
                        break  # a time bank: save the time for a move where it matters
            else:
                chunk = min(chunk * 2, 4096)
        return total

    def _extend(self, budget: Budget) -> bool:
        """At the deadline: move it to `extend_to` if the choice is unclear.

        True if the search goes on. Threads reach the deadline together; the
        lock lets one decide, and the others see the deadline it set.
        """
        with self._extend_lock:
            if self._time_left(budget, time.perf_counter()) > 0:
                return True  # another thread has just extended it
            if budget.extend_to is None or not self._unclear():
                return False
            budget.deadline, budget.extend_to = budget.extend_to, None
            return True

    def _decided(self, tree: Tree, sims_left: float) -> bool:
        """The most visited move cannot be overtaken in the time left (one tree's view)."""
        visits = tree.children()[1]
        if len(visits) < 2:
            return len(visits) == 1
        top2 = np.partition(visits, len(visits) - 2)[-2:]
        return bool(top2[1] - top2[0] > sims_left * 1.2)

    @staticmethod
    def _best_action(tree: Tree) -> int | None:
        """The most visited move at the root of `tree` (None before any expansion)."""
        actions, visits = tree.children()[:2]
        return int(actions[int(np.argmax(visits))]) if len(actions) else None

    def _unclear(self) -> bool:
        """Worth thinking longer: the most visited move is not the best valued one, has
        not half the visits, or is not the one that led halfway through the search."""
        actions, visits, wins = self._merged()[:3]
        if len(actions) < 2:
            return False
        i = int(np.argmax(visits))
        q = wins / np.maximum(visits, 1)
        top = visits >= 0.3 * visits[i]
        changed = self._early_best is not None and int(actions[i]) != self._early_best
        return (bool(np.any(q[top] > q[i] + 0.02)) or visits[i] < 0.5 * visits.sum()
                or changed)

    def _merged(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Root children summed over all trees: actions, visits, wins, status."""
        actions, visits, wins, status = self.trees[0].children()
        if len(self.trees) == 1:
            return actions, visits, wins, status
        visits = visits.copy()
        wins = wins.copy()
        status = status.copy()
        for tree in self.trees[1:]:
            a2, v2, w2, s2 = tree.children()
            if len(a2) != len(actions):
                continue  # not expanded yet
            visits += v2
            wins += w2
            status = np.where(status == mt.UNKNOWN, s2, status)
        return actions, visits, wins, status

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        start = time.perf_counter()
        pondered, self._pondered = self._pondered, 0
        budget = self._budget(board, limit, start)
        self._stall_ms *= STALL_DECAY
        self._early_best = None
        self._root(board)
        stop = threading.Event()  # set by the first thread that decides the search is over
        if self.threads == 1:
            sims = self._run(self.trees[0], budget, stop, 0, budget.sims)
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads)
            if len(self.trees) == 1:  # tree parallelism: every thread on the one tree
                jobs = [(self.trees[0], w) for w in range(self.threads)]
            else:
                jobs = [(tree, 0) for tree in self.trees]
            # `sims` counts all threads' simulations: split it exactly
            quotas: list[int | None] = [None] * self.threads
            if budget.sims is not None:
                q, r = divmod(budget.sims, self.threads)
                quotas = [q + (i < r) for i in range(self.threads)]
            futures = [
                self._pool.submit(self._run, tree, budget, stop, w, quota)
                for (tree, w), quota in zip(jobs, quotas, strict=True)
            ]
            try:
                sims = sum(f.result() for f in futures)
            except BaseException:  # Ctrl-C while waiting: the workers stop too
                stop.set()
                raise
        actions, visits, wins, status = self._merged()
        if len(actions) == 0:  # no time for even one expansion
            move = next(iter(board.legal_moves))
            return PlayResult(move, {"sims": sims, "pondered": pondered,
                                     "ms": 1000 * (time.perf_counter() - start)})
        i = mt.best_of(visits, status)
        best = _move_stat(actions[i], visits[i], wins[i], status[i])
        info = {
            "sims": sims,
            "visits": best.visits,
            "value": best.value,  # expected score for the side to move, 0..1 (a draw: `draw`)
            "proven": best.proven,
            "pv": [str(m) for m in self.principal_variation()],
            "ms": 1000 * (time.perf_counter() - start),
            "nodes": sum(t.used for t in self.trees),
            "pondered": pondered,
        }
        return PlayResult(best.move, info)

    def ponder(self, board: Board, stop: threading.Event, sims: int | None = None) -> int:
        """Search `board` (after this player's move: the opponent to move) with one thread
        until `stop` is set, the root is proven, the tree is full or `sims` simulations
        are done; the next move keeps the subtree of the reply played. The simulations run.

        Chunks of about `PONDER_CHUNK_MS` between looks at `stop`, so a request waits
        no longer than that for the search to be free."""
        if board.is_game_over() or stop.is_set():
            return 0
        # moving the root may compact the tree (one call, not stopped midway): it would
        # otherwise be done on the clock, at the next move
        self._root(board)
        tree = self.trees[0]
        total, n = 0, 64
        while not stop.is_set() and tree.used < tree.capacity:
            if sims is not None:
                n = min(n, sims - total)
                if n <= 0:
                    break
            t0 = time.perf_counter()
            done = tree.search(n, self.c, self.policy, self.solver, 0, self.net, self.mix,
                               self.draw)
            per_sim = max((time.perf_counter() - t0) / max(done, 1), 1e-7)
            total += done
            if done < n:  # root proven
                break
            n = int(max(8, min(PONDER_CHUNK_MS / 1000 / per_sim, 2 * n + 8)))
        self._pondered += total
        return total

    # ---- what the last search found (for analysis)

    def root_moves(self) -> list[MoveStat]:
        """The moves at the root of the last search, with their statistics (summed over
        the trees of all threads), in the order the tree holds them."""
        return [_move_stat(*child) for child in zip(*self._merged(), strict=True)]

    def principal_variation(self, limit: int = 20) -> list[Move]:
        """The best line from the root of the last search, for both sides.

        With a tree per thread (``parallel=root``) only the best move is known.
        """
        if len(self.trees) == 1:
            return [Move.from_action(a) for a in self.trees[0].pv(limit)]
        actions, visits, _, status = self._merged()
        if len(actions) == 0:
            return []
        return [Move.from_action(int(actions[mt.best_of(visits, status)]))]

    def __del__(self) -> None:
        pool: ThreadPoolExecutor | None = getattr(self, "_pool", None)  # None: __init__ failed
        if pool is not None:
            pool.shutdown(wait=False)


def _physical_memory() -> int | None:
    """Bytes of memory this computer has, if the OS says."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


__all__ = ["MCTSPlayer", "MoveStat", "Tree"]
