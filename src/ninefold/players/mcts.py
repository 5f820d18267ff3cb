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
                             with the network in a file: ``net=PATH`` (``net=off``: none;
                             a fast network's file, `ninefold.players.fastnet`, is
                             searched as fast as one simulation a microsecond or two)
    mcts:refine=16           with a fast network: the shipped network replaces a node's
                             priors with its own once the node has 16 visits (the
                             fast network values every leaf and gives the first
                             priors; the slow one's policy where the search spends
                             its time; 2 or more; default off)
    mcts:quant=off           with a network, its first layer in float32 as trained (the
                             default, ``on``: in 16-bit integers, faster, as strong)
    mcts:mix=0               with a network, value a leaf by this share of a playout's
                             result and the rest the network's (default 0.25; 0: the
                             network alone)
    mcts:draw=0.5            what a draw is worth to this player, 0..1: less plays on for
                             a win, more settles for a draw (default 0.5, half a win;
                             0.3 with a network)
    mcts:c=0.5               exploration constant of UCT, or of PUCT with a network
                             (rewards are 1 / 0.5 / 0; 0 < c <= 10)
    mcts:policy=win          playouts take a move that wins the game at once (``random``: never)
    mcts:solver=off          no MCTS-solver
    mcts:reuse=off           start every move from an empty tree
    mcts:nodes=2000000       tree capacity (per thread with parallel=root; two buffers of
                             it: about 48 MB each; all of them must fit in memory;
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
subtree of the moves actually played), decides how long to think
(`ninefold.timing.move_budget`), and combines the trees of several threads.
One loop drives every search, `MCTSPlayer.search`, in slices of about a
millisecond, yielding `Snapshot`s of the root: a move (`play`), pondering,
analyses and self-play all use it.

>>> from ninefold import Board
>>> from ninefold.players import Limit, make_player
>>> player = make_player("mcts:sims=2000,seed=1")
>>> result = player.play(Board(), Limit())
>>> result.move in Board().legal_moves, result.info["sims"] >= 1
(True, True)
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ninefold import kernel, timing
from ninefold.players import mcts_tree as mt
from ninefold.players.fastnet import SearchFastNet, is_fast_net, load_fast_net
from ninefold.players.fastnet import for_search as fast_for_search
from ninefold.players.net import SearchNet, for_search, load_net
from ninefold.players.net_inputs import net_path
from ninefold.players.player import MAX_MS, Limit, Player, PlayResult, check_positive
from ninefold.players.registry import register
from ninefold.players.warmup import compile_searches
from ninefold.rules import Board, Move, Rules
from ninefold.system import physical_memory_bytes, usable_cpus

# Defaults chosen by measurement (docs/research/search-choices.md has the numbers).
DEFAULT_C = 0.6
DEFAULT_NET_C = 1.0  # PUCT's constant with a network
DEFAULT_MIX = 0.25  # with a network, a quarter of a leaf's value is a playout's
DEFAULT_FAST_C = 1.0  # PUCT's constant with a fast network
DEFAULT_NET_DRAW = 0.3  # with a network, a draw is worth 0.3 (without: 0.5, half a win)
# the time budget's numbers live in ninefold.timing
SAFETY_MS = timing.MCTS_SAFETY_MS
STALL_DECAY = timing.STALL_DECAY
# Limits on the options, against typing slips: a search of hours, a tree larger
# than a node index (int32) reaches, an exploration term that drowns the values.
MAX_SIMS = 10**10
MIN_NODES, MAX_NODES = 1000, 2**31 - 100
MAX_C = 10.0
PONDER_CHUNK_MS = 1.0  # pondering looks whether to stop this often


