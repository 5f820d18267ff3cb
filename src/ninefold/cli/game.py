"""Commands about the game itself: play, analyze, show, replay, perft, bench."""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Literal

import typer

from ninefold import kernel
from ninefold.cli import _board, _fail, _rules, app, console, err
from ninefold.players import make_player, strongest_spec
from ninefold.protocols.botmain import RULES_HELP, players_help
from ninefold.rules import Board, Mark

MAX_MS = 3_600_000  # an hour: the longest thinking time a command accepts
MAX_PERFT = 10  # about a minute from the start; each ply more takes about 8 times as long
INTERRUPTED = 130  # the exit status of a command stopped by Ctrl-C (128 + SIGINT)


def _start(position: str, rules: str | None, moves: str) -> Board:
    """The board a command starts from: 'start' (with --rules) or a position string,
    then the moves."""
    if position.strip().lower() == "start":
        return _board(rules or "standard", moves)
    if rules is not None:
        _fail("--rules goes with 'start': a position string names its own rules")
    return _board("standard", moves, position)


@app.command(rich_help_panel="Play")
def play(
    opponent: str = typer.Option(None, "--player", "--opponent", help=players_help(
        "The computer's player spec") + " Default: the strongest."),
    rules: str = typer.Option("standard", help=RULES_HELP),
    first: Literal["human", "computer"] = typer.Option("human", help="Who plays X."),
    ms: int = typer.Option(1000, min=1, max=MAX_MS, help="Computer's time per move, ms."),
    opening: str | None = typer.Option(None, help="Random-four opening code, or 'random'."),
) -> None:
    """Play the computer in the terminal.

    Type moves like e5, or undo, hint, quit."""
    spec = opponent or strongest_spec()
    try:
        computer = make_player(spec)
    except ValueError as exc:
        _fail(str(exc))
    if opening == "random":
        from ninefold.rules import random_opening

        opening = random_opening(random.Random())
    try:
        board = Board(_rules(rules), opening=opening)
    except ValueError as exc:
        _fail(str(exc))
    from ninefold.terminal import play_game

    try:
        play_game(board, computer, Mark.O if first == "human" else Mark.X, ms, console)
    except ValueError as exc:  # a player that cannot play here (proof as O, other rules)
        _fail(str(exc))



