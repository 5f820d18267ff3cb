"""Make the bots' opening book: the first moves (the empty board and each of the 81
first moves, pure MCTS) and the lines (CodinGame's rules, the network, to seven moves
in: `ninefold.players.book`), at a fixed number of simulations.

    .venv/bin/python benchmarks/make_book.py            # writes the book in the package
    .venv/bin/python benchmarks/make_book.py --check    # recomputes it, says if it differs
    .venv/bin/python benchmarks/make_book.py --out other.txt \\
        --spec mcts:net=default,sims=2000000,nodes=4000000,seed=1,threads=1

One thread and a fixed seed make every entry reproducible (tests recompute a few).
A bot answers from the book while its search is still loading
(`ninefold.protocols.engine`); the file is read by `ninefold.players.book`.
The shipped first moves are pure MCTS's (`book.SPEC`). First moves made by the
network's search at 2,000,000 simulations (the last command, 8 minutes) open d4,
not e5, and played worse from the empty board at CodinGame's clock
(docs/research/strength.md). The lines (`book.LINES_SPEC`, 1,283 positions) take 7 to 17
minutes on one core.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from ninefold.players import PlayerSpecError, book, make_player
from ninefold.rules import Move

app = typer.Typer(add_completion=False)


def book_entries(spec: str = book.SPEC, only: list[str] | None = None,
                 lines_spec: str | None = book.LINES_SPEC, plies: int = book.LINE_PLIES,
                 progress: bool = False) -> dict[str, str]:
    """key -> move text: the first moves by `spec`, then (unless `lines_spec` is None)
    the lines to `plies` moves by `lines_spec` (`only`: just these keys, and the
    positions their lines pass through)."""
    entries: dict[str, str] = {}
    # the moves the lines follow: those made so far (with `only`, the shipped book's)
    known: dict[str, Move] = {} if only is None else dict(book.read_book())
    for board in book.book_positions():
        key = book.key(board)
        if only is None or key in only:
            known[key] = make_player(spec).play(board).move
            entries[key] = str(known[key])
    if lines_spec is None:
        return entries
    for done, board in enumerate(book.line_positions(known, plies), 1):
        key = book.line_key(board)
        if only is None or key in only:
            known[key] = make_player(lines_spec).play(board).move
            entries[key] = str(known[key])
        if progress and done % 10 == 0:
            print(f"  {done} line positions", file=sys.stderr, flush=True)
    return entries


@app.command()
def main(
    check: bool = typer.Option(False, "--check", help="Recompute and compare, write nothing."),
    spec: str = typer.Option(book.SPEC, help="The search that chooses each first move."),
    lines_spec: str = typer.Option(book.LINES_SPEC,
                                   help="The search that chooses the lines' moves."),
    plies: int = typer.Option(book.LINE_PLIES, min=1, max=9,
                              help="The lines reach positions with up to this many moves."),
    out: Annotated[Path, typer.Option(help="Where to write the book.")] = book.BOOK_PATH,
) -> None:
    for option, value in (("--spec", spec), ("--lines-spec", lines_spec)):
        try:
            make_player(value)
        except PlayerSpecError as exc:
            raise typer.BadParameter(str(exc), param_hint=option) from None
    t0 = time.monotonic()
    entries = book_entries(spec, lines_spec=lines_spec, plies=plies, progress=True)
    text = book.book_text(entries, spec, lines_spec, plies)
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
