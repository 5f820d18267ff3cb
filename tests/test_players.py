"""Players: legal moves under every preset, tactics, the MCTS solver and tree, errors, specs."""

from __future__ import annotations

import inspect
import io
import os
import random
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from ninefold import PRESETS, Board, Move, kernel, timing
from ninefold.players import (
    LADDER,
    REGISTRY,
    BudgetError,
    GameOverError,
    Limit,
    PlayerSpecError,
    make_player,
    parse_spec,
    register,
    stderr_progress,
    strongest_spec,
    usable_cpus,
)
from ninefold.players import mcts_tree as mt
from ninefold.players.alphabeta import MATE, AlphaBetaPlayer
from ninefold.players.analysis import Analysis, analyze
from ninefold.players.mcts import DEFAULT_NET_DRAW, Budget, MCTSPlayer, Tree, _finish
from ninefold.players.player import Player, PlayResult

# X owns boards 0 and 1 and has g1 h1: i1 wins the game at once.
X_WINS_AT_I1 = "standard xxxxxxxx1/9/9/o2o2o2/1o7/5o3/o2o4o/9/9 x 2 xx......."
# The same threat, O to move in board 6: b7 or c7 would let X win (c7 sends X to
# board 2, b7 to the closed board 1, a free move).
O_MUST_NOT_SEND = "standard xxxxxxxx1/9/9/o2o2o2/1o7/5o3/o2o4o/9/3x5 o 6 xx......."

needs_two_cpus = pytest.mark.skipif(usable_cpus() < 2, reason="two threads need two CPUs")

QUICK_SPECS = [
    "random:seed=1",
    "naive:seed=1",
    "alphabeta:depth=2",
    "mcts:sims=200,seed=1",
    pytest.param("mcts:sims=200,threads=2,seed=1", marks=needs_two_cpus),
    pytest.param("mcts:sims=200,threads=2,parallel=root,seed=1", marks=needs_two_cpus),
    "mcts:sims=200,policy=random,solver=off,reuse=off,seed=1",
    "level:4",
]


def _random_board(rules: str, plies: int, seed: int) -> Board:
    rng = random.Random(seed)
    board = Board(rules)
    for _ in range(plies):
        if board.is_game_over():
            break
        board.push(rng.choice(list(board.legal_moves)))
    return board


@pytest.mark.parametrize("rules", list(PRESETS))
@pytest.mark.parametrize("spec", QUICK_SPECS)
def test_players_play_legal_moves_in_every_preset(rules: str, spec: str) -> None:
    player = make_player(spec)
    rng = random.Random(hash((rules, spec)) & 0xFFFF)
    board = Board(rules)
    while not board.is_game_over():
        if board.ply % 2 == 0:
            move = player.play(board, Limit(move_ms=20)).move
            assert move in board.legal_moves, (spec, rules, board.position(), move)
        else:
            move = rng.choice(list(board.legal_moves))
        board.push(move)


@pytest.mark.parametrize("spec", ["naive", "alphabeta:depth=1", "mcts:sims=50", "level:3"])
def test_takes_an_immediate_win(spec: str) -> None:
    board = Board.from_position(X_WINS_AT_I1)
    result = make_player(spec).play(board, Limit(move_ms=200))
    assert result.move == Move.parse("i1")


def test_mcts_solver_proves_the_immediate_win() -> None:
    result = make_player("mcts:ms=200").play(Board.from_position(X_WINS_AT_I1))
    assert result.info["proven"] == "win"
    assert result.info["sims"] < 100  # it stops as soon as the root is proven


@pytest.mark.parametrize("spec", ["alphabeta:depth=2", "mcts:sims=3000,seed=2"])
def test_does_not_send_the_opponent_to_a_win(spec: str) -> None:
    board = Board.from_position(O_MUST_NOT_SEND)
    move = make_player(spec).play(board, Limit(move_ms=500)).move
    assert move not in (Move.parse("b7"), Move.parse("c7"))


