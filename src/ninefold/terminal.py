"""The terminal game: a coloured picture of a `Board`, the play loop and the replay.

A view only: the rules, and the text of moves, stay in `ninefold.rules`. The
picture marks the squares the side to move may play (``·`` in yellow), the
last move (reverse video) and the owned small boards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.text import Text

from ninefold.players import Limit, Player, make_player
from ninefold.players.level import analysis_spec
from ninefold.records import Game
from ninefold.rules import Board, Mark, Move

COLOURS = {Mark.X: "bold green", Mark.O: "bold blue"}


def picture(board: Board) -> Text:
    """A coloured 9x9 picture with the big board beside it and a status line."""
    legal = {m.action for m in board.legal_moves}
    last = board.move_stack[-1].action if board.move_stack else None
    text = Text("    a b c   d e f   g h i\n", style="dim")
    for y in range(9):
        if y in (3, 6):
            text.append("   -------+-------+-------\n", style="dim")
        text.append(f"{y + 1}   ", style="dim")
        for x in range(9):
            move = Move.from_xy(x, y)
            mark = board.cells[move.action]
            owner = board.owners[move.board]
            if mark is not None:
                style = COLOURS[mark] + (" reverse" if move.action == last else "")
                text.append(str(mark), style=style)
            elif move.action in legal:
                text.append("·", style="bold yellow")
            else:
                text.append(".", style=("dim " + COLOURS[owner]) if owner is not None else "dim")
            if x in (2, 5):
                text.append(" | ", style="dim")
            elif x < 8:
                text.append(" ")
        if y % 3 == 1:
            text.append("      ")
            for b in range(3 * (y // 3), 3 * (y // 3) + 3):
                owner = board.owners[b]
                if owner is not None:
                    text.append(str(owner), style=COLOURS[owner])
                else:
                    text.append("-" if board.is_full(b) else ".", style="dim")
                text.append(" ")
        text.append("\n")
    status = board.status()
    if board.target is None and not board.is_game_over():
        status += " (yellow)"
    text.append(status, style="bold" if board.is_game_over() else "")
    return text


def play_game(
    board: Board,
    computer: Player,
    computer_mark: Mark,
    ms: int,
    console: Console,
    ask: Callable[[str], str] = input,
    hint_spec: str | None = None,
) -> Board:
    """Play `board` to the end (or until the person quits): the person types moves
    like ``e5``; ``undo`` takes back the person's last move, ``hint`` asks the
    player `hint_spec` (default: the analyses' player, `analysis_spec`: level 10's
    search, one thread; made at the first hint, whoever the opponent is) and names it,
    ``quit`` stops. Returns the board as it was left."""
    hinter: list[Player] = []  # made once, at the first hint
    console.print(
        f"You play {computer_mark.other} against {computer.spec} ({board.rules.name} rules). "
        "Type a move like e5, or undo, hint, quit."
    )
    while not board.is_game_over():
        console.print(picture(board))
        if board.turn is computer_mark:
            with console.status(f"{computer.spec} is thinking..."):
                result = computer.play(board, Limit(move_ms=ms))
            board.push(result.move)
            console.print(f"{computer.spec} plays [bold]{result.move}[/]{_about(result.info)}")
            continue
        try:
            text = ask(f"{board.turn} move> ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            console.print("\nbye")
            return board
        if text in ("quit", "exit", "q"):
            return board
        if text == "undo":
            _undo(board, computer_mark.other, console)
            continue
        if text == "hint":
            if not hinter:
                hinter.append(make_player(hint_spec or analysis_spec()))
            with console.status("thinking..."):
                hint = hinter[0].play(board.copy(), Limit(move_ms=ms))
            console.print(f"hint: [bold]{hint.move}[/]{_about(hint.info)} from {hinter[0].spec}")
            continue
        try:
            board.push(Move.parse(text))
        except ValueError as exc:
            console.print(f"[red]{exc}[/]")
    console.print(picture(board))
    return board


def replay_game(game: Game, console: Console, ask: Callable[[str], str] | None = None) -> None:
    """Show a recorded game position by position. With `ask` (e.g. `input`), step:
    Enter = next move, ``b`` = back, ``q`` = quit; without, print every position."""
    board = game.start_board()
    names = f"{game.tags.get('X', 'X')} (X) vs {game.tags.get('O', 'O')} (O)"
    term = game.tags.get("Termination")
    console.print(f"{names}, {board.rules.name} rules: {game.result}"
                  + (f" ({term})" if term else ""), highlight=False)
    plies = len(game.moves)

    def show() -> None:
        if board.move_stack:
            i = board.ply - 1
            note = f"  {{{game.comments[i]}}}" if i in game.comments else ""
            console.print(f"move {board.ply}/{plies}: {board.turn.other} {board.move_stack[-1]}"
                          f"{note}", highlight=False)
        else:
            console.print(f"start (0/{plies} moves)")
        console.print(picture(board))

    show()
    if ask is None:
        for move in game.moves:
            board.push(move)
            show()
        return
    while True:
        try:
            answer = ask("Enter = next, b = back, q = quit> ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        if answer in ("q", "quit"):
            return
        if answer in ("b", "back") and board.move_stack:
            board.pop()
        elif answer == "" and board.ply < plies:
            board.push(game.moves[board.ply])
        else:
            console.print("[dim](start of the game)[/]" if answer in ("b", "back")
                          else "[dim](end of the game)[/]" if answer == ""
                          else "[red]Enter = next, b = back, q = quit[/]")
            continue
        show()


def _undo(board: Board, person: Mark, console: Console) -> None:
    """Take back the person's last move and the computer's reply to it."""
    floor = 4 if board.opening else 0  # the opening's moves stay
    while len(board.move_stack) > floor:
        mover = board.turn.other
        board.pop()
        if mover is person:
            return
    console.print("[red]nothing to take back[/]")


def _about(info: dict[str, Any]) -> str:
    """A short note from the player's info (expected score, simulations), if any."""
    parts = []
    if info.get("proven"):
        parts.append(f"proven {info['proven']}")
    elif "value" in info:
        parts.append(f"expects {100 * info['value']:.0f}%")
    if "sims" in info:
        parts.append(f"{info['sims']:,} simulations")
    return f"  ({', '.join(parts)})" if parts else ""
