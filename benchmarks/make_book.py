"""Make the bots' opening book: the strong search's move for the empty board and for
each of the 81 first moves (82 positions), at a fixed number of simulations.

    .venv/bin/python benchmarks/make_book.py            # writes the book in the package
    .venv/bin/python benchmarks/make_book.py --check    # recomputes it, says if it differs
    .venv/bin/python benchmarks/make_book.py --out other.txt \\
        --spec mcts:net=default,sims=2000000,nodes=4000000,seed=1,threads=1

One thread and a fixed seed make every entry reproducible (tests recompute a few).
A bot answers from the book while its search is still loading
(`ninefold.protocols.engine`); the file is read by `ninefold.players.book`.
The shipped book is pure MCTS's (`book.SPEC`). A book made by the network's
search at 2,000,000 simulations (the last command, 8 minutes) opens d4, not e5,
and played worse from the empty board at CodinGame's clock (docs/players.md).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from ninefold.players import PlayerSpecError, book, make_player

app = typer.Typer(add_completion=False)


def book_entries(spec: str = book.SPEC, only: list[str] | None = None) -> dict[str, str]:
    """position key -> move text for the book's positions (`only`: just these keys)."""
    entries = {}
    for board in book.book_positions():
        key = book.key(board)
        if only is not None and key not in only:
            continue
        entries[key] = str(make_player(spec).play(board).move)
    return entries


@app.command()
def main(
    check: bool = typer.Option(False, "--check", help="Recompute and compare, write nothing."),
    spec: str = typer.Option(book.SPEC, help="The search that chooses each move."),
    out: Annotated[Path, typer.Option(help="Where to write the book.")] = book.BOOK_PATH,
) -> None:
    try:
        make_player(spec)
    except PlayerSpecError as exc:
        raise typer.BadParameter(str(exc), param_hint="--spec") from None
    t0 = time.monotonic()
    entries = book_entries(spec)
    text = book.book_text(entries, spec)
    seconds = time.monotonic() - t0
    if check:
        same = text == out.read_text()
        print(f"{len(entries)} positions in {seconds:.0f} s: "
              f"{'the same as' if same else 'DIFFERENT from'} {out.name}")
        sys.exit(0 if same else 1)
    out.write_text(text)
    print(f"wrote {len(entries)} positions to {out} in {seconds:.0f} s")


if __name__ == "__main__":
    app()
