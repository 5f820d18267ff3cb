"""The fast network: one hidden layer, built for the search's speed.

    383 binary features -> 256 clipped ReLU (0..1) -> 1 value, 81 move logits

The features are seen by the side to move (`features`): its marks (81), the
opponent's (81), the small boards each side owns (9 + 9), the closed boards
(9), the board the move is sent to (9) or a free move (1), playing O, the
three rules flags (board count, open boards, five boards), and the threats,
as the policy-value network (`ninefold.players.net`) has them: the empty cells
that would win an undecided small board for each side (81 + 81) and the
undecided boards whose win would win the game for each side (9 + 9). A
position has 10 to 90 of them on. The value is the expected score of the side
to move (win 1, draw 1/2, loss 0). The policy head is optional: a network
trained without one (``--policy-weight 0``) has its weights all zero, and its
search gives every child the same prior.

The search (`ninefold.players.mcts_tree.search` with ``fnet``) evaluates the
network as `for_search` lays it out: the hidden layer in int16, one row of
`w1q` added per feature that is on, clipped to 0..`scale`; the value and the
legal moves' logits in float32 (a product of the hidden size a move). The
player's search keeps each expanded node's hidden sums, so a leaf's are its
grandparent's plus the few rows two moves change (`sums_from`), and it asks
for a node's policy only when the node is visited a second time.

The weights are float32 arrays in a ``.npz`` (`save_fast_net`,
`load_fast_net`), told apart from a policy-value network's by their names
(``f_w1``...), with a ``meta`` entry saying how the network was made
(``python -m ninefold.learn.fastnet``).

>>> net = random_fast_net(0)
>>> sn = for_search(net)
>>> s = kernel.new_state()
>>> idx = np.empty(MAX_ACTIVE, np.int64)
>>> logits = np.zeros(81, np.float32)
>>> 0.0 < evaluate(sn, s, 0, idx, np.empty(net.b1.shape[0], np.int16), logits) < 1.0
True
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, cast

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros

from ninefold import kernel
from ninefold.jitcache import njit
from ninefold.kernel import (
    BIG,
    CLOSED,
    COMPLETING,
    FORCED,
    NTH,
    SIDE,
    empty_cells,
    game_winning,
    playable_boards,
)
from ninefold.moves import SYMMETRIES
from ninefold.players import warmup
from ninefold.rules import FLAG_COUNT_FULL, FLAG_OPEN_BOARDS, FLAG_WIN_FIVE

# feature offsets
OWN, OPP, OWN_BOARDS, OPP_BOARDS, CLOSED_BOARDS, TARGET = 0, 81, 162, 171, 180, 189
FREE_MOVE, PLAYS_O, COUNT_FULL, OPEN_BOARDS, WIN_FIVE = 198, 199, 200, 201, 202
OWN_THREATS, OPP_THREATS, OWN_BIG_THREATS, OPP_BIG_THREATS = 203, 284, 365, 374
FEATURES = 383
CELL_GROUPS = (OWN, OPP, OWN_THREATS, OPP_THREATS)
BOARD_GROUPS = (OWN_BOARDS, OPP_BOARDS, CLOSED_BOARDS, TARGET, OWN_BIG_THREATS, OPP_BIG_THREATS)
HIDDEN = 256
# the most features on at once: a cell is a mark or empty, an empty cell a threat for
# both sides at most; then the boards' 27 + 18, the target and the four flags
MAX_ACTIVE = 2 * 81 + 27 + 18 + 1 + 4
# numba's count of a word's trailing zero bits (an intrinsic: numba code calls it)
trailing_zeros = cast("Callable[[Any], int]", _trailing_zeros)
WORDS = (FEATURES + 63) // 64  # uint64 words of a feature set (`feature_set`)
ARRAYS = ("f_w1", "f_b1", "f_w2", "f_b2", "f_wp", "f_bp")


class FastNetError(ValueError):
    """A weights file that is missing, unreadable or not a fast network."""


class FastNet(NamedTuple):
    """The weights in float32, as trained."""

    w1: np.ndarray  # (FEATURES, HIDDEN): one row per feature
    b1: np.ndarray  # (HIDDEN,)
    w2: np.ndarray  # (HIDDEN,)
    b2: np.ndarray  # (1,)
    wp: np.ndarray  # (HIDDEN, 81): the move logits' weights (all 0: no policy)
    bp: np.ndarray  # (81,)


class SearchFastNet(NamedTuple):
    """A `FastNet` laid out for the search (`for_search`)."""

    w1q: np.ndarray  # (FEATURES, HIDDEN) int16: w1 * scale, rounded
    b1q: np.ndarray  # (HIDDEN,) int16
    w2s: np.ndarray  # (HIDDEN,) float32: w2 / scale
    b2: np.ndarray  # (1,) float32
    top: np.ndarray  # (1,) int16: the clip, `scale` rounded (a hidden unit's 1.0)
    wps: np.ndarray  # (81, units) float32: wp transposed, / scale, as far as the last unit
    # the policy reads (`--policy-units`); no rows: no policy
    bp: np.ndarray  # (81,) float32


def policy_units(net: FastNet) -> int:
    """How many hidden units, the first ones, the policy reads (0: no policy).

    >>> policy_units(random_fast_net(0, 8))
    8
    """
    read = np.flatnonzero(net.wp.any(axis=1))
    return int(read[-1]) + 1 if len(read) else 0


def for_search(net: FastNet) -> SearchFastNet:
    """`net` in int16 steps of 1/scale, scale as large as 255 but small enough that no
    sum of a bias and MAX_ACTIVE weights can leave int16.

    >>> sn = for_search(random_fast_net(0))
    >>> sn.w1q.dtype, int(sn.top[0]) <= 255
    (dtype('int16'), True)
    """
    worst = np.abs(net.b1) + np.sort(np.abs(net.w1), axis=0)[-MAX_ACTIVE:].sum(axis=0)
    scale = float(min(255.0, 32000.0 / max(float(worst.max()), 1e-9)))
    w1q = np.round(net.w1 * scale).astype(np.int16)
    b1q = np.round(net.b1 * scale).astype(np.int16)
    units = policy_units(net)
    wps = (np.ascontiguousarray(net.wp[:units].T) / scale).astype(np.float32) if units else (
        np.zeros((0, 1), np.float32))
    return SearchFastNet(w1q, b1q, (net.w2 / scale).astype(np.float32),
                          net.b2.astype(np.float32), np.array([round(scale)], np.int16),
                          wps, net.bp.astype(np.float32))


@njit(cache=True, nogil=True, inline="always")
def _bits(mask: int, base: int, idx: np.ndarray, n: int) -> int:
    while mask:
        idx[n] = base + NTH[mask & 0x1FF, 0]
        mask &= mask - 1
        n += 1
    return n


@njit(cache=True, nogil=True)
def features(s: np.ndarray, flags: int, idx: np.ndarray) -> int:
    """Write the indices of the features that are on in `s` into `idx`; returns how many."""
    p = s[SIDE] & 1
    q = p ^ 1
    n = 0
    for b in range(9):
        n = _bits(s[9 * p + b], OWN + 9 * b, idx, n)
        n = _bits(s[9 * q + b], OPP + 9 * b, idx, n)
    n = _bits(s[BIG + p], OWN_BOARDS, idx, n)
    n = _bits(s[BIG + q], OPP_BOARDS, idx, n)
    n = _bits(s[CLOSED], CLOSED_BOARDS, idx, n)
    undecided = ~(s[BIG] | s[BIG + 1] | s[CLOSED]) & 0x1FF
    left = undecided
    while left:
        b = NTH[left, 0]
        left &= left - 1
        e = empty_cells(s, b)
        n = _bits(COMPLETING[s[9 * p + b]] & e, OWN_THREATS + 9 * b, idx, n)
        n = _bits(COMPLETING[s[9 * q + b]] & e, OPP_THREATS + 9 * b, idx, n)
    n = _bits(game_winning(s[BIG + p], undecided, flags), OWN_BIG_THREATS, idx, n)
    n = _bits(game_winning(s[BIG + q], undecided, flags), OPP_BIG_THREATS, idx, n)
    if s[FORCED] < 0:
        idx[n] = FREE_MOVE
    else:
        idx[n] = TARGET + s[FORCED]
    n += 1
    if p == 1:
        idx[n] = PLAYS_O
        n += 1
    if flags & FLAG_COUNT_FULL:
        idx[n] = COUNT_FULL
        n += 1
    if flags & FLAG_OPEN_BOARDS:
        idx[n] = OPEN_BOARDS
        n += 1
    if flags & FLAG_WIN_FIVE:
        idx[n] = WIN_FIVE
        n += 1
    return n


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def sum_rows(w1q: np.ndarray, b1q: np.ndarray, idx: np.ndarray, n: int,
             acc: np.ndarray) -> None:
    """The hidden sums: acc = b1q + the rows of `w1q` at idx[:n], in int16, four rows a
    pass over `acc`."""
    h = acc.shape[0]
    for j in range(h):
        acc[j] = b1q[j]
    k = 0
    while k + 4 <= n:
        r0, r1, r2, r3 = idx[k], idx[k + 1], idx[k + 2], idx[k + 3]
        for j in range(h):
            acc[j] = acc[j] + ((w1q[r0, j] + w1q[r1, j]) + (w1q[r2, j] + w1q[r3, j]))
        k += 4
    while k < n:
        r0 = idx[k]
        for j in range(h):
            acc[j] = acc[j] + w1q[r0, j]
        k += 1


@njit(cache=True, nogil=True, inline="always")
def feature_set(idx: np.ndarray, n: int, bits: np.ndarray) -> None:
    """The features at idx[:n] as a set: bit f of `bits` (WORDS uint64) is feature f."""
    for w in range(WORDS):
        bits[w] = 0
    for k in range(n):
        f = idx[k]
        bits[f >> 6] |= np.uint64(1) << np.uint64(f & 63)


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def sums_from(w1q: np.ndarray, base: np.ndarray, base_bits: np.ndarray, bits: np.ndarray,
              rows: np.ndarray, acc: np.ndarray) -> None:
    """The hidden sums of a position whose feature set is `bits`, from those of another
    (`base`, its set `base_bits`) seen by the same side: acc = base, plus the rows of the
    features on only in `bits`, less those on only in `base_bits` (`rows`: a work array
    of 2 * MAX_ACTIVE int64). Two positions a couple of moves apart differ by a
    handful of features, where a position has 10 to 90 on (`sum_rows`)."""
    added = 0
    removed = 0
    top = rows.shape[0]
    for w in range(WORDS):
        on = bits[w] & ~base_bits[w]
        while on:
            rows[added] = 64 * w + trailing_zeros(on)
            added += 1
            on &= on - np.uint64(1)
        off = base_bits[w] & ~bits[w]
        while off:
            removed += 1
            rows[top - removed] = 64 * w + trailing_zeros(off)
            off &= off - np.uint64(1)
    h = acc.shape[0]
    for j in range(h):
        acc[j] = base[j]
    k = 0
    while k + 2 <= added:
        r0, r1 = rows[k], rows[k + 1]
        for j in range(h):
            acc[j] = acc[j] + (w1q[r0, j] + w1q[r1, j])
        k += 2
    if k < added:
        r0 = rows[k]
        for j in range(h):
            acc[j] = acc[j] + w1q[r0, j]
    k = top - removed
    while k + 2 <= top:
        r0, r1 = rows[k], rows[k + 1]
        for j in range(h):
            acc[j] = acc[j] - (w1q[r0, j] + w1q[r1, j])
        k += 2
    if k < top:
        r0 = rows[k]
        for j in range(h):
            acc[j] = acc[j] - w1q[r0, j]


@njit(cache=True, nogil=True, fastmath=True)
def value_head(w2s: np.ndarray, b2: np.ndarray, top: np.ndarray, acc: np.ndarray,
               hidden: np.ndarray) -> float:
    """From the hidden sums `acc`: the hidden units (clipped, into `hidden`, float32) and
    the value for the side to move (0..1). Not inlined into the search: the caller's
    flags would replace `fastmath`, which lets the products' sum be vectorised."""
    hi = top[0]
    total = np.float32(0.0)
    for j in range(acc.shape[0]):
        x = np.float32(min(max(acc[j], np.int16(0)), hi))
        hidden[j] = x
        total += x * w2s[j]
    return float(1.0 / (1.0 + np.exp(-(total + b2[0]))))


