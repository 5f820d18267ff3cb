"""Draw docs/theorem_phases.png: the opening of the paper's strategy, and the reading of
its second phase that the search refutes.

    .venv/bin/python benchmarks/theorem_figure.py [--out docs/theorem_phases.png]

Left: the position after the opening (17 plies: X took the centre of the centre,
then answered every O move on square j of the centre board with the centre of
board j), O to move anywhere. Right: a line the search found against "X sends O
back and forth between two opposite corner boards" (X playing only the corner
squares of one diagonal): O wins both corner boards, and with the centre board
that is a line of three.
"""

from __future__ import annotations

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from prove import OPENING  # benchmarks/prove.py, beside this script

from ninefold.rules import Board, X

REFUTATION = "a1 c1 g1 a3 a8 c4 g2 a6 a9 c7 h1 f1 i1 g3 a7"  # after the opening


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
    parser.add_argument("--out", default="docs/theorem_phases.png")
    out = parser.parse_args().out
    board = Board("open-boards")
    for move in OPENING:
        board.push(move)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 6.2))
    draw(left, board, "Phase 1 (17 plies): O filled the centre board,\n"
                      "X took every centre; O to move anywhere")
    for text in REFUTATION.split():
        board.push_text(text)
    draw(right, board, "Refuted: O sent only to boards 2 and 6\n"
                       "wins both, and with board 4 the game (32 plies)")
    fig.subplots_adjust(left=0.02, right=0.98, bottom=0.02, top=0.86, wspace=0.08)
    fig.savefig(out, dpi=90)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
