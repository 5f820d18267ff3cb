"""The full theorem from the empty board: X's forced win with open boards, searched for.

    .venv/bin/python benchmarks/prove.py [--guide paper|diagonal|none] [--max-plies N]
                                         [--max-expansions N] [--out FILE]

Runs `ninefold.proof.search.prove` from the empty `open-boards` board with
the chosen guide, printing progress (expansions, table size, CPU seconds);
on success it checks the certificate with `ninefold.proof.certificate.check`
and prints the positions, the longest forced line and the CPU times; else it
says where the search stopped. The default budget, 200 million expansions, is
about ten minutes of CPU; the table takes 512 MB at most.
"""

from __future__ import annotations

import argparse
import sys
import time

from ninefold.proof.certificate import check, write
from ninefold.proof.search import GUIDES, NotProved, prove
from ninefold.rules import Board


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guide", choices=sorted(GUIDES), default="paper")
    parser.add_argument("--max-plies", type=int, default=81,
                        help="X must win by this ply of the game (the paper: 43)")
    parser.add_argument("--max-expansions", type=int, default=200_000_000)
    parser.add_argument("--out", help="write the certificate here")
    args = parser.parse_args(argv)

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
