"""OpenSpiel's C++ `MCTSBot` on Ultimate Tic-Tac-Toe, for the benchmarks' comparisons.

One random rollout per leaf, UCT with c=2 (OpenSpiel's default), no tree
reuse. OpenSpiel spends two decisions on a free move (choose a board, then a
cell); `OpenSpielSearch.choose` either gives each decision the whole time
(`split=False`: in-process, so it gets at least the time the other side
gets) or divides the time between them (`split=True`: a bot process on a
platform clock must answer within the turn). Imports only pyspiel and
`ninefold.rules` (fast), so a bot process built on it starts at once.

>>> search = OpenSpielSearch(sims=50, seed=1)
>>> move = search.choose(Board(), 1000.0)
>>> move in Board().legal_moves
True
"""

from __future__ import annotations

import random
import time

from ninefold.rules import Board, Move


class OpenSpielSearch:
    """OpenSpiel's MCTS, limited by time (`ms` per call of `choose`) or simulations."""

    def __init__(self, sims: int | None = None, c: float = 2.0, solve: bool = False,
                 seed: int | None = None) -> None:
        import pyspiel

        self.pyspiel = pyspiel
        self.game = pyspiel.load_game("ultimate_tic_tac_toe")
        self.sims, self.c, self.solve = sims, c, solve
        self.seed = seed if seed is not None else random.randrange(1 << 30)

    def bot(self, ms: float | None):
        """A fresh MCTSBot searching `ms` (or its simulations; 1,000 if neither)."""
        sims = self.sims or 10**9
        seconds = ms / 1000 if ms else -1.0
        if sims == 10**9 and not ms:
            sims = 1000
        self.seed += 1
        evaluator = self.pyspiel.RandomRolloutEvaluator(1, self.seed)
        return self.pyspiel.MCTSBot(
            self.game, evaluator, self.c, sims, 2000, self.solve, self.seed, False,
            self.pyspiel.ChildSelectionPolicy.UCT, seconds,
        )

    def state(self, board: Board):
        """OpenSpiel's state for `board` (a board choice, then a cell, on free moves)."""
        if board.rules.name not in ("standard", "codingame"):
            raise ValueError("OpenSpiel plays the standard rules only")
        state = self.game.new_initial_state()
        replay = Board(board.rules)
        for move in board.move_stack:
            if replay.target is None:
                state.apply_action(move.board)
            state.apply_action(move.cell)
            replay.push(move)
        return state

    def choose(self, board: Board, ms: float | None, split: bool = False) -> Move:
        """A move for `board`, searching `ms` per decision, or `ms` in all with `split`
        (a free move's board choice gets 40% of it, the cell what is left)."""
        t0 = time.monotonic()
        state = self.state(board)
        cell_ms = ms
        if board.target is None:
            b = self.bot(0.4 * ms if split and ms else ms).step(state)
            state.apply_action(b)
            if split and ms:  # the rest of the time, whatever the first decision took
                cell_ms = max(1.0, ms - 1000 * (time.monotonic() - t0))
        else:
            b = board.target
        return Move(b, self.bot(cell_ms).step(state))
