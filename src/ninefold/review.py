"""A game review: every position of a finished game analysed, each move labelled by what
it lost.

Each position the game went through is analysed by the analysis player
(`ninefold.players.level.analysis_spec`, level 10's search, as the web's analysis
and ``ninefold analyze`` do) for `ms` milliseconds, in worker processes
(`review`). A position the game ended in is scored by its result, not searched.
What comes back (`Review`) holds, per position, X's expected score (a win 1, a
draw 0.5, a loss 0), the result if the search proved it, the best move and its
line (principal variation). From those, each move (`Ply`) gets:

- the mover's loss: the mover's expected score before the move less after it
  (at least 0);
- a label by that loss (`label`): ``best`` under `BEST` or the best move itself,
  ``good`` under `GOOD`, ``inaccuracy`` under `INACCURACY`, ``mistake`` under
  `MISTAKE`, else ``blunder``; a move from a proven win into a proven draw or
  loss is a ``blunder`` whatever the numbers; the moves of an opening the game
  was given (``book``) are labelled ``opening`` and not judged;
- its accuracy (`move_accuracy`, lichess's formula on the mover's win
  percentage before and after), averaged over a side's judged moves
  (`Review.accuracy`).

The review of one game is the same whatever holds it (a web game, an arena or
platform game, a record file): `review_key` names it by its content (start
position, moves, opening plies), so a store keeps it once.

>>> from ninefold.rules import Board
>>> label(0.01, False, False), label(0.07, False, False), label(0.3, False, False)
('best', 'inaccuracy', 'blunder')
>>> round(move_accuracy(0.0), 1), round(move_accuracy(0.1), 1), move_accuracy(1.0)
(100.0, 63.6, 0.0)
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from ninefold.players.level import analysis_spec
from ninefold.rules import Board, Mark, Move

BEST, GOOD, INACCURACY, MISTAKE = 0.02, 0.05, 0.10, 0.20  # loss thresholds, expected score
LABELS = ("best", "good", "inaccuracy", "mistake", "blunder")
DEFAULT_MS = 300.0  # search time a position, by default
MIN_MS, MAX_MS = 20.0, 10_000.0  # a review's search time a position, bounds
PV_PLIES = 10  # the longest line kept for a position
PLAYER = analysis_spec(threads=1)
_players: dict[str, Any] = {}  # this process's analysis player, made once

Side = Literal["x", "o"]
Proven = Literal["x", "o", "draw"]  # a proven result: who wins, or a draw
Label = Literal["opening", "best", "good", "inaccuracy", "mistake", "blunder"]
Progress = Callable[[int, int], None]  # positions analysed so far, positions in all


class ReviewError(ValueError):
    """A game that cannot be reviewed (unfinished, moves that do not fit its rules); one
    line."""


@dataclass(frozen=True)
class Position:
    """One position's analysis: X's expected score, the proven result (None: not
    proven), the best move and its line (none where the game is over), the search's
    simulations."""

    x: float
    proven: Proven | None = None
    best: str | None = None
    pv: list[str] = field(default_factory=list)
    sims: int = 0


def evaluate(position: str, ms: float) -> Position:
    """The analysis of `position` (a position string) by the analysis player for `ms`
    milliseconds; a position where the game is over, by its result. Runs in a
    worker process (`review`), so it takes and gives plain values."""
    board = Board.from_position(position)
    outcome = board.outcome()
    if outcome is not None:
        winner: Proven = "draw" if outcome.winner is None else _side(outcome.winner)
        return Position(outcome.score(Mark.X), winner)
    from ninefold.players.analysis import analysis_player, analyze  # numba: in the worker

    if PLAYER not in _players:  # made once a process (the tree's buffers, the network)
        _players[PLAYER] = analysis_player(PLAYER)
    result = analyze(board, ms=ms, player=_players[PLAYER])
    mover = _side(board.turn)
    proven: Proven | None = None
    score = result.win_probability
    if result.proven is not None:
        score = {"win": 1.0, "draw": 0.5, "loss": 0.0}[result.proven]
        proven = {"win": mover, "loss": _other(mover), "draw": "draw"}[result.proven]
    x = score if mover == "x" else 1.0 - score
    return Position(round(x, 4), proven, str(result.best),
                    [str(m) for m in result.pv[:PV_PLIES]], result.sims)


def _side(mark: Mark) -> Side:
    return "x" if mark is Mark.X else "o"


def _other(side: Side) -> Side:
    return "o" if side == "x" else "x"


def label(loss: float, best: bool, threw_win: bool) -> Label:
    """The label of a move that lost `loss` in expected score for its mover (`best`: it
    is the best move the analysis found; `threw_win`: it left a proven win for a
    proven draw or loss)."""
    if threw_win:
        return "blunder"
    if best or loss < BEST:
        return "best"
    if loss < GOOD:
        return "good"
    if loss < INACCURACY:
        return "inaccuracy"
    return "mistake" if loss < MISTAKE else "blunder"


def move_accuracy(loss: float) -> float:
    """A move's accuracy, 0-100, from its loss in expected score (0-1): lichess's
    ``103.1668 * exp(-0.04354 * d) - 3.1669``, `d` the mover's win percentage before
    less after (``100 * loss``), clipped to 0-100."""
    value = 103.1668 * math.exp(-0.04354 * 100 * loss) - 3.1669
    return min(100.0, max(0.0, value))


@dataclass(frozen=True)
class Ply:
    """One move of a review: its number (1 for the first), the mover (``x``/``o``), X's
    expected score before and after it, its loss for the mover, its label, and the
    best move there with its line."""

    ply: int
    move: str
    mover: Side
    x_before: float
    x_after: float
    loss: float
    label: Label
    best: str | None
    pv: list[str]


@dataclass(frozen=True)
class Review:
    """A reviewed game: the start position, the moves (the first `book` an opening it
    was given), the search time a position (`ms`) and the player that searched, the
    analysis of each position (one more than the moves), and the game's result as its
    record says (``1-0``, ``0-1``, ``1/2-1/2``: a game may end by resignation or time)."""

    start: str
    moves: list[str]
    book: int
    ms: float
    player: str
    positions: list[Position]
    result: str = "*"

    @property
    def key(self) -> str:
        return review_key(self.start, self.moves, self.book)

    @property
    def plies(self) -> list[Ply]:
        board = Board.from_position(self.start)
        out = []
        for i, move in enumerate(self.moves):
            mover = _side(board.turn)
            board.push(Move.parse(move))
            before, after = self.positions[i], self.positions[i + 1]
            sign = 1.0 if mover == "x" else -1.0
            loss = max(0.0, round(sign * (before.x - after.x), 4))
            threw = before.proven == mover and after.proven in ("draw", _other(mover))
            tag: Label = "opening" if i < self.book else label(loss, move == before.best, threw)
            out.append(Ply(i + 1, move, mover, before.x, after.x, loss, tag, before.best,
                           before.pv))
        return out

    def accuracy(self, side: Side) -> float | None:
        """The mean of `side`'s judged moves' `move_accuracy` (None: it made none)."""
        values = [move_accuracy(p.loss) for p in self.plies
                  if p.mover == side and p.label != "opening"]
        return round(sum(values) / len(values), 1) if values else None

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Review:
        data: dict[str, Any] = json.loads(text)
        data["positions"] = [Position(**p) for p in data["positions"]]
        return cls(**data)


def review_key(start: str, moves: Sequence[str], book: int = 0) -> str:
    """The name of a game's review, from what it reviews: the same game from any source
    has the same key.

    >>> review_key("standard 9/9/9/9/9/9/9/9/9 x - .........", ["e5"])[:12]
    'ad11e6e3a71a'
    """
    text = "\n".join([start, " ".join(moves), str(book)])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def game_positions(start: Board, moves: Sequence[Move]) -> list[str]:
    """The position strings of a game, the start first; `ReviewError` for a move that
    does not fit."""
    board = start.copy()
    out = [board.position()]
    for i, move in enumerate(moves):
        reason = board.why_illegal(move)
        if reason is not None:
            raise ReviewError(f"move {i + 1} ({move}) cannot be played: {reason}")
        board.push(move)
        out.append(board.position())
    return out


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """`workers` worker processes for `review`, started fresh (``spawn``: safe from a
    server's threads), each ending when the thread that started it ends, even if this
    process is killed (`ninefold.protocols.process.end_with_parent`)."""
    from ninefold.protocols.process import end_with_parent

    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=end_with_parent, initargs=(os.getpid(),))


def review(start: Board, moves: Sequence[Move], ms: float = DEFAULT_MS, *, book: int = 0,
           result: str = "*", workers: int = 1, pool: Executor | None = None,
           progress: Progress | None = None,
           analyse: Callable[[str, float], Position] = evaluate) -> Review:
    """Review the game of `moves` from `start`: each position analysed for `ms` ms by
    `analyse` (`evaluate`) in `pool`, or in `workers` worker processes of its own (0:
    in this process), `progress(done, total)` called as each ends.

    The caller checks that the game is finished (it may have ended by resignation or
    time on a board still open); `ReviewError` for moves that do not fit."""
    if not MIN_MS <= ms <= MAX_MS:
        raise ReviewError(f"the search time a position must be {MIN_MS:g}-{MAX_MS:g} ms, "
                          f"not {ms:g}")
    texts = game_positions(start, moves)
    results: dict[int, Position] = {}

    def note(i: int, position: Position) -> None:
        results[i] = position
        if progress is not None:
            progress(len(results), len(texts))

    if pool is None and workers <= 0:
        for i, text in enumerate(texts):
            note(i, analyse(text, ms))
    elif pool is None:
        with worker_pool(workers) as own:
            _run(own, analyse, texts, ms, note)
    else:
        _run(pool, analyse, texts, ms, note)
    return Review(texts[0], [str(m) for m in moves], book, ms, PLAYER,
                  [results[i] for i in range(len(texts))], result)


def _run(pool: Executor, analyse: Callable[[str, float], Position], texts: list[str],
         ms: float, note: Callable[[int, Position], None]) -> None:
    futures: dict[Future[Position], int] = {pool.submit(analyse, t, ms): i
                                            for i, t in enumerate(texts)}
    try:
        for future in as_completed(futures):
            note(futures[future], future.result())
    finally:
        for future in futures:
            future.cancel()



def plot_review(rev: Review, path: str | Path) -> Path:
    """The eval graph of `rev` as a PNG at `path`: X's expected score over the plies,
    proven results marked (X's wins up, O's down, draws as diamonds), the bad moves'
    plies coloured by label. Written whole or not at all (Agg backend); the caller checks
    the path first (``ninefold review`` does, before the analyses)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ninefold.files import atomic_file

    path = Path(path)
    xs = [p.x for p in rev.positions]
    fig = Figure(figsize=(8.0, 3.8), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    plies = list(range(len(xs)))
    ax.fill_between(plies, 0.5, xs, color="tab:blue", alpha=0.15, linewidth=0)
    ax.plot(plies, xs, color="tab:blue", linewidth=1.6, label="X's expected score")
    ax.axhline(0.5, color="gray", linewidth=0.8, linestyle=":")
    for proven, marker, name in (("x", "^", "proven: X wins"), ("o", "v", "proven: O wins"),
                                 ("draw", "D", "proven: draw")):
        at = [i for i, p in enumerate(rev.positions) if p.proven == proven]
        if at:
            ax.scatter(at, [xs[i] for i in at], marker=marker, s=30, color="black", zorder=5,
                       label=name)
    for tag, colour in (("inaccuracy", "#d4a017"), ("mistake", "#e67e22"),
                        ("blunder", "#c0392b")):
        at = [p.ply for p in rev.plies if p.label == tag]
        if at:
            ax.scatter(at, [xs[i] for i in at], s=60, color=colour, zorder=4, label=tag)
    ax.set_xlim(0, max(1, len(xs) - 1))
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("ply")
    ax.set_ylabel("X's expected score")
    ax.set_title(f"Review: {len(rev.moves)} plies, {rev.ms:g} ms a position; accuracy "
                 f"X {_figure(rev.accuracy('x'))}, O {_figure(rev.accuracy('o'))}")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=6, fontsize=8,
              frameon=False)
    with atomic_file(path, binary=True) as file:
        fig.savefig(file, format="png", dpi=110)
    return path


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


__all__ = ["BEST", "DEFAULT_MS", "GOOD", "INACCURACY", "LABELS", "MISTAKE", "Ply", "Position",
           "Review", "ReviewError", "evaluate", "game_positions", "label", "move_accuracy",
           "plot_review", "review", "review_key", "worker_pool"]
