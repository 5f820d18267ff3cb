"""Draw docs/images/theorem_phases.png: the paper's strategy, proved by machine, along its
longest forced line (43 plies).

    .venv/bin/python benchmarks/theorem_figure.py [--out docs/images/theorem_phases.png]

Left: after 17 plies. X took the centre of the centre, O filled the centre
board (and owns it), X answering each of O's moves on square j there with the
centre of board j; O's last move, on square k (here 8), sent X to board k,
where X took square k, sending O there in turn. Middle: after 29 plies. O
played in board k the same way (X answering square j of board k with square k
of board j) and owns it; X holds squares 4 and k of every other outer board,
and took board 0 with square 0 when O's move on square 4 set X free. Right: after 43 plies. Every
board X is sent to, X takes with square 8-k, which sends O back to board 0,
X's: X wins the top row. The line is the longest in the certificate that
`benchmarks/prove.py --max-plies 43` writes.
"""

from __future__ import annotations

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes

from ninefold.rules import Board, X

# the longest forced line, 43 plies
LINE = ("e5 d4 b2 e4 e2 f4 h2 d5 b5 f5 h5 d6 b8 e6 e8 f6 i9 g7 c3 h7 f3 i7 i3 g8 c6 i8 i6 h8 a1 "
        "a3 c9 h9 f9 g9 a7 b1 d1 c2 g4 b3 d7 c1 g1")
PANELS = [
    (17, "17 plies: O filled the centre board; sent\nto board 8, X took its square 8"),
    (29, "29 plies: O owns board 8 too; X holds\nsquares 4 and 8 of the others, and board 0"),
    (43, "43 plies: each board X is sent to, X takes\nwith square 0; the top row wins"),
]


def draw(ax: Axes, board: Board, title: str) -> None:
    """The 9x9 grid, owned boards shaded (blue X, red O), marks as letters."""
    for b, owner in enumerate(board.owners):
        if owner is not None:
            colour = "#cfe0ff" if owner is X else "#ffd6d6"
            ax.add_patch(plt.Rectangle((3 * (b % 3), 3 * (b // 3)), 3, 3, color=colour))
    for i in range(10):
        width = 2.5 if i % 3 == 0 else 0.6
        ax.plot([i, i], [0, 9], color="black", lw=width)
        ax.plot([0, 9], [i, i], color="black", lw=width)
    for action, mark in enumerate(board.cells):
        if mark is not None:
            b, c = divmod(action, 9)
            col, row = 3 * (b % 3) + c % 3, 3 * (b // 3) + c // 3
            ax.text(col + 0.5, row + 0.55, str(mark), ha="center", va="center", fontsize=13,
                    color="#1f4fbf" if mark is X else "#c0392b", weight="bold")
    ax.set_xlim(0, 9)
    ax.set_ylim(9, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=11)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images/theorem_phases.png")
    out = parser.parse_args().out
    fig, axes = plt.subplots(1, len(PANELS), figsize=(15, 5.8))
    for ax, (plies, title) in zip(axes, PANELS, strict=True):
        board = Board("open-boards")
        for text in LINE.split()[:plies]:
            board.push_text(text)
        draw(ax, board, title)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.02, top=0.86, wspace=0.06)
    fig.savefig(out, dpi=90)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
