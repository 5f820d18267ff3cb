"""Kernel speed against the plain C reference, measured in the same run.

    make bench   (or .venv/bin/python benchmarks/kernel_speed.py [--seconds S] [--rounds N])

Compiles ../shared/bench/uttt_limit.c with gcc -O3 -march=native into a
temporary folder, then alternates C and ninefold measurements so that both see
the same machine load, and prints the medians and the ratios:

- random playouts per second from the empty board, one core (uniform over all
  legal moves in both programs);
- perft(8) time from the empty board.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from ninefold import kernel

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "bench" / "uttt_limit.c"


def build_reference(folder: Path) -> Path:
    if not REFERENCE.exists():
        sys.exit(f"reference source not found: {REFERENCE}")
    exe = folder / "uttt_limit"
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        sys.exit("no C compiler (gcc) found")
    subprocess.run([cc, "-O3", "-march=native", "-o", str(exe), str(REFERENCE)], check=True)
    return exe


def c_playouts(exe: Path, seconds: float) -> float:
    out = subprocess.run([str(exe), "bench", str(seconds), "1"], capture_output=True, text=True,
                         check=True).stdout
    return float(re.search(r"MEDIAN playouts/s=(\d+)", out).group(1))


def c_perft8(exe: Path) -> float:
    out = subprocess.run([str(exe), "perft", "8"], capture_output=True, text=True,
                         check=True).stdout
    return float(re.search(r"perft\(8\) = \d+\s+\[([\d.]+)s", out).group(1))


def nf_perft8() -> float:
    start = kernel.new_state()
    t0 = time.perf_counter()
    count = kernel.perft(start, 8, 0)
    elapsed = time.perf_counter() - t0
    assert count == 281067408, count
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per playout measurement")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds")
    args = parser.parse_args()
    console = Console()
    kernel.perft(kernel.new_state(), 3, 0)  # compile or load from cache
    kernel.bench(0.1)
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_reference(Path(tmp))
        c_pps, nf_pps, c_pt, nf_pt = [], [], [], []
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("measuring C and ninefold in turn", total=args.rounds)
            for _ in range(args.rounds):
                c_pps.append(c_playouts(exe, args.seconds))
                nf_pps.append(kernel.bench(args.seconds)["playouts_per_s"])
                c_pt.append(c_perft8(exe))
                nf_pt.append(nf_perft8())
                progress.advance(task)
    cp, npp = statistics.median(c_pps), statistics.median(nf_pps)
    ct, nt = statistics.median(c_pt), statistics.median(nf_pt)
    table = Table(title=f"ninefold kernel vs C reference (median of {args.rounds} rounds)")
    for col in ("measure", "C reference", "ninefold", "ratio"):
        table.add_column(col, justify="right")
    table.add_row("random playouts/s", f"{cp:,.0f}", f"{npp:,.0f}", f"{npp / cp:.2f}x speed")
    table.add_row("perft(8) seconds", f"{ct:.3f}", f"{nt:.3f}", f"{nt / ct:.2f}x time")
    console.print(table)
    print(f"playouts_ratio={npp / cp:.3f} perft8_time_ratio={nt / ct:.3f}")


if __name__ == "__main__":
    main()
