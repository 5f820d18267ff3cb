"""The RL environments (`ninefold.env`): the libraries' own checkers, and agreement with Board."""

from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from pettingzoo.test import api_test, seed_test

from ninefold.env import ninefold_uttt_v0
from ninefold.env.batch import (
    ACTION_AT,
    N_PLANES,
    PLANES,
    BatchedEnv,
    IllegalActionError,
    _random_four,
    random_actions,
    step_games,
)
from ninefold.env.single import UTTTEnv
from ninefold.kernel import STATE_SIZE, from_board, make_rng
from ninefold.rules import PRESETS, Board, InvalidOpeningError, O, X

RULES = sorted(PRESETS)


def expected_planes(board: Board, observer: int) -> np.ndarray:
    """The planes computed from a `Board`, the readable way."""
    me, them = (X, O) if observer == 0 else (O, X)
    planes = np.zeros((9, 9, N_PLANES), np.int8)
    legal = {m.action for m in board.legal_moves} if int(board.turn) == observer else set()
    flags = (board.rules.open_boards, board.rules.win == "five", board.rules.full_grid == "count")
    for row in range(9):
        for col in range(9):
            action = int(ACTION_AT[row, col])
            b = action // 9
            planes[row, col] = [
                board.cells[action] is me, board.cells[action] is them, action in legal,
                board.owners[b] is me, board.owners[b] is them, board.is_closed(b),
                observer, *flags,
            ]
    return planes


def expected_rewards(board: Board) -> tuple[float, float]:
    outcome = board.outcome()
    if outcome is None or outcome.winner is None:
        return 0.0, 0.0
    return (1.0, -1.0) if outcome.winner is X else (-1.0, 1.0)


# --- the libraries' own checks -------------------------------------------------------------


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("opening", [None, "random"])
def test_pettingzoo_api_test_passes(rules, opening):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Dict observation space is the classic envs' way
        api_test(ninefold_uttt_v0.env(rules=rules, opening=opening), num_cycles=300)
        api_test(ninefold_uttt_v0.raw_env(rules=rules, opening=opening), num_cycles=300)


@pytest.mark.parametrize("rules", RULES)
def test_pettingzoo_seed_test_passes(rules):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: ninefold_uttt_v0.env(rules=rules, opening="random"), num_cycles=300)


@pytest.mark.parametrize("rules", ["standard", "tic-tac-ku"])
def test_gymnasium_check_env_passes(rules):
    # check_env steps with unmasked random actions: the documented penalty makes them legal
    env = gymnasium.make("ninefold/UTTT-v0", opponent="naive", rules=rules, illegal="penalty",
                         render_mode="ansi")
    check_env(env.unwrapped)
    env = gymnasium.make("ninefold/UTTT-v0", opponent="random", rules=rules, opening="random",
                         illegal="penalty", render_mode="rgb_array")
    check_env(env.unwrapped)


# --- agreement with Board, move by move ----------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(RULES),
       opening=st.sampled_from([None, "random", "53271"]))
def test_every_env_agrees_with_board_move_by_move(seed, rules, opening):
    rng = random.Random(seed)
    batched = BatchedEnv(1, rules, opening, seed=seed)
    drawn, _ = _random_four(batched.rng[0])  # the code reset() will draw, if it draws one
    obs, masks = batched.reset()
    aec = ninefold_uttt_v0.raw_env(rules=rules, opening=opening)
    aec.reset(seed=seed)
    board = aec.game.board()
    # the batched env draws its own opening: play its game on a Board of its own
    code = "".join(str(d + 1) for d in drawn) if opening == "random" else opening
    batched_board = Board(rules, opening=code)
    assert np.array_equal(batched.states[0], from_board(batched_board))
    while True:
        for b, o, m in ((board, None, None), (batched_board, obs[0], masks[0])):
            side = int(b.turn)
            if o is not None:
                assert np.array_equal(o, expected_planes(b, side))
                assert [int(a) for a in np.flatnonzero(m)] == [mv.action for mv in b.legal_moves]
        for agent, side in (("player_0", 0), ("player_1", 1)):
            seen = aec.observe(agent)
            assert np.array_equal(seen["observation"], expected_planes(board, side))
            legal = [mv.action for mv in board.legal_moves] if int(board.turn) == side else []
            assert list(np.flatnonzero(seen["action_mask"])) == legal
        assert aec.agent_selection == f"player_{int(board.turn)}"
        move = rng.choice(list(board.legal_moves))
        aec.step(move.action)
        board.push(move)
        if board.is_game_over():
            assert (aec.rewards["player_0"], aec.rewards["player_1"]) == expected_rewards(board)
            assert all(aec.terminations.values())
            break
        assert not any(aec.terminations.values())
    while not batched_board.is_game_over():
        move = rng.choice(list(batched_board.legal_moves))
        obs, rewards, dones, masks = batched.step(np.array([move.action]))
        batched_board.push(move)
        assert bool(dones[0]) == batched_board.is_game_over()
        assert tuple(rewards[0]) == expected_rewards(batched_board)
        if not batched_board.is_game_over():
            assert np.array_equal(obs[0], expected_planes(batched_board, int(batched_board.turn)))


