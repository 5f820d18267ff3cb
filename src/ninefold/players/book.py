"""`book`: a small opening book, then the naive player; pure Python, ready at once.

The book holds the strong search's move for the empty board and for each of
the 81 first moves (82 positions), computed offline by
``benchmarks/make_book.py`` at a fixed number of simulations and stored in
``opening_book.txt`` beside this module. A bot answers with this player while
its search is still loading (`ninefold.protocols.engine`): it imports no numba.

Positions are looked up without their rules field: in the first two moves
every rules preset plays the same game.

>>> from ninefold import Board
>>> BookPlayer().play(Board()).info["reason"]
'book'
>>> len(read_book())
82
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path

from ninefold.players.naive import NaivePlayer
from ninefold.players.player import Limit, Player, PlayResult
from ninefold.players.registry import register
from ninefold.rules import Board, Move

BOOK_PATH = Path(__file__).with_name("opening_book.txt")
SIMS = 200_000  # simulations per book position (one thread)
SEED = 1
SPEC = f"mcts:sims={SIMS},seed={SEED},threads=1"  # the search that made the shipped book


def key(board: Board) -> str:
    """The book's key for `board`: its position text without the rules field.

    >>> key(Board("codingame"))
    '9/9/9/9/9/9/9/9/9 x - .........'
    """
    return board.position().split(" ", 1)[1]


def book_positions() -> Iterator[Board]:
    """The book's positions: the empty board, then each first move in square order."""
    empty = Board()
    yield empty
    for move in empty.legal_moves:
        board = empty.copy()
        board.push(move)
        yield board


def book_text(entries: dict[str, str], spec: str = SPEC) -> str:
    """The book file for `entries` (key -> move text), made by the search `spec`."""
    head = [f"# ninefold opening book: benchmarks/make_book.py, {spec}",
            "# position (grid side target owners) -> move"]
    return "\n".join([*head, *(f"{k} {m}" for k, m in entries.items())]) + "\n"


@cache
def read_book(path: Path = BOOK_PATH) -> dict[str, Move]:
    """The book: key -> move (empty if the file is missing)."""
    entries: dict[str, Move] = {}
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return entries
    for line in lines:
        if line.strip() and not line.startswith("#"):
            position, _, move = line.rpartition(" ")
            entries[position] = Move.parse(move)
    return entries


@register("book")
class BookPlayer(Player):
    """The opening book's move where it has one, else the naive player's."""

    def __init__(self, seed: int | None = None) -> None:
        self.naive = NaivePlayer(seed)

    def knows(self, board: Board) -> bool:
        """True if the book has a (legal) move for `board`."""
        return self._book_move(board) is not None

    def _book_move(self, board: Board) -> Move | None:
        move = read_book().get(key(board))
        return move if move is not None and move in board.legal_moves else None

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        move = self._book_move(board)
        if move is not None:
            return PlayResult(move, {"reason": "book"})
        return self.naive.play(board, limit)
