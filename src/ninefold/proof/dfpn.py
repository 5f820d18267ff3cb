"""The proof search's hot core in numba: df-pn over the kernel's states, a hashed table.

Everything here is integers and arrays, like `ninefold.kernel`:

- **Keys.** A position's key is the least of the Zobrist hashes of its eight
  symmetric images (the big board and every small board turned or mirrored at
  once, `ninefold.moves.SYMMETRIES`): symmetric positions share one key. The
  hash covers the marks, the boards' owners, the board the player is sent to
  and the side to move, which fix the rest of the state.
- **The table** is open-addressed: a row per slot, (key, proof number,
  disproof number, work), a key probed in `PROBE` slots from its hash; a full
  window gives up the slot of least work (expansions spent under it). A lost
  entry costs only its search again.
- **The search** is depth-first proof-number search (df-pn) with the 1 + 1/4
  threshold rule (a child is searched until its number passes 5/4 of its best
  sibling's, not just the sibling's, which saves re-expanding two rivals in
  turn), written as a loop over an explicit stack of frames (numba caches no
  recursive function). A frame keeps its children's moves, keys and last
  numbers; the table refreshes the numbers at each step, so a child proved by
  another path (a transposition) counts at once.
- **Guides** pick the moves X may try (`GUIDE_NONE`: all; `GUIDE_PAPER`,
  `GUIDE_DIAGONAL`, `GUIDE_SAFE`, `GUIDE_REFILL`: see `guided_moves`); O's moves are never
  pruned, so a proof is a proof whatever the guide. A move that wins the game
  at once is searched alone.
- **Leaves**: a finished game, a side that wins at once, and a position where
  X cannot win by ply `max_plies` (the marks on the board count as plies; X
  moves every other ply and needs at least `game_need` more marks) have exact
  numbers (0 or `INFINITE`) and are never expanded.
"""

from __future__ import annotations

import numpy as np

from ninefold.jitcache import njit
from ninefold.kernel import (
    BIG,
    COMPLETING,
    FORCED,
    FULL,
    POPCOUNT,
    RESULT,
    SIDE,
    STATE_SIZE,
    count_moves,
    legal_actions,
    play,
    winning_action,
)
from ninefold.moves import SYMMETRIES
from ninefold.rules import FLAG_COUNT_FULL, FLAG_WIN_FIVE, LINES

INFINITE = 1 << 40  # a proof or disproof number meaning "never"
PROBE = 8  # slots a key may sit in from its hash
KEY, PN, DN, WORK = 0, 1, 2, 3  # a table row's columns
DEPTH = 82  # frames: one per ply, 81 at most from any root
GUIDE_NONE, GUIDE_PAPER, GUIDE_DIAGONAL, GUIDE_SAFE, GUIDE_REFILL = 0, 1, 2, 3, 4
DIAGONAL, ANTIDIAGONAL = (1 << 0) | (1 << 8), (1 << 2) | (1 << 6)
PAIRS = np.array([(1 << i) | (1 << (8 - i)) for i in range(4)], np.int64)  # squares i, 8-i
CORNERS = DIAGONAL | ANTIDIAGONAL
CENTRE = 1 << 4
NO_LINE = 99  # `game_need` where every line of boards is blocked
HOPELESS = 30  # the first disproof number where O has no line left (X may still fail: a draw)


def _symmetry_tables() -> tuple[np.ndarray, np.ndarray]:
    """(square maps (8, 9), 9-bit mask maps (8, 512)) for the eight symmetries."""
    squares = np.array(SYMMETRIES, np.int64)
    masks = np.zeros((8, 512), np.int64)
    for k, sq in enumerate(SYMMETRIES):
        for m in range(512):
            masks[k, m] = sum(1 << sq[i] for i in range(9) if m >> i & 1)
    return squares, masks


def _zobrist() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random 63-bit numbers, fixed by a seed: (marks (2, 9, 512) by side, board and mask;
    owners (2, 512); the board sent to plus one (10) and the side to move (2), as (12))."""
    rng = np.random.default_rng(20200603)
    high = np.int64(1) << np.int64(62)
    marks = rng.integers(0, high, (2, 9, 512), np.int64)
    owners = rng.integers(0, high, (2, 512), np.int64)
    other = rng.integers(0, high, 12, np.int64)
    return marks, owners, other


LINE_MASKS = np.array([sum(1 << i for i in line) for line in LINES], np.int64)


SQUARES, MASKS = _symmetry_tables()
Z_MARKS, Z_OWNERS, Z_OTHER = _zobrist()


@njit(cache=True)
def canonical_key(s: np.ndarray, squares: np.ndarray, masks: np.ndarray,
                  z_marks: np.ndarray, z_owners: np.ndarray, z_other: np.ndarray) -> int:
    """The least hash of the state's eight symmetric images (never 0: 0 marks a free slot)."""
    best = np.int64(-1)
    f = s[FORCED]
    for k in range(squares.shape[0]):
        h = z_other[10 + s[SIDE]] ^ z_other[squares[k, f] + 1 if f >= 0 else 0]
        h ^= z_owners[0, masks[k, s[BIG]]] ^ z_owners[1, masks[k, s[BIG + 1]]]
        for b in range(9):
            p = squares[k, b]
            h ^= z_marks[0, p, masks[k, s[b]]] ^ z_marks[1, p, masks[k, s[9 + b]]]
        h |= 1
        if best < 0 or h < best:
            best = h
    return int(best)


