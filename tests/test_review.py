"""The game review (`ninefold.review`): labels, accuracy, the analyses in worker processes."""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import time

import pytest
from reviewgames import blunder_game
from webserver import alive

from ninefold.records import Game
from ninefold.review import (
    Position,
    Review,
    ReviewError,
    evaluate,
    label,
    move_accuracy,
    review,
)
from ninefold.rules import Board, Move


def test_a_missed_win_in_one_is_a_blunder_and_the_win_the_best_move():
    board, wins, missed = blunder_game()
    moves = list(board.move_stack)
    calls = []
    result = review(Board(), moves, ms=40, workers=0, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (len(moves) + 1, len(moves) + 1) and len(calls) == len(moves) + 1
    blunder = result.plies[-2]
    assert blunder.move == str(missed)
    assert blunder.label == "blunder"
    assert blunder.best in {str(m) for m in wins}
    assert blunder.pv[0] == blunder.best
    mover = blunder.mover
    assert result.positions[-3].proven == mover  # a win in one: proven before the move
    assert result.positions[-2].proven == ("o" if mover == "x" else "x")  # lost after it
    last = result.positions[-1]
    assert last.proven == board.outcome().winner.name.lower() and last.best is None
    assert last.x == (1.0 if last.proven == "x" else 0.0)
    assert result.plies[-1].label == "best"  # the winning reply
    assert result.accuracy(mover) < 100


def _review(start: Board, moves: list[str], xs: list[float], book: int = 0,
            best: list[str | None] | None = None, proven=None) -> Review:
    best = best or [None] * len(xs)
    proven = proven or [None] * len(xs)
    return Review(start.position(), moves, book, 100.0, "test",
                  [Position(x, p, b) for x, p, b in zip(xs, proven, best, strict=True)])


def test_labels_and_accuracy_from_given_scores():
    # X's scores over five positions: the first move an opening's, not judged; then O
    # loses 0.07 (inaccuracy), X 0.30 (blunder), O 0.13 (mistake)
    moves = ["e5", "e4", "d2", "c4"]
    xs = [0.6, 0.6, 0.67, 0.37, 0.5]
    rev = _review(Board(), moves, xs, book=1)
    assert [p.label for p in rev.plies] == ["opening", "inaccuracy", "blunder", "mistake"]
    assert [p.loss for p in rev.plies] == [0.0, 0.07, 0.3, 0.13]
    assert [p.mover for p in rev.plies] == ["x", "o", "x", "o"]
    assert rev.accuracy("o") == round((move_accuracy(0.07) + move_accuracy(0.13)) / 2, 1)
    assert rev.accuracy("x") == round(move_accuracy(0.3), 1)
    assert Review.from_json(rev.to_json()) == rev


def test_the_best_move_is_best_whatever_its_loss_and_a_thrown_win_a_blunder():
    moves = ["e5", "e4"]
    rev = _review(Board(), moves, [0.7, 0.6, 0.63], best=["e5", "a1", None])
    assert [p.label for p in rev.plies] == ["best", "good"]
    # X's first move leaves a proven win for a proven draw: a blunder, however small
    # the numbers say its loss is
    thrown = _review(Board(), moves, [1.0, 0.99, 0.99], proven=["x", "draw", "draw"])
    assert [p.label for p in thrown.plies] == ["blunder", "best"]
    assert thrown.plies[0].loss == 0.01


def test_the_label_thresholds():
    assert [label(x, False, False) for x in (0.0, 0.0199, 0.02, 0.0499, 0.05, 0.0999, 0.1,
                                              0.1999, 0.2, 1.0)] == [
        "best", "best", "good", "good", "inaccuracy", "inaccuracy", "mistake", "mistake",
        "blunder", "blunder"]
    assert label(0.0, True, True) == "blunder"
    assert label(0.5, True, False) == "best"


def test_the_accuracy_formula():
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert move_accuracy(0.1) == pytest.approx(103.1668 * math.exp(-0.4354) - 3.1669)
    assert move_accuracy(0.25) == pytest.approx(103.1668 * math.exp(-1.0885) - 3.1669)
    assert move_accuracy(1.0) == 0.0  # clipped
    assert move_accuracy(-0.1) == 100.0  # a gain: clipped


def test_a_game_over_position_is_its_result_and_is_not_searched():
    board, _, _ = blunder_game()
    final = evaluate(board.position(), 10_000)  # a search this long would show in the time
    assert final.sims == 0 and final.proven in ("x", "o") and final.best is None


def test_bad_moves_and_budgets_are_one_line_errors():
    with pytest.raises(ReviewError, match=r"move 2 \(e5\) cannot be played"):
        review(Board(), [Move.parse("e5"), Move.parse("e5")], workers=0)
    with pytest.raises(ReviewError, match="20-10000 ms, not 5"):
        review(Board(), [], ms=5, workers=0)


def test_worker_processes_give_each_position_an_analysis():
    game = Game.from_board(blunder_game()[0])
    moves = game.moves[-3:]
    start = game.start_board()
    for m in game.moves[:-3]:
        start.push(m)
    done = []
    rev = review(start, moves, ms=30, workers=2, progress=lambda d, t: done.append(d))
    assert sorted(done) == [1, 2, 3, 4]
    assert rev.plies[-2].label == "blunder" and len(rev.positions) == 4
    assert all(p.sims > 0 for p in rev.positions[:-1])


def test_the_worker_processes_end_when_their_parent_is_killed():
    script = ("import os, signal\n"
              "from ninefold.review import worker_pool\n"
              "pool = worker_pool(1)\n"
              "print(pool.submit(os.getpid).result(), flush=True)\n"
              "os.kill(os.getpid(), signal.SIGKILL)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    worker = int(proc.stdout)
    end = time.monotonic() + 60
    while alive(worker) and time.monotonic() < end:
        time.sleep(0.05)
    assert not alive(worker), f"worker {worker} outlived its killed parent"
