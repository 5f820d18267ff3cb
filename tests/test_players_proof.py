"""The `proof` player: X's proved strategy with open boards wins every game, and it
refuses, naming the players that can, where it cannot play."""

from __future__ import annotations

import random

import pytest

from ninefold.players import make_player
from ninefold.players.player import Player
from ninefold.players.proof import CannotPlay, phase, strategy
from ninefold.rules import Board, Mark, Move


@pytest.fixture(scope="module")
def proof() -> Player:
    strategy()  # proved once for the module (a few seconds, numba's start included)
    return make_player("proof")


def play_out(proof: Player, opponent: Player) -> Board:
    board = Board("open-boards")
    while not board.is_game_over():
        mover = proof if board.turn is Mark.X else opponent
        board.push(mover.play(board).move)
    return board


@pytest.mark.parametrize("opponent", ["random", "naive"])
def test_it_wins_every_game_from_the_empty_board(proof: Player, opponent: str) -> None:
    for seed in range(4):
        board = play_out(proof, make_player(f"{opponent}:seed={seed}"))
        outcome = board.outcome()
        assert outcome is not None and outcome.winner is Mark.X, board.position()
        assert board.ply <= 43


def test_its_phases_follow_the_strategy_in_order(proof: Player) -> None:
    board, phases = Board("open-boards"), []
    rng = random.Random(1)
    while not board.is_game_over():
        if board.turn is Mark.X:
            phases.append(phase(board).number)
            board.push(proof.play(board).move)
        else:
            board.push(rng.choice(list(board.legal_moves)))
    assert phases[:9] == [1] * 8 + [2]
    assert phases == sorted(phases) and phases[9] == 3


def test_it_refuses_as_o_under_other_rules_and_off_its_strategy(proof: Player) -> None:
    with pytest.raises(CannotPlay, match="open-boards rules only, not standard: play "
                                         "level:10 or mcts:net=default there"):
        proof.play(Board("standard"))
    board = Board("open-boards")
    board.push(Move.parse("e5"))
    with pytest.raises(CannotPlay, match=r"proof plays X only .*: play level:10 or "
                                         r"mcts:net=default as O"):
        proof.play(board)
    board.push(Move.parse("d4"))
    board.push(Move.parse("a1"))  # not the strategy's answer (b2)
    board.push(Move.parse("b2"))
    with pytest.raises(CannotPlay, match=r"strategy does not reach .*: play level:10"):
        proof.play(board)
