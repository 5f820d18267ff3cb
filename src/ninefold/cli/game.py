"""Commands about the game itself: perft, bench, show, play, analyze."""

from __future__ import annotations

import json
import random
import time

import typer

from ninefold import kernel
from ninefold.cli import _board, _fail, _rules, app, console
from ninefold.players import make_player, strongest_spec
from ninefold.rules import Board, Mark


@app.command()
def perft(
    depth: int = typer.Argument(..., min=0, max=20, help="Plies to count."),
    rules: str = typer.Option("standard", help="Rules preset or options."),
    moves: str = typer.Option("", help="Moves played first, e.g. 'e5 e4'."),
    position: str | None = typer.Option(None, help="Start from this position string."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object {depth: count}."),
) -> None:
    """Count the leaf positions 1..DEPTH plies ahead (a finished game stops the count)."""
    board = _board(rules, moves, position)
    state = kernel.from_board(board)
    flags = board.rules.flags
    counts: dict[str, int] = {}
    for d in range(1, depth + 1):
        t0 = time.perf_counter()
        counts[str(d)] = int(kernel.perft(state, d, flags))
        if not as_json:
            dt = time.perf_counter() - t0
            console.print(f"perft({d}) = {counts[str(d)]:>14,}   [{dt:.3f} s]")
    if as_json:
        print(json.dumps(counts))


@app.command()
def bench(
    seconds: float = typer.Option(3.0, min=0.1, help="How long to measure."),
    rules: str = typer.Option("standard", help="Rules preset or options."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Kernel speed: uniformly random playouts per second from the empty board, one core."""
    result = kernel.bench(seconds, _rules(rules).flags)
    if as_json:
        print(json.dumps({k: round(v) for k, v in result.items()}))
    else:
        console.print(
            f"{result['playouts_per_s']:,.0f} random playouts/s, "
            f"{result['moves_per_s']:,.0f} moves/s (one core, {seconds:g} s)"
        )


@app.command()
def show(position: str = typer.Argument(..., help="A position string (quote it).")) -> None:
    """Draw a position and list its legal moves."""
    board = _board("standard", position=position)
    console.print(str(board), highlight=False)
    if not board.is_game_over():
        console.print("legal: " + " ".join(str(m) for m in board.legal_moves), highlight=False)


@app.command()
def play(
    opponent: str = typer.Option(None, help="Player spec of the computer (default: strongest)."),
    rules: str = typer.Option("standard", help="Rules preset or options."),
    first: str = typer.Option("human", help="Who plays X: human or computer."),
    ms: int = typer.Option(1000, min=1, help="Computer's time per move, ms."),
    opening: str | None = typer.Option(None, help="Random-four opening code, or 'random'."),
) -> None:
    """Play a game in the terminal against the computer: type moves like e5, or undo, hint, quit."""
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
    if first not in ("human", "computer"):
        _fail("--first must be human or computer")
    from ninefold.terminal import play_game

    play_game(board, computer, Mark.O if first == "human" else Mark.X, ms, console)



@app.command()
def analyze(
    position: str = typer.Argument(..., help="A position string (quote it), or 'start'."),
    ms: float = typer.Option(1000.0, min=1, help="Thinking time, ms."),
    threads: int = typer.Option(1, min=1, max=8, help="Search threads."),
    top: int = typer.Option(8, min=1, help="How many moves to list."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Win probability for the side to move, the best moves and the principal variation."""
    from dataclasses import asdict

    from ninefold.players.analysis import analyze as run_analysis

    board = Board() if position.strip() == "start" else _board("standard", position=position)
    try:
        result = run_analysis(board, ms=ms, threads=threads, top=top)
    except ValueError as exc:
        _fail(str(exc))
    if as_json:
        data = asdict(result)
        moves = zip(data["moves"], result.moves, strict=True)
        data["moves"] = [{**m, "move": str(s.move)} for m, s in moves]
        data["pv"] = [str(m) for m in result.pv]
        print(json.dumps(data))
        return
    proven = f" (proven {result.proven})" if result.proven else ""
    console.print(
        f"{result.side_to_move} to move: win probability {100 * result.win_probability:.1f}%"
        f"{proven}   [{result.sims:,} simulations in {result.ms:.0f} ms]",
        highlight=False,
    )
    for m in result.moves:
        tag = f"  proven {m.proven}" if m.proven else ""
        console.print(f"  {m.move!s:4} visits {m.visits:>9,}  value {m.value:.3f}{tag}",
                      highlight=False)
    console.print("pv: " + " ".join(str(m) for m in result.pv), highlight=False)


# --- bot arena: protocols, referee, matches, tournaments (see docs/arena.md) -------------
