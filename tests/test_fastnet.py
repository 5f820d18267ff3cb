"""The fast network built for the search's speed: its features, its int16 evaluation,
its files, the search that uses it (`ninefold.players.fastnet`, `mcts:net=FILE`) and its
training (`python -m ninefold.learn.fastnet`)."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from ninefold import Board
from ninefold.kernel import from_board
from ninefold.moves import LINES, SYMMETRIES
from ninefold.players import Limit, PlayerSpecError, make_player
from ninefold.players.fastnet import (
    CLOSED_BOARDS,
    COUNT_FULL,
    FEATURES,
    FREE_MOVE,
    MAX_ACTIVE,
    OPEN_BOARDS,
    OPP,
    OPP_BIG_THREATS,
    OPP_BOARDS,
    OPP_THREATS,
    OWN,
    OWN_BIG_THREATS,
    OWN_BOARDS,
    OWN_THREATS,
    PLAYS_O,
    TARGET,
    WIN_FIVE,
    WORDS,
    FastNetError,
    encode,
    evaluate,
    evaluate_float,
    feature_set,
    features,
    for_search,
    is_fast_net,
    load_fast_net,
    random_fast_net,
    save_fast_net,
    sum_rows,
    sums_from,
    symmetries,
)
from ninefold.rules import FLAG_COUNT_FULL, FLAG_OPEN_BOARDS, FLAG_WIN_FIVE, PRESETS, Mark, Move


def random_board(seed: int, rules: str = "standard") -> Board:
    rng = random.Random(seed)
    board = Board(rules=PRESETS[rules])
    for _ in range(rng.randrange(0, 70)):
        if board.outcome() is not None:
            break
        board.push(rng.choice(list(board.legal_moves)))
    return board


def completes(marked: set[int], square: int) -> bool:
    return any(set(line) <= marked | {square} for line in LINES)


def readable_features(board: Board) -> list[int]:
    """The features, from a `Board`, the plain way."""
    me = board.turn
    on = set()
    for a, mark in enumerate(board.cells):
        if mark is not None:
            on.add((OWN if mark is me else OPP) + a)
    for b, owner in enumerate(board.owners):
        if owner is not None:
            on.add((OWN_BOARDS if owner is me else OPP_BOARDS) + b)
        if board.is_closed(b):
            on.add(CLOSED_BOARDS + b)
    on.add(FREE_MOVE if board.target is None else TARGET + board.target)
    undecided = [b for b in range(9) if board.owners[b] is None and not board.is_closed(b)]
    for side, cells_base, boards_base in ((me, OWN_THREATS, OWN_BIG_THREATS),
                                          (me.other, OPP_THREATS, OPP_BIG_THREATS)):
        owned = {b for b in range(9) if board.owners[b] is side}
        for b in undecided:
            mine = {c for c in range(9) if board.cells[9 * b + c] is side}
            for c in range(9):
                if board.cells[9 * b + c] is None and completes(mine, c):
                    on.add(cells_base + 9 * b + c)
            if len(owned) >= 4 if board.rules.win == "five" else completes(owned, b):
                on.add(boards_base + b)
    if me is Mark.O:
        on.add(PLAYS_O)
    for flag, feature in ((FLAG_COUNT_FULL, COUNT_FULL), (FLAG_OPEN_BOARDS, OPEN_BOARDS),
                          (FLAG_WIN_FIVE, WIN_FIVE)):
        if board.rules.flags & flag:
            on.add(feature)
    return sorted(on)


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_features_agree_with_board(rules):
    idx = np.empty(MAX_ACTIVE, np.int64)
    for seed in range(120):
        board = random_board(seed, rules)
        if board.is_game_over():
            continue
        n = features(from_board(board), board.rules.flags, idx)
        assert sorted(idx[:n].tolist()) == readable_features(board), board


def test_symmetries_map_positions_to_positions():
    fmaps = symmetries()
    for k in range(8):
        assert sorted(fmaps[k]) == list(range(FEATURES))
    for seed in range(40):
        board = random_board(seed)
        k = seed % 8
        sq = SYMMETRIES[k]
        image = Board()
        for m in board.move_stack:
            image.push(Move.from_action(9 * sq[m.action // 9] + sq[m.action % 9]))
        x = encode(from_board(board)[None, :], np.zeros(1, np.int64))[0]
        y = encode(from_board(image)[None, :], np.zeros(1, np.int64))[0]
        mapped = np.zeros_like(x)
        mapped[fmaps[k]] = x
        assert np.array_equal(mapped, y)


@pytest.mark.parametrize("policy_units", [None, 100])
def test_int16_evaluation_is_close_to_the_float_reference(policy_units):
    net = random_fast_net(3)
    if policy_units is not None:  # a policy that reads the first units alone
        net.wp[policy_units:] = 0.0
    sn = for_search(net)
    assert sn.wps.shape == (81, policy_units or net.b1.shape[0])
    boards = [b for b in (random_board(s, "codingame") for s in range(200))
              if not b.is_game_over()]
    states = np.array([from_board(b) for b in boards])
    flags = np.array([b.rules.flags for b in boards])
    ref, ref_logits = evaluate_float(net, states, flags)
    idx, acc = np.empty(MAX_ACTIVE, np.int64), np.empty(net.b1.shape[0], np.int16)
    for s, f, value, want, board in zip(states, flags, ref, ref_logits, boards, strict=True):
        logits = np.full(81, 99.0, np.float32)
        assert abs(evaluate(sn, s, f, idx, acc, logits) - value) < 0.01
        legal = [m.action for m in board.legal_moves]
        assert np.abs(logits[legal] - want[legal]).max() < 0.05  # the legal moves' logits
        assert (np.delete(logits, legal) == 99.0).all()  # and only theirs
    assert len(set(np.round(ref, 4))) > 50  # the positions are told apart


@pytest.mark.parametrize("rules", ["codingame", "standard", "open-boards", "tic-tac-ku"])
def test_sums_from_a_position_two_moves_back_are_the_sums_from_the_bias(rules):
    """The search's shortcut (`sums_from` a grandparent's hidden sums) gives exactly the
    sums `sum_rows` makes from the bias, also where the moves won or closed a board or
    sent the player anywhere (many features change), with weights near int16's limit."""
    net = random_fast_net(5, 64)
    sn = for_search(net._replace(w1=net.w1 * 40))
    idx, rows = np.empty(MAX_ACTIVE, np.int64), np.empty(2 * MAX_ACTIVE, np.int64)
    base, want, got = (np.empty(64, np.int16) for _ in range(3))
    base_bits, bits = np.zeros(WORDS, np.uint64), np.zeros(WORDS, np.uint64)
    changed = []
    for seed in range(150):
        board = random_board(seed, rules)
        moves = board.move_stack
        if board.is_game_over() or len(moves) < 2:
            continue
        before = Board(rules=board.rules)
        for m in moves[:-2]:
            before.push(m)
        n = features(from_board(before), board.rules.flags, idx)
        sum_rows(sn.w1q, sn.b1q, idx, n, base)
        feature_set(idx, n, base_bits)
        assert sorted(np.flatnonzero(np.unpackbits(base_bits.view(np.uint8),
                                                   bitorder="little"))) == sorted(idx[:n])
        n = features(from_board(board), board.rules.flags, idx)
        sum_rows(sn.w1q, sn.b1q, idx, n, want)
        feature_set(idx, n, bits)
        sums_from(sn.w1q, base, base_bits, bits, rows, got)
        assert np.array_equal(got, want), board
        changed.append(int(np.unpackbits((bits ^ base_bits).view(np.uint8)).sum()))
    assert min(changed) <= 4 and max(changed) >= 10, changed  # few, and some many


