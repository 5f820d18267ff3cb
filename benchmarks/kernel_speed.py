"""Kernel speed against the project's plain C baseline, measured in the same run.

    make bench   (or .venv/bin/python benchmarks/kernel_speed.py [--seconds S] [--rounds N])

Compiles benchmarks/uttt_baseline.c (standard rules, written for this project)
with -O3 -march=native into a temporary folder and checks that its perft counts
and the kernel's equal tests/data/perft.json; any difference stops the run
with the counts that differ, before anything is timed. Then it alternates C
and ninefold measurements so that both see the same machine load, and prints
the medians and the ratios:

- random playouts per second from the empty board, one core (uniform over all
  legal moves in both programs);
- perft(8) time from the empty board.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from ninefold import kernel
from ninefold.rules import Board, Move

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "uttt_baseline.c"
VECTORS = HERE.parent / "tests" / "data" / "perft.json"
TIMED_DEPTH = 8


def build_baseline(folder: Path) -> Path:
    """Compile the C baseline into `folder`; exits with a message if it cannot."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        sys.exit("make bench needs a C compiler (gcc or cc) on the PATH")
    exe = folder / "uttt_baseline"
    build = subprocess.run([cc, "-O3", "-march=native", "-o", str(exe), str(BASELINE)],
                           capture_output=True, text=True)
    if build.returncode != 0:
        sys.exit(f"compiling {BASELINE.name} failed:\n{build.stderr}")
    return exe


def c_perft(exe: Path, depth: int, start: Sequence[Sequence[int]] = ()
            ) -> dict[int, tuple[int, float]]:
    """{d: (count, seconds)} for d = 1..depth, from the C baseline."""
    moves = [f"{b},{c}" for b, c in start]
    out = subprocess.run([str(exe), "perft", str(depth), *moves], capture_output=True,
                         text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        _, d, count, seconds = line.split()
        rows[int(d)] = (int(count), float(seconds))
    return rows


def c_playouts(exe: Path, seconds: float) -> float:
    out = subprocess.run([str(exe), "playouts", str(seconds)], capture_output=True, text=True,
                         check=True).stdout.split()  # "playouts GAMES moves PLIES seconds T"
    return int(out[1]) / float(out[5])


def nf_perft(start: Sequence[Sequence[int]], depth: int) -> int:
    board = Board("standard")
    for b, c in start:
        board.push(Move(b, c))
    return int(kernel.perft(kernel.from_board(board), depth, 0))


def check_counts(exe: Path) -> None:
    """Both programs must count exactly the standard vectors; exit loudly if not."""
    vectors = json.loads(VECTORS.read_text())
    wrong = []
    for name, row in vectors.items():
        if not name.startswith("standard"):
            continue
        wanted = {int(d): n for d, n in row["perft"].items() if int(d) <= TIMED_DEPTH}
        c_counts = c_perft(exe, max(wanted), row["start"])
        for depth, expected in sorted(wanted.items()):
            if c_counts[depth][0] != expected:
                wrong.append(f"C baseline {name} perft({depth}) = {c_counts[depth][0]}, "
                             f"expected {expected}")
            ours = nf_perft(row["start"], depth)
            if ours != expected:
                wrong.append(f"ninefold {name} perft({depth}) = {ours}, expected {expected}")
    if wrong:
        sys.exit("perft counts differ from tests/data/perft.json, nothing timed:\n"
                 + "\n".join(wrong))


def nf_perft_time(depth: int) -> float:
    start = kernel.new_state()
    t0 = time.perf_counter()
    kernel.perft(start, depth, 0)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per playout measurement")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds")
    args = parser.parse_args()
    console = Console()
    kernel.perft(kernel.new_state(), 3, 0)  # compile or load from cache
    kernel.bench(0.1)
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_baseline(Path(tmp))
        check_counts(exe)
        console.print(f"perft 1..{TIMED_DEPTH} of the C baseline and of ninefold equal "
                      f"{VECTORS.relative_to(HERE.parent)}", highlight=False)
        c_pps, nf_pps, c_pt, nf_pt = [], [], [], []
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("measuring C and ninefold in turn", total=args.rounds)
            for _ in range(args.rounds):
                c_pps.append(c_playouts(exe, args.seconds))
                nf_pps.append(kernel.bench(args.seconds)["playouts_per_s"])
                c_pt.append(c_perft(exe, TIMED_DEPTH)[TIMED_DEPTH][1])
                nf_pt.append(nf_perft_time(TIMED_DEPTH))
                progress.advance(task)
    cp, npp = statistics.median(c_pps), statistics.median(nf_pps)
    ct, nt = statistics.median(c_pt), statistics.median(nf_pt)
    table = Table(title=f"ninefold kernel vs C baseline (median of {args.rounds} rounds)")
    for col in ("measure", "C baseline", "ninefold", "ratio"):
        table.add_column(col, justify="right")
    table.add_row("random playouts/s", f"{cp:,.0f}", f"{npp:,.0f}", f"{npp / cp:.2f}x speed")
    table.add_row(f"perft({TIMED_DEPTH}) seconds", f"{ct:.3f}", f"{nt:.3f}",
                  f"{nt / ct:.2f}x time")
    console.print(table)
    print(f"playouts_ratio={npp / cp:.3f} perft8_time_ratio={nt / ct:.3f}")


if __name__ == "__main__":
    main()
