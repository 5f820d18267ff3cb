"""The classic game in the terminal: a person against a computer player.

The person is green and the computer blue, as in the chapter; X moves first.
Moves are typed in the view shown (a cell a1-c3 in TicTacToe, a number 1-9
in Pick15 and Magic15); a view's name switches views, ``undo`` takes back the
person's last move, ``quit`` stops. Bad input is explained and asked again.

>>> from io import StringIO
>>> from rich.console import Console
>>> from ninefold.classic.players import make_classic_player
>>> out = StringIO()
>>> answers = iter(["b2", "b2", "quit"])
>>> play(make_classic_player("naive", seed=1), console=Console(file=out),
...      read=lambda prompt: next(answers)) is None
True
>>> "illegal move b2: b2 is already taken by X" in out.getvalue()
True
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.markup import escape

from ninefold.classic.game import ClassicBoard, View, player_name, render
from ninefold.classic.players import ClassicPlayer
from ninefold.rules import Mark, Outcome

QUIT = ("quit", "exit", "q")
UNDO = ("undo", "u")


def play(
    computer: ClassicPlayer,
    *,
    human: Mark = Mark.X,
    view: View = View.TICTACTOE,
    marks: str = "xo",
    console: Console | None = None,
    read: Callable[[str], str] = input,
) -> Outcome | None:
    """Play one game on `console`, reading the person's lines with `read`.

    Returns the outcome, or None if the person quit (``quit`` or end of input).
    """
    console = console or Console()
    colours = ("green", "blue") if human is Mark.X else ("blue", "green")
    names = {m: player_name(m, marks, colours) for m in (Mark.X, Mark.O)}

    def who(mark: Mark) -> str:
        return f"{names[mark]} ({mark if marks == 'colours' else colours[mark]})"

    console.print(
        f"You are {who(human)}, the computer ({computer.name}) is {who(human.other)}; "
        "X moves first. Moves: a cell a1-c3 in the TicTacToe view, a number 1-9 in Pick15 "
        "and Magic15. Commands: tictactoe, pick15, magic15 (switch view), undo, quit."
    )
    markup = console.color_system is not None  # plain pictures when colours cannot show
    board = ClassicBoard()
    while True:
        console.print(f"\n[bold]{view.title}[/]")
        picture = render(board, view, marks=marks, colours=colours, markup=markup)
        console.print(picture, highlight=False, markup=markup)
        outcome = board.outcome()
        if outcome is not None:
            verdict = ("It's a draw." if outcome.winner is None
                       else "You win!" if outcome.winner is human else "The computer wins.")
            console.print(f"[bold]{verdict}[/]")
            return outcome
        if board.turn is not human:
            cell = computer.choose(board)
            board.push(cell)
            console.print(f"The computer plays {view.text(cell)}.")
            continue
        try:
            text = read(f"{names[human]} move [{view.hint}]> ").strip()
        except EOFError:
            console.print("\nbye")
            return None
        word = text.lower()
        if word in QUIT:
            return None
        if word in UNDO:
            _undo(board, human, console)
        elif word in {v.value for v in View}:
            view = View.parse_name(word)
        else:
            try:
                board.push_text(text, view, names)
            except ValueError as exc:
                console.print(f"[red]{escape(str(exc))}[/]", highlight=False)


def _undo(board: ClassicBoard, human: Mark, console: Console) -> None:
    """Take back the person's last move (and the computer's reply to it)."""
    if len(board.move_stack) < (1 if human is Mark.X else 2):
        console.print("[red]nothing to undo: you have not moved yet[/]", highlight=False)
        return
    board.pop()
    while board.turn is not human:  # back to before the person's last move
        board.pop()