def test_naive_wins_then_blocks_a_small_board() -> None:
    board = Board()
    for b, c in [(4, 0), (0, 4), (4, 1), (1, 4)]:
        board.push(Move(b, c))
    result = make_player("naive:seed=3").play(board)  # X completes the top row of board 4
    assert result.move == Move(4, 2) and result.info["reason"] == "win board"
    board = Board()
    for b, c in [(3, 0), (0, 4), (4, 0), (0, 8), (8, 1), (1, 0)]:
        board.push(Move(b, c))
    assert board.target == 0  # O holds the centre and bottom-right of board 0
    result = make_player("naive:seed=3").play(board)
    assert result.move == Move(0, 0) and result.info["reason"] == "block board"


def _solve(board: Board, depth: int) -> int:
    """Exact value for the side to move by alpha-beta (MATE-ish for a forced win)."""
    return AlphaBetaPlayer(depth=depth, tt_bits=16).play(board).info["value"]


def test_solver_finds_a_forced_win_that_alphabeta_confirms() -> None:
    found = 0
    for seed in range(200):
        board = _random_board("standard", 44, seed)
        if board.is_game_over() or len(board.legal_moves) > 9:
            continue
        state = kernel.from_board(board)
        if kernel.winning_action(state, board.rules.flags) >= 0:
            continue  # want a win that is not immediate
        value = _solve(board, 12)
        if value < MATE - 1000 or value > MATE - 3:
            continue  # no forced win within 12 plies, or a win at once
        result = MCTSPlayer(sims=200_000, seed=seed).play(board)
        assert result.info["proven"] == "win", board.position()
        after = board.copy()
        after.push(result.move)
        if not after.is_game_over():
            assert _solve(after, 12) <= -(MATE - 1000), board.position()
        found += 1
        if found == 3:
            break
    assert found >= 1


