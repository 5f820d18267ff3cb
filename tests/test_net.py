"""The policy-value network: its features, its forward pass, its files, and the search
that uses it (`ninefold.players.net`, `mcts:net=`, `ninefold.learn`)."""

from __future__ import annotations

import random
import shutil

import numpy as np
import pytest
import torch

from ninefold import Board
from ninefold.kernel import from_board
from ninefold.learn.train import PolicyValue, encode, from_net, symmetries, to_net
from ninefold.players import Limit, PlayerSpecError, make_player, net_inputs
from ninefold.players import net as netmod
from ninefold.players.net import (
    MAX_ACTIVE,
    NetError,
    Scratch,
    evaluate,
    evaluate_moves,
    features,
    for_search,
    load_net,
    net_meta,
    random_net,
    save_net,
    sha256,
    shapes,
)
from ninefold.players.net_inputs import (
    DEFAULT_PATH,
    DEFAULT_SHA256,
    FEATURES,
    HIDDEN,
    board_features,
)
from ninefold.players.policy import PolicyPlayer, forward, read_net
from ninefold.rules import PRESETS, Move


def random_board(seed: int, rules: str = "standard") -> Board:
    rng = random.Random(seed)
    board = Board(rules=PRESETS[rules])
    for _ in range(rng.randrange(0, 70)):
        if board.outcome() is not None:
            break
        board.push(rng.choice(list(board.legal_moves)))
    return board


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_features_agree_with_board(rules):
    idx = np.empty(MAX_ACTIVE, np.int64)
    for seed in range(150):
        board = random_board(seed, rules)
        n = features(from_board(board), board.rules.flags, idx)
        assert sorted(idx[:n].tolist()) == board_features(board), board


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_the_plain_python_policy_agrees_with_the_search_s_network(rules):
    """`ninefold.players.policy` reads the shipped weights without numpy and gives the
    logits `evaluate` gives; its move is the legal move with the highest."""
    plain, net = read_net("default"), load_net("default")
    scratch, logits = Scratch.make(net), np.empty(81, np.float32)
    for seed in range(60):
        board = random_board(seed, rules)
        if board.is_game_over():
            continue
        evaluate(net, from_board(board), board.rules.flags, scratch, logits)
        actions = [m.action for m in board.legal_moves]
        assert forward(plain, board_features(board), actions) == pytest.approx(
            logits[actions].tolist(), abs=1e-4)
        best = max(actions, key=lambda a: logits[a])
        assert PolicyPlayer().play(board).move.action == best