@app.command(rich_help_panel="Play")
def analyze(
    position: str = typer.Argument(..., help="A position string (quote it), or 'start'."),
    rules: str | None = typer.Option(None, help=RULES_HELP + " With 'start'; default: "
                                     "standard."),
    moves: str = typer.Option("", help="Moves played first, e.g. 'e5 e4'."),
    ms: float = typer.Option(1000.0, min=1, max=MAX_MS, help="Thinking time, ms."),
    threads: int = typer.Option(1, min=1, max=8, help="Search threads."),
    top: int = typer.Option(8, min=1, help="How many moves to list."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Win probability, best moves and main line of a position.

    For the side to move, by level 10's search (the player named in the output)."""
    from dataclasses import asdict

    from ninefold.players.analysis import analyze as run_analysis

    board = _start(position, rules, moves)
    try:
        result = run_analysis(board, ms=ms, threads=threads, top=top)
    except ValueError as exc:
        _fail(str(exc))
    if as_json:
        data = asdict(result)
        stats = zip(data["moves"], result.moves, strict=True)
        data["moves"] = [{**m, "move": str(s.move)} for m, s in stats]
        data["pv"] = [str(m) for m in result.pv]
        print(json.dumps(data))
        return
    proven = f" (proven {result.proven})" if result.proven else ""
    console.print(
        f"{result.side_to_move} to move: win probability {100 * result.win_probability:.1f}%"
        f"{proven}   [{result.sims:,} simulation{'' if result.sims == 1 else 's'} in "
        f"{result.ms:.0f} ms]",
        highlight=False,
    )
    for m in result.moves:
        tag = f"  proven {m.proven}" if m.proven else ""
        console.print(f"  {m.move!s:4} visits {m.visits:>9,}  value {m.value:.3f}{tag}",
                      highlight=False)
    console.print("pv: " + " ".join(str(m) for m in result.pv), highlight=False)
    console.print(f"player: {result.player}", highlight=False)


@app.command(rich_help_panel="Play")
def show(
    position: str = typer.Argument("start", help="A position string (quote it), or 'start'."),
    rules: str | None = typer.Option(None, help=RULES_HELP + " With 'start'; default: "
                                     "standard."),
    moves: str = typer.Option("", help="Moves played first, e.g. 'e5 e4'."),
) -> None:
    """Draw a position and list its legal moves.

    The position after --moves, if given."""
    board = _start(position, rules, moves)
    console.print(str(board), highlight=False)
    console.print(board.position(), highlight=False)
    if not board.is_game_over():
        console.print("legal: " + " ".join(str(m) for m in board.legal_moves), highlight=False)


@app.command(rich_help_panel="Play")
def replay(
    file: str = typer.Argument(..., help="A game-record file, as `ninefold export` writes it."),
    game: int = typer.Option(1, "--game", "-g", min=1, help="Which game of the file, from 1."),
) -> None:
    """Step through a stored game, move by move.

    Enter: the next move, b: back, q: quit. When the input is not a terminal,
    every position is printed in turn."""
    from ninefold.records import read_games
    from ninefold.terminal import replay_game

    try:
        text = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"cannot read {file}: {getattr(exc, 'strerror', None) or exc}")
    found = 0
    try:
        for found, record in enumerate(read_games(text), start=1):  # noqa: B007
            if found == game:
                break
    except ValueError as exc:
        _fail(f"{file}: {exc}")
    if found < game:
        _fail(f"{file} holds {found} game{'s' * (found != 1)}, not {game}")
    replay_game(record, console, ask=input if sys.stdin.isatty() else None)


@app.command(rich_help_panel="Research")
def perft(
    depth: int = typer.Argument(..., min=0, max=81, help="Plies to count."),
    rules: str = typer.Option("standard", help=RULES_HELP),
    moves: str = typer.Option("", help="Moves played first, e.g. 'e5 e4'."),
    position: str | None = typer.Option(None, help="Start from this position string."),
    deep: bool = typer.Option(
        False, "--deep", help=f"Allow depths above {MAX_PERFT} (from the start, 11 takes "
        "minutes and 12 an hour; Ctrl-C stops the count)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object {depth: count}."),
) -> None:
    """Count the positions 1..DEPTH plies ahead (perft).

    A finished game stops the count."""
    if depth > MAX_PERFT and not deep:
        _fail(
            f"perft {depth} may run for hours (from the start, each ply takes about 8 times "
            f"as long as the one before); depths above {MAX_PERFT} need --deep"
        )
    board = _board(rules, moves, position)
    state = kernel.from_board(board)
    flags = board.rules.flags
    counts: dict[str, int] = {}
    try:
        for d in range(1, depth + 1):
            t0 = time.perf_counter()
            counts[str(d)] = sum(kernel.perft_pieces(state, d, flags))
            if not as_json:
                dt = time.perf_counter() - t0
                console.print(f"perft({d}) = {counts[str(d)]:>14,}   [{dt:.3f} s]")
    except KeyboardInterrupt:
        err.print(f"interrupted during perft({len(counts) + 1})")
        raise typer.Exit(INTERRUPTED) from None
    if as_json:
        print(json.dumps(counts))


@app.command(rich_help_panel="Research")
def bench(
    seconds: float = typer.Option(3.0, min=0.1, max=3600, help="How long to measure."),
    rules: str = typer.Option("standard", help=RULES_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Measure the kernel: random playouts a second on one core.

    Uniformly random playouts from the empty board."""
    result = kernel.bench(seconds, _rules(rules).flags)
    if as_json:
        print(json.dumps({k: round(v) for k, v in result.items()}))
    else:
        console.print(
            f"{result['playouts_per_s']:,.0f} random playouts/s, "
            f"{result['moves_per_s']:,.0f} moves/s (one core, {seconds:g} s)"
        )


# --- bot arena: protocols, referee, matches, tournaments (see docs/guide/arena.md) -------------