# --- the batched environment ---------------------------------------------------------------


def test_batched_env_auto_resets_and_scores_every_game():
    env = BatchedEnv(64, "codingame", opening="random", seed=5)
    obs, masks = env.reset()
    assert obs.shape == (64, 9, 9, N_PLANES) and masks.shape == (64, 81)
    assert (masks.sum(axis=1) > 0).all()
    plies = np.full(64, 4)  # a random-four opening plays 4 moves
    finished = 0
    for _ in range(200):
        obs, rewards, dones, masks = env.step(env.sample_actions())
        plies += 1
        assert (rewards[~dones] == 0).all()
        assert (rewards[dones].sum(axis=1) == 0).all()  # zero-sum: +1/-1 or 0/0
        finished += int(dones.sum())
        plies[dones] = 4
        assert (np.count_nonzero(env.states[:, :18] != 0, axis=1) > 0).all()  # openings played
        assert (masks.sum(axis=1) > 0).all()  # every game running again
    assert finished > 64


def test_batched_env_is_reproducible_from_its_seed():
    def run(seed):
        env = BatchedEnv(16, opening="random", seed=seed)
        env.reset()
        out = []
        for _ in range(100):
            _, rewards, dones, _ = env.step(env.sample_actions())
            out.append((rewards.copy(), dones.copy()))
        return env.states.copy(), out

    a, b, c = run(3), run(3), run(4)
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[0], c[0])


def test_batched_env_refuses_an_illegal_action_and_changes_nothing():
    env = BatchedEnv(3, seed=1)
    env.reset()
    env.step(np.array([40, 40, 40]))  # the centre everywhere; O is sent to board 4
    before = env.states.copy()
    with pytest.raises(IllegalActionError, match=r"game 1: action 0 \(board 0, cell 0\)"):
        env.step(np.array([36, 0, 36]))
    with pytest.raises(IllegalActionError, match="game 2: action 81 is not in 0-80"):
        env.step(np.array([36, 36, 81]))
    with pytest.raises(IllegalActionError, match="game 0: action 40"):  # taken
        env.step(np.array([40, 36, 36]))
    with pytest.raises(IllegalActionError, match=r"shape \(3,\)"):
        env.step(np.array([36, 36]))
    with pytest.raises(IllegalActionError, match="integers"):
        env.step(np.array([36.0, 36.0, 36.0]))
    assert np.array_equal(env.states, before)


def test_batched_env_checks_its_arguments():
    with pytest.raises(ValueError, match="num_envs"):
        BatchedEnv(0)
    with pytest.raises(ValueError, match="obs"):
        BatchedEnv(2, obs="pixels")
    with pytest.raises(InvalidOpeningError, match="55555"):
        BatchedEnv(2, opening="55555")
    with pytest.raises(RuntimeError, match="reset"):
        BatchedEnv(2).step(np.array([0, 0]))
    with pytest.raises(InvalidOpeningError, match="a code, 'random' or None"):
        ninefold_uttt_v0.raw_env(opening=53271)
    with pytest.raises(InvalidOpeningError, match="5 digits"):
        UTTTEnv(opening="12")


