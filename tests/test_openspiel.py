"""`Board` (standard rules) against OpenSpiel's independent `ultimate_tic_tac_toe`.

OpenSpiel's action semantics, found by experiment (OpenSpiel 1.5-2.0):

- Boards and cells are numbered 0-8 in reading order, as in ninefold, and the
  cell of a move sends the opponent to the board of that number.
- On a forced board the mover's actions are the empty cells 0-8 of that board
  ("Local board 4: x(0,2)" is cell 2 = row 0, column 2).
- On a free move (the first move, or when sent to a closed board) the mover
  spends TWO actions: first "Choose local board b" (0-8, only boards that are
  not closed), then, still the same player, a cell of board b.
- At the end, returns() is [+1, -1] when X (player 0) wins, [-1, +1] when O
  wins and [0, 0] for a draw.
"""

from __future__ import annotations

import random

import pyspiel  # the test extra installs it: a missing one is an error, not a skip
import pytest

from ninefold import Board, Mark, Move

GAMES = 2000
CHOOSE = "Choose local board"


def is_board_choice(state) -> bool:
    """True if the mover's actions choose a board (a free move's first step)."""
    first = state.legal_actions()[0]
    return state.action_to_string(state.current_player(), first).startswith(CHOOSE)


def real_moves(state, target: int | None) -> set[Move]:
    """OpenSpiel's legal moves expanded to real (board, cell) moves."""
    if target is None:
        moves = set()
        for b in state.legal_actions():
            child = state.clone()
            child.apply_action(b)
            assert child.current_player() == state.current_player()
            moves |= {Move(b, c) for c in child.legal_actions()}
        return moves
    return {Move(target, c) for c in state.legal_actions()}


def expected_returns(board: Board) -> list[float]:
    outcome = board.outcome()
    assert outcome is not None
    if outcome.winner is None:
        return [0.0, 0.0]
    return [1.0, -1.0] if outcome.winner is Mark.X else [-1.0, 1.0]


@pytest.fixture(scope="module")
def game():
    return pyspiel.load_game("ultimate_tic_tac_toe")


def test_action_semantics(game) -> None:
    state = game.new_initial_state()
    assert state.legal_actions() == list(range(9)) and is_board_choice(state)
    assert all(state.action_to_string(0, b) == f"{CHOOSE} {b}" for b in range(9))
    state.apply_action(4)  # choose the centre board...
    assert state.current_player() == 0 and not is_board_choice(state)
    assert state.action_to_string(0, 2) == "Local board 4: x(0,2)"
    assert state.legal_actions() == list(range(9))
    state.apply_action(2)  # ...and its cell 2: O is sent to board 2
    assert state.current_player() == 1 and not is_board_choice(state)
    assert state.action_to_string(1, 0) == "Local board 2: o(0,0)"
    board = Board()
    board.push(Move(4, 2))
    assert real_moves(state, board.target) == set(board.legal_moves)


def test_random_games_agree_with_openspiel(game) -> None:
    rng = random.Random(20240611)
    free_moves = 0
    outcomes = {"1-0": 0, "0-1": 0, "1/2-1/2": 0}
    for _ in range(GAMES):
        board = Board("standard")
        state = game.new_initial_state()
        while not board.is_game_over():
            assert not state.is_terminal(), board.position()
            free = board.target is None
            assert is_board_choice(state) == free, board.position()
            assert state.current_player() == int(board.turn)
            legal = sorted(board.legal_moves)
            assert real_moves(state, board.target) == set(legal), board.position()
            move = rng.choice(legal)
            if free:
                free_moves += 1
                state.apply_action(move.board)
            state.apply_action(move.cell)
            board.push(move)
        assert state.is_terminal(), board.position()
        assert state.returns() == expected_returns(board), board.position()
        outcomes[board.outcome().result()] += 1
    # The sample covers wins for both sides, draws, and many free moves after the first.
    assert min(outcomes.values()) > GAMES // 10, outcomes
    assert free_moves > 3 * GAMES, free_moves
