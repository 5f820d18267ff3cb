"""The opening explorer's speed on many games: build an index of N random games (a million
by default), then time `Explorer.query` on positions drawn from those games.

The games are uniformly random playouts made by the numba kernel, keyed as
`ninefold.explorer` keys them (`position_key`, the first `--plies` plies of each),
summed per (position, move) with numpy, and written once through
`Explorer.add_counts`. Random games are the explorer's worst case: after a few
plies almost every position is new, so the index holds about one row a ply.

The reference, measured in the same run: the same question asked as a scan, of
a table of 10,000 games' (position, move, result) rows without an index (what
the index saves). The bar: a query within 50 ms.

    .venv/bin/python benchmarks/explorer_speed.py                  # a million games
    .venv/bin/python benchmarks/explorer_speed.py --games 100000 --plies 20
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time
from pathlib import Path

import numpy as np

from ninefold import kernel
from ninefold.explorer import Explorer, key_of, position_key
from ninefold.jitcache import njit
from ninefold.rules import Board, Move

REFERENCE_GAMES = 10_000
BAR_MS = 50.0


@njit(cache=True)
def random_games(start: np.ndarray, games: int, plies: int,
                 seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`games` random games from `start` (a kernel state): each position's key and move for the
    first `plies` plies (-1 after the end), the game's length there, and its result (0
    draw, 1 X, 2 O)."""
    keys = np.full((games, plies), -1, np.int64)
    moves = np.full((games, plies), -1, np.int8)
    lengths = np.zeros(games, np.int64)
    results = np.zeros(games, np.int8)
    s = np.empty_like(start)
    rng = np.uint64(seed * 2654435761 + 1)
    for g in range(games):
        s[:] = start
        n = 0
        while s[kernel.RESULT] < 0:
            b, c, rng = kernel.random_move(s, rng)
            if n < plies:
                keys[g, n] = position_key(s)
                moves[g, n] = 9 * b + c
            kernel.play(s, b, c, 0)
            n += 1
        lengths[g] = min(n, plies)
        results[g] = s[kernel.RESULT]
    return keys, moves, lengths, results


def summed(keys: np.ndarray, moves: np.ndarray, results: np.ndarray) -> tuple[np.ndarray, ...]:
    """(position, move, x, draw, o) summed per (position, move), in key order."""
    kept = keys.ravel() >= 0
    pos = keys.ravel()[kept]
    mv = moves.ravel()[kept].astype(np.int64)
    res = np.repeat(results, keys.shape[1])[kept]
    order = np.lexsort((mv, pos))
    pos, mv, res = pos[order], mv[order], res[order]
    new = np.ones(len(pos), bool)
    new[1:] = (pos[1:] != pos[:-1]) | (mv[1:] != mv[:-1])
    starts = np.flatnonzero(new)
    x = np.add.reduceat((res == 1).astype(np.int64), starts)
    d = np.add.reduceat((res == 0).astype(np.int64), starts)
    o = np.add.reduceat((res == 2).astype(np.int64), starts)
    return pos[starts], mv[starts], x, d, o


def sample_boards(moves: np.ndarray, lengths: np.ndarray, count: int,
                  rng: np.random.Generator) -> list[Board]:
    """`count` positions of the games: a random game, a random ply within its indexed plies."""
    boards = []
    for g in rng.integers(0, len(lengths), count):
        board = Board()
        for a in moves[g, : rng.integers(0, lengths[g])]:
            board.push(Move.from_action(int(a)))
        boards.append(board)
    return boards


def timed(ask: object, boards: list[Board]) -> np.ndarray:
    out = []
    for board in boards:
        t = time.perf_counter()
        ask(board)  # type: ignore[operator]
        out.append(1000 * (time.perf_counter() - t))
    return np.array(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--plies", type=int, default=30)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", metavar="FILE", help="build the index here and keep it")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    random_games(kernel.new_state(), 10, 5, 0)  # compiled before the clock starts

    folder = tempfile.mkdtemp(prefix="explorer-bench-")
    path = Path(args.keep or os.path.join(folder, "index.sqlite"))
    path.unlink(missing_ok=True)
    t = time.perf_counter()
    keys, moves, lengths, results = random_games(kernel.new_state(), args.games, args.plies,
                                                   args.seed)
    made = time.perf_counter() - t
    t = time.perf_counter()
    rows = summed(keys, moves, results)
    ex = Explorer(path, args.plies)
    ex.add_counts("standard", "records", *rows)
    built = time.perf_counter() - t
    size = path.stat().st_size
    print(f"{args.games:,} random games, {int(lengths.sum()):,} positions indexed "
          f"(first {args.plies} plies), {len(rows[0]):,} (position, move) rows")
    print(f"made in {made:.1f} s, indexed in {built:.1f} s, index {size / 2**20:,.0f} MiB "
          f"({size / args.games:,.0f} bytes a game)")

    boards = sample_boards(moves, lengths, args.queries, rng)
    for board in boards[:50]:  # warm the page cache and the key's compilation
        ex.query(board)
    ms = timed(ex.query, boards)
    checked = boards[:200]
    found = sum(1 for b in checked if ex.query(b).games > 0)
    print(f"query: median {np.median(ms):.3f} ms, p99 {np.percentile(ms, 99):.3f} ms, "
          f"max {ms.max():.3f} ms over {len(ms):,} positions ({found}/{len(checked)} found "
          "in the index)")

    ref_rows = REFERENCE_GAMES * args.plies
    scan = sqlite3.connect(":memory:")
    scan.execute("CREATE TABLE plies (pos INTEGER, move INTEGER, result INTEGER)")
    n = min(REFERENCE_GAMES, args.games)
    scan.executemany("INSERT INTO plies VALUES (?, ?, ?)", zip(
        keys[:n].ravel().tolist(), moves[:n].ravel().tolist(),
        np.repeat(results[:n], args.plies).tolist(), strict=True))

    def scan_query(board: Board) -> list[tuple[int, int, int]]:
        return scan.execute("SELECT move, result, count(*) FROM plies WHERE pos = ? "
                            "GROUP BY move, result", (key_of(board),)).fetchall()

    ref = timed(scan_query, boards[:200])
    print(f"reference: the same question as a scan of {n:,} games ({ref_rows:,} rows, no "
          f"index): median {np.median(ref):.3f} ms")
    print(f"ratio: a query of the {args.games:,}-game index takes "
          f"{np.median(ms) / np.median(ref):.3f} x the {n:,}-game scan; "
          f"p99 {np.percentile(ms, 99):.3f} ms against the bar of {BAR_MS:g} ms: "
          f"{'within' if np.percentile(ms, 99) <= BAR_MS else 'OVER'}")
    ex.close()
    if not args.keep:
        path.unlink()


if __name__ == "__main__":
    main()
