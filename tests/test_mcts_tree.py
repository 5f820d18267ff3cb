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
    compile_searches(["mcts", "mcts-net", "mcts-fast"])
    before = set(mt.search.signatures)
    for spec in ("mcts:sims=40", "mcts:net=default,sims=40", f"mcts:net={fast},sims=40"):
        assert make_player(spec).play(Board(), Limit()).move is not None
    assert set(mt.search.signatures) == before
