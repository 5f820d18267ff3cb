"""The numba half of the MCTS player: a UCT tree in flat preallocated arrays.

No Python object per node. A tree is a `TreeArrays`: seven views, indexed by
node number, into one array of 24-byte node records (`NODE`), plus a small
`meta` array (the fields are described there); the children of a node sit
next to each other, so a selection reads a node's children from a few
consecutive cache lines. Numba takes the named tuple as one argument, so the
layout is written once.

The search is MCTS-solver (Winands et al. 2008): a node whose move ends the game
gets its exact value; a node with a winning child is a proven loss for the
player who moved into it; a node whose children are all proven takes the
best of them. Selection skips proven losses; a simulation that reaches a
proven node stops there and backs up its exact value (no playout), so the
search stops wasting playouts on decided lines and proofs climb the tree. At expansion a move that
wins the game at once is marked WIN without playing it.

Every function is iterative (no recursion: numba issue 6061 breaks the on-disk
cache) and `nogil`. Several threads may run `search` on one tree at once (tree
parallelism, Chaslot et al. 2008, lock-free as in Enzenberger and Müller 2009):

- a simulation counts its visit on each node as it selects it, and adds the
  reward only on the way back, so a line another thread is playing out looks
  like a loss until then ("virtual loss") and the threads spread out;
- visit counts, rewards and the count of nodes in use change by atomic adds
  (`ninefold.players.atomics`), so no update is lost;
- a thread claims a node for expansion by swapping `first` from -1 to
  EXPANDING, writes the children, then publishes them with a release store;
  a thread that finds a node being expanded plays out from it instead;
- proven values are plain byte writes: a stale read only delays a proof.

A search that has the tree to itself (one thread; a tree per thread with
root parallelism) says so with ``shared=False`` and does the same with plain
adds, loads and stores: the same trees, about 0.04 µs less a simulation
(5% of one with a network that costs almost nothing; benchmarks/tree_speed.py).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ninefold.jitcache import njit
from ninefold.kernel import (
    COMPLETING,
    NTH,
    RESULT,
    SIDE,
    STATE_SIZE,
    count_moves,
    empty_cells,
    make_rng,
    new_state,
    play,
    playable_boards,
    random_move,
    winning_action,
    winning_boards,
)
from ninefold.players import warmup
from ninefold.players.atomics import atomic_add, atomic_cas, atomic_load, atomic_store
from ninefold.players.cycles import lap
from ninefold.players.fastnet import (
    MAX_ACTIVE,
    WORDS,
    SearchFastNet,
    feature_set,
    features,
    policy_head,
    random_fast_net,
    sum_rows,
    sums_from,
    value_head,
)
from ninefold.players.fastnet import for_search as fast_for_search
from ninefold.players.net import SearchNet, evaluate_arrays, for_search, new_scratch, random_net

UNKNOWN, LOSS, DRAW, WIN_ = -1, 0, 1, 2
ROOT, USED = 0, 1  # the two entries of `meta`
EXPANDING = -2  # first[n] while one thread writes n's children
FPU_REDUCTION = 0.1  # PUCT: an unvisited child is valued at its parent's value less this

POLICY_RANDOM = 0  # uniform random playouts
POLICY_WIN = 1  # take a move that wins the game at once, else uniform

NO_PRIORS, NET_PRIORS, EQUAL_PRIORS = 0, 1, 2  # how `_expand` sets its children's priors

# The parts of a simulation `search` times when given an array of `len(PARTS)` counters
# (`ninefold.players.cycles`; benchmarks/sim_profile.py): their indices, then their names.
LEAF, EXPAND, PLAYOUT, KEEP, FAST_POLICY, REFINE, SELECT, DESCEND, BACKUP = range(9)
PARTS = ("leaf value", "expansion", "playout", "sums kept (leaf)", "fast policy (2nd visit)",
         "shipped priors (refine)", "selection", "move and visit", "backup")


class TreeArrays(NamedTuple):
    """A search tree, node `n` at index `n` of each field.

    The seven node fields are views into one array of records (`NODE`), so a
    node's fields share a cache line and the children a selection scans lie
    in a few consecutive lines; `alloc` makes one.
    """

    first: np.ndarray  # index of n's first child, -1 while n is not expanded
    nchild: np.ndarray  # how many children n has
    move: np.ndarray  # the action (9 * board + cell) that leads from n's parent to n
    visits: np.ndarray  # simulations through n
    wins: np.ndarray  # their total reward for the player who *made* move[n] (1, 0.5, 0)
    status: np.ndarray  # the proven value for that same player: UNKNOWN, LOSS, DRAW, WIN_
    prior: np.ndarray  # the network's probability of move[n] (0 without a network)
    meta: np.ndarray  # [root, used]: the root's node number, nodes handed out (past
    # the capacity once the tree is full)


# A node's record: the fields the selection reads of each child, then the rest (24 bytes).
NODE = np.dtype([("visits", np.int32), ("prior", np.float32), ("wins", np.float64),
                 ("first", np.int32), ("status", np.int8), ("move", np.int8),
                 ("nchild", np.int8)], align=True)
BYTES_PER_NODE = NODE.itemsize


class Sums(NamedTuple):
    """The fast network's hidden sums kept per node (`ninefold.players.fastnet`), so that
    a leaf's are its grandparent's plus the rows of the few features that two moves
    change (`fastnet.sums_from`) instead of a row for each of its 10 to 90 features.
    The grandparent, not the parent: the features are seen by the side to move.

    A pool of `acc.shape[0]` slots, handed out in order as nodes are expanded; a node
    whose grandparent has none (the pool ran out, the root's children) sums its rows
    from the bias. An expanded node without a slot (the root; a tree kept from the last
    move once the pool was emptied or the tree compacted) is given one when the search
    next passes through it, while the pool has room. `alloc_sums` makes one,
    `clear_sums` empties it.
    """

    slot: np.ndarray  # (tree capacity,) int32: node n's slot, -1 none
    acc: np.ndarray  # (slots, hidden) int16: the hidden sums of the slot's node
    bits: np.ndarray  # (slots, WORDS) uint64: its features that are on, as a set
    used: np.ndarray  # (1,) int64: slots handed out (past the pool's size once it is full)


SUMS_BYTES = 128 * 2**20  # a pool's size: about 60,000 nodes at 1,024 hidden units


def alloc_sums(capacity: int, hidden: int, budget: int = SUMS_BYTES) -> Sums:
    """An empty pool of hidden sums for a tree of `capacity` nodes and a fast network of
    `hidden` units, as many slots as `budget` bytes hold (at most one a node).

    >>> sums = alloc_sums(1000, 256, budget=100 * (2 * 256 + 8 * WORDS))
    >>> sums.acc.shape, int(sums.slot[0]), int(sums.used[0])
    ((100, 256), -1, 0)
    """
    slots = max(1, min(capacity, budget // (2 * hidden + 8 * WORDS)))
    return Sums(np.full(capacity, -1, np.int32), np.zeros((slots, hidden), np.int16),
                np.zeros((slots, WORDS), np.uint64), np.zeros(1, np.int64))


def clear_sums(sums: Sums, nodes: int) -> None:
    """Forget every node's slot (the first `nodes` nodes are all that can have one)."""
    sums.slot[:nodes] = -1
    sums.used[0] = 0


def alloc(capacity: int) -> TreeArrays:
    """A tree of `capacity` nodes, zeroed (every page touched now).

    >>> tree = alloc(100)
    >>> reset(tree)
    >>> tree.first.shape, int(tree.meta[USED]), tree.wins.strides
    ((100,), 1, (24,))
    """
    nodes = np.empty(capacity, NODE)
    nodes.view(np.uint8).fill(0)  # not np.zeros: it may leave the pages untouched until a search
    fields = {name: nodes[name] for name in TreeArrays._fields[:-1]}
    return TreeArrays(**fields, meta=np.zeros(2, np.int64))


@njit(cache=True, inline="always")
def playout(s: np.ndarray, flags: int, policy: int, x: np.uint64) -> tuple[int, np.uint64]:
    """Play `s` to the end; returns (result, rng). Result: 0 draw, 1 X won, 2 O won."""
    while s[RESULT] < 0:
        if policy == POLICY_WIN:
            a = winning_action(s, flags)
            if a >= 0:
                play(s, a // 9, a % 9, flags)
                continue
        b, c, x = random_move(s, x)
        play(s, b, c, flags)
    return s[RESULT], x


# --- the tree ------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def reset(t: TreeArrays) -> None:
    """An empty tree: one unexpanded root."""
    t.first[0] = -1
    t.nchild[0] = 0
    t.move[0] = -1
    t.visits[0] = 0
    t.wins[0] = 0.0
    t.status[0] = UNKNOWN
    t.prior[0] = 1.0
    t.meta[ROOT] = 0
    t.meta[USED] = 1


@njit(cache=True, nogil=True, inline="always")
def _add(shared: bool, a: np.ndarray, i: int, value: Any) -> Any:
    """a[i] += value; returns the old a[i]. An atomic add only when `shared` (threads
    search the tree): a locked add takes some twenty cycles, and the reward's
    floating-point add is a compare-and-swap loop on x86."""
    if shared:
        return atomic_add(a, i, value)
    old = a[i]
    a[i] = old + value
    return old


@njit(cache=True, nogil=True, inline="always")
def _load(shared: bool, a: np.ndarray, i: int) -> Any:
    """a[i]; when `shared`, an acquire load (it sees the writes a matching release store
    published)."""
    return atomic_load(a, i) if shared else a[i]


@njit(cache=True, nogil=True, inline="always")
def _store(shared: bool, a: np.ndarray, i: int, value: int) -> None:
    """a[i] = value; when `shared`, a release store (published after every earlier
    write)."""
    if shared:
        atomic_store(a, i, value)
    else:
        a[i] = value


@njit(cache=True, nogil=True, inline="always")
def _softmax_priors(prior: np.ndarray, move: np.ndarray, f: int, k: int,
                    logits: np.ndarray) -> None:
    """Set the priors of the `k` children from `f` to the softmax of `logits` (by action)
    over their moves."""
    top = logits[move[f]]
    for i in range(f + 1, f + k):
        top = max(top, logits[move[i]])
    total = 0.0
    for i in range(f, f + k):
        p = np.exp(logits[move[i]] - top)
        prior[i] = p
        total += p
    for i in range(f, f + k):
        prior[i] /= total


@njit(cache=True, inline="always")
def _expand(t: TreeArrays, node: int, s: np.ndarray, flags: int, logits: np.ndarray,
            priors: int, shared: bool, slot: np.ndarray) -> int:
    """Give `node` (whose position is `s`) its children; their priors are, as `priors`
    says, none (0), the softmax of `logits` (indexed by action) over the legal moves
    (NET_PRIORS) or all equal (EQUAL_PRIORS). When `slot` has entries (`Sums`), the
    children have no slot yet.

    Returns 1 if it did, 0 if another thread is expanding or has expanded it,
    -1 if the tree is full. Not `shared`, plain loads and stores do.
    """
    first, status = t.first, t.status
    if _load(shared, t.meta, USED) >= first.shape[0]:
        return -1  # full: don't make the other threads fight over `meta` for nothing
    if shared:
        if not atomic_cas(first, node, -1, EXPANDING):
            return 0
    elif first[node] != -1:
        return 0
    k = count_moves(s)
    used = _add(shared, t.meta, USED, k)
    if used + k > first.shape[0]:
        # Full. The count is not given back: another thread may have taken
        # nodes after ours, and handing ours out again would overlap them.
        _store(shared, first, node, -1)
        return -1
    boards = playable_boards(s)
    side = s[SIDE]
    winners = winning_boards(s, flags)
    n = used
    won = False
    while boards:
        b = NTH[boards, 0]
        boards &= boards - 1
        e = empty_cells(s, b)
        w = 0
        if winners >> b & 1:
            w = COMPLETING[s[9 * side + b]] & e
        while e:
            c = NTH[e, 0]
            e &= e - 1
            first[n] = -1
            t.nchild[n] = 0
            t.move[n] = 9 * b + c
            t.visits[n] = 0
            t.wins[n] = 0.0
            t.prior[n] = 1.0 / k if priors == EQUAL_PRIORS else 0.0  # NET_PRIORS: below
            if slot.shape[0]:
                slot[n] = -1
            if w >> c & 1:
                status[n] = WIN_
                won = True
            else:
                status[n] = UNKNOWN
            n += 1
    if priors == NET_PRIORS:
        _softmax_priors(t.prior, t.move, used, k, logits)
    t.nchild[node] = k
    if won:
        status[node] = LOSS
    _store(shared, first, node, used)  # publish: the children are written
    return 1


@njit(cache=True, nogil=True, inline="always")
def _keep_sums(shared: bool, slot: np.ndarray, acc: np.ndarray, bits: np.ndarray,
               used: np.ndarray, node: int, node_acc: np.ndarray, node_bits: np.ndarray
               ) -> None:
    """Keep the hidden sums and feature set of `node`, just expanded, in the pool's next
    slot (none once the pool is full). The slot is published after its contents."""
    k = _add(shared, used, 0, 1)
    if k >= acc.shape[0]:
        return
    for j in range(node_acc.shape[0]):
        acc[k, j] = node_acc[j]
    for w in range(WORDS):
        bits[k, w] = node_bits[w]
    _store(shared, slot, node, k)


@njit(cache=True, nogil=True, inline="always")
def _hidden_sums(shared: bool, s: np.ndarray, flags: int, grand: int, w1q: np.ndarray,
                 b1q: np.ndarray, slot: np.ndarray, acc: np.ndarray, bits: np.ndarray,
                 idx: np.ndarray, node_bits: np.ndarray, rows: np.ndarray,
                 node_acc: np.ndarray) -> None:
    """The fast network's hidden sums of position `s` into `node_acc` (and, with a pool
    of `Sums`, its feature set into `node_bits`): from those kept for `grand`, the node
    two moves up (-1: none), when it has a slot, else from the bias."""
    n = features(s, flags, idx)
    g = _load(shared, slot, grand) if grand >= 0 and slot.shape[0] else -1
    if slot.shape[0]:
        feature_set(idx, n, node_bits)
    if g >= 0:
        sums_from(w1q, acc[g], bits[g], node_bits, rows, node_acc)
    else:
        sum_rows(w1q, b1q, idx, n, node_acc)


@njit(cache=True, nogil=True, inline="always")
def _reward(result: int, draw_x: float) -> float:
    """A playout's `result` (0 draw, 1 X won, 2 O won) as a reward for X."""
    return draw_x if result == 0 else (1.0 if result == 1 else 0.0)


@njit(cache=True, nogil=True)
def search(
    t: TreeArrays, root_state: np.ndarray, flags: int, sims: int, c: float, policy: int,
    solver: bool, rng: np.ndarray, net: SearchNet | None = None, mix: float = 0.0,
    draw: float = 0.5, shared: bool = True, fnet: SearchFastNet | None = None,
    refine: int = 0, sums: Sums | None = None, parts: np.ndarray | None = None,
) -> int:
    """Run up to `sims` simulations from the root; returns how many ran.

    Without `net`: UCT, a new leaf is expanded on its second visit and valued
    by a playout. With `net` (PUCT): a leaf is expanded on its first visit,
    its children get the network's move probabilities as priors, and it is
    valued by the network, mixed with a playout's result in the share `mix`.
    With a fast network `fnet` instead (`ninefold.players.fastnet`), the same
    (with equal priors if it has no policy). With both, the fast network
    values every leaf and gives its children their first priors, and `net`
    replaces those priors with its own when the node's visits reach `refine`
    (at least 2): the slow network's policy where the search spends its time,
    the fast one's at the frontier. With `sums` (`Sums`, the fast network's
    hidden size) an expanded node keeps its hidden sums, and a leaf starts from
    its grandparent's.

    With `parts` (`len(PARTS)` int64 counters) the processor cycles each part of a
    simulation takes are added to them, by `PARTS`; without, the timing costs nothing.

    `draw` is what a draw is worth to the player at the root (0.5: half a
    win); below 0.5 the search plays on for a win where it can, above it
    settles. It values drawn playouts and drawn ends; the network's value
    stays an expected score.

    Stops early when the root is proven (with `solver`). Threads may call this
    on one tree at once, each with its own `rng`, if each says `shared`; a
    search that has the tree to itself may say not (plain adds, loads and
    stores instead of atomics: the same results, faster).
    """
    first, nchild, move, status, prior = t.first, t.nchild, t.move, t.status, t.prior
    visits, wins = t.visits, t.wins
    s = np.empty_like(root_state)
    path = np.empty(90, np.int64)
    logits = np.zeros(81, np.float32)
    if net is not None:
        # the network's and the work arrays, out of their tuples once (`evaluate_arrays`)
        w1q, step, wp_moves = net.w1q, net.step, net.wp_moves
        w1, b1, w2, b2, wp, bp, wv, bv = net.net
        idx, h1, h2, rows, xs, nsums = new_scratch(net.net)
    if fnet is not None:
        vw1q, vb1q, vw2s, vb2, vtop, vwps, vbp = fnet
        vidx = np.empty(MAX_ACTIVE, np.int64)
        vacc = np.empty(vb1q.shape[0], np.int16)
        vhidden = np.empty(vb1q.shape[0], np.float32)
        vbits = np.zeros(WORDS, np.uint64)
        vrows = np.empty(2 * MAX_ACTIVE, np.int64)
    if sums is None:
        slot, sacc, sbits, sused = (np.zeros(0, np.int32), np.zeros((0, 1), np.int16),
                                    np.zeros((0, WORDS), np.uint64), np.zeros(1, np.int64))
    else:
        slot, sacc, sbits, sused = sums.slot, sums.acc, sums.bits, sums.used
    puct = net is not None or fnet is not None
    root = t.meta[ROOT]
    root_side = root_state[SIDE]
    draw_x = draw if root_side == 0 else 1.0 - draw  # a draw's reward for X
    x = rng[0]
    done = 0
    for _ in range(sims):
        if solver and status[root] != UNKNOWN:
            break
        done += 1
        for k in range(STATE_SIZE):
            s[k] = root_state[k]
        node = root
        depth = 0
        path[0] = root
        before = _add(shared, visits, root, 1)  # visits of `node` before this simulation
        reward = 0.5  # of this simulation for X: 1 X won, 0 O won, `draw_x` a draw (set below)
        while True:
            st = status[node]
            if st != UNKNOWN and (solver or s[RESULT] >= 0):
                mover = root_side ^ (depth & 1) ^ 1
                reward = draw_x if st == DRAW else (1.0 if (st == WIN_) == (mover == 0) else 0.0)
                break
            f = _load(shared, first, node)
            if f < 0:
                if puct:
                    v, grown = 0.5, 0  # the value for the side to move
                    tick = lap(parts, -1, 0)
                    if fnet is not None:
                        # the value now; the policy, if any, when the node is next
                        # visited (most leaves are not): equal priors until then
                        _hidden_sums(shared, s, flags, path[depth - 2] if depth >= 2 else -1,
                                     vw1q, vb1q, slot, sacc, sbits, vidx, vbits, vrows, vacc)
                        v = value_head(vw2s, vb2, vtop, vacc, vhidden)
                        tick = lap(parts, LEAF, tick)
                        grown = _expand(t, node, s, flags, logits, EQUAL_PRIORS, shared, slot)
                        tick = lap(parts, EXPAND, tick)
                        if grown > 0 and slot.shape[0]:
                            _keep_sums(shared, slot, sacc, sbits, sused, node, vacc, vbits)
                        tick = lap(parts, KEEP, tick)
                    elif net is not None:
                        v = evaluate_arrays(w1q, step, w1, b1, w2, b2, wp_moves, bp, wp, wv, bv,
                                            s, flags, idx, h1, h2, rows, xs, nsums, logits)
                        tick = lap(parts, LEAF, tick)
                        grown = _expand(t, node, s, flags, logits, NET_PRIORS, shared, slot)
                        tick = lap(parts, EXPAND, tick)
                    if grown > 0 and solver and status[node] != UNKNOWN:
                        continue  # proven at once by a winning child
                    reward = v if s[SIDE] == 0 else 1.0 - v
                    if mix > 0.0:
                        result, x = playout(s, flags, policy, x)
                        played = _reward(result, draw_x)
                        reward = (1.0 - mix) * reward + mix * played
                        lap(parts, PLAYOUT, tick)
                    break
                grown = 0
                if node == root or before > 0:
                    grown = _expand(t, node, s, flags, logits, NO_PRIORS, shared, slot)
                f = _load(shared, first, node)
                if grown <= 0 and f < 0:  # a new leaf, the tree is full, or being expanded
                    tick = lap(parts, -1, 0)
                    result, x = playout(s, flags, policy, x)
                    lap(parts, PLAYOUT, tick)
                    reward = _reward(result, draw_x)
                    break
                if solver and status[node] != UNKNOWN:
                    continue  # proven at once by a winning child
            # select a child: UCT, or PUCT with the network's priors
            k = nchild[node]
            tick = lap(parts, -1, 0)
            # nested: numba prunes a branch on `arg is None` only when the test stands alone
            if fnet is not None:
                g = _load(shared, slot, node) if slot.shape[0] else -1
                if g < 0 and slot.shape[0] and _load(shared, sused, 0) < sacc.shape[0]:
                    # an expanded node with no sums kept (the root, a tree kept from the
                    # last move after the pool was emptied or the tree compacted, a node
                    # expanded while the pool was full): keep them now, so that the
                    # leaves below it start from them
                    _hidden_sums(shared, s, flags, path[depth - 2] if depth >= 2 else -1,
                                 vw1q, vb1q, slot, sacc, sbits, vidx, vbits, vrows, vacc)
                    _keep_sums(shared, slot, sacc, sbits, sused, node, vacc, vbits)
                    g = _load(shared, slot, node)
                if before == 1 and vwps.shape[0]:  # the fast network's policy, deferred
                    if g >= 0:
                        value_head(vw2s, vb2, vtop, sacc[g], vhidden)
                    else:
                        sum_rows(vw1q, vb1q, vidx, features(s, flags, vidx), vacc)
                        value_head(vw2s, vb2, vtop, vacc, vhidden)
                    policy_head(vwps, vbp, s, vhidden, logits)
                    _softmax_priors(prior, move, f, k, logits)
                tick = lap(parts, FAST_POLICY, tick)
                if net is not None:  # noqa: SIM102
                    if before == refine - 1:
                        evaluate_arrays(w1q, step, w1, b1, w2, b2, wp_moves, bp, wp, wv, bv,
                                        s, flags, idx, h1, h2, rows, xs, nsums, logits)
                        _softmax_priors(prior, move, f, k, logits)
                        tick = lap(parts, REFINE, tick)
            best = -1
            best_num, best_den = 0.0, 1.0
            n_parent = max(visits[node], 1)
            q_draw = draw_x if s[SIDE] == 0 else 1.0 - draw_x  # for the player choosing
            sqrt_n, fpu, log_n = 0.0, 0.0, 0.0  # (set for the rule in use)
            if puct:
                sqrt_n = np.sqrt(n_parent)
                # an unvisited child's value: the parent's, a little less
                fpu = 1.0 - wins[node] / n_parent - FPU_REDUCTION
            else:
                log_n = np.log(n_parent)
            for i in range(f, f + k):
                sti = status[i]
                if solver:
                    if sti == LOSS:
                        continue
                    if sti == WIN_:
                        best = i
                        break
                n = visits[i]
                # the child's value as a fraction num / den, compared without dividing
                if puct:  # q + c * prior * sqrt_n / (1 + n)
                    e = c * prior[i] * sqrt_n
                    if solver and sti == DRAW:
                        num, den = q_draw * (1 + n) + e, 1.0 + n
                    elif n == 0:
                        num, den = fpu + e, 1.0
                    else:
                        num, den = wins[i] * (1 + n) + e * n, n * (1.0 + n)
                else:
                    if n == 0:
                        best = i
                        break
                    q = q_draw if (solver and sti == DRAW) else wins[i] / n
                    num, den = q + c * np.sqrt(log_n / n), 1.0
                if best < 0 or (num * best_den > best_num * den if puct
                                else num > best_num):  # UCT: den is always 1
                    best_num, best_den = num, den
                    best = i
            if best < 0:  # every child lost: cannot happen unless the solver missed a proof
                best = f
            tick = lap(parts, SELECT, tick)
            a = move[best]
            play(s, a // 9, a % 9, flags)
            depth += 1
            path[depth] = best
            node = best
            before = _add(shared, visits, node, 1)
            if s[RESULT] >= 0 and status[node] == UNKNOWN:
                mover = root_side ^ (depth & 1) ^ 1
                r = s[RESULT] - 1
                status[node] = DRAW if r < 0 else (WIN_ if r == mover else LOSS)
            lap(parts, DESCEND, tick)
        # back up the reward and, with the solver, any newly proven values
        tick = lap(parts, -1, 0)
        proving = solver
        for d in range(depth, -1, -1):
            n = path[d]
            mover = root_side ^ (d & 1) ^ 1
            gain = reward if mover == 0 else 1.0 - reward
            if gain != 0.0:
                _add(shared, wins, n, gain)
            if proving and d > 0:
                parent = path[d - 1]
                if status[parent] != UNKNOWN:
                    continue
                stc = status[n]
                if stc == WIN_:
                    status[parent] = LOSS
                elif stc == UNKNOWN:
                    proving = False
                else:
                    f = first[parent]
                    top = LOSS
                    for i in range(f, f + nchild[parent]):
                        sti = status[i]
                        if sti == UNKNOWN:
                            top = UNKNOWN
                            break
                        if sti > top:
                            top = sti
                    if top == UNKNOWN:
                        proving = False
                    else:
                        status[parent] = 2 - top
        lap(parts, BACKUP, tick)
    rng[0] = x
    return done


@njit(cache=True, nogil=True)
def find_child(t: TreeArrays, node: int, action: int) -> int:
    """The child of `node` reached by `action`, or -1 if `node` is not expanded."""
    f = t.first[node]
    if f < 0:
        return -1
    for i in range(f, f + t.nchild[node]):
        if t.move[i] == action:
            return i
    return -1


@njit(cache=True, nogil=True)
def compact(src: TreeArrays, dst: TreeArrays) -> int:
    """Copy the subtree under the root of `src` into `dst` (breadth first).

    The root becomes node 0 there; returns the number of nodes copied.
    """
    queue = dst.first  # new node k is the copy of old node queue[k]: reuse it as the queue
    first, nchild = src.first, src.nchild
    queue[0] = src.meta[ROOT]
    tail = 1
    head = 0
    # pass 1: lay out the nodes (queue) breadth first
    while head < tail:
        o = queue[head]
        head += 1
        f = first[o]
        if f >= 0:
            for i in range(nchild[o]):
                queue[tail + i] = f + i
            tail += nchild[o]
    # pass 2: copy fields; children of new node k start where its first child was queued
    nxt = 1
    for k in range(tail):
        o = queue[k]
        dst.nchild[k] = nchild[o]
        dst.move[k] = src.move[o]
        dst.visits[k] = src.visits[o]
        dst.wins[k] = src.wins[o]
        dst.status[k] = src.status[o]
        dst.prior[k] = src.prior[o]
    for k in range(tail):
        o = queue[k]
        if first[o] >= 0:
            dst.first[k] = nxt
            nxt += nchild[o]
        else:
            dst.first[k] = -1
    dst.move[0] = -1
    dst.meta[ROOT] = 0
    dst.meta[USED] = tail
    return tail


@njit(cache=True, nogil=True)
def children(t: TreeArrays, node: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                np.ndarray]:
    """(actions, visits, wins, status) of the children of `node` (empty if not expanded)."""
    f = atomic_load(t.first, node)  # acquire: threads may be expanding the node
    k = t.nchild[node] if f >= 0 else 0
    actions = np.empty(k, np.int64)
    v = np.empty(k, np.int64)
    w = np.empty(k, np.float64)
    st = np.empty(k, np.int64)
    for i in range(k):
        actions[i] = t.move[f + i]
        v[i] = t.visits[f + i]
        w[i] = t.wins[f + i]
        st[i] = t.status[f + i]
    return actions, v, w, st


@njit(cache=True, nogil=True)
def best_of(visits: np.ndarray, status: np.ndarray) -> int:
    """The move to play among siblings: a proven win, else the most visited that is not a
    proven loss (the most visited of all if every one is lost); -1 if there are none.

    >>> best_of(np.array([5, 9, 7]), np.array([UNKNOWN, LOSS, UNKNOWN]))
    2
    """
    best = -1
    fallback = -1
    for i in range(visits.shape[0]):
        if status[i] == WIN_:
            return i
        if fallback < 0 or visits[i] > visits[fallback]:
            fallback = i
        if status[i] != LOSS and (best < 0 or visits[i] > visits[best]):
            best = i
    return best if best >= 0 else fallback


@njit(cache=True, nogil=True)
def best_child(t: TreeArrays, node: int) -> int:
    """The child of `node` to play (`best_of` its children), -1 if it has none."""
    f = atomic_load(t.first, node)
    if f < 0:
        return -1
    k = t.nchild[node]
    return f + best_of(t.visits[f : f + k], t.status[f : f + k])


@njit(cache=True, nogil=True)
def principal_variation(t: TreeArrays, limit: int) -> np.ndarray:
    """Actions along the best children from the root, while nodes have visits."""
    out = np.empty(limit, np.int64)
    node = t.meta[ROOT]
    n = 0
    while n < limit:
        child = best_child(t, node)
        if child < 0 or (t.visits[child] == 0 and t.status[child] == UNKNOWN):
            break
        out[n] = t.move[child]
        n += 1
        node = child
    return out[:n]


# --- compiled before any clock runs (see ninefold.players.warmup) ----------------------


def _small_tree() -> TreeArrays:
    tree = alloc(200)
    reset(tree)
    return tree


warmup.add("mcts", seconds=10, steps=[
    (reset, lambda: (alloc(200),)),
    # every argument given, as `Tree.search` gives them (an omitted `shared` would
    # compile another signature than the player's, and the player compile at its first move)
    (search, lambda: (_small_tree(), new_state(), 0, 4, 0.5, POLICY_WIN, True, make_rng(1),
                      None, 0.0, 0.5, False, None, 0, None)),
    (children, lambda: (_small_tree(), 0)),
    (best_of, lambda: (np.zeros(2, np.int64), np.zeros(2, np.int64))),
    (principal_variation, lambda: (_small_tree(), 4)),
    (find_child, lambda: (_small_tree(), 0, 0)),
    (compact, lambda: (_small_tree(), alloc(200))),
    (play, lambda: (new_state(), 4, 4, 0)),  # called from Python when the tree is reused
])

warmup.add("mcts-net", seconds=8, steps=[
    (search, lambda: (_small_tree(), new_state(), 0, 4, 1.5, POLICY_WIN, True, make_rng(1),
                      for_search(random_net(0, 8, 8)), 0.0, 0.5, False, None, 0, None)),
])

warmup.add("mcts-fast", seconds=6, steps=[
    (search, lambda: (_small_tree(), new_state(), 0, 4, 1.5, POLICY_WIN, True, make_rng(1),
                      None, 0.0, 0.5, False, fast_for_search(random_fast_net(0, 8)), 0,
                      alloc_sums(200, 8))),
])

warmup.add("mcts-hybrid", seconds=8, steps=[
    (search, lambda: (_small_tree(), new_state(), 0, 4, 1.5, POLICY_WIN, True, make_rng(1),
                      for_search(random_net(0, 8, 8)), 0.0, 0.5, False,
                      fast_for_search(random_fast_net(0, 8)), 2, alloc_sums(200, 8))),
])