def test_tree_reuse_keeps_the_subtree_and_compaction_preserves_it() -> None:
    board = Board()
    tree = Tree(200_000, seed=5)
    tree.set_root(kernel.from_board(board), None)
    tree.search(20_000, 0.6, mt.POLICY_WIN, True)
    a = tree.arrays
    first_child = mt.best_child(a, tree.root)
    action1 = int(a.move[first_child])
    reply = mt.best_child(a, first_child)
    action2 = int(a.move[reply])
    expected_visits = int(a.visits[reply])
    expected = [x.copy() for x in mt.children(a, reply)]
    board.push(Move.from_action(action1))
    board.push(Move.from_action(action2))
    used_before = tree.used
    kept = tree.set_root(kernel.from_board(board), [action1, action2])
    assert kept
    assert int(tree.arrays.visits[tree.root]) == expected_visits
    got = tree.children()
    for x, y in zip(got, expected, strict=True):
        assert np.array_equal(x, y)
    if used_before > tree.capacity // 2:
        assert tree.root == 0  # it was compacted
    # a small tree forces compaction: the statistics must survive it
    small = Tree(10_000, seed=6)
    small.set_root(kernel.new_state(), None)
    small.search(3_000, 0.6, mt.POLICY_WIN, True)
    assert small.used > small.capacity // 2
    child = mt.best_child(small.arrays, small.root)
    act = int(small.arrays.move[child])
    before = [x.copy() for x in mt.children(small.arrays, child)]
    s = kernel.new_state()
    kernel.play(s, act // 9, act % 9, 0)
    assert small.set_root(s, [act])
    assert small.root == 0 and small.used < small.capacity // 2
    for x, y in zip(small.children(), before, strict=True):
        assert np.array_equal(x, y)
    small.search(2_000, 0.6, mt.POLICY_WIN, True)  # and it keeps searching fine


# Every line from these positions ends in a draw (checked by `_every_line_draws`).
ALL_DRAWN = [
    "standard 1xooxo3/1oxox1xxx/xo1o1o2x/xx1xxo1o1/ooxooxoo1/oxoxox1oo/oxoxo1ox1/xx1xx1xox/"
    "1oooxxx1o x - .ox..o.xo",
    "standard ox1xoooxo/xxxxox1xx/xo1oo1x1x/xxx1xo1o1/o4oxoo/1oooxooo1/oxo1x1oox/oox1xo2x/"
    "xoxxxxx1o o - xo.xoo.x.",
]


def _every_line_draws(board: Board) -> bool:
    if board.is_game_over():
        return board.outcome().winner is None
    for move in list(board.legal_moves):
        board.push(move)
        drawn = _every_line_draws(board)
        board.pop()
        if not drawn:
            return False
    return True


@pytest.mark.parametrize("position", ALL_DRAWN)
@pytest.mark.parametrize("draw", [0.2, 0.5, 0.8])
def test_a_draw_is_worth_what_the_player_says_to_either_side(position: str, draw: float) -> None:
    board = Board.from_position(position)
    assert _every_line_draws(board) and len(list(board.legal_moves)) >= 2
    tree = Tree(10_000, seed=3)
    tree.set_root(kernel.from_board(board), None)
    tree.search(2_000, 0.6, mt.POLICY_RANDOM, False, draw=draw)  # no solver: playouts only
    _, visits, wins, _ = tree.children()
    assert visits.sum() > 1_000
    assert np.allclose(wins / visits, draw)  # the root player's value of each move
    # the player takes the option, and its solver still proves the draw
    player = MCTSPlayer(sims=20_000, seed=1, draw=draw)  # stops once the root is proven
    assert player.play(board).info["proven"] == "draw"


def test_a_draw_is_half_a_win_unless_a_network_plays_on_for_more() -> None:
    assert MCTSPlayer(sims=10).draw == 0.5
    assert MCTSPlayer(sims=10, net="default").draw == DEFAULT_NET_DRAW < 0.5
    assert MCTSPlayer(sims=10, net="default", draw=0.5).draw == 0.5


def test_one_rule_picks_the_move_to_play() -> None:
    # a proven win first, else the most visited move that is not a proven loss
    unknown, loss, win = mt.UNKNOWN, mt.LOSS, mt.WIN_
    assert mt.best_of(np.array([9, 5, 1]), np.array([unknown, unknown, win])) == 2
    assert mt.best_of(np.array([9, 5, 1]), np.array([loss, unknown, unknown])) == 1
    assert mt.best_of(np.array([3, 9, 5]), np.array([loss, loss, loss])) == 1
    assert mt.best_of(np.zeros(0, np.int64), np.zeros(0, np.int64)) == -1
    # the player plays what the tree walk picks at its root
    player = MCTSPlayer(sims=3000, seed=2)
    result = player.play(Board())
    tree = player.trees[0]
    assert result.move == Move.from_action(int(tree.arrays.move[mt.best_child(tree.arrays, 0)]))
    assert result.info["pv"][0] == str(result.move)


def _check_tree(tree: Tree) -> None:
    """Every expanded node owns its own run of children; visits add up below it."""
    first, nchild, _move, visits, wins = (np.asarray(x) for x in tree.arrays[:5])
    stack = [tree.root]
    claimed = np.zeros(tree.capacity, bool)
    while stack:
        node = stack.pop()
        assert first[node] != mt.EXPANDING
        assert 0 <= wins[node] <= visits[node]
        if first[node] < 0:
            continue
        kids = range(first[node], first[node] + nchild[node])
        assert first[node] + nchild[node] <= tree.capacity
        assert not claimed[kids].any(), "two nodes were given the same children"
        claimed[kids] = True
        assert visits[list(kids)].sum() <= visits[node]
        stack.extend(kids)


@needs_two_cpus
@pytest.mark.parametrize("capacity", [2_000_000, 3_000])
def test_threads_sharing_one_tree_lose_no_update(capacity: int) -> None:
    # Two threads on one tree: node allocation and expansion are atomic, so
    # child runs never overlap, and no visit is lost (the root counts them all),
    # also when the tree fills up mid-search.
    player = MCTSPlayer(sims=40_000, threads=2, nodes=capacity, seed=9, reuse=False)
    result = player.play(Board(), Limit())
    (tree,) = player.trees
    assert int(tree.arrays.visits[tree.root]) == result.info["sims"] == 40_000
    assert tree.used <= tree.capacity
    _check_tree(tree)


@needs_two_cpus
def test_tree_parallel_solver_finds_the_win_and_the_block() -> None:
    player = MCTSPlayer(sims=20_000, threads=2, seed=4)
    assert player.play(Board.from_position(X_WINS_AT_I1)).move == Move.parse("i1")
    result = player.play(Board.from_position(O_MUST_NOT_SEND))
    assert result.move not in (Move.parse("b7"), Move.parse("c7"))


def test_mcts_player_reuses_its_tree_between_moves() -> None:
    player = MCTSPlayer(sims=5000, seed=3)
    board = Board()
    first = player.play(board)
    board.push(first.move)
    board.push(next(iter(board.legal_moves)))
    second = player.play(board)
    assert second.move in board.legal_moves
    # the reused root starts with the visits it had: more nodes than one fresh search makes
    fresh = MCTSPlayer(sims=5000, seed=3, reuse=False).play(board)
    assert second.info["nodes"] >= fresh.info["nodes"]


def test_finished_game_and_empty_budget_are_clear_errors() -> None:
    board = Board.from_position(X_WINS_AT_I1)
    board.push(Move.parse("i1"))
    assert board.is_game_over()
    for spec in ("random", "naive", "alphabeta:depth=2", "mcts:sims=10", "level:5"):
        with pytest.raises(GameOverError, match="over"):
            make_player(spec).play(board)
    with pytest.raises(BudgetError):
        Limit(move_ms=0)
    with pytest.raises(BudgetError):
        Limit(bank_ms=-5)
    with pytest.raises(PlayerSpecError, match="ms must be positive"):
        make_player("mcts:ms=0")
    with pytest.raises(PlayerSpecError, match="sims must be positive"):
        make_player("mcts:sims=-1")
    with pytest.raises(PlayerSpecError):
        make_player("alphabeta:depth=0")
    with pytest.raises(GameOverError):
        analyze(board, sims=10)


def test_spec_parsing() -> None:
    assert parse_spec("mcts:sims=20000,threads=2") == ("mcts", {"sims": 20000, "threads": 2})
    assert parse_spec("level:7") == ("level", {"level": 7})
    assert parse_spec("alphabeta:depth=6") == ("alphabeta", {"depth": 6})
    assert parse_spec("mcts:ms=100,solver=off") == ("mcts", {"ms": 100.0, "solver": False})
    for name in ("random", "naive", "alphabeta", "mcts", "level"):
        assert name in REGISTRY
    player = make_player("mcts:ms=100")
    assert isinstance(player, MCTSPlayer) and player.ms == 100 and player.spec == "mcts:ms=100"
    for bad in ("", "mcts:speed=3", "mcts:sims=lots", "level:11", "level:0", "chess",
                "mcts:policy=smart", "mcts:threads=0", "mcts:parallel=leaf",
                "mcts:margin=soon", "mcts:margin=-1"):
        with pytest.raises(PlayerSpecError):
            make_player(bad)
    assert set(LADDER) == set(range(1, 11))
    make_player(strongest_spec())


def test_defaults_hold_where_the_spec_says_nothing() -> None:
    """``ninefold bot`` on a time bank gives defaults beside the user's spec: the spec
    wins where it names an option, and a player without the option ignores it."""
    defaults = {"nodes": 5000, "ponder": True}
    player = make_player("mcts:ms=100", defaults)
    assert isinstance(player, MCTSPlayer)
    assert (player.nodes, player.ponders, player.spec) == (5000, True, "mcts:ms=100")
    player = make_player("mcts:nodes=3000,ponder=off", defaults)
    assert isinstance(player, MCTSPlayer) and (player.nodes, player.ponders) == (3000, False)
    assert make_player("random", defaults).spec == "random"
    with pytest.raises(PlayerSpecError, match="nodes must be"):
        make_player("mcts", {"nodes": 1})  # defaults are checked as the spec's options


def test_spec_refuses_more_threads_than_this_process_may_use() -> None:
    cpus = usable_cpus()
    for threads in {64, cpus + 1}:
        if threads > cpus:
            with pytest.raises(PlayerSpecError, match=f"may use {cpus} CPU"):
                make_player(f"mcts:threads={threads}")
    with pytest.raises(PlayerSpecError, match="threads=0"):
        make_player("mcts:threads=0")


def test_spec_refuses_a_key_given_twice() -> None:
    with pytest.raises(PlayerSpecError, match="'ms' is given twice"):
        make_player("mcts:ms=1,ms=2")
    with pytest.raises(PlayerSpecError, match="given twice"):
        make_player("level:7,level=8")


@pytest.mark.parametrize(("spec", "reason"), [
    ("mcts:ms=-5", "ms must be positive"),
    ("mcts:sims=0", "sims must be positive"),
    ("mcts:c=-1", "c must be more than 0"),
    ("mcts:c=1000", "at most 10"),
    ("mcts:draw=1.5", "draw must be 0..1"),
    ("mcts:nodes=1000000000000", "nodes must be"),
    ("mcts:nodes=2000000000,parallel=root,threads=2", "GB of memory"),
    ("mcts:ms=1e20", "ms=1e\\+20 is too much"),
    ("mcts:ms=inf", "not a finite number"),
    ("mcts:sims=100000000000", "sims=100000000000 is too much"),
    ("alphabeta:ms=1e20", "too much"),
    ("alphabeta:ms=0", "ms must be positive"),
    ("alphabeta:tt_bits=40", "tt_bits must be 8-24"),
    ("level:0", "level must be 1-10"),
])
def test_spec_refuses_absurd_values_with_the_reason(spec: str, reason: str) -> None:
    if "threads=2" in spec and usable_cpus() < 2:
        pytest.skip("two threads need two CPUs")
    with pytest.raises(PlayerSpecError, match=reason) as caught:
        make_player(spec)
    assert "\n" not in str(caught.value)


def test_spec_errors_are_one_line_and_cut_long_input() -> None:
    for bad in ("mcts:" + "x" * 10_000, "y" * 10_000, "mcts:ms=" + "9" * 10_000, "level",
                "mcts:seed"):
        with pytest.raises(PlayerSpecError) as caught:
            make_player(bad)
        message = str(caught.value)
        assert "\n" not in message and len(message) < 300, message
    with pytest.raises(PlayerSpecError, match="needs the option level"):
        make_player("level:seed=3")


def test_player_options_are_read_from_the_constructors() -> None:
    for kind in REGISTRY.values():
        params = [p for p in inspect.signature(kind.factory.__init__).parameters if p != "self"]
        assert list(kind.schema.options) == params, kind.name
    assert REGISTRY["mcts"].schema.options["ms"].kind is float  # from `float | None`
    assert REGISTRY["alphabeta"].schema.options["tt_bits"].kind is int

    @register("echo-test")
    class Echo(Player):
        def __init__(self, word: str, times: int = 1, loud: bool = False,
                     pause: float | None = None) -> None:
            self.said = (word.upper() if loud else word) * times

        def _choose(self, board: Board, limit: Limit) -> PlayResult:
            return PlayResult(next(iter(board.legal_moves)), {"said": self.said})

    try:
        assert parse_spec("echo-test:word=ab,times=2,loud=yes") == (
            "echo-test", {"word": "ab", "times": 2, "loud": True})
        assert make_player("echo-test:word=ab,times=3").said == "ababab"
        with pytest.raises(PlayerSpecError, match="no option 'colour'"):
            make_player("echo-test:word=a,colour=red")

        class Bad(Player):
            def __init__(self, moves: list) -> None: ...

        with pytest.raises(TypeError, match="int, float, str or bool"):
            register("bad-test")(Bad)
    finally:
        REGISTRY.pop("echo-test", None)


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_first_run_says_it_is_compiling_on_stderr_and_nothing_on_stdout(tmp_path) -> None:
    # an empty numba cache: the search is compiled, and the user is told so
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    code = "from ninefold.players import make_player; make_player('mcts:sims=10')"
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=600) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert run.stdout == ""
    first, second = runs[0].stderr, runs[1].stderr
    assert "compiling the search (first run, about" in first
    assert len(first.splitlines()) == 1  # stderr is not a terminal: one line, no dots
    assert second == ""  # the cache is full now: nothing to say


