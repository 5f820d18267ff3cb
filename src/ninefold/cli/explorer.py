"""`ninefold explore`: the opening explorer, what was played in each position of the
stored games and how it scored (`ninefold.explorer`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.table import Table
from typer.core import TyperGroup

from ninefold.cli import _fail, app, console, err
from ninefold.cli.puzzles import default_sources
from ninefold.protocols.botmain import RULES_HELP

DEFAULT_DB = "explorer.sqlite"


class _ExploreGroup(TyperGroup):
    """``ninefold explore [POSITION] [OPTIONS]`` is ``ninefold explore show ...``: a first
    word that is no subcommand (or none at all) starts the query."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["show", *args]
        return super().parse_args(ctx, args)


explore_app = typer.Typer(
    cls=_ExploreGroup,
    help="The opening explorer: what stored games played where.\n\nThe moves played in "
    "each position of the stored games, how they scored, and the engine's evaluation. "
    "`ninefold explore [POSITION]` is "
    "`ninefold explore show`.",
)
app.add_typer(explore_app, name="explore", rich_help_panel="Play")


@explore_app.command("index")
def explore_index(
    sources: Annotated[list[str] | None, typer.Option(
        "--from", metavar="FILE", help="Games to index: a web store or arena results database "
        "or the platform's database (.sqlite, .db), match records (.jsonl), game records "
        "(PGN-like text); repeat for more. Default: every such file under records/ and "
        "docs/.")] = None,
    db: str = typer.Option(DEFAULT_DB, help="The explorer index (made if missing)."),
    plies: int = typer.Option(30, min=1, max=81, help="Index each game's first this many "
                              "plies (a new index only: an index keeps its own)."),
) -> None:
    """Add games to the index, each game once.

    A game the index holds already (the same source, name, start and moves) is skipped,
    so a second run adds only the games that are new."""
    from ninefold.explorer import Explorer, ExplorerError, read_games_from

    paths = [Path(s) for s in sources] if sources else default_sources()
    if not paths:
        _fail("no games to index: give --from FILE (none under records/ or docs/)")
    for path in paths:
        if not path.is_file():
            _fail(f"no such file: {path}")
    start = time.monotonic()
    try:
        ex = Explorer(db, plies)
    except ExplorerError as exc:
        _fail(str(exc))
    total = 0
    for path in paths:
        def progress(read: int, added: int, path: Path = path) -> None:
            err.print(f"  {path}: {read:,} games read, {added:,} new, "
                      f"{time.monotonic() - start:.0f} s", highlight=False, soft_wrap=True)

        try:
            total += ex.add(read_games_from(path), progress)
        except ExplorerError as exc:
            _fail(str(exc))
    console.print(f"{total:,} games added to {db} ({ex.games():,} in all, the first "
                  f"{ex.plies} plies of each)", highlight=False, soft_wrap=True)
    ex.close()


def _score(value: float | None, proven: str | None) -> str:
    if proven is not None:
        return {"x": "X wins", "o": "O wins", "draw": "draw"}[proven] + " (proven)"
    return "" if value is None else f"{100 * value:.0f}%"


@explore_app.command("show")
def explore_show(
    position: Annotated[str | None, typer.Argument(
        help="A position string (as `ninefold analyze` and the web show it); default: the "
        "empty board.")] = None,
    moves: str = typer.Option("", help='Moves played from POSITION (or the empty board), '
                              'e.g. "e5 e4".'),
    rules: str = typer.Option("", help=RULES_HELP + " Default: the position's, or "
                              "standard."),
    source: Literal["all", "web", "arena", "platform", "records"] = typer.Option(
        "all", help="Only the games of this source."),
    db: str = typer.Option(DEFAULT_DB, help="The explorer index."),
    evaluate: bool = typer.Option(True, "--eval/--no-eval", help="Show the engine's "
                                  "evaluation of each move (searched once, then kept)."),
    ms: float = typer.Option(200.0, min=20.0, max=60_000.0, help="The engine's search time "
                             "for the position after each move (the 12 most played), in "
                             "milliseconds, where the index keeps no evaluation yet."),
) -> None:
    """The moves played from a position, and how they scored.

    A table of each move's games, the share of them X won, drew and O won, and the
    engine's evaluation (X's expected score after the move)."""
    from ninefold.explorer import Explorer, ExplorerError, parse_board

    only = None if source == "all" else source
    try:
        board = parse_board(position, moves, rules or None)
        ex = Explorer(db, readonly=True)
        answer = ex.evaluate(board, only, ms) if evaluate else ex.query(board, only)
    except ExplorerError as exc:
        _fail(str(exc))
    where = f" from {only}" if only else ""
    table = Table(title=f"{answer.position}")
    for name in ("move", "games", "X", "draw", "O", "eval"):
        table.add_column(name, justify="left" if name == "move" else "right")
    for row in answer.moves:
        table.add_row(str(row.move), f"{row.games:,}", f"{row.percent('x'):.0f}%",
                      f"{row.percent('draw'):.0f}%", f"{row.percent('o'):.0f}%",
                      _score(row.eval_x, row.proven))
    if answer.moves:
        console.print(table)
        console.print(f"{answer.games:,} games{where} in {db}; eval: X's expected score "
                      "after the move", highlight=False, soft_wrap=True)
    else:
        console.print(f"{answer.position}: no game{where} in {db} reached this position",
                      highlight=False, soft_wrap=True)