def test_quantisation_cannot_overflow_with_large_weights():
    net = random_fast_net(0)
    net = net._replace(w1=net.w1 * 40)
    sn = for_search(net)
    worst = np.abs(sn.b1q.astype(np.int64)) + np.sort(
        np.abs(sn.w1q.astype(np.int64)), axis=0)[-MAX_ACTIVE:].sum(axis=0)
    assert worst.max() <= 32767 and int(sn.top[0]) < 255


def test_files_round_trip_and_bad_ones_say_why(tmp_path):
    net = random_fast_net(1, 16)
    path = tmp_path / "v.npz"
    save_fast_net(net, path, {"kind": "value"})
    assert is_fast_net(path) and not is_fast_net("default")
    back = load_fast_net(path)
    assert all(np.array_equal(a, b) for a, b in zip(net, back, strict=True))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(FastNetError, match=r"not a \.npz"):
        load_fast_net(bad)
    with pytest.raises(FastNetError, match="no network file"):
        load_fast_net(tmp_path / "none.npz")
    wrong = tmp_path / "wrong.npz"
    save_fast_net(net._replace(w1=np.zeros((10, 16), np.float32)), wrong, {})
    with pytest.raises(FastNetError, match=r"f_w1 is float32\[10, 16\]"):
        load_fast_net(wrong)


