"""The full theorem from the empty board: X's forced win with open boards, searched for.

    .venv/bin/python benchmarks/prove.py [--guide refill|paper|diagonal|safe|none] [--max-plies N]
                                         [--max-expansions N] [--table-bits N] [--out FILE]
                                         [--split [--replies a1,d1] [--then MOVES]]

Runs `ninefold.proof.search.prove` from the empty `open-boards` board with
the chosen guide, printing progress (expansions, table size, CPU seconds);
on success it checks the certificate with `ninefold.proof.certificate.check`
and prints the positions, the longest forced line and the CPU times; else it
says where the search stopped, after how many expansions and CPU seconds. With
the default guide, `refill` (the paper's strategy), the proof takes a few
seconds: `--max-plies 43` proves X's win by the paper's bound, 41 is refuted.
The default budget, 200 million expansions, is about ten minutes of CPU; the
table takes 32 bytes a slot, 2**`--table-bits` slots (24: 512 MB at most; about
0.6 positions are stored an expansion, so 26, 2 GB, for runs of 100 million).

`--split` searches phase 2 instead, one O reply at a time: from the position
after an earlier reading of the paper's opening (`OPENING`: X takes the centre
of board k too at ply 17, O to move anywhere), each of O's replies
distinct up to symmetry (10) gets its own df-pn and table, with
`--max-expansions` each; it prints for each whether X's win is proved (with
its positions), refuted under the guide and ply bound, or still open, with
expansions and CPU seconds (proved ones first, fastest first), and for an open
one its last proof and disproof numbers (the lower, the nearer the search
thinks X's win, or O's refutation). `--replies` keeps only the replies named;
`--then` plays more moves after the opening first (an even number: O's reply
and X's answer), so that the split goes deeper (e.g. `--then "d1 a1"`: one
search per O reply after O's d1 and X's a1).
"""

from __future__ import annotations

import argparse
import sys
import time

from ninefold import kernel
from ninefold.proof.certificate import check, write
from ninefold.proof.dfpn import key
from ninefold.proof.search import GUIDES, TABLE_BITS, NotProved, Progress, prove
from ninefold.rules import Board, Move

# An earlier reading of the paper's opening: X takes the centre of the centre, then answers
# O's every move on square j of the centre board with the centre of board j, the last one
# too (any order of O's leads here), which sets O free; the paper's strategy instead takes
# square k of board k at ply 17 (the `refill` guide).
OPENING = [Move(4, 4)] + [m for j in (0, 1, 2, 3, 5, 6, 7, 8) for m in (Move(4, j), Move(j, 4))]


def report(expansions: int, table: int, seconds: float) -> None:
    """Print the search's progress every 10 million expansions."""
    if expansions % 10_000_000 == 0:
        print(f"  {expansions:,} expansions, {table:,} positions, {seconds:.0f} s CPU",
              flush=True)


def counting() -> tuple[list[int], Progress]:
    """([expansions so far], a progress callback that keeps it and reports)."""
    spent = [0]

    def count(expansions: int, table: int, seconds: float) -> None:
        spent[0] = expansions
        report(expansions, table, seconds)

    return spent, count


def split(guide: str, max_plies: int, max_expansions: int, table_bits: int,
          then: list[Move], replies: set[str] | None) -> None:
    """Phase 2 one O reply at a time (after the opening and `then`), each with its own
    search: a line per reply (`replies` only, if given)."""
    board = Board("open-boards")
    for move in OPENING + then:
        board.push(move)
    seen: set[int] = set()
    rows = []
    spent, count = counting()  # the expansions of the search in hand
    for reply in board.legal_moves:
        after = board.copy()
        after.push(reply)
        k = key(kernel.from_board(after))
        if k in seen or (replies is not None and str(reply) not in replies):
            continue
        seen.add(k)
        spent[0] = 0
        t0 = time.process_time()
        try:
            strategy = prove(after, guide, progress=count, max_expansions=max_expansions,
                             max_plies=max_plies, table_bits=table_bits)
            verdict = f"proved, {len(strategy.moves):,} positions"
        except NotProved as exc:
            verdict = ("refuted under the guide" if exc.numbers is None else
                       "open (proof number {:,}, disproof number {:,})".format(*exc.numbers))
        seconds = time.process_time() - t0
        line = f"  O {reply}: {verdict}, {spent[0]:,} expansions, {seconds:.1f} s CPU"
        proved = verdict.startswith("proved")
        rows.append((not proved, verdict.startswith("open"), seconds if proved else 0.0, line))
        print(line, flush=True)
    print("proved first, fastest first; then refuted, then open:")
    for *_, line in sorted(rows):
        print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guide", choices=sorted(GUIDES), default="refill")
    parser.add_argument("--max-plies", type=int, default=81,
                        help="X must win by this ply of the game (the paper: 43)")
    parser.add_argument("--max-expansions", type=int, default=200_000_000)
    parser.add_argument("--out", help="write the certificate here")
    parser.add_argument("--table-bits", type=int, default=TABLE_BITS,
                        help="the table has 2**N slots of 32 bytes")
    parser.add_argument("--split", action="store_true",
                        help="phase 2 only, each of O's first replies searched alone")
    parser.add_argument("--replies", help="with --split: only these replies, e.g. a1,d1")
    parser.add_argument("--then", default="",
                        help="with --split: moves played after the opening first, e.g. 'd1 a1'")
    args = parser.parse_args(argv)
    if args.split:
        if len(args.then.split()) % 2:
            parser.error("--then must leave O to move (an even number of moves): the split "
                         "is by O's replies, each proved with X to move")
        split(args.guide, args.max_plies, args.max_expansions, args.table_bits,
              [Move.parse(m) for m in args.then.split()],
              set(args.replies.split(",")) if args.replies else None)
        return 0
    spent, count = counting()
    try:
        strategy = prove(Board("open-boards"), args.guide, progress=count,
                         max_expansions=args.max_expansions, max_plies=args.max_plies,
                         table_bits=args.table_bits)
    except NotProved as exc:
        print(f"not proved: {exc} ({spent[0]:,} expansions, {time.process_time():.1f} s CPU)")
        return 1
    t0 = time.process_time()
    text = write(strategy.moves, strategy.root, ["ninefold proof certificate"])
    checked = check(text.splitlines())
    print(f"proved: {checked.positions:,} positions, longest forced line {checked.longest} "
          f"plies, search {strategy.seconds:.0f} s CPU ({strategy.expansions:,} expansions), "
          f"check {time.process_time() - t0:.0f} s CPU")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
