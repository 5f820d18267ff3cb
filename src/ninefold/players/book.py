"""`book`: an opening book, then the naive player (or another); pure Python, ready at once.

The book has two parts, computed offline by ``benchmarks/make_book.py`` at a
fixed number of simulations and stored in ``opening_book.txt`` beside this
module:

- **first moves**: pure MCTS's move (`SPEC`) for the empty board and for each
  of the 81 first moves (82 positions), looked up without the rules field: in
  the first two moves every rules preset plays the same game;
- **lines**: the network's move (`LINES_SPEC`) under CodinGame's rules in the
  games that open with the book's first move, up to `LINE_PLIES` moves in,
  in each position where the side to move has played the book's moves and
  the other side anything (`line_positions`: 1,283 positions with the shipped
  network), looked up with the rules.

A bot answers with this player while its search is still loading
(`ninefold.protocols.engine`); it imports no numba. At CodinGame's clock the
search loads for a second or more while a turn comes every 100 ms or so: the
lines answer the first turns where the naive player would have.

>>> from ninefold import Board
>>> BookPlayer().play(Board()).info["reason"]
'book'
>>> len(read_book())
1365
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path

from ninefold.players.naive import NaivePlayer
from ninefold.players.player import Limit, Player, PlayResult
from ninefold.players.registry import make_player, register
from ninefold.rules import Board, Move

BOOK_PATH = Path(__file__).with_name("opening_book.txt")
SIMS = 200_000  # simulations per book position (one thread)
SEED = 1
SPEC = f"mcts:sims={SIMS},seed={SEED},threads=1"  # the search that made the first moves
LINES_SPEC = "mcts:net=default,sims=100000,seed=1,threads=1"  # ... and the lines
LINES_RULES = "codingame"  # the lines' rules: a clock per turn, where the search loads late
LINE_PLIES = 7  # the lines hold positions with 2 to this many moves played


def key(board: Board) -> str:
    """The book's key for `board`: its position text without the rules field.

    >>> key(Board("codingame"))
    '9/9/9/9/9/9/9/9/9 x - .........'
    """
    return board.position().split(" ", 1)[1]


def line_key(board: Board) -> str:
    """The book's key for a position of its lines: the whole position text.

    >>> line_key(Board("codingame"))
    'codingame 9/9/9/9/9/9/9/9/9 x - .........'
    """
    return board.position()


def book_move(book: Mapping[str, Move], board: Board) -> Move | None:
    """`book`'s legal move for `board` (a line's, else a first move's), or None."""
    move = book.get(line_key(board)) or book.get(key(board))
    return move if move is not None and move in board.legal_moves else None


def book_positions() -> Iterator[Board]:
    """The first moves' positions: the empty board, then each first move in square order."""
    empty = Board()
    yield empty
    for move in empty.legal_moves:
        board = empty.copy()
        board.push(move)
        yield board


def line_positions(book: Mapping[str, Move], plies: int = LINE_PLIES,
                   rules: str = LINES_RULES) -> Iterator[Board]:
    """The lines' positions, X's then O's, fewest moves first: the positions with 2 to
    `plies` moves played, under `rules`, where the side to move has played `book`'s
    moves and the other side anything, X's first move the book's.

    Each position is yielded before its move is looked up in `book`, so a caller
    that adds each position's move to `book` as it goes makes the lines (a
    position the book does not hold ends its line).

    >>> sum(1 for _ in line_positions(read_book(), plies=3))  # X's 8 + O's 9
    17
    """
    for side in (0, 1):
        level = [Board(rules)]
        for ply in range(plies + 1):
            following = []
            for board in level:
                if board.is_game_over():
                    continue
                if ply % 2 == side or ply == 0:  # the book's side moves (and X's first)
                    if ply >= 2:
                        yield board
                    move = book_move(book, board)
                    moves = [] if move is None or ply == plies else [move]
                else:
                    moves = list(board.legal_moves) if ply < plies else []
                for move in moves:
                    child = board.copy()
                    child.push(move)
                    following.append(child)
            level = following


def book_text(entries: dict[str, str], spec: str = SPEC, lines_spec: str = LINES_SPEC,
              plies: int = LINE_PLIES) -> str:
    """The book file for `entries` (key -> move text), its first moves made by the
    search `spec` and its lines (to `plies` moves) by `lines_spec`."""
    head = [f"# ninefold opening book: benchmarks/make_book.py, first moves {spec}",
            f"# lines ({LINES_RULES} rules, to {plies} moves) {lines_spec}",
            "# position -> move (first moves: without the rules field)"]
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
    """The opening book's move where it has one, else the move of the player `then`
    (a spec of a player that needs no search: ``naive``, ``policy``...; `seed` seeds
    the naive player).

    >>> from ninefold import Board, Move
    >>> board = Board("codingame")
    >>> for move in ["a1", "b1"]:  # X did not open with the book's e5: out of the book
    ...     board.push(Move.parse(move))
    >>> BookPlayer(then="policy").play(board).info["reason"]
    'policy'
    """

    def __init__(self, seed: int | None = None, then: str = "naive") -> None:
        self.then = NaivePlayer(seed) if then == "naive" else make_player(then)

    def knows(self, board: Board) -> bool:
        """True if the book has a (legal) move for `board`."""
        return self._book_move(board) is not None

    def _book_move(self, board: Board) -> Move | None:
        return book_move(read_book(), board)

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        move = self._book_move(board)
        if move is not None:
            return PlayResult(move, {"reason": "book"})
        return self.then.play(board, limit)
