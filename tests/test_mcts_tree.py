"""`mcts_tree.search` alone on its tree (``shared=False``: plain adds, loads and stores)
builds the same tree as with the atomics that threads sharing it need."""

from __future__ import annotations

import numpy as np
import pytest

from ninefold import kernel
from ninefold.players import mcts_tree as mt
from ninefold.players.net import SearchNet, for_search, random_net

NET = for_search(random_net(3, 16, 16), quantised=True)


def grown(root: np.ndarray, shared: bool, net: SearchNet | None, mix: float,
          capacity: int = 50_000) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, int]:
    """(simulations, visits, wins, status, nodes used) of 3,000 simulations from `root`."""
    tree = mt.alloc(capacity)
    mt.reset(tree)
    c = 0.6 if net is None else 1.5
    done = mt.search(tree, root, 0, 3_000, c, mt.POLICY_WIN, True, kernel.make_rng(5), net,
                     mix, 0.4, shared)
    used = min(int(tree.meta[mt.USED]), capacity)
    return (done, tree.visits[:used].copy(), tree.wins[:used].copy(),
            tree.status[:used].copy(), used)


def midgame() -> np.ndarray:
    s, x = kernel.new_state(), kernel.make_rng(11)
    for _ in range(20):
        b, c, x[0] = kernel.random_move(s, x[0])
        kernel.play(s, b, c, 0)
    return s


@pytest.mark.parametrize("net, mix", [(None, 0.0), (NET, 0.0), (NET, 0.5)])
@pytest.mark.parametrize("capacity", [50_000, 2_000])  # roomy, and full midway
def test_alone_on_its_tree_the_search_is_the_same(net: SearchNet | None, mix: float,
                                                  capacity: int) -> None:
    for root in (kernel.new_state(), midgame()):
        alone, shared = (grown(root, flag, net, mix, capacity) for flag in (False, True))
        assert alone[0] == shared[0] and alone[4] == shared[4]
        for a, b in zip(alone[1:4], shared[1:4], strict=True):
            np.testing.assert_array_equal(a, b)


def test_the_warmup_compiles_the_searches_the_players_run(tmp_path):
    """`compile_searches` compiles `search` with the very argument types the player passes
    (an argument left out is another signature): a player after it compiles nothing."""
    from ninefold import Board
    from ninefold.players import Limit, compile_searches, make_player
    from ninefold.players.fastnet import random_fast_net, save_fast_net

    fast = tmp_path / "fast.npz"
    save_fast_net(random_fast_net(0, 16), fast, {})
    compile_searches(["mcts", "mcts-net", "mcts-fast", "mcts-hybrid"])
    before = set(mt.search.signatures)
    for spec in ("mcts:sims=40", "mcts:net=default,sims=40", f"mcts:net={fast},sims=40",
                 f"mcts:net={fast},refine=4,sims=40"):
        assert make_player(spec).play(Board(), Limit()).move is not None
    assert set(mt.search.signatures) == before


def hybrid_tree(refine: int, sims: int = 2_000) -> mt.TreeArrays:
    """A tree of `sims` simulations from the empty board, a random fast network at the
    leaves and `NET` refining at `refine` visits."""
    from ninefold.players.fastnet import for_search as fast_for_search
    from ninefold.players.fastnet import random_fast_net

    tree = mt.alloc(50_000)
    mt.reset(tree)
    fnet = fast_for_search(random_fast_net(4, 16))
    mt.search(tree, kernel.new_state(), 0, sims, 1.0, mt.POLICY_WIN, True, kernel.make_rng(5),
              NET, 0.0, 0.5, False, fnet, refine)
    return tree


def parents(tree: mt.TreeArrays) -> dict[int, int]:
    """Each node's parent, for `replay`."""
    parent = {}
    used = min(int(tree.meta[mt.USED]), len(tree.first))
    for n in range(used):
        f = tree.first[n]
        if f >= 0:
            for i in range(f, f + tree.nchild[n]):
                parent[i] = n
    return parent


