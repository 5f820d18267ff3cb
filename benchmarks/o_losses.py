"""Where the second player loses: read games saved by `strength.py --save` and print O's
score by the first two moves, and the ply from which the shipped network's value
for O stayed below a threshold to the end of each game O lost.

    .venv/bin/python benchmarks/strength.py mcts:net=default mcts:net=default \
        --subprocess --games 100 --jobs 2 --seed 505 --first-move-ms 3000 \
        --settle-ms 3000 --save runs/o/default.jsonl
    .venv/bin/python benchmarks/o_losses.py runs/o/default.jsonl [--below 0.3]

The network's value is its own, without search: a rough phase marker, cheap
enough for every position of every game.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from ninefold.kernel import from_board
from ninefold.players.net import Scratch, evaluate, load_net
from ninefold.rules import Board


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("saved", type=Path, help="a file of games from strength.py --save")
    parser.add_argument("--below", type=float, default=0.3,
                        help="the value for O under which a lost game counts as gone")
    args = parser.parse_args()
    try:
        lines = args.saved.read_text().splitlines()
        rules = json.loads(lines[0])["match"]["rules"]
        saved = [json.loads(line) for line in lines[1:]]
        if not all({"score_a", "a_is_x", "moves"} <= game.keys() for game in saved):
            raise KeyError("a game's fields")
    except (OSError, ValueError, LookupError, TypeError) as exc:
        parser.error(f"{args.saved}: not a file of games saved by strength.py --save "
                     f"({type(exc).__name__})")
    net = load_net("default")
    scratch, logits = Scratch.make(net), np.empty(81, np.float32)
    by_start: defaultdict[str, list[float]] = defaultdict(list)
    gone_at: Counter[int] = Counter()
    games = lost = 0
    for game in saved:
        games += 1
        o_score = game["score_a"] if not game["a_is_x"] else 1.0 - game["score_a"]
        by_start[" ".join(game["moves"][:2])].append(o_score)
        if o_score > 0:
            continue
        lost += 1
        board, values = Board(rules), []
        for move in game["moves"]:
            board.push_text(move)
            if board.is_game_over():
                break
            v = evaluate(net, from_board(board), board.rules.flags, scratch, logits)
            values.append(v if board.turn.name == "O" else 1.0 - v)  # O's value, ply k + 1
        ply = len(values) + 1  # the first ply of the run below the threshold to the end
        for k in range(len(values) - 1, -1, -1):
            if values[k] >= args.below:
                break
            ply = k + 1
        gone_at[(ply - 1) // 10 * 10 + 1] += 1
    o_total = sum(sum(v) for v in by_start.values())
    print(f"{games} games ({rules}); O scored {100 * o_total / games:.1f}% and lost {lost}")
    print(f"O's lost games by the ply from which the network's value for O stayed below "
          f"{args.below:g}:")
    for first in sorted(gone_at):
        print(f"  plies {first}-{first + 9}: {gone_at[first]}")
    print("O's score by the first two moves:")
    for start, scores in sorted(by_start.items(), key=lambda kv: -len(kv[1])):
        print(f"  {start}: {len(scores)} games, O {100 * sum(scores) / len(scores):.0f}%")


if __name__ == "__main__":
    main()
