"""The full theorem from the empty board: X's forced win with open boards, searched for.

    .venv/bin/python benchmarks/prove.py [--guide paper|diagonal|none] [--max-plies N]
                                         [--max-expansions N] [--out FILE] [--split]

Runs `ninefold.proof.search.prove` from the empty `open-boards` board with
the chosen guide, printing progress (expansions, table size, CPU seconds);
on success it checks the certificate with `ninefold.proof.certificate.check`
and prints the positions, the longest forced line and the CPU times; else it
says where the search stopped. The default budget, 200 million expansions, is
about ten minutes of CPU; the table takes 512 MB at most.

`--split` searches phase 2 instead, one O reply at a time: from the position
after the paper's opening (`OPENING`, O to move anywhere), each of O's replies
distinct up to symmetry (10) gets its own df-pn and table, with
`--max-expansions` each; it prints for each whether X's win is proved (with
its positions), refuted under the guide and ply bound, or still open, with
expansions and CPU seconds (proved ones first, fastest first).
"""

from __future__ import annotations

import argparse
import sys
import time

from ninefold import kernel
from ninefold.proof.certificate import check, write
from ninefold.proof.dfpn import key
from ninefold.proof.search import GUIDES, NotProved, prove
from ninefold.rules import Board, Move

# The paper's opening: X takes the centre of the centre, then answers O's every move on
# square j of the centre board with the centre of board j (any order of O's leads here).
OPENING = [Move(4, 4)] + [m for j in (0, 1, 2, 3, 5, 6, 7, 8) for m in (Move(4, j), Move(j, 4))]


def split(guide: str, max_plies: int, max_expansions: int) -> None:
    """Phase 2 one O reply at a time, each with its own search: a line per reply."""
    board = Board("open-boards")
    for move in OPENING:
        board.push(move)
    seen: set[int] = set()
    rows = []
    spent = [0]  # the expansions of the search in hand, from its progress reports

    def count(expansions: int, table: int, seconds: float) -> None:
        spent[0] = expansions

    for reply in board.legal_moves:
        after = board.copy()
        after.push(reply)
        k = key(kernel.from_board(after))
        if k in seen:
            continue
        seen.add(k)
        spent[0] = 0
        t0 = time.process_time()
        try:
            strategy = prove(after, guide, progress=count, max_expansions=max_expansions,
                             max_plies=max_plies)
            verdict = f"proved, {len(strategy.moves):,} positions"
        except NotProved as exc:
            verdict = "open" if "within" in str(exc) else "refuted under the guide"
        seconds = time.process_time() - t0
        line = f"  O {reply}: {verdict}, {spent[0]:,} expansions, {seconds:.1f} s CPU"
        proved = verdict.startswith("proved")
        rows.append((not proved, verdict == "open", seconds if proved else 0.0, line))
        print(line, flush=True)
    print("proved first, fastest first; then refuted, then open:")
    for *_, line in sorted(rows):
        print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guide", choices=sorted(GUIDES), default="paper")
    parser.add_argument("--max-plies", type=int, default=81,
                        help="X must win by this ply of the game (the paper: 43)")
    parser.add_argument("--max-expansions", type=int, default=200_000_000)
    parser.add_argument("--out", help="write the certificate here")
    parser.add_argument("--split", action="store_true",
                        help="phase 2 only, each of O's first replies searched alone")
    args = parser.parse_args(argv)
    if args.split:
        split(args.guide, args.max_plies, args.max_expansions)
        return 0

    def progress(expansions: int, table: int, seconds: float) -> None:
        if expansions % 10_000_000 == 0:
            print(f"  {expansions:,} expansions, {table:,} positions, {seconds:.0f} s CPU",
                  flush=True)

    try:
        strategy = prove(Board("open-boards"), args.guide, progress=progress,
                         max_expansions=args.max_expansions, max_plies=args.max_plies)
    except NotProved as exc:
        print(f"not proved: {exc}")
        return 1
    t0 = time.process_time()
    text = write(strategy.moves, strategy.root, ["ninefold proof certificate"])
    report = check(text.splitlines())
    print(f"proved: {report.positions:,} positions, longest forced line {report.longest} "
          f"plies, search {strategy.seconds:.0f} s CPU ({strategy.expansions:,} expansions), "
          f"check {time.process_time() - t0:.0f} s CPU")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
