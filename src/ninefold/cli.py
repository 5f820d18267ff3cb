"""The `ninefold` command: thin wrappers that parse, call the library and print."""

from __future__ import annotations

import json
import random
import sys
import time

import typer
from rich.console import Console

from ninefold import kernel
from ninefold.notation import parse_move
from ninefold.players import Limit, make_player, strongest_spec
from ninefold.rules import Board, Mark, Rules

app = typer.Typer(
    help="Ultimate Tic-Tac-Toe: exact rules, a fast kernel, strong players.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
console = Console()
err = Console(stderr=True)


def _fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(2)


def _rules(text: str) -> Rules:
    try:
        return Rules.parse(text)
    except ValueError as exc:
        _fail(str(exc))
        raise


def _board(rules: str, moves: str = "", position: str | None = None) -> Board:
    try:
        board = Board.from_position(position) if position else Board(_rules(rules))
        for word in moves.replace(",", " ").split():
            board.push(parse_move(word))
    except ValueError as exc:
        _fail(str(exc))
    return board


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
    """Play a game in the terminal against the computer. Type moves like e5; 'undo', 'quit'."""
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
    computer_mark = Mark.O if first == "human" else Mark.X
    console.print(f"You play {computer_mark.other} against {spec} ({board.rules.name} rules).")
    while not board.is_game_over():
        console.print(str(board), highlight=False)
        if board.turn is computer_mark:
            result = computer.play(board, Limit(move_ms=ms))
            board.push(result.move)
            console.print(f"[bold]{spec} plays {result.move}[/]")
            continue
        try:
            text = input(f"{board.turn} move> ").strip()
        except EOFError:
            console.print("\nbye")
            return
        if text in ("quit", "exit", "q"):
            return
        if text == "undo":
            if len(board.move_stack) >= 2:
                board.pop()
                board.pop()
            continue
        try:
            board.push(parse_move(text))
        except ValueError as exc:
            console.print(f"[red]{exc}[/]")
    console.print(str(board), highlight=False)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
