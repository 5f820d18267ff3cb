"""Analysis of a position: how good it is for the side to move, and the best moves.

>>> from ninefold import Board
>>> result = analyze(Board(), sims=3000, seed=1)
>>> 0.0 <= result.win_probability <= 1.0, len(result.moves) > 0, result.sims >= 1
(True, True, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ninefold.players import mcts_tree as mt
from ninefold.players.base import GameOverError, Limit
from ninefold.players.mcts import MCTSPlayer
from ninefold.rules import Board, Move

_PROVEN = {mt.WIN_: "win", mt.DRAW: "draw", mt.LOSS: "loss"}


@dataclass(frozen=True)
class MoveStat:
    """One candidate move: how often the search tried it and what it scored.

    `value` is the expected score of the side to move after this move (win 1,
    draw 1/2, loss 0); `proven` is ``"win"``, ``"draw"`` or ``"loss"`` when the
    search solved the move exactly, else None.
    """

    move: Move
    visits: int
    value: float
    proven: str | None = None


@dataclass(frozen=True)
class Analysis:
    """The result of `analyze`.

    `win_probability` is the expected score of the side to move under the
    best move (a draw counts one half); `moves` are the candidates, most
    visited first; `pv` is the principal variation, the best line for both
    sides as far as the search saw it.
    """

    position: str
    side_to_move: str
    win_probability: float
    proven: str | None
    moves: list[MoveStat] = field(default_factory=list)
    pv: list[Move] = field(default_factory=list)
    sims: int = 0
    ms: float = 0.0

    @property
    def best(self) -> Move:
        return self.moves[0].move


def analyze(
    board: Board, ms: float | None = None, sims: int | None = None, threads: int = 1,
    seed: int | None = None, top: int = 8,
) -> Analysis:
    """Search `board` for `ms` milliseconds (default 1000) or `sims` simulations."""
    if board.is_game_over():
        raise GameOverError("the game is over: there is nothing to analyze")
    if ms is None and sims is None:
        ms = 1000.0
    player = MCTSPlayer(ms=ms, sims=sims, threads=threads, seed=seed)
    result = player.play(board, Limit())
    actions, visits, wins, status = player._merged()
    stats = []
    for i in range(len(actions)):
        st = int(status[i])
        if st in _PROVEN:
            value = {mt.WIN_: 1.0, mt.DRAW: 0.5, mt.LOSS: 0.0}[st]
        else:
            value = float(wins[i] / visits[i]) if visits[i] else 0.5
        stats.append(MoveStat(Move.from_action(int(actions[i])), int(visits[i]), value,
                              _PROVEN.get(st)))
    order = {"win": 0, None: 1, "draw": 1, "loss": 2}
    stats.sort(key=lambda m: (order[m.proven], -m.visits))
    pv_actions = player.trees[0].pv(30)
    pv = [Move.from_action(a) for a in pv_actions]
    if not pv or pv[0] != result.move:
        pv = [result.move]
    return Analysis(
        position=board.position(),
        side_to_move=str(board.turn),
        win_probability=float(result.info["value"]),
        proven=result.info.get("proven"),
        moves=stats[:top],
        pv=pv,
        sims=int(result.info["sims"]),
        ms=float(result.info["ms"]),
    )
