"""Short forced wins for either side: "the side to move wins within N plies".

The df-pn search (`ninefold.proof.dfpn`) proves X's wins only. The rules treat
X and O alike (`ninefold.variants.Rules` has no side in it), so a position
where O is to win is searched with the colours swapped (`as_x`): X's marks
become O's and the side to move flips, which is the same game with the names
changed. The search tries every move (`dfpn.GUIDE_NONE`), so a disproof is
exact too: "no win within N" means no move of the attacker's wins by then,
whatever the defence.

A *deadline* counts plies from the position searched: ``within(s, 1)`` asks
for a move that wins at once, ``within(s, 3)`` for a win on the attacker's
second move at the latest. The table of each deadline (a ply of the game) is
kept between searches: "X wins by ply M" is a fact of the position, whichever
root the search began from.

>>> from ninefold.rules import Board
>>> board = Board.from_position("open-boards x1xx1xoox/o1ox1xxo1/oxoxxxx1o/"
...     "1o1xo1xoo/x1ooxo1xx/oox2xoxo/oo2oooox/xox1xooox/2x1oxxxo x 3 .xo.x...o")
>>> solver = Solver(board.rules.flags)
>>> solver.soonest(kernel.from_board(board), 9)
9
>>> len(solver.winning_moves(kernel.from_board(board), 9))
1
"""

from __future__ import annotations

import numpy as np

from ninefold import kernel
from ninefold.kernel import BIG, FORCED, RESULT, SIDE
from ninefold.proof import dfpn

TABLE_BITS = 18  # 262,144 slots (8 MB) for each deadline searched
BUDGET = 200_000  # expansions of one search before it gives up (about a second)


class Unknown(Exception):
    """A search spent its budget without an answer."""


def marks(s: np.ndarray) -> int:
    """The marks on the board: the plies played so far."""
    return int(sum(int(kernel.POPCOUNT[int(s[i]) & kernel.FULL]) for i in range(18)))


def as_x(s: np.ndarray, attacker: int) -> np.ndarray:
    """`s` with the colours swapped if `attacker` (0 X, 1 O) is O: a copy where the
    attacker plays X."""
    t = s.copy()
    if attacker == 1:
        t[0:9], t[9:18] = s[9:18], s[0:9]
        t[BIG], t[BIG + 1] = s[BIG + 1], s[BIG]
        t[SIDE] = 1 - s[SIDE]
        if s[RESULT] > 0:
            t[RESULT] = 3 - s[RESULT]
    return t


class Solver:
    """Searches for short forced wins under one rule set (the kernel's `flags`)."""

    def __init__(self, flags: int, *, budget: int = BUDGET, table_bits: int = TABLE_BITS
                 ) -> None:
        self.flags = flags
        self.budget = budget
        self.table_bits = table_bits
        self.tables: dict[int, np.ndarray] = {}
        self.expansions = 0

    def _table(self, deadline: int) -> np.ndarray:
        if deadline not in self.tables:
            self.tables[deadline] = dfpn.new_table(self.table_bits)
        return self.tables[deadline]

    def wins(self, s: np.ndarray, attacker: int, plies: int) -> bool:
        """Whether `attacker` (0 X, 1 O) wins from `s` within `plies` plies, whoever is to
        move there; `Unknown` if the search runs out of budget."""
        result = int(s[RESULT])
        if result >= 0:
            return result == attacker + 1
        if plies <= 0:
            return False
        t = as_x(s, attacker)
        deadline = marks(t) + plies
        pn, dn, spent = dfpn.search(t, self.flags, dfpn.GUIDE_NONE, deadline,
                                    self._table(deadline), self.budget)
        self.expansions += int(spent)
        if pn != 0 and dn != 0:
            raise Unknown(f"no answer within {self.budget:,} expansions")
        return bool(pn == 0)

    def within(self, s: np.ndarray, plies: int) -> bool:
        """Whether the side to move at `s` wins within `plies` plies."""
        return self.wins(s, int(s[SIDE]), plies)

    def soonest(self, s: np.ndarray, most: int) -> int | None:
        """The fewest plies (odd: the side to move moves on plies 1, 3, ...) within which
        the side to move wins, if at most `most`; else None."""
        if s[RESULT] >= 0 or not self.within(s, most):
            return None
        plies = 1
        while not self.within(s, plies):
            plies += 2
        return plies

    def winning_moves(self, s: np.ndarray, plies: int) -> list[int]:
        """The actions of the side to move at `s` after which it wins within `plies`
        plies (the move itself counted)."""
        mover = int(s[SIDE])
        found = []
        for a in kernel.legal_actions(s):
            child = s.copy()
            kernel.play(child, int(a) // 9, int(a) % 9, self.flags)
            if self.wins(child, mover, plies - 1):
                found.append(int(a))
        return found

    def defence(self, s: np.ndarray, attacker: int, most: int) -> int:
        """The plies (even, at most `most`) within which `attacker` wins at `s`, where the
        defender is to move: the longest defence's length under the attacker's best play."""
        plies = 0
        while not self.wins(s, attacker, plies):
            plies += 2
            if plies > most:
                raise AssertionError(f"no win within {most} plies where one was proved")
        return plies


def free_move(s: np.ndarray) -> bool:
    """Whether the side to move at `s` may play in any open board (it was sent to a
    closed one, or it is the first move)."""
    return bool(s[FORCED] < 0)
