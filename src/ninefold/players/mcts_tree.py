"""The numba half of the MCTS player: a UCT tree in flat preallocated arrays.

No Python object per node. A tree is six arrays indexed by node number plus a
small `meta` array; the children of a node sit next to each other:

    first[n]   index of n's first child, -1 while n is not expanded
    nchild[n]  how many children n has
    move[n]    the action (9 * board + cell) that leads from n's parent to n
    visits[n]  simulations through n
    wins[n]    their total reward for the player who *made* `move[n]`
               (win 1, draw 0.5, loss 0)
    status[n]  the proven game value for that same player: UNKNOWN, LOSS, DRAW, WIN
    meta       [root, used]: the root's node number, nodes handed out (more than
               the capacity once the tree is full: see `nodes_used`)

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

With one thread the atomics cost about 1% of the speed (benchmarks/mcts_speed.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ninefold.kernel import (
    BIG,
    FORCED,
    FULL,
    NTH,
    POPCOUNT,
    RESULT,
    SIDE,
    STATE_SIZE,
    WIN,
    count_moves,
    empty_cells,
    play,
    playable_boards,
    random_move,
    xorshift,
)
from ninefold.players.atomics import atomic_add, atomic_cas, atomic_load, atomic_store
from ninefold.rules import FLAG_WIN_FIVE

UNKNOWN, LOSS, DRAW, WIN_ = -1, 0, 1, 2
ROOT, USED = 0, 1
EXPANDING = -2  # first[n] while one thread writes n's children

POLICY_RANDOM = 0  # uniform random playouts
POLICY_WIN = 1  # take a move that wins the game at once, else uniform


def _completing() -> np.ndarray:
    """completing[m] = the empty cells whose mark would complete a line with mask m."""
    table = np.zeros(512, np.int64)
    for m in range(512):
        for c in range(9):
            if not m >> c & 1 and WIN[m | 1 << c]:
                table[m] |= 1 << c
    return table


COMPLETING = _completing()


@njit(cache=True, inline="always")
def winning_boards(s: np.ndarray, flags: int) -> int:
    """Boards where winning the small board would win the game for the side to move."""
    side = s[SIDE]
    mine = s[BIG + side]
    owned = s[BIG] | s[BIG + 1]
    boards = playable_boards(s) & ~owned
    if flags & FLAG_WIN_FIVE:
        return boards if POPCOUNT[mine] >= 4 else 0
    return boards & COMPLETING[mine]


@njit(cache=True, inline="always")
def winning_action(s: np.ndarray, flags: int) -> int:
    """An action that wins the game at once for the side to move, or -1."""
    cand = winning_boards(s, flags)
    side = s[SIDE]
    while cand:
        b = NTH[cand, 0]
        cand &= cand - 1
        w = COMPLETING[s[9 * side + b]] & empty_cells(s, b)
        if w:
            return 9 * b + NTH[w, 0]
    return -1


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
def reset(first, nchild, move, visits, wins, status, meta) -> None:
    """An empty tree: one unexpanded root."""
    first[0] = -1
    nchild[0] = 0
    move[0] = -1
    visits[0] = 0
    wins[0] = 0.0
    status[0] = UNKNOWN
    meta[ROOT] = 0
    meta[USED] = 1


@njit(cache=True, inline="always")
def _expand(node, s, flags, first, nchild, move, visits, wins, status, meta) -> int:
    """Give `node` (whose position is `s`) its children.

    Returns 1 if it did, 0 if another thread is expanding or has expanded it,
    -1 if the tree is full.
    """
    if atomic_load(meta, USED) >= first.shape[0]:
        return -1  # full: don't make the other threads fight over `meta` for nothing
    if not atomic_cas(first, node, -1, EXPANDING):
        return 0
    k = count_moves(s)
    used = atomic_add(meta, USED, k)
    if used + k > first.shape[0]:
        # Full. The count is not given back: another thread may have taken
        # nodes after ours, and handing ours out again would overlap them.
        atomic_store(first, node, -1)
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
            nchild[n] = 0
            move[n] = 9 * b + c
            visits[n] = 0
            wins[n] = 0.0
            if w >> c & 1:
                status[n] = WIN_
                won = True
            else:
                status[n] = UNKNOWN
            n += 1
    nchild[node] = k
    if won:
        status[node] = LOSS
    atomic_store(first, node, used)  # publish: the children are written
    return 1


@njit(cache=True, nogil=True)
def search(
    first, nchild, move, visits, wins, status, meta,
    root_state: np.ndarray, flags: int, sims: int, c: float, policy: int, solver: bool,
    rng: np.ndarray,
) -> int:
    """Run up to `sims` simulations from the root; returns how many ran.

    Stops early when the root is proven (with `solver`). Threads may call this
    on one tree at once, each with its own `rng`.
    """
    s = np.empty_like(root_state)
    path = np.empty(90, np.int64)
    root = meta[ROOT]
    root_side = root_state[SIDE]
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
        prior = atomic_add(visits, root, 1)  # visits of `node` before this simulation
        winner = -1  # of this simulation: 0 X, 1 O, -1 draw
        while True:
            st = status[node]
            if st != UNKNOWN and (solver or s[RESULT] >= 0):
                mover = root_side ^ (depth & 1) ^ 1
                winner = mover if st == WIN_ else (mover ^ 1 if st == LOSS else -1)
                break
            f = atomic_load(first, node)
            if f < 0:
                grown = 0
                if node == root or prior > 0:
                    grown = _expand(node, s, flags, first, nchild, move, visits, wins, status,
                                    meta)
                f = atomic_load(first, node)
                if grown <= 0 and f < 0:  # a new leaf, the tree is full, or being expanded
                    result, x = playout(s, flags, policy, x)
                    winner = result - 1
                    break
                if solver and status[node] != UNKNOWN:
                    continue  # proven at once by a winning child
            # select a child by UCT
            k = nchild[node]
            best = -1
            best_value = -1e300
            log_n = np.log(max(visits[node], 1))
            for i in range(f, f + k):
                sti = status[i]
                if solver:
                    if sti == LOSS:
                        continue
                    if sti == WIN_:
                        best = i
                        break
                n = visits[i]
                if n == 0:
                    best = i
                    break
                q = 0.5 if (solver and sti == DRAW) else wins[i] / n
                value = q + c * np.sqrt(log_n / n)
                if value > best_value:
                    best_value = value
                    best = i
            if best < 0:  # every child lost: cannot happen unless the solver missed a proof
                best = f
            a = move[best]
            play(s, a // 9, a % 9, flags)
            depth += 1
            path[depth] = best
            node = best
            prior = atomic_add(visits, node, 1)
            if s[RESULT] >= 0 and status[node] == UNKNOWN:
                mover = root_side ^ (depth & 1) ^ 1
                r = s[RESULT] - 1
                status[node] = DRAW if r < 0 else (WIN_ if r == mover else LOSS)
        # back up the reward and, with the solver, any newly proven values
        proving = solver
        for d in range(depth, -1, -1):
            n = path[d]
            mover = root_side ^ (d & 1) ^ 1
            if winner < 0:
                atomic_add(wins, n, 0.5)
            elif winner == mover:
                atomic_add(wins, n, 1.0)
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
    rng[0] = x
    return done


@njit(cache=True, nogil=True)
def find_child(first, nchild, move, node: int, action: int) -> int:
    """The child of `node` reached by `action`, or -1 if `node` is not expanded."""
    f = first[node]
    if f < 0:
        return -1
    for i in range(f, f + nchild[node]):
        if move[i] == action:
            return i
    return -1


@njit(cache=True, nogil=True)
def compact(
    first, nchild, move, visits, wins, status, meta,
    first2, nchild2, move2, visits2, wins2, status2, meta2,
) -> int:
    """Copy the subtree under the root into the second set of arrays (breadth first).

    The root becomes node 0 there; returns the number of nodes copied.
    """
    queue = first2  # new node k is the copy of old node queue[k]: reuse `first2` as the queue
    root = meta[ROOT]
    queue[0] = root
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
        nchild2[k] = nchild[o]
        move2[k] = move[o]
        visits2[k] = visits[o]
        wins2[k] = wins[o]
        status2[k] = status[o]
    for k in range(tail):
        o = queue[k]
        if first[o] >= 0:
            first2[k] = nxt
            nxt += nchild[o]
        else:
            first2[k] = -1
    move2[0] = -1
    meta2[ROOT] = 0
    meta2[USED] = tail
    return tail


@njit(cache=True, nogil=True)
def root_children(first, nchild, move, visits, wins, status, meta):
    """(actions, visits, wins, status) of the root's children (empty if not expanded)."""
    root = meta[ROOT]
    f = atomic_load(first, root)  # acquire: called while threads may be expanding the root
    k = nchild[root] if f >= 0 else 0
    actions = np.empty(k, np.int64)
    v = np.empty(k, np.int64)
    w = np.empty(k, np.float64)
    st = np.empty(k, np.int64)
    for i in range(k):
        actions[i] = move[f + i]
        v[i] = visits[f + i]
        w[i] = wins[f + i]
        st[i] = status[f + i]
    return actions, v, w, st


