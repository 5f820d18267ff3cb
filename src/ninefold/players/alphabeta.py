"""`alphabeta`: iterative-deepening negamax with alpha-beta, in numba.

Spec options::

    alphabeta:depth=6        search 6 plies (then stop, however long it takes)
    alphabeta:ms=200         iterative deepening until 200 ms are spent
    alphabeta                both unset: deepen until the referee's clock (or 1 s) runs out
    alphabeta:tt_bits=16     a transposition table of 2^16 entries (default 2^20; 8-24)

What it does:

- **Negamax with alpha-beta** on the kernel's states, written with an explicit
  stack (no recursion: numba's cache breaks on recursive functions).
- **Transposition table** of 2^20 entries keyed by a Zobrist hash (cells,
  owned boards, side to move, the board the mover is sent to): best move,
  depth, value and bound; cut-offs from entries deep enough.
- **Move ordering**: the table's move first, then moves that win the game,
  win a small board, block the opponent's small-board line, then by the
  history heuristic (moves that caused cut-offs before).
- **Evaluation** (for the side to move, in hundredths of a board):
  owned boards (centre 140, corner 120, edge 100); two-in-a-rows on the big
  board (200 each, a board that would complete a line and is still open);
  two-in-a-rows on the small boards (20 each, weighted by the board); the
  centre cell of a small board (3); where the last move sent the mover: a
  free move is worth 40, being sent to a board where the mover has a
  two-in-a-row 60. Under Tic-Tac-Ku's rules owned boards count 150 each and
  four owned boards 400 more; lines on the big board are not scored.
  Wins are scored 100000 minus the plies to reach them (faster is better),
  so the board-count tie-break (codingame, Tic-Tac-Ku) comes for free: it is
  decided by the kernel's result.
- **Time**: each iteration gets a node budget from the nodes per second of
  the previous ones and the time left, and is abandoned if it runs out; the
  move of the last complete iteration is played.

>>> from ninefold import Board
>>> result = AlphaBetaPlayer(depth=3).play(Board())
>>> result.info["depth"]
3
"""

from __future__ import annotations

import time

import numpy as np

from ninefold import kernel, timing
from ninefold.jitcache import njit
from ninefold.kernel import (
    BIG,
    CLOSED,
    COMPLETING,
    FORCED,
    FULL,
    NTH,
    POPCOUNT,
    RESULT,
    SIDE,
    STATE_SIZE,
    empty_cells,
    play,
    playable_boards,
    winning_boards,
)
from ninefold.players import warmup
from ninefold.players.player import MAX_MS, BudgetError, Limit, Player, PlayResult, check_positive
from ninefold.players.registry import register
from ninefold.rules import FLAG_WIN_FIVE, Board, Move

MATE = 100_000
INF = 1_000_000
TT_BITS = 20  # 2^20 entries of 40 bytes
MIN_TT_BITS, MAX_TT_BITS = 8, 24  # 10 KB .. 670 MB
EXACT, LOWER, UPPER = 0, 1, 2
BOARD_WEIGHT = np.array([120, 100, 120, 100, 140, 100, 120, 100, 120], np.int64)


def _zobrist() -> np.ndarray:
    rng = np.random.default_rng(20240601)
    return rng.integers(-(1 << 62), 1 << 62, size=(22, 512), dtype=np.int64)


ZOBRIST = _zobrist()  # rows 0-17 cells per (side, board), 18-19 owned boards, 20 forced, 21 side


@njit(cache=True, inline="always")
def zhash(s: np.ndarray) -> int:
    h = 0
    for i in range(18):
        h ^= ZOBRIST[i, s[i]]
    h ^= ZOBRIST[18, s[BIG]]
    h ^= ZOBRIST[19, s[BIG + 1]]
    h ^= ZOBRIST[20, s[FORCED] + 1]
    h ^= ZOBRIST[21, s[SIDE]]
    return h