def test_the_search_plays_with_a_fast_network(tmp_path):
    path = tmp_path / "v.npz"
    save_fast_net(random_fast_net(2), path, {})
    for threads in (1, 2):
        player = make_player(f"mcts:net={path},sims=400,threads={threads},seed=1")
        board = Board(PRESETS["codingame"])
        for _ in range(12):
            result = player.play(board, Limit())
            assert result.move in board.legal_moves
            board.push(result.move)
    with pytest.raises(PlayerSpecError):
        make_player(f"mcts:net={tmp_path / 'missing.npz'}")


def test_training_arrays_built_in_blocks_are_those_built_at_once():
    from ninefold.learn.fastnet import arrays
    from ninefold.learn.selfplay import Positions, Searcher, play_game
    from ninefold.players.net_inputs import net_path

    player, rng = Searcher().player(20, 1), random.Random(2)
    pos = Positions.concat([play_game(player, PRESETS["codingame"], [], rng) for _ in range(2)])
    teacher = str(net_path("default"))
    whole = arrays(pos, 0.15, 0.7, teacher)
    blocks = arrays(pos, 0.15, 0.7, teacher, block=7)
    assert len(pos) > 7 * 3
    for a, b in zip(whole, blocks, strict=True):
        assert a.shape[0] == len(pos) and np.array_equal(a, b)
    x, target, value, legal, policy = whole
    assert x.dtype == np.uint8 and policy.dtype == np.float16
    # the search's shares and the teacher's, 0.3 and 0.7 (a position whose search kept no
    # shares has the teacher's alone)
    searched = pos.policy.astype(np.float32).sum(1) > 0.5
    assert np.allclose(policy.astype(np.float32).sum(1), np.where(searched, 1.0, 0.7), atol=1e-2)
    assert not (policy[~legal] > 0).any()
    assert ((target >= 0) & (target <= 1)).all() and np.array_equal(value, pos.value)


@pytest.mark.slow  # self-play and PyTorch training: `make test-all` and CI run it
def test_training_writes_a_network_the_search_plays(tmp_path):
    from ninefold.learn.selfplay import Positions, Searcher, play_game

    player, rng = Searcher().player(30, 1), random.Random(1)
    pos = Positions.concat([play_game(player, PRESETS["codingame"], [], rng)
                            for _ in range(6)])
    data = tmp_path / "data_0.npz"
    pos.save(data)
    out = tmp_path / "value.npz"
    run = subprocess.run([sys.executable, "-m", "ninefold.learn.fastnet", str(data), "--out",
                          str(out), "--epochs", "2", "--hidden", "32", "--policy-units", "8"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "epoch 2/2: held-out loss" in run.stderr
    assert is_fast_net(out)
    from ninefold.players.net import net_meta

    meta = net_meta(out)
    assert meta["kind"] == "value" and str(data) in meta["data"] and meta["policy_units"] == 8
    net = load_fast_net(out)  # the policy reads the first 8 units, and the search those alone
    assert net.wp[:8].any() and not net.wp[8:].any() and for_search(net).wps.shape == (81, 8)
    player = make_player(f"mcts:net={out},sims=200,seed=1")
    assert player.play(Board(), Limit()).move in Board().legal_moves
    bad = subprocess.run([sys.executable, "-m", "ninefold.learn.fastnet", str(tmp_path / "no.npz")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    wide = subprocess.run([sys.executable, "-m", "ninefold.learn.fastnet", str(data), "--hidden",
                           "32", "--policy-units", "33"], capture_output=True, text=True,
                          timeout=120)
    assert wide.returncode != 0 and "more than the 32 hidden units" in wide.stderr
    assert "Traceback" not in wide.stderr
    # --start trains on from a network's weights (at a learning rate too small to move
    # them, they come back as they were), and one of another shape is refused in one line
    again = tmp_path / "again.npz"
    run = subprocess.run([sys.executable, "-m", "ninefold.learn.fastnet", str(data), "--out",
                          str(again), "--epochs", "1", "--hidden", "32", "--policy-units", "8",
                          "--lr", "1e-6", "--start", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    after = load_fast_net(again)
    assert all(np.allclose(x, y, atol=1e-3) for x, y in zip(net, after, strict=True))
    assert str(out) in net_meta(again)["start"]
    other = subprocess.run([sys.executable, "-m", "ninefold.learn.fastnet", str(data), "--hidden",
                            "16", "--start", str(out)], capture_output=True, text=True,
                           timeout=120)
    assert other.returncode != 0 and "has 32 hidden units" in other.stderr
    assert "Traceback" not in other.stderr