@njit(cache=True, inline="always")
def _key(s: np.ndarray) -> int:
    return canonical_key(s, SQUARES, MASKS, Z_MARKS, Z_OWNERS, Z_OTHER)


def key(s: np.ndarray) -> int:
    """The table's key of a kernel state: the same for all its symmetric images."""
    return int(_key(s))


def new_table(bits: int) -> np.ndarray:
    """An empty table of 2**bits slots (32 bytes each; pages are taken as they are used)."""
    return np.zeros((1 << bits, 4), np.int64)


@njit(cache=True, inline="always")
def lookup(table: np.ndarray, h: int) -> int:
    """The slot holding key `h`, or -1."""
    mask = table.shape[0] - 1
    for j in range(PROBE):
        i = (h + j) & mask
        k = table[i, KEY]
        if k == h:
            return int(i)
        if k == 0:
            return -1
    return -1


@njit(cache=True, inline="always")
def store(table: np.ndarray, h: int, pn: int, dn: int, work: int) -> None:
    """Enter (or update) key `h`; a full window gives up its slot of least work."""
    mask = table.shape[0] - 1
    victim = -1
    for j in range(PROBE):
        i = (h + j) & mask
        k = table[i, KEY]
        if k == h or k == 0:
            victim = i
            break
        if victim < 0 or table[i, WORK] < table[victim, WORK]:
            victim = i
    if table[victim, KEY] == h:
        work += table[victim, WORK]
    table[victim, KEY] = h
    table[victim, PN] = pn
    table[victim, DN] = dn
    table[victim, WORK] = work


@njit(cache=True, inline="always")
def _diagonal(s: np.ndarray) -> int:
    """The corner squares of the diagonal on which X has more marks (all four on a tie)."""
    main = 0
    anti = 0
    for b in range(9):
        main += POPCOUNT[s[b] & DIAGONAL]
        anti += POPCOUNT[s[b] & ANTIDIAGONAL]
    return DIAGONAL if main > anti else ANTIDIAGONAL if anti > main else CORNERS


@njit(cache=True, inline="always")
def _pair(s: np.ndarray) -> int:
    """The opposite squares (i, 8-i) on which X has most marks, all boards counted (every
    pair that ties for the most)."""
    counts = np.zeros(4, np.int64)
    for b in range(9):
        for i in range(4):
            counts[i] += POPCOUNT[s[b] & PAIRS[i]]
    most = counts.max()
    mask = 0
    for i in range(4):
        if counts[i] == most:
            mask |= PAIRS[i]
    return mask


@njit(cache=True, inline="always")
def _safe(s: np.ndarray, b: int) -> bool:
    """Whether O, sent to board `b`, plays there without gaining a board: `b` has room,
    and it is owned already or every line in it holds a mark of X's."""
    if (s[b] | s[9 + b]) == FULL:
        return False
    if ((s[BIG] | s[BIG + 1]) >> b) & 1:
        return True
    free = 0  # lines with no mark of X's (a loop, not all(): numba compiles no generator)
    for line in LINE_MASKS:
        if not line & s[b]:
            free += 1
    return free == 0


