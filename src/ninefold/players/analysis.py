"""Analysis of a position: how good it is for the side to move, and the best moves.

The analyses search as the strongest opponent plays (`level.analysis_spec`: level
10's search with the network), and say so (`Analysis.player`).

>>> from ninefold import Board
>>> result = analyze(Board(), sims=3000, seed=1)
>>> 0.0 <= result.win_probability <= 1.0, len(result.moves) > 0, result.sims >= 1
(True, True, True)
>>> result.player
'mcts:net=default,draw=0.5,threads=1'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ninefold.players.level import analysis_spec
from ninefold.players.mcts import MCTSPlayer, MoveStat
from ninefold.players.player import GameOverError
from ninefold.players.registry import make_player
from ninefold.rules import Board, Move


@dataclass(frozen=True)
class Analysis:
    """The result of `analyze`.

    `win_probability` is the expected score of the side to move under the
    best move (a draw counts one half); `moves` are the candidates, most
    visited first; `pv` is the principal variation, the best line for both
    sides as far as the search saw it; `player` is the spec of the search.
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
        return self.moves[0].move


def analysis_player(spec: str, defaults: Mapping[str, Any] | None = None) -> MCTSPlayer:
    """The search `spec` names (`defaults`: options where the spec has none, as
    `make_player` takes them); ValueError if it is no MCTS player."""
    player = make_player(spec, defaults)
    if not isinstance(player, MCTSPlayer):
        raise ValueError(f"{spec} is not an MCTS player")
    return player


def analyze(
    board: Board, ms: float | None = None, sims: int | None = None, threads: int = 1,
    seed: int | None = None, top: int = 8,
) -> Analysis:
    """Search `board` for `ms` milliseconds (default 1000) or `sims` simulations, by
    `analysis_spec` on `threads` threads."""
    if board.is_game_over():
        raise GameOverError("the game is over: there is nothing to analyze")
    if ms is None and sims is None:
        ms = 1000.0
    options = {"ms": ms, "sims": sims, "seed": seed}
    player = analysis_player(analysis_spec(threads),
                             {key: value for key, value in options.items() if value is not None})
    *_, last = player.search(board)
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
        moves=stats[:top],
        pv=pv,
        sims=last.sims,
        ms=1000 * last.seconds,
    )


__all__ = ["Analysis", "MoveStat", "analysis_player", "analyze"]
