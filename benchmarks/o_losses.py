"""Where the second player loses: read games saved by `strength.py --save` and print O's
score by the first two moves, and the ply from which the shipped network's value
for O stayed below a threshold to the end of each game O lost.

    .venv/bin/python benchmarks/strength.py mcts:net=default mcts:net=default \
        --subprocess --games 100 --jobs 2 --seed 505 --first-move-ms 3000 \
        --settle-ms 3000 --save runs/o/default.jsonl
    .venv/bin/python benchmarks/o_losses.py runs/o/default.jsonl [--below 0.3]

The network's value is its own, without search: a rough phase marker, cheap
enough for every position of every game.

With ``--solve N`` it also walks each game O lost back from its end with df-pn
(`ninefold.proof`, every move tried, at most N expansions a position): the ply of
O's move that let a held position go (the last position with O to move from which
X has no forced win, the next one proved lost), and what the disproof cost; a
game whose walk runs out of budget first counts as beyond the solver's reach. It
says how many losses an exact solver near the end could have saved, and at what
cost a turn (df-pn expands about 300,000 positions a second here).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from ninefold.kernel import from_board
from ninefold.players.net import Scratch, evaluate, load_net
from ninefold.proof.search import NotProved, Solver
from ninefold.rules import Board


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("saved", type=Path, help="a file of games from strength.py --save")
    parser.add_argument("--below", type=float, default=0.3,
                        help="the value for O under which a lost game counts as gone")
    parser.add_argument("--solve", type=int, default=0, metavar="N",
                        help="walk O's lost games back with df-pn, N expansions a position")
    parser.add_argument("--walk", type=int, default=None, metavar="K",
                        help="with --solve: walk only the first K lost games (a few seconds each)")
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
        o_score = score_of_o(game)
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
    if args.solve:
        lost_games = [g["moves"] for g in saved if not g.get("forfeit")
                      and score_of_o(g) == 0]
        report_holds(lost_games[:args.walk], rules, args.solve)


def score_of_o(game: dict) -> float:
    """O's score in a saved game (A's score is the record's)."""
    return game["score_a"] if not game["a_is_x"] else 1.0 - game["score_a"]


def last_hold(moves: list[str], rules: str, budget: int) -> tuple[str, int, int]:
    """Walk a game O lost back from its end with df-pn: ("let go", ply, expansions) for
    O's move at `ply` that let a held position go (the disproof of X's win there took
    `expansions`), ("beyond reach", ply, budget) where a position before it was out of
    budget, ("lost throughout", 0, 0) if X's win is proved at every O position."""
    board = Board(rules)
    at_o: list[tuple[int, Board]] = []  # (the ply of O's move, the position before it)
    for ply, move in enumerate(moves, start=1):
        if board.is_game_over():
            break
        if board.turn.name == "O":
            at_o.append((ply, board.copy()))
        board.push_text(move)
    solver = Solver(board.rules, budget)
    for ply, before in reversed(at_o):
        try:
            x_wins = solver.x_wins(before)
        except NotProved:
            return "beyond reach", ply, budget
        if not x_wins:
            return "let go", ply, solver.expansions
    return "lost throughout", 0, 0


def report_holds(games: list[list[str]], rules: str, budget: int) -> None:
    """Print where O's lost games were let go, by `last_hold`."""
    kinds: Counter[str] = Counter()
    let_go: Counter[int] = Counter()
    reach: Counter[int] = Counter()
    cost: list[int] = []
    for n, moves in enumerate(games, start=1):
        kind, ply, spent = last_hold(moves, rules, budget)
        kinds[kind] += 1
        if kind == "let go":
            let_go[(ply - 1) // 10 * 10 + 1] += 1
            cost.append(spent)
        elif kind == "beyond reach":
            reach[(ply - 1) // 10 * 10 + 1] += 1
        print(f"\r  df-pn: {n} of {len(games)} lost games walked", end="", file=sys.stderr,
              flush=True)
    print(f"\nO's {len(games)} lost games (not on time), walked back with df-pn "
          f"({budget:,} expansions a position): {kinds['let go']} let a held position go, "
          f"{kinds['beyond reach']} were beyond reach first, {kinds['lost throughout']} "
          "lost throughout")
    for first in sorted(let_go):
        print(f"  let go at plies {first}-{first + 9}: {let_go[first]}")
    for first in sorted(reach):
        print(f"  beyond reach at plies {first}-{first + 9}: {reach[first]}")
    if cost:
        cost.sort()
        for limit in sorted({30_000, 300_000, budget}):
            print(f"  held positions disproved within {limit:,} expansions: "
                  f"{sum(c <= limit for c in cost)} of {len(cost)}")


if __name__ == "__main__":
    main()
