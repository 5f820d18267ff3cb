"""The numba kernel and the readable `Board` play exactly the same game.

Random games are played through both, move by move, for every preset (and
every other combination of the rules options): at every ply the legal moves,
the result and the whole kernel state must agree.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ninefold import PRESETS, Board, Mark, Move, Rules, kernel

SETTINGS = settings(
    max_examples=120,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

ALL_RULES = [
    Rules(open_boards, win, full)
    for open_boards in (False, True)
    for win in ("line", "five")
    for full in ("draw", "count")
]
assert set(PRESETS.values()) <= set(ALL_RULES)

def result_code(board: Board) -> int:
    outcome = board.outcome()
    if outcome is None:
        return -1
    return 0 if outcome.winner is None else 1 + int(outcome.winner)


def check_ply(board: Board, state: np.ndarray, flags: int) -> None:
    """Board and kernel state agree on everything. Cheap when they do: the position
    string for the failure message is built only when something differs."""
    ours = [m.action for m in board.legal_moves]
    theirs = kernel.legal_actions(state).tolist()
    rebuilt = kernel.from_board(board)
    ok = (
        state[kernel.RESULT] == result_code(board)
        and theirs == ours
        and kernel.perft(state, 1, flags) == len(ours)
        and state[kernel.SIDE] == int(board.turn)
        and bool((rebuilt == state).all())
    )
    if not ok:
        where = board.position()
        assert state[kernel.RESULT] == result_code(board), where
        assert theirs == ours, where
        assert kernel.perft(state, 1, flags) == len(ours), where
        assert rebuilt.tolist() == state.tolist(), where
        raise AssertionError(where)


def play_both(rules: Rules, choose) -> Board:
    """Play one game through both implementations; `choose(legal)` picks each move."""
    board = Board(rules)
    state = kernel.new_state()
    check_ply(board, state, rules.flags)
    while not board.is_game_over():
        move = choose(list(board.legal_moves))
        board.push(move)
        kernel.play(state, move.board, move.cell, rules.flags)
        check_ply(board, state, rules.flags)
    return board


@SETTINGS
@given(
    rules=st.sampled_from(ALL_RULES),
    picks=st.lists(st.integers(0, 80), min_size=81, max_size=81),
)
@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_random_games_agree(rules: Rules, picks: list[int]) -> None:
    it = iter(picks)
    board = play_both(rules, lambda legal: legal[next(it) % len(legal)])
    assert board.is_game_over()


GAMES = {"standard": 300, "codingame": 300, "open-boards": 300, "tic-tac-ku": 300}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_seeded_random_games_agree(name: str) -> None:
    rules = PRESETS[name]
    rng = random.Random(f"agreement-{name}")
    endings: dict[tuple[Mark | None, str], int] = {}
    for _ in range(GAMES[name]):
        board = play_both(rules, rng.choice)
        outcome = board.outcome()
        assert outcome is not None
        key = (outcome.winner, outcome.termination.value)
        endings[key] = endings.get(key, 0) + 1
    # The sample must exercise every way this preset's games end.
    wins = {"line": "line", "five": "five-boards"}[rules.win]
    expected = {(Mark.X, wins), (Mark.O, wins), (None, "no-moves")}
    if rules.full_grid == "count":
        expected |= {(Mark.X, "board-count"), (Mark.O, "board-count")}
    assert set(endings) == expected, endings


@pytest.mark.parametrize("rules", [r for r in ALL_RULES if r not in PRESETS.values()],
                         ids=lambda r: r.name)
def test_seeded_games_agree_for_other_option_sets(rules: Rules) -> None:
    rng = random.Random(f"agreement-{rules.name}")
    for _ in range(60):
        play_both(rules, rng.choice)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_from_board_after_position_round_trip(name: str) -> None:
    """A board read from its position string (no history) gives the same kernel state."""
    rules = PRESETS[name]
    rng = random.Random(11)
    for _ in range(40):
        board = Board(rules)
        while not board.is_game_over():
            board.push(rng.choice(list(board.legal_moves)))
            if rng.random() < 0.1:
                again = Board.from_position(board.position())
                assert (kernel.from_board(again) == kernel.from_board(board)).all()


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_kernel_random_moves_are_legal(name: str) -> None:
    """The playout's move picker only picks legal moves, and reaches all of them."""
    rules = PRESETS[name]
    rng = kernel.make_rng(3)
    x = rng[0]
    seen_first: set[int] = set()
    for _ in range(150):
        board = Board(rules)
        state = kernel.new_state()
        while state[kernel.RESULT] < 0:
            b, c, x = kernel.random_move(state, np.uint64(x))
            move = Move(int(b), int(c))
            assert board.is_legal(move), (board.position(), move)
            if board.ply == 0:
                seen_first.add(move.action)
            board.push(move)
            kernel.play(state, b, c, rules.flags)
        assert result_code(board) == state[kernel.RESULT]
    assert len(seen_first) > 60  # 150 uniform picks among 81 squares


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_playouts_finish_and_count(name: str) -> None:
    rules = PRESETS[name]
    counts, plies = kernel.playout_batch(kernel.new_state(), rules.flags, 2000, kernel.make_rng(9))
    assert counts.sum() == 2000
    assert 2000 * 17 <= plies <= 2000 * 81
    assert counts[1] > 0 and counts[2] > 0
    # The start state is left alone.
    state = kernel.new_state()
    kernel.playout_batch(state, rules.flags, 10, kernel.make_rng(1))
    assert (state == kernel.new_state()).all()


def test_from_board_at_game_end() -> None:
    rng = random.Random(5)
    rules = PRESETS["standard"]
    board, state = Board(rules), kernel.new_state()
    while not board.is_game_over():
        move = rng.choice(list(board.legal_moves))
        board.push(move)
        kernel.play(state, move.board, move.cell, rules.flags)
    assert kernel.from_board(board).tolist() == state.tolist()
