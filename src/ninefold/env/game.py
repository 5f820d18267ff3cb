"""One game for the single-game environments: the kernel state, its moves, its observation.

`Game` is what the PettingZoo and Gymnasium environments share: a kernel
state stepped by the batch functions (so all three environments play exactly
the same rules), the moves played, and the `ninefold.Board` of the position
when something needs one (a picture, a ninefold player).

>>> game = Game("codingame", opening="53271")
>>> game.player, len(game.moves), int(game.mask().sum())
(0, 4, 9)
>>> game.play(80)  # doctest: +ELLIPSIS
Traceback (most recent call last):
ninefold.env.batch.IllegalActionError: action 80 (board 8, cell 8) is not legal: ... board 0 ...
"""

from __future__ import annotations

import random

import numpy as np

from ninefold.env.batch import (
    FIXED_OPENING,
    N_PLANES,
    OBS_SHAPE,
    RANDOM_OPENING,
    IllegalActionError,
    is_legal,
    legal_mask,
    observe,
    opening_mode,
    start_game,
)
from ninefold.kernel import RESULT, SIDE, STATE_SIZE, make_rng, play
from ninefold.rules import Board, Move, Rules, opening_moves, random_opening


class Game:
    """A game of the environments' rules; `opening` None, a random-four code or ``"random"``."""

    def __init__(self, rules: str | Rules = "standard", opening: str | None = None) -> None:
        self.rules = Rules.parse(rules)
        self.flags = self.rules.flags
        self.opening_choice = opening
        self.mode, self.code = opening_mode(opening)
        self.state = np.empty(STATE_SIZE, np.int64)
        self.moves: list[int] = []
        self.opening: str | None = None
        self.reset(None)

    def reset(self, np_random: np.random.Generator | None) -> None:
        """A new game; a random opening is drawn from `np_random` (the environment's)."""
        mode, code = self.mode, self.code
        if self.mode == RANDOM_OPENING:
            rng = random.Random(None if np_random is None else int(np_random.integers(2**63)))
            mode, code = opening_mode(random_opening(rng))
        self.opening = None if mode != FIXED_OPENING else "".join(str(d + 1) for d in code)
        start_game(self.state, mode, code, self.flags, make_rng(0))
        self.moves = [] if self.opening is None else [m.action for m in opening_moves(self.opening)]

    @property
    def player(self) -> int:
        """The side to move: 0 = X, 1 = O."""
        return int(self.state[SIDE])

    @property
    def result(self) -> int:
        """-1 while running, 0 a draw, 1 X won, 2 O won."""
        return int(self.state[RESULT])

    def over(self) -> bool:
        return self.result >= 0

    def rewards(self) -> tuple[float, float]:
        """(X's, O's) reward: +1/-1 for a win/loss once the game is over, else 0."""
        result = self.result
        if result <= 0:
            return 0.0, 0.0
        return (1.0, -1.0) if result == 1 else (-1.0, 1.0)

    def play(self, action: int) -> None:
        """Play `action` (``9 * board + cell``) for the side to move.

        Raises `IllegalActionError`, changing nothing, if the rules do not allow it.
        """
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalActionError(f"an action is an integer 0-80, not {action!r}")
        a = int(action)
        if not is_legal(self.state, a):
            raise IllegalActionError(self._why(a))
        play(self.state, a // 9, a % 9, self.flags)
        self.moves.append(a)

    def _why(self, action: int) -> str:
        if not 0 <= action < 81:
            return f"action {action} is not in 0-80 (9 * board + cell)"
        reason = self.board().why_illegal(Move.from_action(action))
        return f"action {action} (board {action // 9}, cell {action % 9}) is not legal: {reason}"

    def observation(self, observer: int) -> np.ndarray:
        """The (9, 9, N_PLANES) int8 planes as `observer` (0 = X, 1 = O) sees them."""
        out = np.empty(81 * N_PLANES, np.int8)
        observe(self.state, observer, self.flags, out)
        return out.reshape(OBS_SHAPE)

    def mask(self) -> np.ndarray:
        """The 81 legal-action flags (int8) of the side to move."""
        out = np.empty(81, np.int8)
        legal_mask(self.state, out)
        return out

    def board(self) -> Board:
        """The position as a `ninefold.Board` (replayed from the moves)."""
        board = Board(self.rules, opening=self.opening)
        for action in self.moves[len(board.move_stack):]:
            board.push(Move.from_action(action))
        return board