def test_the_plain_python_reader_refuses_what_is_not_a_network(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not readable"):
        read_net(str(bad))
    small = tmp_path / "small.npz"
    save_net(random_net(0, 8, 8)._replace(w1=np.zeros((10, 8), np.float32)), small, {})
    with pytest.raises(ValueError, match="10 features, not 455"):
        read_net(str(small))
    with pytest.raises(PlayerSpecError):
        make_player(f"policy:net={bad}")


def test_symmetries_map_positions_to_positions():
    """A game played through a symmetry has the mapped features and the mapped moves."""
    fmaps, amaps = symmetries()
    for k in range(8):
        assert sorted(fmaps[k]) == list(range(FEATURES)) and sorted(amaps[k]) == list(range(81))
    for seed in range(40):
        rng = random.Random(seed)
        board = Board()
        moves = []
        for _ in range(rng.randrange(1, 60)):
            if board.outcome() is not None:
                break
            moves.append(rng.choice(list(board.legal_moves)))
            board.push(moves[-1])
        k = seed % 8
        image = Board()
        for m in moves:
            image.push(Move.from_action(int(amaps[k][m.action])))
        x = encode(from_board(board)[None, :], np.zeros(1, np.int64))[0]
        y = encode(from_board(image)[None, :], np.zeros(1, np.int64))[0]
        mapped = np.zeros_like(x)
        mapped[fmaps[k]] = x
        assert np.array_equal(mapped, y)


def test_forward_pass_agrees_with_torch():
    torch.manual_seed(3)
    model = PolicyValue()
    for p in model.parameters():  # larger weights than the initial ones: a sharper test
        p.data.mul_(3)
    net = to_net(model)
    scratch, logits = Scratch.make(net), np.empty(81, np.float32)
    boards = [random_board(seed, rules) for seed in range(40) for rules in ("standard",
                                                                            "tic-tac-ku")]
    states = np.array([from_board(b) for b in boards])
    flags = np.array([b.rules.flags for b in boards])
    with torch.no_grad():
        want_logits, want_value = model(torch.from_numpy(encode(states, flags)).float())
    for i in range(len(boards)):
        v = evaluate(net, states[i], int(flags[i]), scratch, logits)
        assert v == pytest.approx(float(torch.sigmoid(want_value[i])), abs=1e-4)
        np.testing.assert_allclose(logits, want_logits[i].numpy(), atol=1e-3)
    back = to_net(from_net(net))
    assert all(np.array_equal(a, b) for a, b in zip(net, back, strict=True))


def shipped_net_outputs(n: int) -> list[tuple[list[float], list[np.ndarray]]]:
    """For positions of `n` random games (free moves and three presets among them), the
    shipped network's values and legal moves' logits by `evaluate`, then by
    `evaluate_moves` unquantised and quantised."""
    net = load_net("default")
    scratch, idx = Scratch.make(net), np.empty(MAX_ACTIVE, np.int64)
    ways = ((evaluate, net), (evaluate_moves, for_search(net)),
            (evaluate_moves, for_search(net, quantised=True)))
    out: list[tuple[list[float], list[np.ndarray]]] = [([], []) for _ in ways]
    for seed in range(n):
        board = random_board(seed, ("standard", "tic-tac-ku", "codingame")[seed % 3])
        if board.outcome() is not None:
            continue
        s, flags = from_board(board), board.rules.flags
        legal = [int(i) - netmod.LEGAL for i in idx[:features(s, flags, idx)]
                 if netmod.LEGAL <= i < netmod.LEGAL + 81]
        for (f, sn), (values, logits) in zip(ways, out, strict=True):
            row = np.full(81, np.nan, np.float32)
            values.append(f(sn, s, flags, scratch, row))
            logits.append(row[legal])
    return out


def test_search_evaluation_is_the_reference_and_quantised_close_to_it():
    """`evaluate_moves` gives `evaluate`'s value and legal logits; with the int16 first
    layer the value moves by less than 2e-3, a logit by less than 0.01, and the move
    with the highest logit is the same in at least 99.9% of positions."""
    (v, lg), (v_plain, lg_plain), (v_quant, lg_quant) = shipped_net_outputs(3000)
    np.testing.assert_allclose(v_plain, v, atol=1e-6)
    for a, b in zip(lg_plain, lg, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-4)
    np.testing.assert_allclose(v_quant, v, atol=2e-3)
    same = 0
    for a, b in zip(lg_quant, lg, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-2)
        same += int(np.argmax(a)) == int(np.argmax(b))
    assert same >= 0.999 * len(lg)


# --- files --------------------------------------------------------------------------------


# the network shipped until 2026-11-29 (dec0dc7 has it): the first of this network's line
# (PREVIOUS); two rounds of codingame games on from it made PARENT (s15), whose search played
# this network's games under every preset, and this network trained on from it on them
PREVIOUS_SHA256 = "025e81d83a5b0ac6916efefa68f76cadab0e4dc7bb9795f343481a0c81956d8c"
PARENT_SHA256 = "a2ca9db06ffb4c16e26bd5cc1d0f703bbed7972e6205f84957b166107c871b6c"


def test_shipped_weights_load_with_their_shape_checksum_and_recipe():
    net = load_net("default")
    for name, shape in shapes().items():
        assert getattr(net, name).shape == shape
        assert getattr(net, name).dtype == np.float32
    assert sha256(DEFAULT_PATH) == DEFAULT_SHA256
    meta = net_meta("default")  # s15 trained on from its weights on its own games (r16)
    assert meta["command"].startswith("python -m ninefold.learn.distill --out /work/data/r16 ")
    assert " --games 30000 " in meta["command"] and " --rules " not in meta["command"]
    assert meta["course"]["seed"] == 200000 and meta["course"]["hidden"] == list(HIDDEN)
    assert len(meta["data"]) == 30 and meta["more_data"] == []
    assert meta["teacher"]["sha256"] == meta["start"]["sha256"] == PARENT_SHA256
    (r16,) = meta["selfplay"]
    assert r16["games"] == 30000 and r16["played_by_sha256"] == PARENT_SHA256
    parent = meta["parent"]
    assert parent["sha256"] == PARENT_SHA256
    r14, r15 = parent["meta"]["selfplay"]  # s15's two rounds, codingame rules only
    assert r14["games"] == 51000 and r14["played_by_sha256"] == PREVIOUS_SHA256
    assert r15["games"] == 30000 and " --rules codingame " in r15["command"]
    assert parent["meta"]["parent"]["meta"]["start"]["sha256"] == PREVIOUS_SHA256
    assert meta["previous_default_sha256"] == PREVIOUS_SHA256
    assert "CPU" in meta["trained_on"]
    assert meta["held_out"]["student"]["policy"] < meta["held_out"]["teacher"]["policy"]


def test_bad_weights_files_give_one_clear_error(tmp_path):
    net = random_net(1)
    good = tmp_path / "good.npz"
    save_net(net, good, {"test": True})
    assert net_meta(good) == {"test": True}
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[:5000])
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a network\n" * 10)
    narrow = tmp_path / "narrow.npz"
    save_net(net._replace(wp=net.wp[:, :80].copy()), narrow, {})
    nan = tmp_path / "nan.npz"
    bad = net.w2.copy()
    bad[0, 0] = np.nan
    save_net(net._replace(w2=bad), nan, {})
    partial = tmp_path / "partial.npz"
    np.savez(partial, w1=net.w1)
    cases = {tmp_path / "missing.npz": "no network file", truncated: "not a .npz weights file",
             garbage: "not a .npz weights file",
             narrow: r"wp is float32\[128, 80\], not float32\[128, 81\]",
             nan: "w2 holds NaN", partial: "has no b1", tmp_path: "is a directory"}
    for path, message in cases.items():
        with pytest.raises(NetError, match=message) as info:
            load_net(path)
        assert "\n" not in str(info.value)
        with pytest.raises(PlayerSpecError, match=message):
            make_player(f"mcts:net={path}")
    # the pure search is still there
    assert make_player("mcts:sims=50,seed=1").play(Board(), Limit()).move in Board().legal_moves