@njit(cache=True, nogil=True, fastmath=True)
def policy_head(wps: np.ndarray, bp: np.ndarray, s: np.ndarray, hidden: np.ndarray,
                logits: np.ndarray) -> None:
    """The logits of the legal moves of `s` into `logits`, from the hidden units (a
    product of the units the policy reads a move)."""
    h = wps.shape[1]
    boards = playable_boards(s)
    while boards:
        b = NTH[boards, 0]
        boards &= boards - 1
        e = empty_cells(s, b)
        while e:
            a = 9 * b + NTH[e, 0]
            e &= e - 1
            z = np.float32(0.0)
            for j in range(h):
                z += wps[a, j] * hidden[j]
            logits[a] = bp[a] + z


@njit(cache=True, nogil=True, fastmath=True)
def evaluate_arrays(w1q: np.ndarray, b1q: np.ndarray, w2s: np.ndarray, b2: np.ndarray,
                    top: np.ndarray, wps: np.ndarray, bp: np.ndarray, s: np.ndarray, flags: int,
                    idx: np.ndarray, acc: np.ndarray, hidden: np.ndarray,
                    logits: np.ndarray) -> float:
    """The value of `s` for the side to move (0..1), on the arrays of a `SearchFastNet`,
    and with a policy (`wps` has rows) the logits of the legal moves into `logits`;
    `idx`, `acc` and `hidden` are work arrays (MAX_ACTIVE int64, HIDDEN int16 and
    float32).

    The hidden sums are int16 adds of the weight rows of the features that are
    on (`sum_rows`); they cannot overflow (`for_search`). The search keeps them per
    node and adds only what changed (`sums_from`).
    """
    n = features(s, flags, idx)
    sum_rows(w1q, b1q, idx, n, acc)
    value = value_head(w2s, b2, top, acc, hidden)
    if wps.shape[0]:
        policy_head(wps, bp, s, hidden, logits)
    return value


