"""Classic tic-tac-toe statistics: exact odds, matches, Wilson intervals and plots.

Every classic player picks uniformly among its options, so the odds of a
pairing are exact fractions (`outcome_probabilities`, a walk over the game
tree), and a seeded match (`play_match`) only estimates them.

>>> odds = outcome_probabilities(make_classic_player("perfect"), make_classic_player("naive"))
>>> odds[None] + odds[Mark.X] + odds[Mark.O], odds[Mark.O]
(Fraction(1, 1), Fraction(0, 1))
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

from ninefold.classic.game import CELL_NAMES, ClassicBoard
from ninefold.classic.players import Cells, ClassicPlayer, make_classic_player, play_game
from ninefold.files import atomic_file
from ninefold.options import clip
from ninefold.rules import Mark

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


class PlotPathError(ValueError):
    """A plot cannot be written where it was asked to go."""


def check_plot_path(path: str | Path) -> Path:
    """`path` as a `Path`, if a PNG can be written there; else `PlotPathError`.

    The folder must exist (it is not created) and `path` must not be a folder.
    Call it before long work, so a bad path fails at once.

    >>> check_plot_path("no-such-folder/stats.png")
    Traceback (most recent call last):
    ...
    ninefold.classic.stats.PlotPathError: no folder 'no-such-folder' for the plot: create it first
    """
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise PlotPathError(f"the plot must be a .png file, not {clip(path, 200)}")
    folder = path.parent
    if not folder.exists():
        raise PlotPathError(f"no folder {clip(folder, 200)} for the plot: create it first")
    if not folder.is_dir():
        raise PlotPathError(f"{clip(folder, 200)} is not a folder")
    if path.is_dir():
        raise PlotPathError(f"{clip(path, 200)} is a folder, not a file")
    return path


def plot_match(result: MatchResult, path: str | Path, odds: Odds | None = None) -> Path:
    """A bar plot (PNG) of a match: shares with 95% Wilson intervals; `odds`,
    if given, marked as the exact values. Uses matplotlib's Agg backend.

    The picture is written to a temporary file beside `path` and renamed, so
    `path` is either the whole new plot or untouched, never half written.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = check_plot_path(path)
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
    with atomic_file(path, binary=True) as file:
        fig.savefig(file, format="png", dpi=110)
    return path
