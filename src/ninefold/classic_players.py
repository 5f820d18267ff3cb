"""Computer players for classic tic-tac-toe, exact odds, and matches between them.

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
exactly from a seed, and `outcome_probabilities` can give the exact odds a
long match only estimates.

>>> from ninefold.classic import ClassicBoard
>>> perfect = make_classic_player("perfect", seed=1)
>>> sorted(perfect.options(ClassicBoard()))   # the four corners
[0, 2, 6, 8]
>>> naive = make_classic_player("naive")
>>> naive.options(ClassicBoard(["a1", "b2", "b1"]))   # O must block c1
[2]
>>> probs = outcome_probabilities(make_classic_player("perfect"), naive)
>>> probs[None] + probs[Mark.X] + probs[Mark.O], probs[Mark.O]
(Fraction(1, 1), Fraction(0, 1))
"""

from __future__ import annotations

import random
import statistics
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import NamedTuple

from ninefold.classic import CELL_NAMES, CENTRE, ClassicBoard
from ninefold.players.base import GameOverError, PlayerSpecError
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
        total += sum(_win_vs_naive(_child(after, c)) for c in mine) / len(mine) / len(replies)
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


# --- games, odds and matches --------------------------------------------------------


def play_game(x: ClassicPlayer, o: ClassicPlayer, board: ClassicBoard | None = None
              ) -> ClassicBoard:
    """Play `x` against `o` to the end (from `board`, changed in place, if given)."""
    board = board if board is not None else ClassicBoard()
    while not board.is_game_over():
        board.push((x if board.turn is Mark.X else o).choose(board))
    return board


Odds = dict[Mark | None, Fraction]


def outcome_probabilities(x: ClassicPlayer, o: ClassicPlayer,
                          board: ClassicBoard | None = None) -> Odds:
    """The exact chances of an X win, an O win and a draw (key None).

    Every player picks uniformly among its options, so this is a walk over
    the game tree weighted by 1/len(options).

    >>> odds = outcome_probabilities(make_classic_player("naive"), make_classic_player("naive"))
    >>> {str(k): f"{float(v):.4f}" for k, v in odds.items()}
    {'X': '0.3114', 'O': '0.1738', 'None': '0.5148'}
    """
    board = board.copy() if board is not None else ClassicBoard()
    memo: dict[Cells, Odds] = {}

    def walk() -> Odds:
        key = board.key()
        if key in memo:
            return memo[key]
        outcome = board.outcome()
        if outcome is not None:
            result = {Mark.X: Fraction(0), Mark.O: Fraction(0), None: Fraction(0)}
            result[outcome.winner] = Fraction(1)
        else:
            options = (x if board.turn is Mark.X else o).options(board)
            result = {Mark.X: Fraction(0), Mark.O: Fraction(0), None: Fraction(0)}
            for cell in options:
                board.push(cell)
                for k, p in walk().items():
                    result[k] += p / len(options)
                board.pop()
        memo[key] = result
        return result

    return walk()


class Exploit(NamedTuple):
    """The best an opponent can do against a known player (see `best_win_chance`)."""

    win: Fraction  # the opponent's chance to win
    loss: Fraction  # its chance to lose, as small as the best `win` allows
    strategy: dict[Cells, int]  # the opponent's move in each position it meets


def best_win_chance(player: ClassicPlayer, mark: Mark) -> Exploit:
    """How often an opponent who knows `player`'s rules can beat it at best.

    `player` plays `mark`; the opponent maximises its chance to win, then
    minimises its chance to lose.

    >>> best_win_chance(make_classic_player("perfect"), Mark.O).win
    Fraction(0, 1)
    >>> best = best_win_chance(make_classic_player("naive"), Mark.O)
    >>> best.win, best.loss, CELL_NAMES[best.strategy[ClassicBoard().key()]]
    (Fraction(89, 96), Fraction(0, 1), 'a1')
    """
    board = ClassicBoard()
    memo: dict[Cells, tuple[Fraction, Fraction]] = {}
    strategy: dict[Cells, int] = {}

    def walk() -> tuple[Fraction, Fraction]:
        key = board.key()
        if key in memo:
            return memo[key]
        outcome = board.outcome()
        if outcome is not None:
            result = (Fraction(int(outcome.winner is mark.other)),
                      Fraction(int(outcome.winner is mark)))
        elif board.turn is mark:
            options = player.options(board)
            win = loss = Fraction(0)
            for cell in options:
                board.push(cell)
                w, lo = walk()
                board.pop()
                win, loss = win + w / len(options), loss + lo / len(options)
            result = (win, loss)
        else:
            best: tuple[Fraction, Fraction] | None = None
            for cell in board.legal_moves:
                board.push(cell)
                w, lo = walk()
                board.pop()
                if best is None or (w, -lo) > (best[0], -best[1]):
                    best, strategy[key] = (w, lo), cell
            assert best is not None
            result = best
        memo[key] = result
        return result

    win, loss = walk()
    return Exploit(win, loss, strategy)


