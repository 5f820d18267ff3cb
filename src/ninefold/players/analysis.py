"""Analysis of a position: how good it is for the side to move, and the best moves.

The analyses search as the strongest opponent plays (`level.analysis_spec`: level
10's search with the network), and say so (`Analysis.player`). They list only
the moves the search has a score for (`shown_moves`): proven ones, and those it
tried at least `MIN_VISITS` times; a move it hardly looked at (when a proof ends
the search after one simulation, every move but the winning one) is left out
rather than shown at a made-up 50%.

>>> from ninefold import Board
>>> result = analyze(Board(), sims=3000, seed=1)
>>> 0.0 <= result.win_probability <= 1.0, len(result.moves) > 0, result.sims >= 1
(True, True, True)
>>> result.player
'mcts:net=default,draw=0.5,threads=1'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ninefold.players.level import analysis_spec
from ninefold.players.mcts import MCTSPlayer, MoveStat
from ninefold.players.player import GameOverError, Limit
from ninefold.players.registry import make_player
from ninefold.rules import Board, Move

MIN_VISITS = 10  # an unproven move tried fewer times has no score worth showing


@dataclass(frozen=True)
class Analysis:
    """The result of `analyze`.

    `win_probability` is the expected score of the side to move under the
    best move (a draw counts one half); `moves` are the candidates with a
    score (`shown_moves`), best first; `pv` is the principal variation, the
    best line for both sides as far as the search saw it, the best move
    first; `player` is the spec of the search.
    """

    position: str
    side_to_move: str
    win_probability: float
    proven: str | None
    player: str
    moves: list[MoveStat] = field(default_factory=list)
    pv: list[Move] = field(default_factory=list)
    sims: int = 0
    ms: float = 0.0

    @property
    def best(self) -> Move:
        return self.pv[0]


def shown_moves(ranked: Sequence[MoveStat], top: int) -> list[MoveStat]:
    """The first `top` of `ranked` (a search's moves, best first) that have a score to
    show: a proven result (a move into a proven loss is shown as one, however few its
    visits), or at least `MIN_VISITS` simulations (a move never tried has only the
    value 0.5 that stands for "unknown").

    >>> from ninefold.rules import Move
    >>> stats = [MoveStat(Move.parse("c9"), 0, 1.0, "win"), MoveStat(Move.parse("e1"), 0, 0.5),
    ...          MoveStat(Move.parse("b5"), 1, 0.0, "loss"), MoveStat(Move.parse("e2"), 9, 0.4)]
    >>> [str(m.move) for m in shown_moves(stats, 8)]
    ['c9', 'b5']
    """
    return [m for m in ranked if m.proven is not None or m.visits >= MIN_VISITS][:top]


def analysis_player(spec: str, defaults: Mapping[str, Any] | None = None) -> MCTSPlayer:
    """The search `spec` names (`defaults`: options where the spec has none, as
    `make_player` takes them); ValueError if it is no MCTS player."""
    player = make_player(spec, defaults)
    if not isinstance(player, MCTSPlayer):
        raise ValueError(f"{spec} is not an MCTS player")
    return player


def analyze(
    board: Board, ms: float | None = None, sims: int | None = None, threads: int = 1,
    seed: int | None = None, top: int = 8, player: MCTSPlayer | None = None,
) -> Analysis:
    """Search `board` for `ms` milliseconds (default 1000) or `sims` simulations, by
    `analysis_spec` on `threads` threads, or by `player` (an `analysis_player` kept for
    many analyses: each starts from a fresh tree, without making the player again)."""
    if board.is_game_over():
        raise GameOverError("the game is over: there is nothing to analyze")
    if ms is None and sims is None:
        ms = 1000.0
    limit = None
    if player is None:
        options = {"ms": ms, "sims": sims, "seed": seed}
        player = analysis_player(analysis_spec(threads), {
            key: value for key, value in options.items() if value is not None})
    else:
        player.new_game()
        limit = Limit(move_ms=ms, sims=sims)
    *_, last = player.search(board, limit)
    best = last.best
    if best is None:
        raise RuntimeError("the search had no time to look at one move")
    stats = last.ranked
    pv = player.principal_variation(30)
    if not pv or pv[0] != best.move:
        pv = [best.move]
    return Analysis(
        position=board.position(),
        side_to_move=str(board.turn),
        win_probability=best.value,
        proven=best.proven,
        player=player.spec,
        moves=shown_moves(stats, top),
        pv=pv,
        sims=last.sims,
        ms=1000 * last.seconds,
    )


__all__ = ["MIN_VISITS", "Analysis", "MoveStat", "analysis_player", "analyze", "shown_moves"]