@njit(cache=True, nogil=True)
def evaluate(sn: SearchFastNet, s: np.ndarray, flags: int, idx: np.ndarray,
             acc: np.ndarray, logits: np.ndarray) -> float:
    """`evaluate_arrays` on a `SearchFastNet` (`acc` int16 of the hidden size)."""
    return evaluate_arrays(sn.w1q, sn.b1q, sn.w2s, sn.b2, sn.top, sn.wps, sn.bp, s, flags, idx,
                           acc, np.empty(acc.shape[0], np.float32), logits)


def evaluate_float(net: FastNet, states: np.ndarray, flags: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The float32 reference: the values and the 81 logits of many kernel states (rows
    of `states`)."""
    x = encode(states.astype(np.int64), flags.astype(np.int64)).astype(np.float32)
    hidden = np.clip(x @ net.w1 + net.b1, 0.0, 1.0)
    return 1.0 / (1.0 + np.exp(-(hidden @ net.w2 + net.b2[0]))), hidden @ net.wp + net.bp


@njit(cache=True)
def encode(states: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """The features of each position as a dense (n, FEATURES) uint8 array."""
    n = states.shape[0]
    out = np.zeros((n, FEATURES), np.uint8)
    idx = np.empty(MAX_ACTIVE, np.int64)
    s = np.empty(states.shape[1], np.int64)
    for i in range(n):
        for k in range(s.shape[0]):
            s[k] = states[i, k]
        m = features(s, flags[i], idx)
        for k in range(m):
            out[i, idx[k]] = 1
    return out


def action_maps() -> np.ndarray:
    """The action maps (8, 81) of the board's eight symmetries."""
    return np.array([[9 * sq[a // 9] + sq[a % 9] for a in range(81)] for sq in SYMMETRIES])


def symmetries() -> np.ndarray:
    """The feature maps (8, FEATURES) of the board's eight symmetries: feature j goes
    to map[k, j]."""
    fmaps = np.tile(np.arange(FEATURES), (8, 1))
    for k, (sq, cells) in enumerate(zip(SYMMETRIES, action_maps(), strict=True)):
        for base in CELL_GROUPS:
            fmaps[k, base:base + 81] = base + cells
        for base in BOARD_GROUPS:
            fmaps[k, base:base + 9] = base + np.array(sq)
    return fmaps


# --- files -------------------------------------------------------------------------------


def is_fast_net(path: str | Path) -> bool:
    """True if the .npz at `path` holds a fast network (its arrays' names say so)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return "f_w1" in data.files
    except Exception:
        return False


def save_fast_net(net: FastNet, path: str | Path, meta: dict[str, object]) -> None:
    """Write `net` and its `meta` (how it was made) as a .npz, atomically."""
    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as f:
        np.savez(f, meta=np.array(json.dumps(meta, sort_keys=True)),
                 **{name: np.ascontiguousarray(a, np.float32)  # type: ignore[arg-type]
                    for name, a in zip(ARRAYS, net, strict=True)})
    os.replace(tmp, path)


def load_fast_net(path: str | Path) -> FastNet:
    """The fast network in the .npz `path`; `FastNetError` with the reason if the file
    is missing or not one."""
    p = Path(path)
    if p.is_file() and not zipfile.is_zipfile(p):
        raise FastNetError(f"network file {str(p)!r} is not a .npz weights file")
    try:
        with np.load(p, allow_pickle=False) as data:
            arrays = {k: data[k] for k in ARRAYS if k in data.files}
    except FileNotFoundError:
        raise FastNetError(f"no network file {str(p)!r}") from None
    except Exception as exc:
        raise FastNetError(f"network file {str(p)!r} is not readable ({exc})") from None
    if "f_wp" not in arrays and "f_bp" not in arrays and "f_b1" in arrays:  # value only
        h = arrays["f_b1"].shape[0] if arrays["f_b1"].ndim == 1 else 0
        arrays["f_wp"], arrays["f_bp"] = np.zeros((h, 81), np.float32), np.zeros(81, np.float32)
    missing = [k for k in ARRAYS if k not in arrays]
    if missing:
        raise FastNetError(f"network file {str(p)!r} has no {', '.join(missing)}")
    h = arrays["f_b1"].shape[0] if arrays["f_b1"].ndim == 1 else 0
    want = {"f_w1": (FEATURES, h), "f_b1": (h,), "f_w2": (h,), "f_b2": (1,), "f_wp": (h, 81),
            "f_bp": (81,)}
    for name, shape in want.items():
        a = arrays[name]
        if h == 0 or a.shape != shape or a.dtype != np.float32:
            raise FastNetError(f"network file {str(p)!r}: {name} is {a.dtype}{list(a.shape)}, "
                                f"not float32{list(shape)}")
        if not np.isfinite(a).all():
            raise FastNetError(f"network file {str(p)!r}: {name} holds NaN or infinity")
    return FastNet(*(np.ascontiguousarray(arrays[k]) for k in ARRAYS))


def random_fast_net(seed: int = 0, hidden: int = HIDDEN) -> FastNet:
    """Small random weights (for tests and a first training)."""
    rng = np.random.default_rng(seed)
    return FastNet(w1=(rng.standard_normal((FEATURES, hidden)) * 0.1).astype(np.float32),
                    b1=np.full(hidden, 0.25, np.float32),
                    w2=(rng.standard_normal(hidden) * 0.1).astype(np.float32),
                    b2=np.zeros(1, np.float32),
                    wp=(rng.standard_normal((hidden, 81)) * 0.1).astype(np.float32),
                    bp=np.zeros(81, np.float32))


warmup.add("fastnet", seconds=3, steps=[
    (features, lambda: (kernel.new_state(), 0, np.empty(MAX_ACTIVE, np.int64))),
    (evaluate, lambda: (for_search(random_fast_net(0, 8)), kernel.new_state(), 0,
                        np.empty(MAX_ACTIVE, np.int64), np.empty(8, np.int16),
                        np.zeros(81, np.float32))),
])
