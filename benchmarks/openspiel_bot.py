"""OpenSpiel's MCTSBot as a CodinGame bot process, for `strength.py --subprocess`.

    python benchmarks/openspiel_bot.py --protocol codingame --ms 100

Reads CodinGame turns on stdin (the opponent's last move ``row col``, the
number of valid actions, the actions) and answers ``row col``. It thinks
the turn's time less `--safety-ms` (pipes, Python, building the search tree),
split between the two decisions OpenSpiel spends on a free move
(`openspiel_mcts.OpenSpielSearch`); its first turn has `--first-ms` from
when the process started, as on the platform. Only the CodinGame protocol:
the others send the board, not the moves, and OpenSpiel's state needs the
moves in order.
"""

from __future__ import annotations

import time

STARTED = time.monotonic()

import argparse  # noqa: E402 - the clock starts before any import
import sys  # noqa: E402

from openspiel_mcts import OpenSpielSearch  # noqa: E402

from ninefold.rules import Board, Move  # noqa: E402

FIRST_SAFETY_MS = 100.0  # the first turn also pays for the interpreter's start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--protocol", default="codingame", choices=["codingame"])
    parser.add_argument("--ms", type=float, default=100.0, help="time per turn, ms")
    parser.add_argument("--first-ms", type=float, default=1000.0, help="first turn, ms")
    parser.add_argument("--safety-ms", type=float, default=15.0, help="kept back, ms")
    parser.add_argument("--c", type=float, default=2.0, help="UCT exploration constant")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    search = OpenSpielSearch(c=args.c, seed=args.seed)
    board = Board()
    turn = 0
    while True:
        head = sys.stdin.readline()
        if not head:
            return 0
        if not head.strip():
            continue
        t0 = time.monotonic()
        row, col = (int(v) for v in head.split()[:2])
        for _ in range(int(sys.stdin.readline())):
            sys.stdin.readline()  # the valid actions: our own board knows them
        if row >= 0:
            board.push(Move.from_xy(col, row))
        if turn == 0:
            think = args.first_ms - 1000 * (t0 - STARTED) - FIRST_SAFETY_MS
        else:
            think = args.ms - args.safety_ms
        think -= 1000 * (time.monotonic() - t0)
        move = search.choose(board, max(1.0, think), split=True)
        board.push(move)
        x, y = move.xy
        sys.stdout.write(f"{y} {x}\n")
        sys.stdout.flush()
        turn += 1


if __name__ == "__main__":
    sys.exit(main())
