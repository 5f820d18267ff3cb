"""`ninefold review`: every move of a finished game labelled by what it lost, the two
sides' accuracies, and the eval graph (docs/guide/review.md)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from ninefold.cli import _fail, app, console, err
from ninefold.records import Game, read_games
from ninefold.review import DEFAULT_MS, MAX_MS, MIN_MS, Review, plot_review, review, review_key
from ninefold.rules import Board, opening_moves
from ninefold.system import usable_cpus

if TYPE_CHECKING:
    from ninefold.web.store import GameStore

COLOURS = {"blunder": "bold red", "mistake": "dark_orange", "inaccuracy": "yellow",
           "good": "default", "best": "green", "opening": "dim"}


@app.command("review", rich_help_panel="Play")
def review_command(
    record: str = typer.Argument(..., help="A game record file (as 'ninefold export' or the "
                                  "web board's 'Game record' writes)."),
    game: int = typer.Option(1, "--game", min=1, help="Which game of the file, 1 for the first."),
    png: str | None = typer.Option(None, "--plot", "--png",
                                   help="Write the eval graph to this PNG file."),
    ms: float = typer.Option(DEFAULT_MS, "--ms", "--budget", min=MIN_MS, max=MAX_MS,
                             help="Search time a position, ms."),
    workers: int = typer.Option(max(1, usable_cpus() - 1), min=1, max=64,
                                help="Worker processes that analyse (default: the CPUs less one)."),
    db: str | None = typer.Option(None, help="A web board's database ('ninefold serve --db'): "
                                  "a review stored there is shown at once, a new one is kept "
                                  "there (and the web board shows it too)."),
) -> None:
    """Review a finished game: every move labelled, and accuracies.

    Each position is analysed by the analysis player, each move labelled best, good,
    inaccuracy, mistake or blunder by what it lost in expected score, with the better
    move and its line."""
    chosen = _read(Path(record), game)
    try:
        start = chosen.start_board()
        opening = chosen.tags.get("Opening")
        book = len(opening_moves(opening)) if opening and "Position" not in chosen.tags else 0
        if png is not None:
            from ninefold.classic.stats import check_plot_path

            check_plot_path(png)  # before the long work
        store = _store(db) if db else None
        key = review_key(start.position(), [str(m) for m in chosen.moves], book)
        stored = store.stored_review(key) if store else None
    except ValueError as exc:  # a record whose rules or moves do not fit, a bad path
        _fail(str(exc))
    if stored is not None:
        result = Review.from_json(stored)
        console.print(f"the review stored in {db} (made with {result.ms:g} ms a position)",
                      highlight=False, soft_wrap=True)
    else:
        result = _review(chosen, start, book, ms, workers)
        if store is not None:
            store.keep_review(key, result.ms, result.to_json())
    _print(result, chosen)
    if png is not None:
        console.print(f"eval graph: {plot_review(result, png)}", highlight=False)


def _review(chosen: Game, start: Board, book: int, ms: float, workers: int) -> Review:
    """The review of `chosen`, made now, with a progress bar on stderr."""
    try:
        with Progress(TextColumn("reviewing"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("positions"), console=err, transient=True) as bar:
            task = bar.add_task("review", total=len(chosen.moves) + 1)
            result = review(start, chosen.moves, ms, book=book, result=chosen.result,
                            workers=workers,
                            progress=lambda done, total: bar.update(task, completed=done))
    except ValueError as exc:  # moves that do not fit the record's rules
        _fail(str(exc))
    return result


def _store(db: str) -> GameStore:
    """The web board's database `db` (created if missing); a one-line failure if it
    cannot be opened."""
    from ninefold.web.store import GameStore

    try:
        return GameStore(db)
    except (OSError, sqlite3.Error) as exc:
        _fail(f"cannot open the database {db}: {exc}")


def _read(record: Path, number: int) -> Game:
    """Game `number` of the file `record`, finished; a one-line failure otherwise."""
    try:
        text = record.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"cannot read {record}: {getattr(exc, 'strerror', None) or exc}")
    try:
        games = list(read_games(text))
    except ValueError as exc:
        _fail(f"{record}: {exc}")
    if not games:
        _fail(f"{record} holds no game record")
    if number > len(games):
        _fail(f"{record} holds {len(games)} game(s): there is no game {number}")
    found = games[number - 1]
    if found.result == "*":
        _fail(f"game {number} of {record} is not finished (its result is *): only a finished "
              "game is reviewed")
    return found


def _print(result: Review, game: Game) -> None:
    names = f"{game.tags.get('X', 'X')} (X) vs {game.tags.get('O', 'O')} (O), {game.result}"
    table = Table(title=f"Review: {names}", caption=f"{result.player}, {result.ms:g} ms a "
                  "position; score: X's expected score after the move (1 X wins, 0 O wins)")
    for name, justify in (("ply", "right"), ("move", "left"), ("label", "left"),
                          ("loss", "right"), ("score", "right"), ("best", "left"),
                          ("line", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    positions = result.positions
    before = 81 - Board.from_position(result.start).cells.count(None)  # a position's marks
    # count the plies played before it, as the record numbers them
    for p in result.plies:
        number = f"{(before + p.ply + 1) // 2}{'.' if p.mover == 'x' else '…'}"
        proven = positions[p.ply].proven
        score = f"{p.x_after:.2f}" + (f" ({'draw' if proven == 'draw' else proven + ' wins'})"
                                      if proven else "")
        bad = p.label in ("inaccuracy", "mistake", "blunder")
        table.add_row(str(p.ply), f"{number} {p.move}", Text(p.label, COLOURS[p.label]),
                      f"{p.loss:.2f}", score, (p.best or "") if bad else "",
                      " ".join(p.pv[:8]) if bad else "")
    console.print(table)
    accuracy = {side: result.accuracy(side) for side in ("x", "o")}
    console.print("accuracy: " + ", ".join(
        f"{side.upper()} {'-' if value is None else f'{value:.1f}'}"
        for side, value in accuracy.items()), highlight=False)
