"""Finding X's forced win: depth-first proof-number search (df-pn) over the kernel.

`prove` searches the AND-OR tree from a position with X to move: X needs one
move that wins, O's every reply must be answered. The search itself is numba
code (`ninefold.proof.dfpn`): positions go into one hashed table under a key
shared by the position's eight symmetric images, so that the search meets
each position once up to symmetry. A *guide* (`GUIDES`) picks the X moves the
search may try; a win it finds is a win whatever the guide left out, since
O's replies are never pruned. `refill` is the strategy of Bertholon et al.
(2020) as Breitner tells it, and proves X's win from the empty board by ply 43
in seconds: X sends O to the centre board while it has room, then plays the
squares (k, 8-k) of one opposite pair (O, sent to board k, fills it again) or
squares that win or block a small board. `paper` is an earlier reading: the
centre squares while any is legal, then corner squares or squares that win or
block a small board; `diagonal` keeps to the corners of one diagonal; `safe`
adds to `paper` the squares that send O to a board it can no longer gain;
`none` tries every move.

The result is a `Strategy`: X's move for every position X can face, read off
the table (a position whose entry was lost is searched again), which
`ninefold.proof.certificate.write` makes a certificate that
`ninefold.proof.certificate.check` verifies without this module.

>>> board = Board.from_position("open-boards x1xx1xoox/o1ox1xxo1/oxoxxxx1o/"
...     "1o1xo1xoo/x1ooxo1xx/oox2xoxo/oo2oooox/xox1xooox/2x1oxxxo x 3 .xo.x...o")
>>> strategy = prove(board)
>>> strategy.moves[board.position()], len(strategy.moves)
(Move(board=3, cell=4), 10)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ninefold import kernel
from ninefold.proof import dfpn
from ninefold.rules import Board, Move, Rules, X

GUIDES = {"paper": dfpn.GUIDE_PAPER, "diagonal": dfpn.GUIDE_DIAGONAL, "none": dfpn.GUIDE_NONE,
          "safe": dfpn.GUIDE_SAFE, "refill": dfpn.GUIDE_REFILL}
STEP = 1_000_000  # expansions of one numba call, between two progress reports (a few s)
TABLE_BITS = 24  # 16 million slots, 512 MB at most (pages are taken as they are used)
Progress = Callable[[int, int, float], None]  # (expansions, positions in the table, CPU s)


@dataclass(frozen=True)
class Strategy:
    """X's winning strategy from `root`: X's move for every position X can face."""

    root: str
    moves: dict[str, Move]
    expansions: int  # search nodes expanded
    seconds: float  # CPU time of the search


class NotProved(Exception):
    """The search ended without a proof: disproved under its guide (`numbers` None), or out
    of budget with the last (proof, disproof) numbers of the position searched."""

    def __init__(self, message: str, numbers: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.numbers = numbers


class _Search:
    """df-pn searches from any number of positions, sharing one table."""

    def __init__(self, flags: int, guide: str, progress: Progress | None,
                 max_expansions: int | None, max_plies: int, table_bits: int) -> None:
        if guide not in GUIDES:
            raise ValueError(f"the guide must be one of {', '.join(GUIDES)}, not {guide!r}")
        self.flags = flags
        self.guide = guide
        self.progress = progress
        self.max_expansions = max_expansions
        self.max_plies = max_plies
        self.table = dfpn.new_table(table_bits)
        self.expansions = 0
        self.start = time.process_time()

    def solve(self, s: np.ndarray) -> bool:
        """Search `s` to the end: True proved, False disproved under the guide; `NotProved`
        once the budget is spent."""
        pn, dn = dfpn.leaf_numbers(s, self.flags, self.max_plies)
        while True:
            step = STEP
            if self.max_expansions is not None:
                step = min(step, self.max_expansions - self.expansions)
                if step <= 0:
                    raise NotProved(f"no proof within {self.max_expansions} expansions "
                                    f"(proof number {pn:,}, disproof number {dn:,})",
                                    (int(pn), int(dn)))
            pn, dn, spent = dfpn.search(s, self.flags, GUIDES[self.guide], self.max_plies,
                                        self.table, step)
            self.expansions += spent
            if self.progress is not None:
                used = int(np.count_nonzero(self.table[:, dfpn.KEY]))
                self.progress(self.expansions, used, time.process_time() - self.start)
            if pn == 0 or dn == 0:
                return pn == 0

    def proved_move(self, s: np.ndarray) -> int:
        """X's move at `s` to a proved position: one the table holds, else the first of the
        guide's moves whose position a search proves (the table lost the proof's entries)."""
        action = int(dfpn.proved_action(s, self.flags, self.max_plies, self.table))
        if action >= 0:
            return action
        moves = np.empty(81, np.int64)
        for a in moves[:dfpn.guided_moves(s, self.flags, GUIDES[self.guide], moves)]:
            child = s.copy()
            kernel.play(child, a // 9, a % 9, self.flags)
            if self.solve(child):
                return int(a)
        raise AssertionError("a position proved once has no proved move")

    def strategy(self, board: Board) -> dict[str, Move]:
        """X's proved move for every position X meets from `board`, O's replies all followed."""
        moves: dict[str, Move] = {}
        pending = [board]
        while pending:
            b = pending.pop()
            position = b.position()
            if position in moves:
                continue
            move = Move.from_action(self.proved_move(kernel.from_board(b)))
            moves[position] = move
            b.push(move)
            if b.is_game_over():
                continue
            for reply in list(b.legal_moves):
                after = b.copy()
                after.push(reply)
                pending.append(after)
        return moves


class Solver:
    """Whether X can force a win, asked of positions of one game, with either side to
    move: df-pn trying every move, each question within `max_expansions` expansions,
    the positions sharing one table (a position asked after a nearby one costs less).
    `expansions` is what the last question cost.

    >>> board = Board.from_position("open-boards x1xx1xoox/o1ox1xxo1/oxoxxxx1o/"
    ...     "1o1xo1xoo/x1ooxo1xx/oox2xoxo/oo2oooox/xox1xooox/2x1oxxxo x 3 .xo.x...o")
    >>> solver = Solver(board.rules, max_expansions=100_000, table_bits=16)
    >>> solver.x_wins(board), solver.expansions > 0
    (True, True)
    """

    def __init__(self, rules: Rules, max_expansions: int, table_bits: int = 22) -> None:
        self._search = _Search(rules.flags, "none", None, max_expansions, 81, table_bits)
        self.expansions = 0

    def x_wins(self, board: Board) -> bool:
        """True if X can force a win from `board`, False if it cannot (O holds at least a
        draw); `NotProved` when the budget runs out first."""
        self._search.expansions = 0
        try:
            return self._search.solve(kernel.from_board(board))
        finally:
            self.expansions = self._search.expansions


def prove(board: Board, guide: str = "paper", *, progress: Progress | None = None,
          max_expansions: int | None = None, max_plies: int = 81,
          table_bits: int = TABLE_BITS) -> Strategy:
    """X's winning strategy from `board` (X to move), found by df-pn under `guide` (a name
    of `GUIDES`), that wins by ply `max_plies` of the game (counting the marks on the
    board); `NotProved` if the search finds none (within `max_expansions` expansions, if
    given). `progress` hears of the search every million expansions."""
    if board.turn is not X or board.is_game_over():
        raise ValueError("prove needs a running game with X to move")
    search = _Search(board.rules.flags, guide, progress, max_expansions, max_plies, table_bits)
    if not search.solve(kernel.from_board(board)):
        raise NotProved(f"X has no forced win here under the guide {guide}")
    seconds = time.process_time() - search.start
    return Strategy(board.position(), search.strategy(board.copy()), search.expansions, seconds)


def soonest(board: Board, guide: str = "paper", *, within: int = 81,
            progress: Progress | None = None, max_expansions: int | None = None,
            table_bits: int = TABLE_BITS) -> tuple[Strategy, int]:
    """(a strategy, the plies within which it wins from `board`) winning soonest under
    `guide`: X's win is searched by ply `within` of the game (counting the marks on the
    board), then two plies sooner while one is found (X moves every other ply);
    `NotProved` if none wins by ply `within`.

    >>> board = Board.from_position("open-boards x1xx1xoox/o1ox1xxo1/oxoxxxx1o/"
    ...     "1o1xo1xoo/x1ooxo1xx/oox2xoxo/oo2oooox/xox1xooox/2x1oxxxo x 3 .xo.x...o")
    >>> soonest(board)[1]
    9
    """
    marks = sum(c is not None for c in board.cells)
    found = prove(board, guide, progress=progress, max_expansions=max_expansions,
                  max_plies=within, table_bits=table_bits)
    while True:
        try:
            sooner = prove(board, guide, progress=progress, max_expansions=max_expansions,
                           max_plies=within - 2, table_bits=table_bits)
        except NotProved:
            return found, within - marks
        found, within = sooner, within - 2