@njit(cache=True)
def guided_moves(s: np.ndarray, flags: int, guide: int, out: np.ndarray) -> int:
    """The moves searched at `s`, written to `out`, their number returned: a move that wins
    the game at once alone; else all of O's; X's under the guide. `GUIDE_PAPER` is an
    earlier reading of the paper's: the centre squares while any is legal (the opening
    sends O back to the centre board), else corner squares and squares that complete a
    line of X's or of O's in a small board; any move where none of those is legal.
    `GUIDE_DIAGONAL` is the same with the corner squares of one diagonal only: the one
    where X has more marks (both diagonals while X has as many on each). `GUIDE_SAFE` is
    `GUIDE_PAPER` with, besides, the squares that send O to a board it can no longer gain
    (owned, or every line there holding a mark of X's; not a full one, which would set O
    free). `GUIDE_REFILL` is the strategy as Breitner tells it (the paper's, read so): the
    centre squares while the centre board has room (O refills it); then the opposite
    squares (k, 8-k) on which X has most marks (any pair at first: X, sent to board k,
    takes square k there and O refills board k, X answering square j of board k with
    square k of board j), and squares that complete a line of X's or of O's in a small
    board; any move where none of those is legal."""
    win = winning_action(s, flags)
    if win >= 0:
        out[0] = win
        return 1
    actions = legal_actions(s)
    n = 0
    if s[SIDE] == 0 and guide != GUIDE_NONE:
        corners = (_diagonal(s) if guide == GUIDE_DIAGONAL else
                   _pair(s) if guide == GUIDE_REFILL else CORNERS)
        if guide != GUIDE_REFILL or (s[4] | s[13]) != FULL:
            for a in actions:
                if (CENTRE >> (a % 9)) & 1:
                    out[n] = a
                    n += 1
            if n:
                return n
        for a in actions:
            b, c = a // 9, a % 9
            wanted = corners | COMPLETING[s[b]] | COMPLETING[s[9 + b]]
            if (wanted >> c) & 1 or (guide == GUIDE_SAFE and _safe(s, c)):
                out[n] = a
                n += 1
        if n:
            return n
    for a in actions:
        out[n] = a
        n += 1
    return n


@njit(cache=True)
def game_need(s: np.ndarray, side: int) -> int:
    """The fewest marks `side` (0 X, 1 O) still needs in small boards for a line of boards
    (each board it does not own costs the marks it lacks for its nearest unblocked line
    there), `NO_LINE` where every
    line of boards holds a board of the other side's or one `side` can no longer win.
    Owners are fixed and marks stay, so `NO_LINE` means `side` can never win by a line.

    >>> from ninefold import kernel
    >>> s = kernel.new_state()
    >>> int(game_need(s, 0)), int(game_need(s, 1))
    (9, 9)
    """
    need = np.empty(9, np.int64)
    for b in range(9):  # the fewest marks for a line in board b not blocked by the other side
        need[b] = NO_LINE
        for line in LINE_MASKS:
            if not line & s[9 * (1 - side) + b]:
                need[b] = min(need[b], 3 - POPCOUNT[line & s[9 * side + b]])
    mine, theirs = s[BIG + side], s[BIG + 1 - side]
    best = NO_LINE
    for line in LINE_MASKS:  # the same masks make the lines of boards
        if line & theirs:
            continue
        total = 0
        for b in range(9):
            if (line >> b) & 1 and not (mine >> b) & 1:
                total += need[b]
        best = min(best, total)
    return best


@njit(cache=True)
def leaf_numbers(s: np.ndarray, flags: int, max_plies: int) -> tuple[int, int]:
    """A new position's first (proof, disproof) numbers: exact where the game is over,
    the side to move wins at once or X cannot win by ply `max_plies` (its `game_need`
    marks, one every other ply, would come too late); else 1 for the
    side to move and its number of moves for the other, each times the side's `game_need`
    (at least 1; O's at most `HOPELESS`) under rules won by a line of boards, where X is
    lost once it has no line left. The race to a line steers the search: refuting the
    `diagonal` guide against 16 of O's first moves after the opening takes 46,000
    expansions with it, 389,000 with mobility alone."""
    result = s[RESULT]
    if result >= 0:
        return (0, INFINITE) if result == 1 else (INFINITE, 0)
    x_moves = s[SIDE] == 0
    ply = 0
    for i in range(18):
        ply += POPCOUNT[s[i] & FULL]
    if ply + 1 + (0 if x_moves else 1) > max_plies:
        return INFINITE, 0  # X's next move comes after the last ply allowed
    if winning_action(s, flags) >= 0:
        return (0, INFINITE) if x_moves else (INFINITE, 0)
    x_need, o_need = 1, 1
    if not flags & (FLAG_WIN_FIVE | FLAG_COUNT_FULL):
        x_need = game_need(s, 0)
        if x_need >= NO_LINE:
            return INFINITE, 0  # X has no line of boards left: never a win
        x_need, o_need = max(1, x_need), max(1, min(game_need(s, 1), HOPELESS))
        if ply + 2 * x_need - (1 if x_moves else 0) > max_plies:
            return INFINITE, 0  # X's last mark needed would come after the last ply allowed
    n = count_moves(s)
    return (x_need, n * o_need) if x_moves else (n * x_need, o_need)