def test_a_missing_default_network_leaves_the_pure_search(tmp_path, monkeypatch):
    monkeypatch.setattr(net_inputs, "DEFAULT_PATH", tmp_path / "gone.npz")
    with pytest.raises(PlayerSpecError, match="no network file"):
        make_player("mcts:net=default")
    assert make_player("mcts:sims=50,seed=1").play(Board(), Limit()).move in Board().legal_moves


# --- the search with a network ------------------------------------------------------------


def test_network_search_plays_legal_moves_with_threads_and_reuse(tmp_path):
    path = tmp_path / "net.npz"
    save_net(random_net(2), path, {})
    for spec in (f"mcts:net={path},sims=300,seed=1", f"mcts:net={path},sims=300,threads=2",
                 f"mcts:net={path},sims=300,mix=0.5,seed=2",
                 f"mcts:net={path},sims=300,parallel=root,threads=2"):
        player = make_player(spec)
        board = Board()
        while board.outcome() is None:
            result = player.play(board, Limit())
            assert result.move in board.legal_moves
            board.push(result.move)


def test_network_search_keeps_the_solver(tmp_path):
    """With any network, the solver still plays a win in one and says it is proven."""
    path = tmp_path / "net.npz"
    save_net(random_net(5), path, {})
    board = Board.from_position("standard xxxxxxxx1/9/9/o1oo1oo1o/9/9/o1o6/9/9 x 2 xx.......")
    result = make_player(f"mcts:net={path},sims=2000,seed=1").play(board, Limit())
    assert (str(result.move), result.info["proven"]) == ("i1", "win")


def test_the_search_quantises_the_first_layer_unless_told_not_to():
    on, off = make_player("mcts:net=default"), make_player("mcts:net=default,quant=off")
    assert on.net is not None and on.net.w1q.shape == (FEATURES, HIDDEN[0])
    assert off.net is not None and off.net.w1q.shape[0] == 0
    for player in (on, off):
        assert player.play(Board(), Limit(sims=300)).move in Board().legal_moves


def test_mix_is_checked():
    with pytest.raises(PlayerSpecError, match=r"mix must be 0\.\.1"):
        make_player("mcts:net=default,mix=2")


