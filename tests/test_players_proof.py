"""The `proof` player: X's proved strategy with open boards wins every game, and it
refuses, naming the players that can, where it cannot play; the strategy is shipped
stored, read at once by every process, and proved again (saying so) only where no
stored file can be read."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from ninefold.players import make_player
from ninefold.players import proof as proof_module
from ninefold.players.player import Player
from ninefold.players.proof import SHIPPED, CannotPlay, make_strategy, phase, strategy
from ninefold.proof.stored import check, load
from ninefold.rules import Board, Mark, Move


@pytest.fixture(scope="module")
def proof() -> Player:
    strategy()  # read once for the module
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


def test_the_shipped_strategy_is_a_checked_win_by_ply_43() -> None:
    stored = check(load(SHIPPED))  # walked with the kernel: every line ends in X's win
    assert stored.root == proof_module.ROOT and len(stored) == 131_501
    assert stored.plies_left(Board("open-boards")) == 43
    assert stored.move(Board("open-boards")) == Move(4, 4)
    assert SHIPPED.stat().st_size < 1_000_000


def test_a_new_process_reads_the_strategy_without_proving_or_numba() -> None:
    script = ("import sys\n"
              "from ninefold.players import make_player\n"
              "from ninefold.rules import Board\n"
              "print(make_player('proof').play(Board('open-boards')).move)\n"
              "print(sorted(m for m in ('ninefold.proof.search', 'numba') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.split("\n")[:2] == ["e5", "[]"], done.stdout
    assert done.stderr == ""


# X to move at ply 26 of the strategy, board 1 half refilled (tests/test_proof.py's)
REFILLING = ("open-boards 1x1ox2x1/1x1oo2x1/4o4/3ooo3/1x1oxo1x1/3ooo3/4xo3/1x2x2x1/4x4 "
             "x 3 ....o..x.")


def test_without_a_stored_file_it_is_proved_stage_by_stage_and_kept(monkeypatch, tmp_path):
    """The shipped file missing (then broken): proved, each stage said, kept in the cache,
    and read from there by the next process (a small instance: the win from REFILLING)."""
    monkeypatch.setattr(proof_module, "ROOT", REFILLING)
    monkeypatch.setattr(proof_module, "SHIPPED", tmp_path / "shipped.npz")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(proof_module, "_made", [])
    said: list[str] = []
    made = strategy(said.append)
    assert [line.split(":")[0] for line in said[:2]] == [
        "preparing X's forced win (once for this computer)", "preparing X's forced win"]
    assert "1 of 2, proving it" in said[0] and "2 of 2, storing its 839 positions" in said[1]
    assert said[2] == f"stored in {tmp_path / 'cache/ninefold/open-boards.npz'}: the next " \
                      "process reads it at once"
    assert made.root == REFILLING and len(made) == 839 and proof_module.ready()
    assert strategy(said.append) is made and len(said) == 3  # once a process

    monkeypatch.setattr(proof_module, "_made", [])  # the next process: read from the cache
    (tmp_path / "shipped.npz").write_bytes(b"broken")
    said.clear()
    again = strategy(said.append)
    assert again == made and said == [
        f"{tmp_path / 'shipped.npz'} is refused: not a stored strategy: not an .npz archive"]


def test_while_it_is_prepared_preparing_says_the_stage(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(proof_module, "ROOT", REFILLING)
    monkeypatch.setattr(proof_module, "SHIPPED", tmp_path / "missing.npz")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(proof_module, "_made", [])
    seen: list[str | None] = []
    strategy(lambda line: seen.append(proof_module.preparing()))
    assert seen[:2] == ["preparing X's forced win (once for this computer): 1 of 2, "
                        "proving it (about a minute of CPU)",
                        "preparing X's forced win: 2 of 2, storing its 839 positions "
                        "(about a minute of CPU)"]
    assert proof_module.preparing() is None and proof_module.ready()


@pytest.mark.slow
def test_the_shipped_strategy_is_what_the_prover_makes() -> None:
    """Proving it again (a minute or two) makes the shipped file's strategy, array for
    array: regenerate it with ``SHIPPED.write_bytes(make_strategy().to_bytes())``."""
    assert make_strategy() == load(SHIPPED)
