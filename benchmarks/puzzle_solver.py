"""The puzzles' solver (`ninefold.proof.within`: df-pn for either side) against plain
search over the reference `Board`, on the shipped puzzles' positions.

For each position and each length N: does the side to move win within N plies, and
which first moves win within N (what `ninefold puzzles make` asks of every position).
The reference, measured in the same run on the same positions: a plain AND/OR search
over `Board` (every move tried, no table: tests/plain_search.py, the tests' too), for
the lengths it finishes in reasonable time; both must agree. The solver alone for the
longer lengths.

    .venv/bin/python benchmarks/puzzle_solver.py                 # 60 positions
    .venv/bin/python benchmarks/puzzle_solver.py --positions 200
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from plain_search import board_winning_moves, board_wins

from ninefold import kernel
from ninefold.proof.within import Solver, Unknown
from ninefold.puzzles.puzzle import load
from ninefold.rules import Mark


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plain-up-to", type=int, default=5,
                        help="The longest wins plain search is timed on.")
    args = parser.parse_args()
    puzzles = load()
    boards = [p.board() for p in random.Random(args.seed).sample(puzzles, args.positions)]
    flags = boards[0].rules.flags
    Solver(flags).winning_moves(kernel.from_board(boards[0]), 3)  # compile first
    print(f"{len(boards)} positions of the shipped puzzles "
          f"({sum(b.turn is Mark.O for b in boards)} with O to move)")
    print(f"{'plies':>5} {'solver ms':>10} {'plain ms':>10} {'ratio':>7}  wins")
    for plies in (1, 3, 5, 7, 9):
        solver = Solver(flags, budget=5_000_000)
        start = time.process_time()
        answers = []
        for board in boards:
            s = kernel.from_board(board)
            try:
                answers.append((solver.within(s, plies), solver.winning_moves(s, plies)))
            except Unknown:
                answers.append((None, []))
        ours = (time.process_time() - start) * 1000 / len(boards)
        plain = ratio = "-"
        if plies <= args.plain_up_to:
            start = time.process_time()
            reference = [(board_wins(b.copy(), b.turn, plies), board_winning_moves(b.copy(), plies))
                         for b in boards]
            took = (time.process_time() - start) * 1000 / len(boards)
            assert reference == answers, "the solver and plain search disagree"
            plain, ratio = f"{took:.2f}", f"{took / ours:.1f}x"
        wins = sum(bool(a[0]) for a in answers)
        print(f"{plies:>5} {ours:>10.2f} {plain:>10} {ratio:>7}  {wins}/{len(boards)}")
    print("ms: CPU per position (the win's question and every first move's); ratio: plain / "
          "solver")


if __name__ == "__main__":
    main()