def test_copied_network_file_plays_like_the_default(tmp_path):
    copy = tmp_path / "copy.npz"
    shutil.copy(DEFAULT_PATH, copy)
    a = make_player("mcts:net=default,sims=500,seed=4").play(Board(), Limit())
    b = make_player(f"mcts:net={copy},sims=500,seed=4").play(Board(), Limit())
    assert a.move == b.move


# --- training ---------------------------------------------------------------------------


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_training_command_runs_rounds_end_to_end(tmp_path):
    """A tiny run of `python -m ninefold.learn`: data, networks, log and plot per round."""
    import json
    import subprocess
    import sys

    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "ninefold.learn", "--out", str(out), "--rounds", "2",
           "--first-games", "4", "--games", "4", "--pure-sims", "30", "--sims", "20",
           "--epochs", "1", "--gate-pairs", "1", "--gate-sims", "20", "--seed", "3"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]
    assert [r["round"] for r in rows] == [0, 1]
    assert all(0 <= r["gate_score"] <= 1 and r["policy_loss"] > 0 for r in rows)
    for r in (0, 1):
        assert (out / f"data_{r}.npz").exists()
        meta = net_meta(out / f"net_{r}.npz")
        assert meta["round"] == r and meta["plan"]["seed"] == 3
        assert meta["command"].startswith("python -m ninefold.learn --out")
        assert meta["tasks"] == {"engine": "processes", "workers": 2, "games_per_task": 10,
                                 "pairs_per_task": 1}
        load_net(out / f"net_{r}.npz")
    assert (out / "rounds.png").stat().st_size > 10_000
    assert "round 1: gating match" in done.stderr
    made = {r: (out / f"net_{r}.npz").read_bytes() for r in (0, 1)}
    again = subprocess.run([*cmd[:6], "3", *cmd[7:]], capture_output=True, text=True,
                           timeout=600)  # three rounds: goes on after round 1
    assert again.returncode == 0, again.stderr[-2000:]
    assert "round 0: done in an earlier run" in again.stderr
    assert "round 1: done in an earlier run" in again.stderr
    assert all((out / f"net_{r}.npz").read_bytes() == made[r] for r in (0, 1))
    rows = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]
    assert [r["round"] for r in rows] == [0, 1, 2]


def test_training_refuses_bad_options(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "ninefold.learn", "--out", str(tmp_path),
                           "--rounds", "0"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr


@pytest.mark.slow  # trains in subprocesses that load torch: 20-30 s each
def test_training_goes_on_from_a_network(tmp_path):
    """``--start default``: round 0 plays the shipped network's search (not pure MCTS),
    its candidate must beat that network, and the run says so in each file."""
    import json
    import subprocess
    import sys

    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "ninefold.learn", "--out", str(out), "--rounds", "1",
           "--games", "4", "--sims", "20", "--mix", "0", "--epochs", "1", "--gate-pairs", "1",
           "--gate-sims", "20", "--seed", "5", "--start", "default", "--device", "auto"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "round 0: self-play, 4 games at 20 simulations a move, net_default.npz" in done.stderr
    assert "against net_default.npz" in done.stderr
    meta = net_meta(out / "net_0.npz")
    assert meta["played_by_sha256"] == DEFAULT_SHA256
    assert meta["plan"]["start"] == str(DEFAULT_PATH.resolve())
    row = json.loads((out / "rounds.jsonl").read_text().splitlines()[0])
    if not row["accepted"]:
        assert done.stdout.strip() == "no network passed its gating match"


@pytest.mark.slow  # trains in subprocesses that load torch: 20-30 s each
def test_training_refuses_a_bad_start_or_device(tmp_path):
    import subprocess
    import sys

    base = [sys.executable, "-m", "ninefold.learn", "--out", str(tmp_path / "run")]
    bad = tmp_path / "bad.npz"
    bad.write_text("not a network")
    cases = [(["--start", str(tmp_path / "none.npz")], "no network file"),
             (["--start", str(bad)], "not a .npz weights file"),
             (["--device", "gpu"], "not cpu, cuda or auto")]
    if not torch.cuda.is_available():
        cases.append((["--device", "cuda", "--rounds", "1"], "PyTorch sees no CUDA device"))
    for args, message in cases:
        done = subprocess.run([*base, *args], capture_output=True, text=True, timeout=120)
        assert done.returncode != 0 and message in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "run" / "data_0.npz").exists()