def line_text(board: ClassicBoard) -> str:
    """The moves played, numbered like a game record.

    >>> line_text(ClassicBoard(["a1", "b1", "b2"]))
    '1. a1 b1 2. b2'
    """
    words = []
    for i, cell in enumerate(board.move_stack):
        if i % 2 == 0:
            words.append(f"{i // 2 + 1}.")
        words.append(CELL_NAMES[cell])
    return " ".join(words)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for a proportion.

    >>> [round(v, 4) for v in wilson_interval(5, 10)]
    [0.2366, 0.7634]
    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    """
    if not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, not {successes} of {n}")
    if n == 0:
        return 0.0, 1.0
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class MatchResult:
    """The tally of a computer-against-computer match."""

    x: str
    o: str
    games: int
    x_wins: int
    o_wins: int
    draws: int
    seed: int | None = None

    def rows(self, confidence: float = 0.95) -> list[tuple[str, int, float, float, float]]:
        """(label, count, share, low, high) for X wins, O wins and draws."""
        out = []
        for label, count in (("X wins", self.x_wins), ("O wins", self.o_wins),
                             ("draws", self.draws)):
            share = count / self.games if self.games else 0.0
            low, high = wilson_interval(count, self.games, confidence)
            out.append((label, count, share, low, high))
        return out


def play_match(x: str, o: str, games: int, seed: int | None = None,
               progress: Callable[[int], None] | None = None) -> MatchResult:
    """`games` games of the players named `x` and `o`, seeded by `seed`.

    `progress`, if given, is called with the number of games just finished
    (every 100 games and at the end).

    >>> play_match("naive", "centre", 100, seed=7) == play_match("naive", "centre", 100, seed=7)
    True
    """
    if games < 0:
        raise ValueError(f"games must be >= 0, not {games}")
    rng = random.Random(seed)
    px, po = make_classic_player(x, rng), make_classic_player(o, rng)
    tally: dict[Mark | None, int] = {Mark.X: 0, Mark.O: 0, None: 0}
    board = ClassicBoard()
    done = 0
    for i in range(games):
        play_game(px, po, board)
        outcome = board.outcome()
        assert outcome is not None
        tally[outcome.winner] += 1
        while board.move_stack:
            board.pop()
        if progress is not None and ((i + 1) % 100 == 0 or i + 1 == games):
            progress(i + 1 - done)
            done = i + 1
    return MatchResult(px.name, po.name, games, tally[Mark.X], tally[Mark.O], tally[None], seed)


def plot_match(result: MatchResult, path: str | Path, odds: Odds | None = None) -> Path:
    """A bar plot (PNG) of a match: shares with 95% Wilson intervals; `odds`,
    if given, marked as the exact values. Uses matplotlib's Agg backend."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = result.rows()
    labels = [r[0] for r in rows]
    shares = [r[2] for r in rows]
    errors = [[r[2] - r[3] for r in rows], [r[4] - r[2] for r in rows]]
    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    bars = ax.bar(labels, shares, yerr=errors, capsize=8,
                  color=["tab:green", "tab:blue", "tab:gray"], label="share, 95% Wilson interval")
    for bar, share in zip(bars, shares, strict=True):
        ax.annotate(f"{100 * share:.1f}%", (bar.get_x() + bar.get_width() / 2, share),
                    xytext=(14, 3), textcoords="offset points", fontsize=9)
    if odds is not None:
        exact = [float(odds[Mark.X]), float(odds[Mark.O]), float(odds[None])]
        ax.scatter(labels, exact, marker="D", color="black", zorder=3, label="exact")
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of games")
    seed = "" if result.seed is None else f", seed {result.seed}"
    ax.set_title(f"{result.x} (X) against {result.o} (O): {result.games:,} games{seed}")
    ax.legend(loc="upper right")
    path = Path(path)
    fig.savefig(path, dpi=110)
    return path
