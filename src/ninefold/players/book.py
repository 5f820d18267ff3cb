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

The **deep lines** (``deep_book.txt``, grown by ``benchmarks/grow_book.py``) follow
CodinGame's games from the empty board where the second player is to move, as
far as the games stay narrow: each position holds the move of a search of
`DEEP_SPEC`'s simulations (some seventy turns' worth at CodinGame's 100 ms), and
the lines branch on the replies the first player's search makes at about a
turn's simulations (`DEEP_REPLY_SPEC` at each of `DEEP_REPLY_SIMS` under each of
`DEEP_REPLY_SEEDS`). They are looked up by the position's least text among its
eight symmetric copies (`canonical`), so one entry answers every turned or
mirrored copy.

A bot answers with this player while its search is still loading
(`ninefold.protocols.engine`); it imports no numba. At CodinGame's clock the
search loads for a second or more while a turn comes every 100 ms or so: the
lines answer the first turns where the naive player would have, then the deep
lines. Once the search is ready, the bot plays the deep lines' moves and the
search's elsewhere.

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

from ninefold.moves import SYMMETRIES
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
DEEP_PATH = Path(__file__).with_name("deep_book.txt")
DEEP_SPEC = "mcts:net=default,sims=2000000,nodes=6000000,seed=1,threads=1"  # the moves
DEEP_REPLY_SPEC = "mcts:net=default,threads=1"  # ... and the replies they follow, made
DEEP_REPLY_SIMS = (15_000, 30_000, 45_000)  # at about a turn's simulations at CodinGame's clock
DEEP_REPLY_SEEDS = (1, 2, 3)  # under each of these seeds


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


def _inverse(k: int) -> int:
    square = SYMMETRIES[k]
    return next(j for j, other in enumerate(SYMMETRIES)
                if all(other[square[i]] == i for i in range(9)))


_INVERSE = tuple(_inverse(k) for k in range(8))  # the symmetry that undoes each


def canonical(board: Board) -> tuple[str, int]:
    """The least position text of `board`'s eight symmetric copies, and the symmetry
    (`Board.transform`) that gives it: symmetric positions share it.

    >>> a, b = Board("codingame"), Board("codingame")
    >>> a.push(Move.parse("a1")); b.push(Move.parse("i9"))
    >>> canonical(a)[0] == canonical(b)[0]
    True
    """
    return min((board.transform(k).position(), k) for k in range(8))


def deep_move(board: Board, path: Path = DEEP_PATH) -> Move | None:
    """The deep lines' legal move for `board` (or for any of its symmetric copies,
    turned back), or None.

    >>> board = Board("codingame")
    >>> board.push(Move.parse("e5"))
    >>> deep_move(board) in board.legal_moves
    True
    """
    book, marks = _deep_book(path)
    if 81 - board.cells.count(None) > marks:
        return None
    text, k = canonical(board)
    move = book.get(text)
    if move is None:
        return None
    move = move.transform(_INVERSE[k])
    return move if move in board.legal_moves else None


@cache
def _deep_book(path: Path) -> tuple[dict[str, Move], int]:
    """The deep lines (position -> move) and the most marks on one of their boards
    (counted in the text: a bot reads them between two turns, in about a millisecond)."""
    book = read_book(path)
    grids = (text.split()[1] for text in book)
    return book, max((grid.count("x") + grid.count("o") for grid in grids), default=-1)


def load_deep_lines(path: Path = DEEP_PATH) -> int:
    """Read the deep lines now (else the first lookup does, on a turn's clock); how many."""
    return len(_deep_book(path)[0])


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
        # the lines first: while a bot's search loads they keep both sides in the book
        # whatever the other side plays; symmetric copies lead on into the deep lines
        return book_move(read_book(), board) or deep_move(board)

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        move = self._book_move(board)
        if move is not None:
            return PlayResult(move, {"reason": "book"})
        return self.then.play(board, limit)
