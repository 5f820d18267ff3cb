"""`ninefold puzzles`: cut puzzles from stored games with the solver."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from ninefold.cli import _fail, app, console, err

puzzles_app = typer.Typer(
    help="Puzzles cut from real games: one quickest forced win each.",
    no_args_is_help=True,
)
app.add_typer(puzzles_app, name="puzzles", rich_help_panel="Play")
SOURCES = ("records", "docs")  # where `make` looks for games when --from is not given


def default_sources() -> list[Path]:
    """The match records and game records under records/ and docs/ of this directory."""
    return sorted(p for d in SOURCES for p in Path(d).glob("*")
                  if p.suffix in (".jsonl", ".pgn", ".sqlite", ".db"))


@puzzles_app.command("make")
def puzzles_make(
    sources: Annotated[list[str] | None, typer.Option(
        "--from", metavar="FILE", help="Games to cut from: match records (.jsonl), "
        "game records (PGN-like text), a web or arena database (.sqlite, .db); repeat for "
        "more. Default: every such file under records/ and docs/.")] = None,
    max_plies: int = typer.Option(
        9, min=1, max=15, help="The longest win kept, in plies (the attacker's moves and the "
        "defender's replies)."),
    budget: int = typer.Option(
        200_000, min=1000, help="Search expansions for one question to the solver; a position "
        "it cannot answer within them is skipped."),
    out: str = typer.Option("puzzles.jsonl", help="Write the puzzles here, one JSON line "
                            "each."),
) -> None:
    """Find puzzles in stored games and write them.

    A position becomes a puzzle where the side to move has a forced win within
    --max-plies plies, proven by the solver, and exactly one first move wins
    that soon; each comes with its whole solution tree."""
    from ninefold.puzzles.make import MakeError, make
    from ninefold.puzzles.puzzle import write
    from ninefold.stored_games import StoredGame, StoredGamesError, read_stored

    paths = [Path(s) for s in sources] if sources else default_sources()
    if not paths:
        _fail("no games to cut from: give --from FILE (none under records/ or docs/)")
    for path in paths:
        if not path.is_file():
            _fail(f"no such file: {path}")
    start = time.monotonic()

    def games() -> Iterator[StoredGame]:
        for path in paths:
            yield from read_stored(path)

    def progress(done: int, total: int, found: int) -> None:
        err.print(f"  {done:,}/{total:,} positions searched, {found:,} puzzles, "
                  f"{time.monotonic() - start:.0f} s", highlight=False, soft_wrap=True)

    try:
        puzzles = make(games(), max_plies=max_plies, budget=budget, progress=progress)
    except (MakeError, StoredGamesError) as exc:
        _fail(str(exc))
    write(puzzles, Path(out))
    by_rules = Counter(p.board().rules.name for p in puzzles)
    by_plies = Counter(p.plies for p in puzzles)
    summary = ", ".join(f"{n} {r}" for r, n in sorted(by_rules.items()))
    if puzzles:
        summary += "; by plies: " + ", ".join(f"{k}: {v}" for k, v in sorted(by_plies.items()))
    console.print(f"{len(puzzles):,} puzzles written to {out}" + (f" ({summary})" if puzzles
                                                                  else ""),
                  highlight=False, soft_wrap=True)
