"""Finding X's forced win: depth-first proof-number search (df-pn) over the kernel.

`prove` searches the AND-OR tree from a position with X to move: X needs one
move that wins, O's every reply must be answered. Positions go into one
transposition table under a canonical key, the least of the position's eight
symmetric images (`ninefold.moves.SYMMETRIES` applied to the big board and to
every small board), so that the search meets each position once up to
symmetry. A *guide* picks the X moves the search may try; a win it finds is a
win whatever the guide left out, since O's replies are never pruned.

`paper_guide` is the shape of the strategy in Bertholon et al. (2020): X sends
O to the centre board while it can (X answers on square 4 of the board O sent
it to); after that X plays corner squares (sending O to corner boards), or
squares that win or block a small board; where none is legal, any move.

The result is a `Strategy`: X's move for every position X can face,
`ninefold.proof.certificate.write` makes it a certificate that
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
from numba import njit

from ninefold import kernel
from ninefold.moves import SYMMETRIES
from ninefold.rules import Board, Move, X

INFINITE = 10**9
PROGRESS_EVERY = 100_000  # expansions between two progress reports (a few CPU seconds)
Guide = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (state, legal actions) -> X's choices
Progress = Callable[[int, int, float], None]  # (expansions, table size, CPU seconds)


def _symmetry_tables() -> tuple[np.ndarray, np.ndarray]:
    """(square maps (8, 9), 9-bit mask maps (8, 512)) for the eight symmetries."""
    squares = np.array(SYMMETRIES, np.int64)
    masks = np.zeros((8, 512), np.int64)
    for k, sq in enumerate(SYMMETRIES):
        for m in range(512):
            masks[k, m] = sum(1 << sq[i] for i in range(9) if m >> i & 1)
    return squares, masks


SQUARES, MASKS = _symmetry_tables()


@njit(cache=True)
def canonical(s: np.ndarray, squares: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The least (in lexicographic order) of the kernel state's symmetric images."""
    best = s.copy()
    t = np.empty_like(s)
    for k in range(1, squares.shape[0]):
        for b in range(9):
            t[kernel.X_CELLS + squares[k, b]] = masks[k, s[kernel.X_CELLS + b]]
            t[kernel.O_CELLS + squares[k, b]] = masks[k, s[kernel.O_CELLS + b]]
        for i in (kernel.BIG, kernel.BIG + 1, kernel.CLOSED):
            t[i] = masks[k, s[i]]
        f = s[kernel.FORCED]
        t[kernel.FORCED] = squares[k, f] if f >= 0 else -1
        t[kernel.SIDE] = s[kernel.SIDE]
        t[kernel.RESULT] = s[kernel.RESULT]
        for i in range(s.shape[0]):
            if t[i] != best[i]:
                if t[i] < best[i]:
                    best[:] = t
                break
    return best


def key(s: np.ndarray) -> bytes:
    """The transposition table's key of a kernel state: the same for all its symmetric images
    (48 bytes: every field of a state fits 16 bits)."""
    return canonical(s, SQUARES, MASKS).astype(np.int16).tobytes()


CORNERS = (0, 2, 6, 8)