def test_compile_progress_is_one_line_off_a_terminal_and_dots_on_one() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    cases = ((io.StringIO(), "about 12 s)\n"), (Terminal(), "about 12 s) ... done\n"))
    for stream, expected in cases:
        for done in range(4):
            stderr_progress(done, 3, 12.0 if done == 0 else 0.0, stream)
        assert stream.getvalue() == "ninefold: compiling the search (first run, " + expected


def test_time_bank_budget_is_planned_within_the_bank() -> None:
    player = MCTSPlayer(seed=1)
    board = Board()
    result = player.play(board, Limit(bank_ms=300, increment_ms=50))
    assert result.info["ms"] < 300


def test_bank_budget_knows_the_cap_and_does_not_stop_before_the_overflow() -> None:
    """With the bank's maximum known, a full bank's move may not stop early (decided)
    before what would overflow at the cap; it may think longer when unclear."""
    player = MCTSPlayer(seed=1)
    full = Limit(bank_ms=10000, increment_ms=500, max_bank_ms=10000)
    budget = player._budget(Board(), full, start=0.0)
    plan = timing.bank_plan(10000.0, 500.0, 10000.0, 81)
    assert budget.least_until == pytest.approx(plan.least_ms / 1000) and plan.least_ms >= 500
    assert budget.deadline == pytest.approx((plan.think_ms - timing.MCTS_SAFETY_MS) / 1000)
    assert budget.extend_to is not None and budget.extend_to > budget.deadline
    assert budget.halfway == pytest.approx(budget.deadline / 2)
    flat = MCTSPlayer(seed=1, tm="flat")._budget(Board(), full, start=0.0)
    assert flat.least_until is None and flat.extend_to is None
    moves = MCTSPlayer(seed=1)._budget(Board(), Limit(move_ms=100), start=0.0)
    assert moves.least_until is None and moves.extend_to is None