def test_batched_env_state_observations_are_the_kernel_rows():
    env = BatchedEnv(4, obs="state", opening="53271", seed=2)
    obs, _ = env.reset()
    board = Board(opening="53271")
    assert obs.shape == (4, STATE_SIZE)
    assert all(np.array_equal(row, from_board(board)) for row in obs)


def test_batched_step_is_callable_from_numba_code():
    @njit
    def self_play(states, steps, rng):
        n = states.shape[0]
        actions = np.zeros(n, np.int64)
        rewards = np.zeros((n, 2), np.float32)
        dones = np.zeros(n, np.bool_)
        code = np.zeros(5, np.int64)
        finished = 0
        for _ in range(steps):
            random_actions(states, rng, actions)
            step_games(states, actions, 0, 0, code, rng, rewards, dones)
            finished += dones.sum()
        return finished

    env = BatchedEnv(32, seed=1)
    env.reset()
    assert self_play(env.states, 300, make_rng(1)) >= 32


# --- illegal actions in the single-game environments ---------------------------------------


def test_raw_env_raises_on_an_illegal_action_and_changes_nothing():
    env = ninefold_uttt_v0.raw_env()
    env.reset(seed=1)
    env.step(40)
    before = env.game.state.copy()
    with pytest.raises(IllegalActionError, match="O was sent to board 4"):
        env.step(0)
    with pytest.raises(IllegalActionError, match="not in 0-80"):
        env.step(99)
    with pytest.raises(IllegalActionError, match="already taken"):
        env.step(40)
    assert np.array_equal(env.game.state, before) and env.agent_selection == "player_1"


def test_wrapped_env_ends_the_game_with_the_penalty_as_pettingzoo_does(caplog):
    env = ninefold_uttt_v0.env()
    env.reset(seed=1)
    env.step(40)
    env.step(0)
    assert "Illegal move made" in caplog.text
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 0, "player_1": -1}


def test_gymnasium_env_raises_or_penalises_as_asked():
    env = UTTTEnv(opponent="naive", play_as="o")
    env.reset(seed=2)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    env = UTTTEnv(opponent="naive", play_as="o", illegal="penalty")
    env.reset(seed=2)
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_gymnasium_env_plays_whole_games_against_a_seeded_player():
    def game(seed):
        env = UTTTEnv(opponent="naive", play_as="o", rules="tic-tac-ku", opening="random")
        _, info = env.reset(seed=seed)
        assert len(env.game.moves) == 5  # the opening and naive's first move
        rng = random.Random(seed)
        done, reward = False, 0.0
        while not done:
            action = rng.choice(list(np.flatnonzero(info["action_mask"])))
            _, reward, done, _, info = env.step(action)
        board = env.game.board()
        assert reward == expected_rewards(board)[1]
        return env.game.moves

    assert game(11) == game(11) and game(11) != game(12)


def test_renders_ansi_and_rgb_array():
    env = ninefold_uttt_v0.raw_env(render_mode="ansi", opening="53271")
    env.reset()
    text = env.render()
    assert "X to move, in board 0" in text
    env = ninefold_uttt_v0.raw_env(render_mode="rgb_array")
    env.reset()
    blank = env.render()
    env.step(40)
    image = env.render()
    assert image.dtype == np.uint8 and image.shape[2] == 3 and (image != blank).any()
    with pytest.raises(ValueError, match="render_mode"):
        ninefold_uttt_v0.raw_env(render_mode="human")


def test_planes_are_named():
    assert len(PLANES) == N_PLANES == 10


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_the_ppo_example_learns_evaluates_and_plots(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "examples" / "ppo_uttt.py"
    done = subprocess.run(
        [sys.executable, str(script), "--timesteps", "1024", "--envs", "2", "--eval-every",
         "512", "--curve-games", "4", "--eval-games", "6", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    for opponent in ("random", "naive"):
        counts = result[opponent]
        assert counts["wins"] + counts["draws"] + counts["losses"] == counts["games"] == 6
    assert (tmp_path / "curve.png").stat().st_size > 1000
    assert (tmp_path / "model.zip").exists()
    assert "vs naive:" in done.stdout