@njit(cache=True)
def evaluate(s: np.ndarray, flags: int) -> int:
    """Heuristic value for the side to move (the game is not over)."""
    side = s[SIDE]
    closed = s[CLOSED]
    owned = s[BIG] | s[BIG + 1]
    score = 0
    for p in range(2):
        sign = 1 if p == side else -1
        big = s[BIG + p]
        v = 0
        if flags & FLAG_WIN_FIVE:
            v += 150 * POPCOUNT[big]
            if POPCOUNT[big] >= 4:
                v += 400
        else:
            o = big
            while o:
                v += BOARD_WEIGHT[NTH[o, 0]]
                o &= o - 1
            # big-board two-in-a-rows: a board that completes a line, still open and unowned
            v += 200 * POPCOUNT[COMPLETING[big] & ~owned & ~closed & FULL]
        open_ = ~closed & ~owned & FULL
        while open_:
            b = NTH[open_, 0]
            open_ &= open_ - 1
            mine = s[9 * p + b]
            empty = empty_cells(s, b)
            v += (20 * POPCOUNT[COMPLETING[mine] & empty] * BOARD_WEIGHT[b]) // 100
            if mine & 16:
                v += 3
        score += sign * v
    f = s[FORCED]
    if f < 0:
        score += 40
    elif COMPLETING[s[9 * side + f]] & empty_cells(s, f):
        score += 60
    return score


@njit(cache=True, inline="always")
def _terminal_value(s: np.ndarray, ply: int) -> int:
    r = s[RESULT]
    if r == 0:
        return 0
    return MATE - ply if r - 1 == s[SIDE] else -(MATE - ply)


@njit(cache=True, inline="always")
def _gen(s: np.ndarray, flags: int, ply: int, moves: np.ndarray, nmoves: np.ndarray,
         tt_move: int, history: np.ndarray) -> None:
    """Legal moves of `s` into moves[ply], best-looking first."""
    side = s[SIDE]
    other = side ^ 1
    winners = winning_boards(s, flags)
    owned = s[BIG] | s[BIG + 1]
    boards = playable_boards(s)
    keys = np.empty(81, np.int64)
    n = 0
    while boards:
        b = NTH[boards, 0]
        boards &= boards - 1
        e = empty_cells(s, b)
        mine_w = COMPLETING[s[9 * side + b]] & e if not (owned >> b) & 1 else 0
        theirs_w = COMPLETING[s[9 * other + b]] & e if not (owned >> b) & 1 else 0
        while e:
            c = NTH[e, 0]
            e &= e - 1
            a = 9 * b + c
            k = history[a]
            if a == tt_move:
                k += 1 << 40
            if (mine_w >> c) & 1:
                k += (1 << 38) if (winners >> b) & 1 else (1 << 34)
            if (theirs_w >> c) & 1:
                k += 1 << 33
            moves[ply, n] = a
            keys[n] = k
            n += 1
    # insertion sort, descending keys
    for i in range(1, n):
        a = moves[ply, i]
        k = keys[i]
        j = i - 1
        while j >= 0 and keys[j] < k:
            keys[j + 1] = keys[j]
            moves[ply, j + 1] = moves[ply, j]
            j -= 1
        keys[j + 1] = k
        moves[ply, j + 1] = a
    nmoves[ply] = n