def test_a_best_move_that_changed_since_halfway_is_unclear() -> None:
    player = MCTSPlayer(seed=1)
    player.play(Board(), Limit(sims=3000))
    best = player._best_action(player.trees[0])
    assert best is not None
    other = next(m.action for m in Board().legal_moves if m.action != best)
    player._early_best = other  # halfway through, another move led
    assert player._unclear()


def test_stall_margin_keeps_recent_stalls_in_hand_up_to_a_quarter() -> None:
    player = MCTSPlayer(seed=1)
    budget = player._budget(Board(), Limit(move_ms=100), start=0.0)
    assert budget.deadline == pytest.approx((100 - 4) / 1000) and budget.ms == 100
    player._stall_ms = 12.0  # the OS recently took the CPU away for 12 ms
    assert player._stall_margin(budget) == pytest.approx(0.012)
    player._stall_ms = 80.0
    assert player._stall_margin(budget) == pytest.approx(0.025)  # a quarter of 100 ms
    fixed = MCTSPlayer(seed=1, margin="10")
    fixed._stall_ms = 80.0
    budget = fixed._budget(Board(), Limit(move_ms=100), start=0.0)
    assert budget.deadline == pytest.approx(0.090) and fixed._stall_margin(budget) == 0
    # the memory of a stall fades move by move
    player.play(Board(), Limit(sims=50))
    assert player._stall_ms < 80.0


