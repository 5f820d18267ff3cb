"""The hot core: bitboards, move generation, random playouts and perft in numba.

Nothing here knows about `Board` objects except `from_board`; everything else
is integers and one small int64 array per position (the *state*):

    [0:9]   X's cells in each small board, a 9-bit mask per board
    [9:18]  O's cells in each small board
    [18]    small boards owned by X (9-bit mask);  [19] owned by O
    [20]    closed small boards (no move may go there)
    [21]    the board the side to move is sent to, -1 for a free move
    [22]    side to move: 0 = X, 1 = O
    [23]    result: -1 running, 0 draw, 1 X won, 2 O won

Moves are actions ``9 * board + cell``. The rules options arrive as the bit
flags of `ninefold.rules.Rules.flags`. `ninefold.rules` is the readable
reference; tests check that both agree at every ply of many random games.

Functions are compiled with ``cache=True`` so that a second process starts
fast; none is recursive (numba's cache breaks on recursive functions, numba
issue 6061), so perft walks an explicit stack.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ninefold.jitcache import njit
from ninefold.rules import FLAG_COUNT_FULL, FLAG_OPEN_BOARDS, FLAG_WIN_FIVE, LINES

if TYPE_CHECKING:
    from ninefold.rules import Board

X_CELLS, O_CELLS, BIG, CLOSED, FORCED, SIDE, RESULT = 0, 9, 18, 20, 21, 22, 23
STATE_SIZE = 24
FULL = 0x1FF
RUNNING = -1


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    win = np.zeros(512, np.uint8)  # win[mask]: the mask holds three in a row
    popcount = np.zeros(512, np.uint8)  # popcount[mask]: set bits
    nth = np.zeros((512, 9), np.uint8)  # nth[mask, r]: index of the r-th set bit
    line_masks = [sum(1 << i for i in line) for line in LINES]
    for m in range(512):
        win[m] = any(m & lm == lm for lm in line_masks)
        bits = [i for i in range(9) if m >> i & 1]
        popcount[m] = len(bits)
        for r, i in enumerate(bits):
            nth[m, r] = i
    return win, popcount, nth


# The tables are uint8 on purpose: an unsigned index lets LLVM drop numba's
# negative-index check, which is worth about 10% of playout speed. Beware
# that numba makes uint8 - uint8 a uint64 (it wraps below zero): use
# POPCOUNT, the int64 copy, wherever counts are subtracted.
WIN, POPCOUNT8, NTH = _tables()
POPCOUNT = POPCOUNT8.astype(np.int64)


# --- positions ---------------------------------------------------------------------


def new_state() -> np.ndarray:
    """The empty board, X to move anywhere."""
    s = np.zeros(STATE_SIZE, np.int64)
    s[FORCED] = -1
    s[RESULT] = RUNNING
    return s


def from_board(board: Board) -> np.ndarray:
    """The kernel state of a `ninefold.Board`."""
    s = new_state()
    for i, mark in enumerate(board.cells):
        if mark is not None:
            s[9 * int(mark) + i // 9] |= 1 << (i % 9)
    for b, owner in enumerate(board.owners):
        if owner is not None:
            s[BIG + int(owner)] |= 1 << b
    s[CLOSED] = sum(1 << b for b in range(9) if board.is_closed(b))
    s[FORCED] = -1 if board.target is None else board.target
    s[SIDE] = int(board.turn)
    outcome = board.outcome()
    if outcome is not None:
        s[RESULT] = 0 if outcome.winner is None else 1 + int(outcome.winner)
    return s


@njit(cache=True, inline="always")
def play_at(buf: np.ndarray, o: int, b: int, c: int, flags: int) -> None:
    """`play` on the state stored at offset `o` of a flat buffer of states."""
    side = buf[o + SIDE] & 1  # the mask tells the compiler it is 0 or 1 (no index checks)
    buf[o + SIDE] = side ^ 1
    i = o + 9 * side + b
    mine = (buf[i] | (1 << c)) & FULL  # masked: a provably small index for the tables
    buf[i] = mine
    bit = 1 << b
    won = False
    if WIN[mine] and not ((buf[o + BIG] | buf[o + BIG + 1]) & bit):
        big = (buf[o + BIG + side] | bit) & FULL
        buf[o + BIG + side] = big
        if not flags & FLAG_OPEN_BOARDS:
            buf[o + CLOSED] |= bit
        won = POPCOUNT8[big] >= 5 if flags & FLAG_WIN_FIVE else WIN[big] != 0
    if (mine | buf[o + 9 * (side ^ 1) + b]) == FULL:
        buf[o + CLOSED] |= bit
    closed = buf[o + CLOSED]
    if won:
        buf[o + RESULT] = side + 1
        buf[o + FORCED] = -1
    elif closed == FULL:
        result = 0
        if flags & FLAG_COUNT_FULL:
            nx, no = POPCOUNT8[buf[o + BIG]], POPCOUNT8[buf[o + BIG + 1]]
            result = 1 if nx > no else 2 if no > nx else 0
        buf[o + RESULT] = result
        buf[o + FORCED] = -1
    else:
        buf[o + FORCED] = -1 if (closed >> c) & 1 else c


@njit(cache=True, inline="always")
def play(s: np.ndarray, b: int, c: int, flags: int) -> None:
    """Play cell `c` of board `b` for the side to move (the move must be legal)."""
    play_at(s, 0, b, c, flags)


@njit(cache=True, inline="always")
def empty_cells(s: np.ndarray, b: int) -> int:
    return ~(s[b] | s[9 + b]) & FULL


@njit(cache=True, inline="always")
def playable_boards(s: np.ndarray) -> int:
    """Mask of the boards the side to move may play in (0 when the game is over)."""
    if s[RESULT] >= 0:
        return 0
    f = s[FORCED]
    return (1 << f) if f >= 0 else (~s[CLOSED] & FULL)


@njit(cache=True)
def legal_actions(s: np.ndarray) -> np.ndarray:
    """The legal actions, ascending."""
    out = np.empty(81, np.int64)
    n = 0
    boards = playable_boards(s)
    for b in range(9):
        if boards >> b & 1:
            e = empty_cells(s, b)
            for c in range(9):
                if e >> c & 1:
                    out[n] = 9 * b + c
                    n += 1
    return out[:n]


@njit(cache=True, inline="always")
def count_moves_at(buf: np.ndarray, o: int) -> int:
    """How many legal moves the state at offset `o` of a flat buffer has."""
    if buf[o + RESULT] >= 0:
        return 0
    f = buf[o + FORCED]
    if f >= 0:
        return POPCOUNT8[~(buf[o + f] | buf[o + 9 + f]) & FULL]
    boards = ~buf[o + CLOSED] & FULL
    n = 0
    while boards:
        b = NTH[boards, 0]
        boards &= boards - 1
        n += POPCOUNT8[~(buf[o + b] | buf[o + 9 + b]) & FULL]
    return n


@njit(cache=True, inline="always")
def count_moves(s: np.ndarray) -> int:
    return count_moves_at(s, 0)


# --- random numbers: xorshift64, as fast as it gets ---------------------------------

_S13, _S7, _S17, _S32 = np.uint64(13), np.uint64(7), np.uint64(17), np.uint64(32)


@njit(cache=True, inline="always")
def xorshift(x: np.uint64) -> np.uint64:
    x ^= x << _S13
    x ^= x >> _S7
    x ^= x << _S17
    return x


@njit(cache=True, inline="always")
def below(x: np.uint64, n: int) -> int:
    """A number in [0, n) from the high bits of `x` (Lemire's multiply-shift)."""
    # an int64 in numba (int() would keep the uint64), a Python int once it leaves it
    return np.int64(((x >> _S32) * np.uint64(n)) >> _S32)  # type: ignore[return-value]


def make_rng(seed: int) -> np.ndarray:
    """A generator state (a one-element uint64 array) from any integer.

    The state lives in an array so that numba never sees it as a signed
    Python int (an arithmetic shift would spoil the generator).
    """
    return np.array([(seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % (1 << 64) or 1], np.uint64)


@njit(cache=True, inline="always")
def random_move(s: np.ndarray, rng: np.uint64) -> tuple[int, int, np.uint64]:
    """A legal move uniform among all legal moves: (board, cell, rng)."""
    rng = xorshift(rng)
    f = s[FORCED]
    if f >= 0:
        e = empty_cells(s, f)
        return f, NTH[e, below(rng, POPCOUNT8[e])], rng
    boards = ~s[CLOSED] & FULL
    total = 0
    o = boards
    while o:
        total += POPCOUNT8[empty_cells(s, NTH[o, 0])]
        o &= o - 1
    r = below(rng, total)
    o = boards
    while True:
        b = NTH[o, 0]
        e = empty_cells(s, b)
        k = POPCOUNT8[e]
        if r < k:
            return b, NTH[e, r], rng
        r -= k
        o &= o - 1


@njit(cache=True)
def random_playout(s: np.ndarray, flags: int, rng: np.ndarray) -> tuple[int, int]:
    """Play uniformly random moves on `s` (changed in place) to the end.

    `rng` is a one-element uint64 array holding the generator's state, updated
    in place. Returns (result, plies played).
    """
    x = rng[0]
    plies = 0
    while s[RESULT] < 0:
        b, c, x = random_move(s, x)
        play(s, b, c, flags)
        plies += 1
    rng[0] = x
    return s[RESULT], plies


@njit(cache=True)
def playout_batch(
    start: np.ndarray, flags: int, games: int, rng: np.ndarray
) -> tuple[np.ndarray, int]:
    """`games` random playouts from `start`: (counts of results draw/X/O, total plies)."""
    counts = np.zeros(3, np.int64)
    s = np.empty_like(start)
    plies = 0
    for _ in range(games):
        s[:] = start
        result, n = random_playout(s, flags, rng)
        counts[result] += 1
        plies += n
    return counts, plies


@njit(cache=True)
def perft(start: np.ndarray, depth: int, flags: int) -> int:
    """Leaf positions exactly `depth` plies from `start`; a finished game stops the count."""
    if depth <= 0:
        return 1
    if start[RESULT] >= 0:
        return 0
    if depth == 1:
        return count_moves(start)
    # One state per level in a flat array; level k's state starts at k * STATE_SIZE.
    stack = np.empty(depth * STATE_SIZE, start.dtype)
    boards = np.zeros(depth, np.int64)  # boards still to expand at each level
    cells = np.zeros(depth, np.int64)  # cells still to play in the current board
    current = np.zeros(depth, np.int64)  # the current board at each level
    stack[:STATE_SIZE] = start
    boards[0] = playable_boards(start)
    total = 0
    level = 0
    while level >= 0:
        o = level * STATE_SIZE
        if cells[level] == 0:
            if boards[level] == 0:
                level -= 1
                continue
            b = NTH[boards[level], 0]
            boards[level] &= boards[level] - 1
            current[level] = b
            cells[level] = ~(stack[o + b] | stack[o + 9 + b]) & FULL
            continue
        c = NTH[cells[level], 0]
        cells[level] &= cells[level] - 1
        child = o + STATE_SIZE
        for k in range(STATE_SIZE):
            stack[child + k] = stack[o + k]
        play_at(stack, child, current[level], c, flags)
        if stack[child + RESULT] >= 0:
            continue
        if level + 2 == depth:
            total += count_moves_at(stack, child)
            continue
        level += 1
        boards[level] = playable_boards(stack[child : child + STATE_SIZE])
        cells[level] = 0
    return total


PERFT_PIECE = 7  # plies one numba call of `perft_pieces` counts: about 0.1 s from the start


def perft_pieces(
    start: np.ndarray, depth: int, flags: int, piece: int = PERFT_PIECE
) -> Iterator[int]:
    """`perft` in pieces whose sum it is, each one numba call of at most `piece` plies.

    numba code cannot see a Ctrl-C: Python runs between the pieces, so a
    KeyboardInterrupt stops the count within one piece, not one whole depth.

    >>> s = new_state()
    >>> sum(perft_pieces(s, 4, 0, piece=2)) == perft(s, 4, 0) == 55080
    True
    """
    if depth <= piece or start[RESULT] >= 0:
        yield int(perft(start, depth, flags))
        return
    for action in legal_actions(start):
        child = start.copy()
        play(child, action // 9, action % 9, flags)
        yield from perft_pieces(child, depth - 1, flags, piece)

# --- measurement ---------------------------------------------------------------------


def bench(seconds: float = 3.0, flags: int = 0, seed: int = 1) -> dict[str, float]:
    """Random playouts per second from the empty board, on one core."""
    start = new_state()
    rng = make_rng(seed)
    playout_batch(start, flags, 16, rng)  # compile (or load from cache) outside the clock
    games = plies = 0
    t0 = time.perf_counter()
    while True:
        _, n = playout_batch(start, flags, 4096, rng)
        games += 4096
        plies += n
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    return {"playouts_per_s": games / elapsed, "moves_per_s": plies / elapsed}


# --- tactics shared by the searches (alpha-beta and MCTS) ------------------------------


def _completing() -> np.ndarray:
    """completing[m] = the empty cells whose mark would complete a line with mask m."""
    table = np.zeros(512, np.int64)
    for m in range(512):
        for c in range(9):
            if not m >> c & 1 and WIN[m | 1 << c]:
                table[m] |= 1 << c
    return table


COMPLETING = _completing()


@njit(cache=True, inline="always")
def game_winning(owned: int, boards: int, flags: int) -> int:
    """Those of `boards` whose win would win the game for a side owning the boards
    `owned` (a line of three; under five boards, any fifth)."""
    if flags & FLAG_WIN_FIVE:
        return boards if POPCOUNT[owned] >= 4 else 0
    return boards & COMPLETING[owned]


@njit(cache=True, inline="always")
def winning_boards(s: np.ndarray, flags: int) -> int:
    """Boards where winning the small board would win the game for the side to move."""
    owned = s[BIG] | s[BIG + 1]
    return game_winning(s[BIG + s[SIDE]], playable_boards(s) & ~owned, flags)


@njit(cache=True, inline="always")
def winning_action(s: np.ndarray, flags: int) -> int:
    """An action that wins the game at once for the side to move, or -1."""
    cand = winning_boards(s, flags)
    side = s[SIDE]
    while cand:
        b = NTH[cand, 0]
        cand &= cand - 1
        w = COMPLETING[s[9 * side + b]] & empty_cells(s, b)
        if w:
            return 9 * b + NTH[w, 0]
    return -1
