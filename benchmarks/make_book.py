"""Make the bots' opening book: the strong search's move for the empty board and for
each of the 81 first moves (82 positions), at a fixed number of simulations of the
shipped network's search (`ninefold.players.book.SPEC`, about 6 s a position).

    .venv/bin/python benchmarks/make_book.py            # writes the book in the package
    .venv/bin/python benchmarks/make_book.py --check    # recomputes it, says if it differs

One thread and a fixed seed make every entry reproducible (tests recompute a few).
A bot answers from the book while its search is still loading
(`ninefold.protocols.engine`); the file is read by `ninefold.players.book`.
"""

from __future__ import annotations

import sys
import time

import typer

from ninefold.players import book, make_player

app = typer.Typer(add_completion=False)


def book_entries(spec: str = book.SPEC, only: list[str] | None = None) -> dict[str, str]:
    """position key -> move text for the book's positions (`only`: just these keys)."""
    entries = {}
    for board in book.book_positions():
        key = book.key(board)
        if only is not None and key not in only:
            continue
        player = make_player(spec)
        entries[key] = str(player.play(board).move)
    return entries


@app.command()
def main(
    check: bool = typer.Option(False, "--check", help="Recompute and compare, write nothing."),
) -> None:
    t0 = time.monotonic()
    entries = book_entries()
    text = book.book_text(entries)
    seconds = time.monotonic() - t0
    if check:
        same = text == book.BOOK_PATH.read_text()
        print(f"{len(entries)} positions in {seconds:.0f} s: "
              f"{'the same as' if same else 'DIFFERENT from'} {book.BOOK_PATH.name}")
        sys.exit(0 if same else 1)
    book.BOOK_PATH.write_text(text)
    print(f"wrote {len(entries)} positions to {book.BOOK_PATH} in {seconds:.0f} s")


if __name__ == "__main__":
    app()