def test_stall_memory_is_capped_when_recorded_so_one_long_suspension_fades() -> None:
    player = MCTSPlayer(seed=1)
    tree = player.trees[0]
    search, calls = tree.search, []

    def stalled_search(*args):
        calls.append(1)
        if len(calls) == 2:
            time.sleep(0.05)  # as if the OS took the CPU away for 50 ms
        return search(*args)

    tree.search = stalled_search
    player._root(Board())
    budget = player._budget(Board(), Limit(move_ms=40), start=time.perf_counter())
    _finish(player._run(tree, budget, threading.Event(), 0, 10_000))
    assert len(calls) >= 2 and player._stall_ms == pytest.approx(0.25 * 40)


@needs_two_cpus
def test_threads_at_the_deadline_extend_it_once_and_the_search_goes_on(monkeypatch) -> None:
    player = MCTSPlayer(seed=1, threads=2)
    monkeypatch.setattr(player, "_unclear", lambda: True)
    now = time.perf_counter()
    budget = Budget(deadline=now - 0.001, sims=None, extend_to=now + 1.0, ms=100)
    # both threads reach the deadline in the same chunk and ask in turn
    assert player._extend(budget) and player._extend(budget)
    assert budget.deadline == now + 1.0 and budget.extend_to is None


@needs_two_cpus
@pytest.mark.parametrize("parallel", ["tree", "root"])
def test_sims_counts_the_simulations_of_all_threads_exactly(parallel: str) -> None:
    player = MCTSPlayer(sims=1001, threads=2, parallel=parallel, seed=5)
    assert player.play(Board()).info["sims"] == 1001