@njit(cache=True)
def _expand(st: np.ndarray, d: int, flags: int, guide: int, max_plies: int,
            table: np.ndarray, act: np.ndarray, keys: np.ndarray, cpn: np.ndarray,
            cdn: np.ndarray, moves: np.ndarray, child: np.ndarray) -> int:
    """Fill frame `d`'s children (one move per key), numbers from the table or as leaves."""
    count = guided_moves(st[d], flags, guide, moves)
    n = 0
    for j in range(count):
        a = moves[j]
        child[:] = st[d]
        play(child, a // 9, a % 9, flags)
        h = _key(child)
        seen = False
        for i in range(n):
            if keys[d, i] == h:
                seen = True
                break
        if seen:
            continue
        act[d, n] = a
        keys[d, n] = h
        slot = lookup(table, h)
        if slot >= 0:
            cpn[d, n] = table[slot, PN]
            cdn[d, n] = table[slot, DN]
        else:
            cpn[d, n], cdn[d, n] = leaf_numbers(child, flags, max_plies)
        n += 1
    return n


@njit(cache=True)
def search(root: np.ndarray, flags: int, guide: int, max_plies: int, table: np.ndarray,
           budget: int) -> tuple[int, int, int]:
    """df-pn from `root` until it is proved, disproved or `budget` expansions are spent:
    (proof number, disproof number, expansions). The table keeps what was learnt, so a
    second call goes on where the first stopped."""
    pn, dn = leaf_numbers(root, flags, max_plies)
    if pn == 0 or dn == 0:
        store(table, _key(root), pn, dn, 0)
        return pn, dn, 0
    st = np.empty((DEPTH, STATE_SIZE), np.int64)
    act = np.empty((DEPTH, 81), np.int64)
    keys = np.empty((DEPTH, 81), np.int64)
    cpn = np.empty((DEPTH, 81), np.int64)
    cdn = np.empty((DEPTH, 81), np.int64)
    nch = np.zeros(DEPTH, np.int64)
    th_pn = np.empty(DEPTH, np.int64)
    th_dn = np.empty(DEPTH, np.int64)
    node_key = np.empty(DEPTH, np.int64)
    chosen = np.zeros(DEPTH, np.int64)
    started = np.zeros(DEPTH, np.int64)
    moves = np.empty(81, np.int64)
    child = np.empty(STATE_SIZE, np.int64)
    st[0] = root
    node_key[0] = _key(root)
    th_pn[0] = INFINITE
    th_dn[0] = INFINITE
    nch[0] = _expand(st, 0, flags, guide, max_plies, table, act, keys, cpn, cdn, moves, child)
    expansions = 1
    d = 0
    while True:
        n = nch[d]
        for i in range(n):
            slot = lookup(table, keys[d, i])
            if slot >= 0:
                cpn[d, i] = table[slot, PN]
                cdn[d, i] = table[slot, DN]
        x_moves = st[d, SIDE] == 0
        # X picks the least proof number, O the least disproof number: "mine" is the
        # number the side to move minimises, "other" the one it sums.
        mine = cpn[d] if x_moves else cdn[d]
        other = cdn[d] if x_moves else cpn[d]
        best, second, least, total = -1, INFINITE, INFINITE, 0
        for i in range(n):
            v = mine[i]
            if v < least:
                second = least
                least = v
                best = i
            elif v < second:
                second = v
            total = min(INFINITE, total + other[i])
        pn, dn = (least, total) if x_moves else (total, least)
        if pn >= th_pn[d] or dn >= th_dn[d] or expansions >= budget:
            store(table, node_key[d], pn, dn, expansions - started[d])
            if d == 0:
                return pn, dn, expansions
            d -= 1
            i = chosen[d]
            cpn[d, i] = pn
            cdn[d, i] = dn
            continue
        limit_mine = min(second + 1 + second // 4, INFINITE)
        if x_moves:
            c_pn = min(th_pn[d], limit_mine)
            c_dn = th_dn[d] - dn + cdn[d, best]
        else:
            c_dn = min(th_dn[d], limit_mine)
            c_pn = th_pn[d] - pn + cpn[d, best]
        chosen[d] = best
        st[d + 1] = st[d]
        a = act[d, best]
        play(st[d + 1], a // 9, a % 9, flags)
        node_key[d + 1] = keys[d, best]
        d += 1
        th_pn[d] = c_pn
        th_dn[d] = c_dn
        started[d] = expansions
        expansions += 1
        nch[d] = _expand(st, d, flags, guide, max_plies, table, act, keys, cpn, cdn, moves,
                         child)


@njit(cache=True)
def proved_action(s: np.ndarray, flags: int, max_plies: int, table: np.ndarray) -> int:
    """A move of X at `s` (any legal one, guided or not) whose position is proved in the
    table or wins the game at once; -1 if the table holds none."""
    win = winning_action(s, flags)
    if win >= 0:
        return win
    child = np.empty(STATE_SIZE, np.int64)
    for a in legal_actions(s):
        child[:] = s
        play(child, a // 9, a % 9, flags)
        if leaf_numbers(child, flags, max_plies)[0] == 0:
            return int(a)
        slot = lookup(table, _key(child))
        if slot >= 0 and table[slot, PN] == 0:
            return int(a)
    return -1
