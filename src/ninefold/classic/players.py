"""Computer players for classic tic-tac-toe.

The players of Moler's chapter "TicTacToe Magic" and its exercises:

- ``random``: any empty cell.
- ``naive``: the chapter's `strategy`: win if you can, else block the
  opponent's win, else a random empty cell.
- ``centre``: exercise 11.4: win, else block, else the centre if free, else
  random. (A centre player takes the centre on its first move whenever it is
  free, because before that nobody has two in a row; so "centre first, then
  naive" is the same player.)
- ``perfect``: never loses, and wins whenever the opponent errs. Derived by
  exhaustive search (negamax over the 5478 legal positions, memoised). Among
  moves of equal value it wins fastest, then leaves the opponent the most
  ways to go wrong; that is why, as X, it opens in a corner (7 of O's 8
  replies lose), like the xkcd 832 chart.

Every player names the moves it picks among (`ClassicPlayer.options`) and
picks one uniformly with its own seeded `random.Random`. So matches replay
exactly from a seed, and `ninefold.classic.stats.outcome_probabilities` can
give the exact odds a long match only estimates.

>>> perfect = make_classic_player("perfect", seed=1)
>>> sorted(perfect.options(ClassicBoard()))   # the four corners
[0, 2, 6, 8]
>>> naive = make_classic_player("naive")
>>> naive.options(ClassicBoard(["a1", "b2", "b1"]))   # O must block c1
[2]
>>> play_game(perfect, naive).outcome().winner is not Mark.O   # perfect never loses
True
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from fractions import Fraction
from functools import cache

from ninefold.classic.game import CENTRE, ClassicBoard
from ninefold.players.player import GameOverError
from ninefold.players.registry import PlayerSpecError
from ninefold.rules import LINES, Mark, has_line

Cells = tuple[Mark | None, ...]


# --- exhaustive search ------------------------------------------------------------------


def _to_move(cells: Cells) -> Mark:
    xs = sum(c is Mark.X for c in cells)
    os_ = sum(c is Mark.O for c in cells)
    return Mark.X if xs == os_ else Mark.O


@cache
def _score(cells: Cells) -> int:
    """Negamax score for the side to move: > 0 a win, 0 a draw, < 0 a loss.

    The size is 1 + the empty cells left at the end of perfect play, so a
    quicker win scores more and a later loss less.
    """
    empties = [c for c in range(9) if cells[c] is None]
    mover = _to_move(cells)
    if has_line(cells, mover.other):
        return -(len(empties) + 1)
    if not empties:
        return 0
    best = -100
    for c in empties:
        child = list(cells)
        child[c] = mover
        best = max(best, -_score(tuple(child)))
    return best


def value(board: ClassicBoard) -> int:
    """The game-theoretic value for the side to move: 1 win, 0 draw, -1 loss.

    >>> value(ClassicBoard()), value(ClassicBoard(["a1", "b1"])), value(ClassicBoard(["b1"]))
    (0, 1, 0)
    """
    score = _score(board.key())
    return (score > 0) - (score < 0)


def _child(cells: Cells, cell: int) -> Cells:
    out = list(cells)
    out[cell] = _to_move(cells)
    return tuple(out)


@cache
def _perfect_options(cells: Cells) -> tuple[int, ...]:
    """Perfect play: the best score; among equal scores, the best chance to win
    against a fallible opponent, modelled by the naive player."""
    moves = [c for c in range(9) if cells[c] is None]
    keys = {c: (-_score(_child(cells, c)), _win_vs_naive(_child(cells, c))) for c in moves}
    best = max(keys.values())
    return tuple(c for c in moves if keys[c] == best)


@cache
def _win_vs_naive(cells: Cells) -> Fraction:
    """The chance that perfect, who just moved, wins if naive is to move here."""
    if has_line(cells, Mark.X) or has_line(cells, Mark.O):
        return Fraction(int(has_line(cells, _to_move(cells).other)))
    if None not in cells:
        return Fraction(0)
    replies = _naive_options(cells, centre=False)
    total = Fraction(0)
    for reply in replies:
        after = _child(cells, reply)
        if has_line(after, _to_move(cells)) or None not in after:
            continue  # naive won (never happens: perfect does not lose) or a draw
        mine = _perfect_options(after)
        won = sum((_win_vs_naive(_child(after, c)) for c in mine), Fraction(0))
        total += won / len(mine) / len(replies)
    return total


@cache
def _naive_options(cells: Cells, centre: bool) -> tuple[int, ...]:
    """Win, else block, else (the centre if `centre` and free, else) any empty cell."""
    mover = _to_move(cells)
    wins = _completing(cells, mover)
    if wins:
        return tuple(wins)
    blocks = _completing(cells, mover.other)
    if blocks:
        return tuple(blocks)
    if centre and cells[CENTRE] is None:
        return (CENTRE,)
    return tuple(c for c in range(9) if cells[c] is None)


# --- players ----------------------------------------------------------------------------


def _completing(cells: Cells | list[Mark | None], mark: Mark) -> list[int]:
    """Empty cells that would give `mark` three in a row, in reading order."""
    found = set()
    for line in LINES:
        marks = [cells[c] for c in line]
        if marks.count(mark) == 2 and marks.count(None) == 1:
            found.add(line[marks.index(None)])
    return sorted(found)


class ClassicPlayer(ABC):
    """A computer player: `options` names the moves it picks among, uniformly.

    `rng` is a `random.Random` (shared with others if you like) or a seed.
    """

    name = "?"

    def __init__(self, rng: random.Random | int | None = None) -> None:
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng)

    @abstractmethod
    def options(self, board: ClassicBoard) -> list[int]:
        """The moves this player chooses among."""

    def choose(self, board: ClassicBoard) -> int:
        """A move for the side to move (the board is not changed)."""
        if board.is_game_over():
            raise GameOverError(f"{self.name}: the game is over, there is no move to choose")
        options = self.options(board)
        return options[0] if len(options) == 1 else self.rng.choice(options)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class RandomPlayer(ClassicPlayer):
    """Any empty cell."""

    name = "random"

    def options(self, board: ClassicBoard) -> list[int]:
        return board.legal_moves


class NaivePlayer(ClassicPlayer):
    """Win if possible, else block, else a random empty cell (the chapter's strategy).

    If there are several wins or blocks it picks one at random, where the
    chapter's MATLAB takes the first one it finds; that changes nothing,
    since any win wins and against two threats every block loses.
    """

    name = "naive"

    def options(self, board: ClassicBoard) -> list[int]:
        return [] if board.is_game_over() else list(_naive_options(board.key(), centre=False))


class CentrePlayer(ClassicPlayer):
    """Naive, but the centre before a random cell (exercise 11.4)."""

    name = "centre"

    def options(self, board: ClassicBoard) -> list[int]:
        return [] if board.is_game_over() else list(_naive_options(board.key(), centre=True))


class PerfectPlayer(ClassicPlayer):
    """Exhaustive search: never loses, converts every opponent error into a win."""

    name = "perfect"

    def options(self, board: ClassicBoard) -> list[int]:
        return [] if board.is_game_over() else list(_perfect_options(board.key()))


PLAYERS: dict[str, type[ClassicPlayer]] = {
    "random": RandomPlayer,
    "naive": NaivePlayer,
    "centre": CentrePlayer,
    "perfect": PerfectPlayer,
}


def make_classic_player(name: str, rng: random.Random | None = None, *,
                        seed: int | None = None) -> ClassicPlayer:
    """The player called `name` (``center`` is accepted for ``centre``).

    >>> make_classic_player("Center")
    <CentrePlayer centre>
    >>> try:
    ...     make_classic_player("minimax")
    ... except PlayerSpecError as exc:
    ...     print(exc)
    unknown classic player 'minimax': choose one of random, naive, centre, perfect
    """
    key = name.strip().lower() if isinstance(name, str) else name
    key = "centre" if key == "center" else key
    if key not in PLAYERS:
        raise PlayerSpecError(
            f"unknown classic player {name!r}: choose one of {', '.join(PLAYERS)}"
        )
    return PLAYERS[key](rng if rng is not None else seed)


# --- a game ----------------------------------------------------------------------------


def play_game(x: ClassicPlayer, o: ClassicPlayer, board: ClassicBoard | None = None
              ) -> ClassicBoard:
    """Play `x` against `o` to the end (from `board`, changed in place, if given)."""
    board = board if board is not None else ClassicBoard()
    while not board.is_game_over():
        board.push((x if board.turn is Mark.X else o).choose(board))
    return board
