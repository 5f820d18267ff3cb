"""The walk of a strategy, in numba: each position X meets, X's move and plies to its win.

A strategy is walked in one fixed order: from the root, X's move, then O's
every legal reply in ascending order, each followed in turn, depth first, a
position already met skipped (it has its move). `walk` does it over the
kernel's states and checks the strategy as it goes: each move must be legal,
no reply of O's may end the game and every line must end in X's win. X's
move at each new position comes from a table of moves by position (a
`Strategy` being stored) or from a sequence of moves in walk order (the
stored moves, read back and checked: the order of the walk implies each
move's position). It keys each position by its exact kernel state
(`exact_key`: three integers) and measures, as it returns, the plies to X's
win along O's longest defence from each (`ninefold.proof.stored` keeps them).

>>> from ninefold.proof.search import prove
>>> board = Board.from_position("open-boards x1xx1xoox/o1ox1xxo1/oxoxxxx1o/"
...     "1o1xo1xoo/x1ooxo1xx/oox2xoxo/oo2oooox/xox1xooox/2x1oxxxo x 3 .xo.x...o")
>>> keys, actions, plies = from_strategy(prove(board))
>>> len(keys), int(actions[0]), int(plies[0])
(10, 31, 9)
>>> walked(board.position(), actions)[2].tolist() == plies.tolist()
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ninefold import kernel
from ninefold.jitcache import njit
from ninefold.kernel import FORCED, RESULT, SIDE, STATE_SIZE, legal_actions, play
from ninefold.proof.certificate import CertificateError, root_board
from ninefold.rules import Board

if TYPE_CHECKING:
    from ninefold.proof.search import Strategy

DEPTH = 82  # frames: one per X move, 41 at most, with room for any root
OK, SHORT, MISSING, ILLEGAL, NOT_WON, O_ENDS, LONG = range(7)
PROBLEMS = {
    SHORT: "its moves end before its walk does",
    MISSING: "a position X meets has no move",
    ILLEGAL: "a move is illegal where it is played",
    NOT_WON: "a move of X's ends the game without X's win",
    O_ENDS: "a reply of O's ends the game",
    LONG: "moves are left over after its walk",
}


@njit(cache=True)
def exact_key(s: np.ndarray) -> tuple[int, int, int]:
    """Three integers telling a kernel state's position apart from every other one: the
    marks (9 bits a board and side), the boards' owners, the board sent to and the side
    (`ninefold.proof.stored.board_key` makes the same from a `Board`)."""
    k0 = 0
    for b in range(7):
        k0 |= s[b] << (9 * b)
    k1 = s[7] | s[8] << 9
    for b in range(5):
        k1 |= s[9 + b] << (18 + 9 * b)
    k2 = 0
    for b in range(4):
        k2 |= s[14 + b] << (9 * b)
    k2 |= s[kernel.BIG] << 36 | s[kernel.BIG + 1] << 45 | (s[FORCED] + 1) << 54 | s[SIDE] << 58
    return k0, k1, k2


@njit(cache=True, inline="always")
def _slot(table: np.ndarray, k0: int, k1: int, k2: int) -> int:
    """The slot of key (k0, k1, k2) in an open-addressed table, or the free slot for it
    (column 3 holds a value plus one; 0 is free)."""
    mask = table.shape[0] - 1
    h = k0 * 0x5851F42D4C957F2D ^ k1 * 0x14057B7EF767814F ^ k2 * 0x2545F4914F6CDD1D
    i = (h ^ (h >> 29)) & mask
    while table[i, 3] != 0 and not (table[i, 0] == k0 and table[i, 1] == k1
                                    and table[i, 2] == k2):
        i = (i + 1) & mask
    return int(i)


@njit(cache=True)
def find(table: np.ndarray, k0: int, k1: int, k2: int) -> int:
    """The value stored for key (k0, k1, k2), or -1."""
    return int(table[_slot(table, k0, k1, k2), 3] - 1)


@njit(cache=True)
def put(table: np.ndarray, k0: int, k1: int, k2: int, value: int) -> None:
    """Store `value` (>= 0) for key (k0, k1, k2)."""
    i = _slot(table, k0, k1, k2)
    table[i, 0], table[i, 1], table[i, 2], table[i, 3] = k0, k1, k2, value + 1


def new_table(entries: int) -> np.ndarray:
    """An empty table for `entries` keys (at most half full)."""
    return np.zeros((1 << max(4, (2 * entries - 1).bit_length()), 4), np.int64)


@njit(cache=True)
def walk(root: np.ndarray, flags: int, reading: bool, moves: np.ndarray, source: np.ndarray,
         table: np.ndarray, actions: np.ndarray, plies: np.ndarray) -> tuple[int, int, int]:
    """The walk (module docstring) from `root`, X to move: X's move at each new position
    is the next of `moves` if `reading`, else `source`'s for its key. Fills `table` (key
    -> index), `actions` and `plies` (plies to X's win against the longest defence) by
    index, in walk order; returns (status: OK or a problem, positions, moves read)."""
    states = np.empty((DEPTH, STATE_SIZE), np.int64)  # a frame: O to move after X's move
    replies = np.empty((DEPTH, 81), np.int64)
    count = np.zeros(DEPTH, np.int64)
    done = np.zeros(DEPTH, np.int64)
    best = np.zeros(DEPTH, np.int64)
    index = np.zeros(DEPTH, np.int64)
    cur = root.copy()
    n = used = 0
    d = -1
    while True:
        k0, k1, k2 = exact_key(cur)  # X to move at `cur`: its plies to the win, or a frame
        i = _slot(table, k0, k1, k2)
        value = -1
        if table[i, 3] != 0:
            value = plies[table[i, 3] - 1]
        else:
            if n >= actions.size:
                return MISSING, n, used
            if reading:
                if used >= moves.size:
                    return SHORT, n, used
                a = int(moves[used])
                used += 1
            else:
                j = _slot(source, k0, k1, k2)
                if source[j, 3] == 0:
                    return MISSING, n, used
                a = int(source[j, 3] - 1)
            legal = legal_actions(cur)
            if not np.any(legal == a):
                return ILLEGAL, n, used
            table[i, 0], table[i, 1], table[i, 2], table[i, 3] = k0, k1, k2, n + 1
            actions[n] = a
            n += 1
            d += 1
            states[d] = cur
            play(states[d], a // 9, a % 9, flags)
            if states[d, RESULT] >= 0:
                if states[d, RESULT] != 1:
                    return NOT_WON, n, used
                plies[n - 1] = value = 1
                d -= 1
            else:
                legal = legal_actions(states[d])
                count[d] = legal.size
                replies[d, :legal.size] = legal
                done[d] = best[d] = 0
                index[d] = n - 1
        while d >= 0:  # give the value up the frames; go down the next reply of O's
            if value >= 0:
                best[d] = max(best[d], 1 + value)
                value = -1
            if done[d] < count[d]:
                a = replies[d, done[d]]
                done[d] += 1
                cur[:] = states[d]
                play(cur, a // 9, a % 9, flags)
                if cur[RESULT] >= 0:
                    return O_ENDS, n, used
                break
            value = 1 + best[d]
            plies[index[d]] = value
            d -= 1
        if d < 0:
            break
    if reading and used != moves.size:
        return LONG, n, used
    return OK, n, used


Walk = tuple[np.ndarray, np.ndarray, np.ndarray]  # keys (n, 3), X's actions, plies to the win


def _walked(root: str, reading: bool, moves: np.ndarray, source: np.ndarray,
            entries: int) -> Walk:
    board = root_board(root)
    table = new_table(entries)
    actions = np.zeros(entries, np.uint8)
    plies = np.zeros(entries, np.int16)
    status, n, _ = walk(kernel.from_board(board), board.rules.flags, reading, moves, source,
                        table, actions, plies)
    if status != OK:
        raise CertificateError(f"not a win for X from {root}: {PROBLEMS[status]} (position "
                          f"{n:,} of the walk)")
    used = table[table[:, 3] > 0]
    keys = used[np.argsort(used[:, 3]), :3]
    return keys, actions[:n], plies[:n]


def walked(root: str, actions: np.ndarray) -> Walk:
    """The walk from `root` (a position string) reading X's `actions` in walk order:
    `CertificateError` unless they win for X everywhere, each used."""
    moves = np.ascontiguousarray(actions, np.uint8)
    return _walked(root, True, moves, new_table(1), max(moves.size, 1))


def from_strategy(strategy: Strategy) -> Walk:
    """The walk of a `Strategy` (its positions the walk never meets are left out)."""
    source = new_table(len(strategy.moves))
    for position, move in strategy.moves.items():
        put(source, *exact_key(kernel.from_board(Board.from_position(position))), move.action)
    return _walked(strategy.root, False, np.zeros(0, np.uint8), source,
                   max(len(strategy.moves), 1))