def replay(parent: dict[int, int], tree: mt.TreeArrays, node: int) -> np.ndarray:
    """The position at `node`, found by walking up to the root (`parent`: `parents(tree)`)."""
    line = []
    while node in parent:
        line.append(int(tree.move[node]))
        node = parent[node]
    s = kernel.new_state()
    for a in reversed(line):
        kernel.play(s, a // 9, a % 9, 0)
    return s


@pytest.mark.parametrize("refine", [2, 16])
def test_the_slow_network_refines_the_priors_of_nodes_visited_refine_times(refine):
    """With both networks the children of a node visited `refine` times or more carry the
    slow network's priors, those of a node visited less the fast one's."""
    from ninefold.players.net import evaluate_arrays, new_scratch

    w1, b1, w2, b2, wp, bp, wv, bv = NET.net
    scratch, logits = new_scratch(NET.net), np.zeros(81, np.float32)
    tree = hybrid_tree(refine)
    used = min(int(tree.meta[mt.USED]), len(tree.first))
    parent = parents(tree)
    checked = {True: 0, False: 0}
    for n in range(used):
        f, k = tree.first[n], tree.nchild[n]
        if f < 0 or k < 2 or tree.status[n] != mt.UNKNOWN:
            continue
        evaluate_arrays(NET.w1q, NET.step, w1, b1, w2, b2, NET.wp_moves, bp, wp, wv, bv,
                        replay(parent, tree, n), 0, *scratch, logits)
        moves = tree.move[f:f + k].astype(np.int64)
        slow = np.exp(logits[moves] - logits[moves].max())
        slow /= slow.sum()
        refined = tree.visits[n] >= refine
        assert np.allclose(tree.prior[f:f + k], slow, atol=1e-5) == refined, (n, refined)
        checked[refined] += 1
    assert checked[True] > 10 and checked[False] > 10


def test_refine_needs_a_fast_network_and_says_so():
    from ninefold.players import make_player

    with pytest.raises(ValueError, match="refine=N needs a fast network"):
        make_player("mcts:net=default,refine=8")
    with pytest.raises(ValueError, match="refine must be 2 or more"):
        make_player("mcts:net=off,refine=1")


def fast_tree(sums: mt.Sums | None, shared: bool, root: np.ndarray, refine: int = 0
              ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(simulations, visits, wins, priors, status) of 3,000 simulations of a random fast
    network (with a policy) from `root`, keeping its hidden sums in `sums` or not."""
    from ninefold.players.fastnet import for_search as fast_for_search
    from ninefold.players.fastnet import random_fast_net

    tree = mt.alloc(50_000)
    mt.reset(tree)
    if sums is not None:
        mt.clear_sums(sums, 1)
    fnet = fast_for_search(random_fast_net(4, 48))
    done = mt.search(tree, root, 0, 3_000, 1.0, mt.POLICY_WIN, True, kernel.make_rng(5),
                     NET if refine else None, 0.25, 0.5, shared, fnet, refine, sums)
    used = min(int(tree.meta[mt.USED]), 50_000)
    return (done, tree.visits[:used].copy(), tree.wins[:used].copy(),
            tree.prior[:used].copy(), tree.status[:used].copy())


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("slots", [100_000, 300])  # roomy, and full midway
def test_hidden_sums_kept_per_node_build_the_same_tree(shared: bool, slots: int) -> None:
    """A leaf's hidden sums from its grandparent's (`Sums`) are exactly the sums from the
    bias: the same values, priors and tree, whether the pool lasts or runs out."""
    for root in (kernel.new_state(), midgame()):
        for refine in (0, 16):
            sums = mt.alloc_sums(50_000, 48, budget=slots * (2 * 48 + 8 * mt.WORDS))
            kept, plain = fast_tree(sums, shared, root, refine), fast_tree(None, shared, root,
                                                                          refine)
            assert kept[0] == plain[0] == 3_000
            for a, b in zip(kept[1:], plain[1:], strict=True):
                np.testing.assert_array_equal(a, b)
            assert int(sums.used[0]) > min(slots, 1000)  # the pool was used (and ran out)


def test_a_reused_tree_keeps_and_forgets_hidden_sums_rightly() -> None:
    """Through a game's moves, with the root moved down the tree, compacted and the pool
    emptied when half full, the player's tree with hidden sums grows the same trees as
    without them."""
    from ninefold.players.fastnet import for_search as fast_for_search
    from ninefold.players.fastnet import random_fast_net
    from ninefold.players.mcts import Tree

    fnet = fast_for_search(random_fast_net(6, 32))
    kept = Tree(4_000, 7, hidden=32, sums_bytes=600 * (2 * 32 + 8 * mt.WORDS))
    plain = Tree(4_000, 7)
    s, x = kernel.new_state(), kernel.make_rng(3)
    actions: list[int] | None = None
    for _ in range(14):
        for tree in (kept, plain):
            tree.set_root(s, actions)
            tree.search(700, 1.0, mt.POLICY_WIN, True, 0, None, 0.25, 0.5, fnet, 0)
        for a, b in zip(kept.children(), plain.children(), strict=True):
            np.testing.assert_array_equal(a, b)
        b, c, x[0] = kernel.random_move(s, x[0])
        kernel.play(s, b, c, 0)
        actions = [9 * b + c]
        if s[kernel.RESULT] >= 0:
            break


@pytest.mark.parametrize("keep_sums", [False, True])
def test_the_fast_policy_is_computed_when_a_node_is_first_selected_through(keep_sums):
    """A fast network's priors are deferred from a node's expansion to its second visit
    (most leaves get none): the children of a node visited twice or more carry the
    softmax of the fast network's logits, those of a node visited once equal priors."""
    from ninefold.players.fastnet import MAX_ACTIVE, evaluate, random_fast_net
    from ninefold.players.fastnet import for_search as fast_for_search

    fnet = fast_for_search(random_fast_net(4, 48))
    tree = mt.alloc(50_000)
    mt.reset(tree)
    sums = mt.alloc_sums(50_000, 48) if keep_sums else None
    mt.search(tree, kernel.new_state(), 0, 2_000, 1.0, mt.POLICY_WIN, True, kernel.make_rng(5),
              None, 0.25, 0.5, False, fnet, 0, sums)
    used = min(int(tree.meta[mt.USED]), len(tree.first))
    parent = parents(tree)
    idx, acc, logits = np.empty(MAX_ACTIVE, np.int64), np.empty(48, np.int16), np.zeros(81,
                                                                                       np.float32)
    checked = {True: 0, False: 0}
    for n in range(used):
        f, k = tree.first[n], tree.nchild[n]
        if f < 0 or k < 2 or tree.status[n] != mt.UNKNOWN:
            continue
        evaluate(fnet, replay(parent, tree, n), 0, idx, acc, logits)
        moves = tree.move[f:f + k].astype(np.int64)
        want = np.exp(logits[moves] - logits[moves].max())
        want /= want.sum()
        twice = tree.visits[n] >= 2
        got = tree.prior[f:f + k]
        np.testing.assert_allclose(got, want if twice else np.full(k, 1.0 / k), atol=1e-5)
        checked[bool(twice)] += 1
    assert checked[True] > 50 and checked[False] > 50


@pytest.mark.parametrize("shared", [False, True])
def test_a_kept_tree_gets_its_sums_back_where_the_search_passes(shared: bool) -> None:
    """Once the pool is emptied under a kept tree (as the player does when it is half full,
    or the tree compacted), each expanded node the next search passes through is given
    sums again, so the leaves below it start from them; the tree is the same as without."""
    from ninefold.players.fastnet import for_search as fast_for_search
    from ninefold.players.fastnet import random_fast_net

    fnet = fast_for_search(random_fast_net(4, 48))
    sums = mt.alloc_sums(50_000, 48)
    trees = []
    for pool in (sums, None):
        tree = mt.alloc(50_000)
        mt.reset(tree)
        rng = kernel.make_rng(5)
        mt.search(tree, kernel.new_state(), 0, 1_500, 1.0, mt.POLICY_WIN, True, rng, None,
                  0.25, 0.5, shared, fnet, 0, pool)
        before = tree.visits.copy()
        if pool is not None:
            mt.clear_sums(pool, 50_000)
        mt.search(tree, kernel.new_state(), 0, 1_500, 1.0, mt.POLICY_WIN, True, rng, None,
                  0.25, 0.5, shared, fnet, 0, pool)
        trees.append(tree)
        if pool is not None:
            passed = (tree.first >= 0) & (tree.visits > before) & (before > 0)
            assert passed.sum() > 100
            assert (pool.slot[passed] >= 0).all()
    np.testing.assert_array_equal(trees[0].visits, trees[1].visits)
    np.testing.assert_array_equal(trees[0].prior, trees[1].prior)


@pytest.mark.parametrize("slow", [False, True])
def test_a_timed_search_builds_the_same_tree_and_times_each_part(slow: bool) -> None:
    """With an array of counters, `search` adds each part's cycles to it (benchmarks/
    sim_profile.py) and builds the tree it builds without: the hybrid's parts, or the
    shipped network's alone (no fast network's parts)."""
    from ninefold.players.fastnet import for_search as fast_for_search
    from ninefold.players.fastnet import random_fast_net

    fnet = None if slow else fast_for_search(random_fast_net(4, 16))
    trees = []
    parts = np.zeros(len(mt.PARTS), np.int64)
    for timed in (None, parts):
        tree = mt.alloc(100_000)
        mt.reset(tree)
        mt.search(tree, kernel.new_state(), 0, 3_000, 1.0, mt.POLICY_WIN, True,
                  kernel.make_rng(9), NET, 0.25, 0.5, False, fnet, 0 if slow else 4,
                  None if slow else mt.alloc_sums(100_000, 16), timed)
        trees.append(tree)
    np.testing.assert_array_equal(trees[0].visits, trees[1].visits)
    np.testing.assert_array_equal(trees[0].wins, trees[1].wins)
    fast_parts = [mt.KEEP, mt.FAST_POLICY, mt.REFINE]
    for part, name in enumerate(mt.PARTS):
        assert (parts[part] == 0) == (slow and part in fast_parts), name