def test_analysis_returns_a_dataclass() -> None:
    result = analyze(Board.from_position(X_WINS_AT_I1), sims=500, seed=1)
    assert isinstance(result, Analysis)
    assert result.best == Move.parse("i1") and result.proven == "win"
    assert result.win_probability == 1.0 and result.pv[0] == Move.parse("i1")
    start = analyze(Board(), sims=4000, seed=1, top=5)
    assert len(start.moves) == 5 and start.moves[0].visits >= start.moves[-1].visits
    assert 0.3 < start.win_probability < 0.8
    assert start.pv and start.pv[0] == start.best


def test_pondering_on_the_opponents_time_carries_into_the_next_move() -> None:
    """`ponder` searches the position after this player's move (the opponent to move);
    the next move keeps that subtree, so it starts with the pondered visits."""
    player = MCTSPlayer(sims=2000, seed=3, ponder=True)
    board = Board()
    board.push(player.play(board).move)
    assert player.ponder(board, threading.Event(), sims=30_000) == 30_000
    board.push(next(iter(board.legal_moves)))
    second = player.play(board)
    assert second.info["pondered"] == 30_000
    fresh = MCTSPlayer(sims=2000, seed=3)
    again = Board(board.rules)
    for move in board.move_stack:
        again.push(move)
    unpondered = fresh.play(again)
    assert unpondered.info["pondered"] == 0
    assert second.info["nodes"] > unpondered.info["nodes"] + 1000
    assert player.play(board).info["pondered"] == 0  # counted once


def test_pondering_stops_when_told_and_not_after_the_game() -> None:
    player = MCTSPlayer(ms=20, seed=1, ponder=True)
    board = Board()
    board.push(player.play(board).move)
    stop = threading.Event()
    done: list[int] = []
    thread = threading.Thread(target=lambda: done.append(player.ponder(board, stop)))
    thread.start()
    time.sleep(0.2)
    assert thread.is_alive()  # no limit: it ponders until stopped
    stop.set()
    thread.join(timeout=10)
    assert not thread.is_alive() and done[0] > 0
    over = Board.from_position(X_WINS_AT_I1)
    over.push(Move.parse("i1"))
    assert player.ponder(over, threading.Event()) == 0
    assert not MCTSPlayer(sims=10).ponders and player.ponders
    assert not MCTSPlayer(sims=10, ponder=True, reuse=False).ponders  # nothing would be kept
    stop.clear()
    stop.set()  # told to stop before it starts: it does not even move the root
    before = player._history
    assert player.ponder(board, stop) == 0 and player._history is before


