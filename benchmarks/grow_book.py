"""Grow the bots' deep lines (`ninefold.players.book`): CodinGame's games from the empty
board, where the second player is to move, each with a long search's move.

    .venv/bin/python benchmarks/grow_book.py --plies 11 --jobs 2   # writes the package's
    .venv/bin/python benchmarks/grow_book.py --plies 13 --jobs 16  # goes on from it

The lines start with the first player's opening move (the book's, which the bots
play) and go level by level: at the second player's turn the deep search
(`--spec`, `book.DEEP_SPEC`: about 10 s a position on one core here) gives the
move; at the first player's, every distinct move (up to symmetry) of its search at
about a turn's simulations (`--reply-spec` at each of `book.DEEP_REPLY_SIMS`, under
each of `book.DEEP_REPLY_SEEDS`), which is where games between two searches at
CodinGame's clock go. Positions are keyed by `book.canonical`, so symmetric lines
are grown once.

Games played (`--games`: match records, arena or platform databases, web stores,
game records: any store `ninefold.stored_games` reads) add the first player's
replies they met where they left the lines: a reply met in at least
`--min-games` of the games, at a position the lines reach, is followed as the
search's replies are. Games against another bot show where its replies differ.

The file is rewritten after each level, and a run reads what is there first: a
longer `--plies` goes on from a shorter run's lines without searching them again.
Every entry is reproducible (one thread, a fixed seed).
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

from ninefold.players import PlayerSpecError, book, make_player
from ninefold.rules import Board, Move
from ninefold.stored_games import StoredGamesError, read_stored

app = typer.Typer(add_completion=False)
RULES = "codingame"


def deep_search(args: tuple[str, str]) -> tuple[str, str]:
    """(position text, the move of `spec` there): a worker's job."""
    text, spec = args
    player = make_player(spec)
    return text, str(player.play(Board.from_position(text)).move)


def replies(board: Board, spec: str) -> list[Move]:
    """The first player's distinct moves (one of each symmetric set) by `spec` at each
    of `book.DEEP_REPLY_SIMS` simulations under each of `book.DEEP_REPLY_SEEDS`."""
    seen: dict[str, Move] = {}
    for sims in book.DEEP_REPLY_SIMS:
        for seed in book.DEEP_REPLY_SEEDS:
            move = make_player(f"{spec},sims={sims},seed={seed}").play(board).move
            seen.setdefault(book.canonical(_after(board, move))[0], move)
    return list(seen.values())


Met = dict[str, Counter[str]]  # the position before a reply -> the positions after it


def met_replies(paths: Sequence[Path], plies: int) -> tuple[Met, dict[str, Board]]:
    """The first player's replies in the games of `paths` from CodinGame's empty board,
    up to `plies` moves: for each position where it is to move (its least text,
    `book.canonical`), how many games went on to each position after its reply; and a
    board for each of those."""
    met: Met = {}
    boards: dict[str, Board] = {}
    for path in paths:
        for game in read_stored(path):
            if game.start.ply or game.start.rules.name != RULES:
                continue
            board = game.start.copy()
            for move in game.moves[:plies]:
                before = book.canonical(board)[0] if board.ply % 2 == 0 else None
                board.push(move)
                if before is not None and board.ply > 1:  # the first player replied
                    after = book.canonical(board)[0]
                    met.setdefault(before, Counter())[after] += 1
                    boards.setdefault(after, board.copy())
    return met, boards


def _after(board: Board, move: Move) -> Board:
    after = board.copy()
    after.push(move)
    return after


def header(spec: str, reply_spec: str, plies: int, games: Sequence[Path] = (),
           min_games: int = 2) -> list[str]:
    sims = ", ".join(map(str, book.DEEP_REPLY_SIMS))
    seeds = ", ".join(map(str, book.DEEP_REPLY_SEEDS))
    met = [f"# and those met in {min_games}+ games of {', '.join(p.name for p in games)}"
           ] if games else []
    return [f"# ninefold deep lines: benchmarks/grow_book.py, {RULES} rules, to {plies} moves",
            f"# the second player's moves {spec}",
            f"# the first player's replies {reply_spec} at sims {sims}, seeds {seeds}",
            *met, "# position (the least of its symmetric copies) -> move"]