class Tree:
    """One search tree (`mcts_tree.TreeArrays`) and the position at its root."""

    def __init__(self, capacity: int, seed: int, workers: int = 1, hidden: int = 0,
                 sums_bytes: int = mt.SUMS_BYTES) -> None:
        self.capacity = capacity
        self.arrays = mt.alloc(capacity)
        self.spare = mt.alloc(capacity)  # compaction copies the kept subtree here
        # a fast network's hidden sums kept per node (`hidden` units; 0: no fast network)
        self.sums = mt.alloc_sums(capacity, hidden, sums_bytes) if hidden else None
        self.root_state: np.ndarray | None = None
        self.flags = 0  # the rules' kernel flags, set with each new root
        # one random stream per thread searching this tree
        self.rngs = [kernel.make_rng(seed + 104_729 * i) for i in range(workers)]
        # cycle counters the searches add each part's time to (`mcts_tree.PARTS`; set by
        # benchmarks/sim_profile.py), or None: not timed
        self.parts: np.ndarray | None = None
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
                    self._clear_sums(self.used)  # the nodes have new numbers
                elif self.sums is not None and self.sums.used[0] > len(self.sums.acc) // 2:
                    self._clear_sums(self.used)  # room for this move's nodes
                return True
        mt.reset(self.arrays)
        self._clear_sums(1)
        self.root_state = state.copy()
        return False

    def _clear_sums(self, nodes: int) -> None:
        if self.sums is not None:
            mt.clear_sums(self.sums, nodes)

    def search(self, sims: int, c: float, policy: int, solver: bool, worker: int = 0,
               net: SearchNet | None = None, mix: float = 0.0, draw: float = 0.5,
               fnet: SearchFastNet | None = None, refine: int = 0) -> int:
        assert self.root_state is not None
        # (`parts` left out, not None, when not timed: the signature the warm-up compiled)
        timed = () if self.parts is None else (self.parts,)
        return int(mt.search(self.arrays, self.root_state, self.flags, sims, c, policy, solver,
                             self.rngs[worker], net, mix, draw, len(self.rngs) > 1, fnet,
                             refine, self.sums if fnet is not None else None, *timed))

    def children(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(actions, visits, wins, status) of the root's children."""
        return mt.children(self.arrays, self.root)

    def pv(self, limit: int = 20) -> list[int]:
        return [int(x) for x in mt.principal_variation(self.arrays, limit)]

    def line(self, action: int, limit: int) -> list[int]:
        """The actions from the root along `action`, then the best children, while
        nodes have visits or a proven status (at most `limit`)."""
        arrays = self.arrays
        node = mt.find_child(arrays, self.root, action)
        line = [action]
        while node >= 0 and len(line) < limit:
            node = mt.best_child(arrays, node)
            if node < 0 or (arrays.visits[node] == 0 and arrays.status[node] == mt.UNKNOWN):
                break
            line.append(int(arrays.move[node]))
        return line


@dataclass
class Budget:
    """When to stop one search."""

    deadline: float | None  # perf_counter time, or None
    sims: int | None
    extend_to: float | None = None  # a later deadline allowed when the choice is unclear
    ms: float = 0.0  # the time the deadline allows, for the cap on the stall margin
    least_until: float | None = None  # a time bank: no early stop before this (overflow)
    halfway: float | None = None  # a time bank: the best move is noted here, to see it change
    pondering: bool = False  # no deadline, yet slices of `PONDER_CHUNK_MS`; stop when full


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
ROOT_FLIP = {mt.WIN_: mt.LOSS, mt.LOSS: mt.WIN_, mt.DRAW: mt.DRAW}  # the root's status is
# for the side that moved into it: the mover's is the other way round


def _move_stat(action: int, visits: int, wins: float, status: int) -> MoveStat:
    """A root child's statistics as a `MoveStat` (a proven value beats the average)."""
    status = int(status)
    value = PROVEN_VALUE.get(status, wins / visits if visits else 0.5)
    return MoveStat(Move.from_action(int(action)), int(visits), float(value), PROVEN.get(status))


Children = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # actions, visits, wins, status


@dataclass(frozen=True)
class Snapshot:
    """What a search (`MCTSPlayer.search`) has found so far: its simulations and
    seconds, whether it is over (`done`), the root's children summed over the trees
    (`children`: actions, visits, wins, status, in the tree's order) and the root's
    own status (`root_status`, for the side that moved into it)."""

    sims: int
    seconds: float
    done: bool
    children: Children
    root_status: int

    @property
    def moves(self) -> list[MoveStat]:
        """Every move at the root with its statistics, in the tree's order."""
        return [_move_stat(*child) for child in zip(*self.children, strict=True)]

    @property
    def ranked(self) -> list[MoveStat]:
        """The moves best first: proven wins, then by visits (a draw among the unproven),
        proven losses last."""
        order = {"win": 0, None: 1, "draw": 1, "loss": 2}
        return sorted(self.moves, key=lambda m: (order[m.proven], -m.visits))

    @property
    def best(self) -> MoveStat | None:
        """The move the search plays (None before the root is expanded)."""
        actions, visits, wins, status = self.children
        if len(actions) == 0:
            return None
        i = mt.best_of(visits, status)
        return _move_stat(actions[i], visits[i], wins[i], status[i])

    @property
    def proven(self) -> str | None:
        """The position solved (``"win"``, ``"draw"``, ``"loss"``) for the side to move."""
        return PROVEN.get(ROOT_FLIP.get(self.root_status, mt.UNKNOWN))

    @property
    def value(self) -> float:
        """The expected score of the side to move, 0..1 (its best move's; 0.5 unknown)."""
        if self.proven is not None:
            return PROVEN_VALUE[ROOT_FLIP[self.root_status]]
        best = self.best
        return 0.5 if best is None else best.value


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
        mix: float | None = None,
        draw: float | None = None,
        ponder: bool = False,
        quant: bool = True,
        refine: int = 0,
    ) -> None:
        check_positive("ms", ms, MAX_MS, "a day")
        check_positive("sims", sims, MAX_SIMS, "hours of search")
        cpus = usable_cpus()
        if not 1 <= threads <= cpus:
            raise ValueError(f"threads={threads} is not possible: this process may use "
                             f"{cpus} CPU{'s' if cpus > 1 else ''} (threads=1..{cpus})")
        if parallel not in ("tree", "root"):
            raise ValueError(f"parallel must be 'tree' or 'root', not {parallel!r}")
        self.net: SearchNet | None = None
        self.fnet: SearchFastNet | None = None  # a fast network instead (fastnet)
        if net not in ("off", "none", ""):
            if is_fast_net(net_path(net)):
                self.fnet = fast_for_search(load_fast_net(net_path(net)))
            else:
                self.net = for_search(load_net(net), quant)
        if refine:
            if not 2 <= refine <= MAX_SIMS:
                raise ValueError(f"refine must be 2 or more (the visits at which the shipped "
                                 f"network's priors replace the fast one's), not {refine!r}")
            if self.fnet is None:
                raise ValueError("refine=N needs a fast network (net=FILE of one): the "
                                 "shipped network refines that network's priors")
            self.net = for_search(load_net("default"), quant)
        self.refine = refine
        if c is None:
            c = (DEFAULT_FAST_C if self.fnet is not None
                 else DEFAULT_C if self.net is None else DEFAULT_NET_C)
        if mix is None:
            mix = DEFAULT_MIX
        if not 0 <= mix <= 1:
            raise ValueError(f"mix must be 0..1 (the share of a playout in a leaf's value), "
                             f"not {mix!r}")
        self.mix = mix
        if draw is None:
            draw = 0.5 if self.net is None and self.fnet is None else DEFAULT_NET_DRAW
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
        memory = physical_memory_bytes()
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
        hidden = 0 if self.fnet is None else self.fnet.b1q.shape[0]
        if parallel == "tree":
            self.trees = [Tree(capacity, self.seed, workers=threads, hidden=hidden)]
        else:
            self.trees = [Tree(capacity, self.seed + 7919 * i, hidden=hidden,
                               sums_bytes=mt.SUMS_BYTES // threads) for i in range(threads)]
        self._history: list[Move] | None = None
        self._rules: Rules | None = None
        self._pool: ThreadPoolExecutor | None = None
        compile_searches(["mcts", "mcts-hybrid"] if refine
                         else ["mcts", "mcts-net"] if self.net is not None
                         else ["mcts", "mcts-fast"] if self.fnet is not None else "mcts")

    def new_game(self) -> None:
        self._history = None  # the trees stay allocated; the next move resets them
        self._pondered = 0

    # ---- budget

    def _budget(self, board: Board, limit: Limit, start: float) -> Budget:
        fewest = min(x for x in (self.sims, limit.sims, 1 << 62) if x is not None)
        sims = fewest if fewest < 1 << 62 else None
        plan = timing.move_budget(
            own_ms=self.ms, move_ms=limit.move_ms, bank_ms=limit.bank_ms,
            increment_ms=limit.increment_ms or 0.0, max_bank_ms=limit.max_bank_ms,
            empty=sum(cell is None for cell in board.cells), counted=sims is not None,
            flat=self.tm == "flat", extend=self.tm == "smart")
        ms = plan.think_ms
        if ms is None:
            return Budget(None, sims)
        safety = SAFETY_MS if self.fixed_margin is None else self.fixed_margin
        deadline = start + timing.search_ms(ms, safety) / 1000
        extend = plan.extend_ms
        extend_to = start + timing.extended_ms(extend, safety) / 1000 if extend else None
        if extend_to is not None and extend_to <= deadline:
            extend_to = None
        least_until = start + plan.least_ms / 1000 if plan.least_ms else None
        return Budget(deadline, sims, extend_to, ms, least_until, (start + deadline) / 2)

    def _stall_margin(self, budget: Budget) -> float:
        """Seconds to stop early because the process has lately been descheduled.

        On a loaded machine the OS takes the CPU away for a few ms at a time; a
        search whose last chunk is hit by that overruns by as much. So keep the
        longest recent stall in hand (`timing.stall_margin_ms`: at most a share of
        the budget).
        """
        if self.fixed_margin is not None:
            return 0.0
        return timing.stall_margin_ms(self._stall_ms, budget.ms) / 1000

    def _time_left(self, budget: Budget, now: float) -> float:
        """Seconds from `now` to the deadline, less the stall margin (budget has a deadline)."""
        assert budget.deadline is not None
        return budget.deadline - self._stall_margin(budget) - now

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
        quota: int | None = None, gaps: Iterator[float] | None = None,
    ) -> Generator[int, None, int]:
        """One thread's share of the search: slices of simulations between clock checks.
        Returns its simulations (`_finish` runs it through).

        `quota` caps this thread's simulations (its share of `sims=`); with `gaps`
        (seconds), it yields its simulations so far after each gap, between slices.
        """
        total = 0
        # Small first chunk when the budget is tiny: it runs before any clock check.
        chunk = 64 if budget.deadline is None or budget.ms >= 20 else 8
        per_sim_best = 1.0  # seconds: the fastest chunk's time per simulation
        stall_cap = timing.stall_margin_ms(math.inf, budget.ms)  # the most a stall counts
        last = time.perf_counter()
        report = math.inf if gaps is None else last + next(gaps, math.inf)
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
                               self.draw, self.fnet, self.refine)
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
            elif budget.pondering:  # slices of about `PONDER_CHUNK_MS`, until the tree is full
                if tree.used >= tree.capacity:
                    break
                per_sim = max((t1 - t0) / max(done, 1), 1e-7)
                chunk = int(max(8, min(PONDER_CHUNK_MS / 1000 / per_sim, 2 * n + 8)))
            else:
                chunk = min(chunk * 2, 4096)
            if t1 >= report:
                yield total
                report = time.perf_counter() + next(gaps, math.inf)  # type: ignore[arg-type]
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

    def search(self, board: Board, limit: Limit | None = None,
               stop: threading.Event | None = None,
               gaps: Iterable[float] = ()) -> Iterator[Snapshot]:
        """Search `board` (the tree kept from earlier moves where it can be) within the
        move's budget (`limit`, and this player's own options: `timing.move_budget`)
        until it is spent, `stop` is set or the root is proven; yield a `Snapshot`
        after each gap of `gaps` (seconds) and a last one (``done``) at the end.
        Closing the generator stops the search. `choose`, analyses and self-play all
        search through this.

        >>> player = MCTSPlayer(sims=300, seed=1)
        >>> [(s.done, s.sims) for s in player.search(Board())]
        [(True, 300)]
        """
        start = time.perf_counter()
        budget = self._budget(board, limit or Limit(), start)
        self._stall_ms *= STALL_DECAY
        self._early_best = None
        self._root(board)
        if self.threads == 1:
            jobs = [(self.trees[0], 0)]
        elif len(self.trees) == 1:  # tree parallelism: every thread on the one tree
            jobs = [(self.trees[0], w) for w in range(self.threads)]
        else:
            jobs = [(tree, 0) for tree in self.trees]
        return self._drive(jobs, budget, stop or threading.Event(), start, iter(gaps))

    def _drive(self, jobs: list[tuple[Tree, int]], budget: Budget, stop: threading.Event,
               start: float, gaps: Iterator[float]) -> Iterator[Snapshot]:
        """Run `jobs` (tree, worker), the first in this thread (which yields the
        snapshots), the others in the pool; `stop` ends them all."""
        # `sims` counts all threads' simulations: split it exactly
        quotas: list[int | None] = [None] * len(jobs)
        if budget.sims is not None:
            q, r = divmod(budget.sims, len(jobs))
            quotas = [q + (i < r) for i in range(len(jobs))]
        futures = []
        if len(jobs) > 1:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads - 1)
            futures = [self._pool.submit(_finish, self._run(tree, budget, stop, w, quota))
                       for (tree, w), quota in zip(jobs[1:], quotas[1:], strict=True)]
        (tree, worker), quota = jobs[0], quotas[0]
        run = self._run(tree, budget, stop, worker, quota, gaps)
        sims = 0
        try:
            while True:
                try:
                    sims = next(run)
                except StopIteration as end:
                    sims = end.value
                    break
                # the other threads' simulations are counted at the end: guessed here
                yield self._snapshot(sims * len(jobs), start, False)
        except BaseException:  # Ctrl-C, or a caller that stops reading: all threads stop
            stop.set()
            raise
        finally:
            sims += sum(f.result() for f in futures)
        yield self._snapshot(sims, start, True)

    def _snapshot(self, sims: int, start: float, done: bool) -> Snapshot:
        tree = self.trees[0]
        return Snapshot(sims, time.perf_counter() - start, done, self._merged(),
                        int(tree.arrays.status[tree.root]))

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        pondered, self._pondered = self._pondered, 0
        *_, last = self.search(board, limit)
        best = last.best
        if best is None:  # no time for even one expansion
            move = next(iter(board.legal_moves))
            return PlayResult(move, {"sims": last.sims, "pondered": pondered,
                                     "ms": 1000 * last.seconds})
        info = {
            "sims": last.sims,
            "visits": best.visits,
            "value": best.value,  # expected score for the side to move, 0..1 (a draw: `draw`)
            "proven": best.proven,
            "pv": [str(m) for m in self.principal_variation()],
            "ms": 1000 * last.seconds,
            "nodes": sum(t.used for t in self.trees),
            "pondered": pondered,
        }
        return PlayResult(best.move, info)

    def ponder(self, board: Board, stop: threading.Event, sims: int | None = None) -> int:
        """Search `board` (after this player's move: the opponent to move) with one thread
        until `stop` is set, the root is proven, the tree is full or `sims` simulations
        are done; the next move keeps the subtree of the reply played. The simulations run.

        Slices of about `PONDER_CHUNK_MS` between looks at `stop`, so a request waits
        no longer than that for the search to be free."""
        if board.is_game_over() or stop.is_set():
            return 0
        # moving the root may compact the tree (one call, not stopped midway): it would
        # otherwise be done on the clock, at the next move
        self._root(board)
        budget = Budget(None, sims, pondering=True)
        *_, last = self._drive([(self.trees[0], 0)], budget, stop, time.perf_counter(),
                               iter(()))
        self._pondered += last.sims
        return last.sims

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

    def line(self, move: Move, limit: int = 20) -> list[Move]:
        """The line the last search expects after `move` at its root, `move` first
        (the first tree's view), at most `limit` moves."""
        return [Move.from_action(a) for a in self.trees[0].line(move.action, limit)]

    def __del__(self) -> None:
        pool: ThreadPoolExecutor | None = getattr(self, "_pool", None)  # None: __init__ failed
        if pool is not None:
            pool.shutdown(wait=False)


def _finish(run: Generator[int, None, int]) -> int:
    """Run one thread's search (`MCTSPlayer._run`) to its end: its simulations."""
    while True:
        try:
            next(run)
        except StopIteration as end:
            done: int = end.value
            return done


__all__ = ["MCTSPlayer", "MoveStat", "Snapshot", "Tree"]