@njit(cache=True, nogil=True)
def best_child(first, nchild, visits, status, node: int) -> int:
    """The child to play: a proven win, else the most visited child that is not a proven loss."""
    f = atomic_load(first, node)
    if f < 0:
        return -1
    best = -1
    best_visits = -1
    fallback = f
    for i in range(f, f + nchild[node]):
        if status[i] == WIN_:
            return i
        if visits[i] > visits[fallback]:
            fallback = i
        if status[i] == LOSS:
            continue
        if visits[i] > best_visits:
            best_visits = visits[i]
            best = i
    return best if best >= 0 else fallback


@njit(cache=True, nogil=True)
def principal_variation(first, nchild, move, visits, status, meta, limit: int) -> np.ndarray:
    """Actions along the best children from the root, while nodes have visits."""
    out = np.empty(limit, np.int64)
    node = meta[ROOT]
    n = 0
    while n < limit:
        child = best_child(first, nchild, visits, status, node)
        if child < 0 or (visits[child] == 0 and status[child] == UNKNOWN):
            break
        out[n] = move[child]
        n += 1
        node = child
    return out[:n]


def warm_up() -> None:
    """Compile (or load from the cache) everything once, outside any clock."""
    from ninefold.kernel import new_state

    tree = [
        np.empty(200, np.int32), np.empty(200, np.int8), np.empty(200, np.int8),
        np.empty(200, np.int32), np.empty(200, np.float64), np.empty(200, np.int8),
        np.zeros(2, np.int64),
    ]
    reset(*tree)
    rng = np.array([88172645463325252], np.uint64)
    search(*tree, new_state(), 0, 4, 0.5, POLICY_WIN, True, rng)
    root_children(*tree)
    principal_variation(tree[0], tree[1], tree[2], tree[3], tree[5], tree[6], 4)
    find_child(tree[0], tree[1], tree[2], 0, 0)
    other = [np.empty_like(a) for a in tree]
    compact(*tree, *other)
    _ = xorshift, FORCED, FULL  # re-exported names used by callers