def grow(out: Path, spec: str, reply_spec: str, plies: int, jobs: int,
         games: Sequence[Path] = (), min_games: int = 2) -> dict[str, str]:
    """The deep lines to `plies` moves, written to `out` level by level."""
    known = {text: str(move) for text, move in book.read_book(out).items()}
    met, met_boards = met_replies(games, plies)
    first = Board(RULES)
    first.push(book.book_move(book.read_book(), first) or Move(4, 4))
    level = [first]
    t0 = time.monotonic()
    with mp.get_context("spawn").Pool(jobs) as pool:
        while level and 81 - level[0].cells.count(None) <= plies:
            todo = sorted({book.canonical(b)[0] for b in level} - known.keys())
            jobs_done = pool.imap_unordered(deep_search, [(t, spec) for t in todo])
            for done, (text, move) in enumerate(jobs_done, 1):
                known[text] = move
                print(f"  {81 - level[0].cells.count(None)} moves: {done}/{len(todo)} "
                      f"({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)
            part = out.with_name(out.name + ".part")  # whole or not at all
            part.write_text("\n".join([*header(spec, reply_spec, plies, games, min_games),
                                       *(f"{t} {m}" for t, m in sorted(known.items()))]) + "\n")
            part.replace(out)
            following: dict[str, Board] = {}
            if 81 - level[0].cells.count(None) + 2 > plies:
                break  # no level after this one
            for board in level:
                text, k = book.canonical(board)
                turned = board.transform(k)  # the canonical copy, where the move is
                turned.push(Move.parse(known[text]))
                if turned.is_game_over():
                    continue
                children = [_after(turned, reply) for reply in replies(turned, reply_spec)]
                children += [met_boards[after] for after, count in
                             met.get(book.canonical(turned)[0], Counter()).items()
                             if count >= min_games]
                for child in children:
                    if not child.is_game_over():
                        following.setdefault(book.canonical(child)[0], child)
            level = list(following.values())
    return known


@app.command()
def main(
    plies: int = typer.Option(11, min=1, max=40,
                              help="Grow the second player's positions with up to this "
                                   "many moves played."),
    spec: str = typer.Option(book.DEEP_SPEC, help="The search that chooses each move."),
    reply_spec: str = typer.Option(book.DEEP_REPLY_SPEC,
                                   help="The first player's search (without sims or a "
                                        "seed)."),
    jobs: int = typer.Option(1, min=1, help="Positions searched at once (processes)."),
    out: Annotated[Path, typer.Option(help="Where the lines are (read, then rewritten).")]
    = book.DEEP_PATH,
    games: Annotated[list[Path] | None, typer.Option(
        help="Games played (any store ninefold reads; repeat for more): follow the "
             "first player's replies met in them too.")] = None,
    min_games: int = typer.Option(2, min=1, help="A reply met in games is followed when "
                                                 "at least this many games made it."),
) -> None:
    for option, value in (("--spec", spec), ("--reply-spec", reply_spec)):
        try:
            make_player(value)
        except PlayerSpecError as exc:
            raise typer.BadParameter(str(exc), param_hint=option) from None
    made_by = header(spec, reply_spec, plies)[1:3]
    try:
        there = out.read_text().splitlines()[1:3] if book.read_book(out) else made_by
    except OSError:
        there = made_by
    if there != made_by:
        raise typer.BadParameter(f"{out} holds lines grown by other searches ({'; '.join(there)}):"
                                 " grow them with those, or write elsewhere", param_hint="--out")
    t0 = time.monotonic()
    try:  # the games are read first: a file that cannot be read fails before any search
        known = grow(out, spec, reply_spec, plies, jobs, games or [], min_games)
    except StoredGamesError as exc:
        raise typer.BadParameter(str(exc), param_hint="--games") from None
    print(f"{len(known)} positions in {out} ({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    app()