def test_one_search_yields_snapshots_between_slices_and_a_last_one() -> None:
    """`MCTSPlayer.search`: a snapshot after each gap, then one marked done; a stop
    from outside ends it within a slice; the root's statistics sum to the visits."""
    player = MCTSPlayer(seed=2)
    snaps = list(player.search(Board(), Limit(move_ms=400), gaps=[0.05, 0.1]))
    assert [s.done for s in snaps] == [False, False, True]
    assert snaps[0].sims < snaps[1].sims <= snaps[2].sims
    # ended by its 400 ms (a search that ran on would take far longer than 4 s: a
    # margin no load on the machine crosses)
    assert snaps[0].seconds >= 0.05 and snaps[-1].seconds < 4.0
    last = snaps[-1]
    assert last.best is not None and last.best.move in Board().legal_moves
    assert sum(m.visits for m in last.moves) <= last.sims and last.proven is None
    assert player.line(last.best.move, 5)[0] == last.best.move
    stop = threading.Event()
    search = player.search(Board(), Limit(move_ms=60_000), stop, gaps=[0.05])
    first = next(search)
    stop.set()
    rest = list(search)
    # ended by the stop, not by its 60 s (by its own clock; how soon a loaded machine
    # runs the slice it was in is not this test's)
    assert rest[-1].seconds < 30 and [s.done for s in rest] == [True]
    assert rest[-1].sims >= first.sims


def test_a_search_of_a_won_position_says_so_for_the_side_to_move() -> None:
    o_wins = ("standard 2oo2o1x/1ox2oxoo/o1o3xo1/3x2xxx/3xoo1x1/ooooxxo1o/oxxx1ox1x/"
              "xoxx1o1x1/ox1x2x2 o - o..o.x.xx")  # O to move wins at once
    *_, last = MCTSPlayer(seed=1).search(Board.from_position(o_wins), Limit(sims=5000))
    assert last.done and last.proven == "win" and last.value == 1.0
    assert last.best is not None and last.best.proven == "win"


# O to move in board 7 (d7-f9), whose one empty square is f7: a forced move.
FORCED_F7 = ("standard 1xx1o1x1o/3xo2o1/1oo1x2x1/2o1x1o2/4o4/1o2xx1x1/x2oo3x/3xxo2x/ox1xooox1 "
             "o 7 .........")
# X to move wins by force: level 10's search (seed 1) proves it in about 11,000 simulations.
X_PROVES_A_WIN = ("standard xo1o1x2x/o2o2ooo/o1x3oo1/2x1xxx1o/1ox1o3x/o1x2o1oo/x5oxx/"
                  "1xxxx1x1o/9 x 4 ..ox.....")


def test_level_10_plays_a_forced_move_at_once_without_searching(monkeypatch) -> None:
    """One legal move: level 10 plays it without its two-second search (nor does any
    level search; the ladder's other players are not even asked)."""
    from ninefold.players.level import LevelPlayer, forced_move

    board = Board.from_position(FORCED_F7)
    assert [str(m) for m in board.legal_moves] == ["f7"]
    assert forced_move(board) == Move.parse("f7") and forced_move(Board()) is None
    for level in (10, 4, 1):
        player = LevelPlayer(level)

        def no_search(*args: object, **kwargs: object) -> PlayResult:
            raise AssertionError("a forced move was searched")

        monkeypatch.setattr(player.inner, "play", no_search)
        result = player.play(board)
        assert str(result.move) == "f7", level
        assert result.info == {"forced": True, "sims": 0, "level": level}


def test_level_10_plays_a_proven_win_as_soon_as_it_is_proven() -> None:
    """A proven result ends level 10's search: it made exactly the simulations a search
    counted to 400,000 needs to prove the win, far fewer than its two seconds allow."""
    from ninefold.players.level import LevelPlayer

    board = Board.from_position(X_PROVES_A_WIN)
    counted = make_player("mcts:net=default,sims=400000,seed=1")
    assert isinstance(counted, MCTSPlayer)
    *_, last = counted.search(board)
    assert last.proven == "win" and last.sims < 100_000  # stopped by the proof, not the count
    result = LevelPlayer(10, seed=1).play(board)
    assert result.info["proven"] == "win" and result.info["value"] == 1.0
    assert result.info["sims"] == last.sims and result.move == last.best.move