def paper_guide(s: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """X's moves in the shape of the paper's strategy (see the module's docstring)."""
    cells = actions % 9
    centre: np.ndarray = actions[cells == 4]
    if len(centre):
        return centre
    boards = actions // 9
    mine = kernel.COMPLETING[s[kernel.X_CELLS + boards]] >> cells & 1
    theirs = kernel.COMPLETING[s[kernel.O_CELLS + boards]] >> cells & 1
    chosen: np.ndarray = actions[np.isin(cells, CORNERS) | (mine == 1) | (theirs == 1)]
    return chosen if len(chosen) else actions


def every_move(s: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """No guide: X may try every legal move."""
    return actions


@dataclass(frozen=True)
class Strategy:
    """X's winning strategy from `root`: X's move for every position X can face."""

    root: str
    moves: dict[str, Move]
    expansions: int  # search nodes expanded
    seconds: float  # CPU time of the search


class NotProved(Exception):
    """The search ended without a proof (disproved under its guide, or out of budget)."""


class _Search:
    """One df-pn search: the table maps a key to [proof number, disproof number]."""

    def __init__(self, flags: int, guide: Guide, progress: Progress | None,
                 max_expansions: int | None, max_plies: int) -> None:
        self.flags = flags
        self.guide = guide
        self.progress = progress
        self.max_expansions = max_expansions
        self.max_plies = max_plies
        self.table: dict[bytes, list[int]] = {}
        self.expansions = 0
        self.start = time.process_time()

    def moves(self, s: np.ndarray) -> np.ndarray:
        """The moves searched at `s`: a game-winning move alone, else O's all, X's guided."""
        win = kernel.winning_action(s, self.flags)
        if win >= 0:
            return np.array([win], np.int64)
        actions = kernel.legal_actions(s)
        return self.guide(s, actions) if s[kernel.SIDE] == int(X) else actions

    def children(self, s: np.ndarray) -> dict[bytes, tuple[int, np.ndarray]]:
        """The searched moves' positions by key (one move per key), entered in the table."""
        out: dict[bytes, tuple[int, np.ndarray]] = {}
        for action in self.moves(s):
            child = s.copy()
            kernel.play(child, action // 9, action % 9, self.flags)
            k = key(child)
            if k not in out:
                out[k] = (int(action), child)
                if k not in self.table:
                    self.table[k] = self.leaf(child)
        return out

    def leaf(self, s: np.ndarray) -> list[int]:
        """First proof and disproof numbers of a new position: exact where the game is
        over, X wins at once, O wins at once or X cannot win within `max_plies`."""
        result = s[kernel.RESULT]
        if result >= 0:
            return [0, INFINITE] if result == 1 + int(X) else [INFINITE, 0]
        x_moves = s[kernel.SIDE] == int(X)
        ply = int(kernel.POPCOUNT[s[kernel.X_CELLS:kernel.O_CELLS + 9]].sum())
        if ply + 1 + (not x_moves) > self.max_plies:
            return [INFINITE, 0]  # X's next move comes after the last ply allowed
        if kernel.winning_action(s, self.flags) >= 0:
            return [0, INFINITE] if x_moves else [INFINITE, 0]
        n = int(kernel.count_moves(s))
        return [1, n] if x_moves else [n, 1]

    def expand(self, k: bytes, s: np.ndarray, proof_limit: int, disproof_limit: int) -> None:
        """df-pn's multiple iterative deepening at one node, until its numbers reach a limit."""
        self.expansions += 1
        if self.progress is not None and self.expansions % PROGRESS_EVERY == 0:
            self.progress(self.expansions, len(self.table), time.process_time() - self.start)
        if self.max_expansions is not None and self.expansions > self.max_expansions:
            raise NotProved(f"no proof within {self.max_expansions} expansions")
        kids = self.children(s)
        entries = [self.table[c] for c in kids]
        keys = list(kids)
        x_moves = s[kernel.SIDE] == int(X)
        mine, other = (0, 1) if x_moves else (1, 0)  # the number X's (O's) choice minimises
        while True:
            least = min(e[mine] for e in entries)
            total = min(INFINITE, sum(e[other] for e in entries))
            pn, dn = (least, total) if x_moves else (total, least)
            if pn >= proof_limit or dn >= disproof_limit:
                self.table[k] = [pn, dn]
                return
            order = sorted(range(len(entries)), key=lambda i: entries[i][mine])
            best = entries[order[0]]
            second = entries[order[1]][mine] if len(order) > 1 else INFINITE
            limits = [proof_limit, disproof_limit]
            limits[mine] = min(limits[mine], second + 1)
            limits[other] = min(INFINITE, limits[other] - total + best[other])
            c = keys[order[0]]
            self.expand(c, kids[c][1], limits[0], limits[1])
            entries[order[0]] = self.table[c]

    def proved_move(self, s: np.ndarray) -> int:
        """A searched X move at `s` whose position the table holds as proved."""
        for k, (action, _) in self.children(s).items():
            if self.table[k][0] == 0:
                return action
        raise AssertionError("a proved position with no proved move")

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


def prove(board: Board, guide: Guide = paper_guide, *, progress: Progress | None = None,
          max_expansions: int | None = None, max_plies: int = 81) -> Strategy:
    """X's winning strategy from `board` (X to move), found by df-pn under `guide`, that
    wins by ply `max_plies` of the game (counting the marks on the board); `NotProved`
    if the search finds none (within `max_expansions` expansions, if given)."""
    if board.turn is not X or board.is_game_over():
        raise ValueError("prove needs a running game with X to move")
    search = _Search(board.rules.flags, guide, progress, max_expansions, max_plies)
    s = kernel.from_board(board)
    k = key(s)
    search.table[k] = search.leaf(s)
    search.expand(k, s, INFINITE, INFINITE)
    if search.table[k][0] != 0:
        raise NotProved(f"X has no forced win here under the guide {guide.__name__}")
    seconds = time.process_time() - search.start
    root = board.copy()
    return Strategy(board.position(), search.strategy(root), search.expansions, seconds)


def soonest(board: Board, guide: Guide = paper_guide, *, within: int = 81,
             progress: Progress | None = None,
             max_expansions: int | None = None) -> tuple[Strategy, int]:
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
                  max_plies=within)
    while True:
        try:
            sooner = prove(board, guide, progress=progress, max_expansions=max_expansions,
                           max_plies=within - 2)
        except NotProved:
            return found, within - marks
        found, within = sooner, within - 2