@njit(cache=True, nogil=True)
def search_depth(
    root: np.ndarray, flags: int, depth: int, max_nodes: int,
    tt_key: np.ndarray, tt_val: np.ndarray, tt_depth: np.ndarray, tt_flag: np.ndarray,
    tt_move: np.ndarray, history: np.ndarray,
) -> tuple[int, int, int, bool]:
    """Alpha-beta to `depth` plies: (best action, value, nodes, completed)."""
    mask = tt_key.shape[0] - 1
    states = np.empty((depth + 1, STATE_SIZE), np.int64)
    moves = np.empty((depth + 1, 81), np.int64)
    nmoves = np.zeros(depth + 1, np.int64)
    idx = np.zeros(depth + 1, np.int64)
    alpha = np.zeros(depth + 1, np.int64)
    beta = np.zeros(depth + 1, np.int64)
    alpha0 = np.zeros(depth + 1, np.int64)
    best = np.zeros(depth + 1, np.int64)
    bestmove = np.zeros(depth + 1, np.int64)
    keys = np.zeros(depth + 1, np.int64)
    for k in range(STATE_SIZE):
        states[0, k] = root[k]
    h = zhash(root)
    keys[0] = h
    slot = h & mask
    ttm = tt_move[slot] if tt_key[slot] == h else -1
    _gen(root, flags, 0, moves, nmoves, ttm, history)
    alpha[0] = -INF
    beta[0] = INF
    alpha0[0] = -INF
    best[0] = -INF
    bestmove[0] = moves[0, 0]
    idx[0] = 0
    nodes = 0
    ply = 0
    while True:
        if nodes > max_nodes:
            return bestmove[0], best[0], nodes, False
        if idx[ply] < nmoves[ply] and alpha[ply] < beta[ply]:
            a = moves[ply, idx[ply]]
            idx[ply] += 1
            cp = ply + 1
            for k in range(STATE_SIZE):
                states[cp, k] = states[ply, k]
            child = states[cp]
            play(child, a // 9, a % 9, flags)
            nodes += 1
            have_value = True
            v = 0
            if child[RESULT] >= 0:
                v = _terminal_value(child, cp)
            elif cp == depth:
                v = evaluate(child, flags)
            else:
                hc = zhash(child)
                slot = hc & mask
                ttm = -1
                have_value = False
                if tt_key[slot] == hc:
                    ttm = tt_move[slot]
                    tv = tt_val[slot]
                    if tt_depth[slot] >= depth - cp and abs(tv) < MATE - 1000:
                        fl = tt_flag[slot]
                        lo = -beta[ply]
                        hi = -alpha[ply]
                        if fl == EXACT or (fl == LOWER and tv >= hi) or (fl == UPPER and tv <= lo):
                            v = tv
                            have_value = True
                if not have_value:
                    keys[cp] = hc
                    _gen(child, flags, cp, moves, nmoves, ttm, history)
                    alpha[cp] = -beta[ply]
                    beta[cp] = -alpha[ply]
                    alpha0[cp] = alpha[cp]
                    best[cp] = -INF
                    bestmove[cp] = moves[cp, 0]
                    idx[cp] = 0
                    ply = cp
                    continue
            value = -v
        else:
            # this node is done: store it and hand its value to the parent
            slot = keys[ply] & mask
            tt_key[slot] = keys[ply]
            tt_val[slot] = best[ply]
            tt_depth[slot] = depth - ply
            tt_move[slot] = bestmove[ply]
            if best[ply] <= alpha0[ply]:
                tt_flag[slot] = UPPER
            elif best[ply] >= beta[ply]:
                tt_flag[slot] = LOWER
            else:
                tt_flag[slot] = EXACT
            if ply == 0:
                return bestmove[0], best[0], nodes, True
            value = -best[ply]
            ply -= 1
        # the value of the move moves[ply, idx[ply] - 1], for the side to move at ply
        if value > best[ply]:
            best[ply] = value
            bestmove[ply] = moves[ply, idx[ply] - 1]
            if value > alpha[ply]:
                alpha[ply] = value
                if value >= beta[ply]:
                    history[bestmove[ply]] += (depth - ply) * (depth - ply)


@njit(cache=True)
def tt_pv(root: np.ndarray, flags: int, tt_key: np.ndarray, tt_move: np.ndarray,
          limit: int) -> np.ndarray:
    """The principal variation read back from the transposition table."""
    mask = tt_key.shape[0] - 1
    s = root.copy()
    out = np.empty(limit, np.int64)
    n = 0
    while n < limit and s[RESULT] < 0:
        h = zhash(s)
        slot = h & mask
        if tt_key[slot] != h:
            break
        a = tt_move[slot]
        b = a // 9
        if not (playable_boards(s) >> b) & 1 or not (empty_cells(s, b) >> (a % 9)) & 1:
            break
        out[n] = a
        n += 1
        play(s, b, a % 9, flags)
    return out[:n]


def _tiny_table() -> list[np.ndarray]:
    return [np.zeros(16, np.int64) for _ in range(5)]


# compiled before any clock runs (see ninefold.players.warmup)
warmup.add("alphabeta", seconds=7, steps=[
    (search_depth, lambda: (kernel.new_state(), 0, 2, 1000, *_tiny_table(),
                            np.zeros(81, np.int64))),
    (tt_pv, lambda: (kernel.new_state(), 0, np.zeros(16, np.int64), np.zeros(16, np.int64), 2)),
])


@register("alphabeta")
class AlphaBetaPlayer(Player):
    """Iterative-deepening alpha-beta; see the module's documentation."""

    def __init__(
        self, depth: int | None = None, ms: float | None = None, tt_bits: int = TT_BITS
    ) -> None:
        if depth is not None and not 1 <= depth <= 81:
            raise BudgetError(f"depth must be 1-81, not {depth!r}")
        check_positive("ms", ms, MAX_MS, "a day")
        if not MIN_TT_BITS <= tt_bits <= MAX_TT_BITS:
            raise ValueError(f"tt_bits must be {MIN_TT_BITS}-{MAX_TT_BITS}, not {tt_bits!r}")
        self.depth = depth
        self.ms = ms
        size = 1 << tt_bits
        self.tt = (
            np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(size, np.int64),
            np.zeros(size, np.int64), np.zeros(size, np.int64),
        )
        self.history = np.zeros(81, np.int64)
        self.nps = 300_000.0  # nodes a second, learnt as it plays
        warmup.compile_searches("alphabeta")

    def new_game(self) -> None:
        for a in self.tt:
            a[:] = 0
        self.history[:] = 0

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        start = time.perf_counter()
        depth_cap = min(x for x in (self.depth, limit.depth, 81) if x is not None)
        ms = timing.move_budget(
            own_ms=self.ms, move_ms=limit.move_ms, bank_ms=limit.bank_ms,
            increment_ms=limit.increment_ms, max_bank_ms=limit.max_bank_ms,
            empty=sum(cell is None for cell in board.cells),
            counted=self.depth is not None or limit.depth is not None).think_ms
        deadline = (start + timing.search_ms(ms, timing.ALPHABETA_SAFETY_MS) / 1000
                    if ms is not None else None)
        state = kernel.from_board(board)
        flags = board.rules.flags
        self.history //= 4
        tt_key, tt_val, tt_depth, tt_flag, tt_move = self.tt
        best = value = None
        done_depth = 0
        nodes_total = 0
        for depth in range(1, depth_cap + 1):
            max_nodes = 1 << 62
            if deadline is not None:
                left = deadline - time.perf_counter()
                if left <= 0 and best is not None:
                    break
                max_nodes = max(int(left * self.nps), 50)
            t0 = time.perf_counter()
            a, v, nodes, complete = search_depth(
                state, flags, depth, max_nodes, tt_key, tt_val, tt_depth, tt_flag, tt_move,
                self.history,
            )
            dt = time.perf_counter() - t0
            nodes_total += nodes
            if nodes > 2000 and dt > 0:
                self.nps = 0.7 * self.nps + 0.3 * nodes / dt
            if not complete:
                if best is None:
                    best, value = int(a), int(v)  # better than nothing
                break
            best, value, done_depth = int(a), int(v), depth
            if abs(value) >= MATE - 1000:
                break  # a forced result: deeper search cannot change it
        assert best is not None
        pv = [str(Move.from_action(int(x))) for x in tt_pv(state, flags, tt_key, tt_move, 12)]
        return PlayResult(
            Move.from_action(best),
            {"depth": done_depth, "value": value, "nodes": nodes_total, "pv": pv,
             "ms": 1000 * (time.perf_counter() - start)},
        )
