"""The policy-value network the `mcts` search can ask instead of playing out.

A small multilayer perceptron, evaluated one position at a time inside the
numba search (no framework at play time):

    455 binary features -> 512 ReLU -> 128 ReLU -> 81 move logits and 1 value

The features (`features`) are seen by the side to move: its marks (81), the
opponent's (81), the legal cells (81), the small boards each side owns (9 + 9),
the closed boards (9), a free move, playing O, the three rules flags (board
count, open boards, five boards), so one network knows every preset, and
the threats: the empty cells that would win a small board for each side
(81 + 81) and the undecided boards whose win would win the game for each
side (9 + 9). The threats are what a search finds first; given them, a
network of this size plays about 130 Elo stronger at equal simulations
than one that had to learn them from the marks.
About 45 features are on in a typical position, so the first layer is the
sum of their rows of `w1` rather than a matrix product; the later layers
likewise add up only the rows of the units ReLU let through (about a third
of them). The value is the expected score of the side to move (win 1,
draw 1/2, loss 0).

`evaluate` is the float32 reference. The search evaluates with
`evaluate_moves` (in the form `evaluate_arrays`, on the arrays themselves)
the network as `for_search` lays it out: the policy of the legal moves only
(a row of `wp_moves` each), and with ``quantised`` (``mcts:quant=on``, the
default) a first layer in int16 steps summed exactly in int32.

The weights are plain float32 arrays in a ``.npz`` file (`save_net`,
`load_net`); the one shipped with ninefold is `DEFAULT_PATH`, a 512-128
trained by ``python -m ninefold.learn.distill`` on the games of its parent
network's search (its ``meta`` entry records the command, the seed, the data
files' checksums, the teacher's, the machine and its parents' own ``meta``;
docs/reference/network.md, "Provenance"), and
`ninefold.players.net_inputs.DEFAULT_SHA256` is its checksum.

>>> net = load_net("default")
>>> net.w1.shape, net.wp.shape
((455, 512), (128, 81))
>>> s = kernel.new_state()
>>> logits = np.empty(81, np.float32)
>>> 0.0 < evaluate(net, s, 0, Scratch.make(net), logits) < 1.0
True
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

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
from ninefold.players import warmup
from ninefold.players.net_inputs import (
    CLOSED_BOARDS,
    COUNT_FULL,
    FEATURES,
    FREE_MOVE,
    HIDDEN,
    LEGAL,
    OPEN_BOARDS,
    OPP,
    OPP_BIG_THREATS,
    OPP_BOARDS,
    OPP_THREATS,
    OWN,
    OWN_BIG_THREATS,
    OWN_BOARDS,
    OWN_THREATS,
    PLAYS_O,
    WIN_FIVE,
    net_path,
)
from ninefold.rules import FLAG_COUNT_FULL, FLAG_OPEN_BOARDS, FLAG_WIN_FIVE

MAX_ACTIVE = 81 + 81 + 27 + 6 + 81 + 18  # marks, legal cells and threats overlap little


class NetError(ValueError):
    """A weights file that is missing, unreadable or not a ninefold network."""


class Net(NamedTuple):
    """The network's weights (float32, C order); shapes in `SHAPES`."""

    w1: np.ndarray  # (FEATURES, H1): one row per feature
    b1: np.ndarray  # (H1,)
    w2: np.ndarray  # (H1, H2): one row per first-layer unit
    b2: np.ndarray  # (H2,)
    wp: np.ndarray  # (H2, 81): policy logits
    bp: np.ndarray  # (81,)
    wv: np.ndarray  # (H2,): value logit
    bv: np.ndarray  # (1,)


def shapes(h1: int = HIDDEN[0], h2: int = HIDDEN[1]) -> dict[str, tuple[int, ...]]:
    """The shape of each weight array for hidden sizes `h1`, `h2`."""
    return {"w1": (FEATURES, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,),
            "wp": (h2, 81), "bp": (81,), "wv": (h2,), "bv": (1,)}


class SearchNet(NamedTuple):
    """A `Net` laid out for the search (`for_search`), as `evaluate_moves` reads it."""

    net: Net  # the float32 weights
    wp_moves: np.ndarray  # (81, H2) float32: `wp` transposed, each move's weights in a row
    w1q: np.ndarray  # (FEATURES, H1) int16: `w1` in steps of `step`; no rows: not quantised
    step: np.ndarray  # (H1,) float32: the size of a step of `w1q` in each column


def for_search(net: Net, quantised: bool = False) -> SearchNet:
    """`net` laid out for `evaluate_moves`; with `quantised`, its first layer in int16.

    Quantised, the first layer's sum over the features that are on is exact
    in int32 and scaled once per unit: each column of `w1` in 32767 steps of
    its largest weight, so a weight moves by at most half a step (max |w1| / 65534).

    >>> sn = for_search(load_net("default"), quantised=True)
    >>> sn.w1q.dtype, sn.wp_moves.shape
    (dtype('int16'), (81, 128))
    >>> bool(np.abs(sn.w1q * sn.step - sn.net.w1).max() <= sn.step.max() / 2)
    True
    """
    h1 = net.b1.shape[0]
    if quantised:
        step = (np.abs(net.w1).max(axis=0) / 32767.0).astype(np.float32)
        step[step == 0] = 1.0
        w1q = np.round(net.w1 / step).astype(np.int16)
    else:
        step, w1q = np.ones(h1, np.float32), np.zeros((0, h1), np.int16)
    return SearchNet(net, np.ascontiguousarray(net.wp.T), w1q, step)


class Scratch(NamedTuple):
    """Work arrays for one thread's evaluations (`new_scratch`)."""

    idx: np.ndarray  # active feature indices
    h1: np.ndarray
    h2: np.ndarray
    rows: np.ndarray  # the units ReLU let through, and their outputs (or 1, a feature's)
    xs: np.ndarray
    sums: np.ndarray  # a quantised first layer's int32 sums

    @classmethod
    def make(cls, net: Net) -> Scratch:
        return new_scratch(net)


@njit(cache=True, nogil=True)
def new_scratch(net: Net) -> Scratch:
    """Work arrays for evaluating `net` (one set per thread)."""
    h1, h2 = net.b1.shape[0], net.b2.shape[0]
    return Scratch(np.empty(MAX_ACTIVE, np.int64), np.empty(h1, np.float32),
                   np.empty(h2, np.float32), np.empty(max(h1, h2), np.int64),
                   np.empty(max(h1, h2, MAX_ACTIVE), np.float32), np.empty(h1, np.int32))


@njit(cache=True, nogil=True, inline="always")
def _bits(mask: int, base: int, idx: np.ndarray, n: int) -> int:
    """Append `base + i` for each set bit i of `mask`."""
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
    boards = playable_boards(s)
    while boards:
        b = NTH[boards, 0]
        boards &= boards - 1
        n = _bits(empty_cells(s, b), LEGAL + 9 * b, idx, n)
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
def _add_rows(h: np.ndarray, w: np.ndarray, rows: np.ndarray, xs: np.ndarray, m: int) -> None:
    """``h += sum over k < m of xs[k] * w[rows[k]]``, eight rows at a time: one pass
    over `h` for eight rows of `w`."""
    n = h.shape[0]
    k = 0
    while k + 8 <= m:
        r0, r1, r2, r3 = rows[k], rows[k + 1], rows[k + 2], rows[k + 3]
        r4, r5, r6, r7 = rows[k + 4], rows[k + 5], rows[k + 6], rows[k + 7]
        x0, x1, x2, x3 = xs[k], xs[k + 1], xs[k + 2], xs[k + 3]
        x4, x5, x6, x7 = xs[k + 4], xs[k + 5], xs[k + 6], xs[k + 7]
        for j in range(n):
            h[j] += (((x0 * w[r0, j] + x1 * w[r1, j]) + (x2 * w[r2, j] + x3 * w[r3, j]))
                     + ((x4 * w[r4, j] + x5 * w[r5, j]) + (x6 * w[r6, j] + x7 * w[r7, j])))
        k += 8
    while k < m:
        r0, x0 = rows[k], xs[k]
        for j in range(n):
            h[j] += x0 * w[r0, j]
        k += 1


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def _relu_rows(h: np.ndarray, rows: np.ndarray, xs: np.ndarray) -> int:
    """Gather the units of `h` above zero into `rows` and `xs`; returns how many.
    Without a branch: about a third of the units are on, in no pattern a branch
    predictor could learn."""
    m = 0
    for i in range(h.shape[0]):
        x = h[i]
        rows[m] = i
        xs[m] = x
        m += x > 0.0
    return m


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def _add_steps(sums: np.ndarray, w: np.ndarray, rows: np.ndarray, m: int) -> None:
    """``sums += sum over k < m of w[rows[k]]`` in int32 (`w` int16), eight rows a pass."""
    n = sums.shape[0]
    k = 0
    while k + 8 <= m:
        r0, r1, r2, r3 = rows[k], rows[k + 1], rows[k + 2], rows[k + 3]
        r4, r5, r6, r7 = rows[k + 4], rows[k + 5], rows[k + 6], rows[k + 7]
        for j in range(n):
            sums[j] += (((np.int32(w[r0, j]) + np.int32(w[r1, j]))
                         + (np.int32(w[r2, j]) + np.int32(w[r3, j])))
                        + ((np.int32(w[r4, j]) + np.int32(w[r5, j]))
                           + (np.int32(w[r6, j]) + np.int32(w[r7, j]))))
        k += 8
    while k < m:
        r0 = rows[k]
        for j in range(n):
            sums[j] += np.int32(w[r0, j])
        k += 1


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def _first_layer(w1: np.ndarray, b1: np.ndarray, idx: np.ndarray, n: int, h1: np.ndarray,
                 rows: np.ndarray, xs: np.ndarray) -> int:
    """From the `n` features in `idx`, the first layer's units (in `h1`, and those on
    gathered into `rows` and `xs`); returns how many are on."""
    h1[:] = b1
    xs[:n] = 1.0  # a feature that is on
    _add_rows(h1, w1, idx, xs, n)
    return _relu_rows(h1, rows, xs)


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def _second_layer(w2: np.ndarray, b2: np.ndarray, m: int, h2: np.ndarray, rows: np.ndarray,
                  xs: np.ndarray) -> int:
    """From the `m` first-layer units in `rows` and `xs`, the second layer's (in `h2`,
    and gathered into `rows` and `xs`); returns how many are on."""
    h2[:] = b2
    _add_rows(h2, w2, rows, xs, m)
    return _relu_rows(h2, rows, xs)


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def _value(wv: np.ndarray, bv: np.ndarray, rows: np.ndarray, xs: np.ndarray, m: int) -> float:
    """The value head over the `m` second-layer units that are on, squashed to 0..1."""
    v = bv[0]
    for k in range(m):
        v += xs[k] * wv[rows[k]]
    return 1.0 / (1.0 + np.exp(-v))


@njit(cache=True, nogil=True, fastmath=True)
def evaluate(net: Net, s: np.ndarray, flags: int, scratch: Scratch, logits: np.ndarray) -> float:
    """The value of `s` for the side to move (0..1); writes the 81 move logits to `logits`.

    Each layer adds up the weight rows of its active inputs (the features
    that are on, then the units ReLU let through), eight rows a pass.
    """
    idx, h1, h2, rows, xs, _ = scratch
    m = _first_layer(net.w1, net.b1, idx, features(s, flags, idx), h1, rows, xs)
    m = _second_layer(net.w2, net.b2, m, h2, rows, xs)
    logits[:] = net.bp
    _add_rows(logits, net.wp, rows, xs, m)
    return _value(net.wv, net.bv, rows, xs, m)


@njit(cache=True, nogil=True, fastmath=True, inline="always")
def evaluate_moves(sn: SearchNet, s: np.ndarray, flags: int, scratch: Scratch,
                   logits: np.ndarray) -> float:
    """`evaluate` for the search: the logits of the legal moves only (the others in
    `logits` are left as they were), and a quantised first layer if `sn` has one.

    Not quantised, the value and logits are `evaluate`'s up to float rounding.
    A position with few legal moves (most: 81 logits for 7 to 9 moves) takes
    each move's logit as one product of its row of `wp_moves` with the second
    layer; one with many, all 81 as in `evaluate`.

    It takes the arrays out of `sn` and `scratch` and hands them to
    `evaluate_arrays`: passed in their tuples to each layer, every layer
    counted a reference to each array (numba's reference counting). A loop
    over many positions takes them out once and calls `evaluate_arrays`
    itself, as the search does.
    """
    net = sn.net
    return evaluate_arrays(sn.w1q, sn.step, net.w1, net.b1, net.w2, net.b2, sn.wp_moves,
                           net.bp, net.wp, net.wv, net.bv, s, flags, scratch.idx, scratch.h1,
                           scratch.h2, scratch.rows, scratch.xs, scratch.sums, logits)


@njit(cache=True, nogil=True, fastmath=True)
def evaluate_arrays(w1q: np.ndarray, step: np.ndarray, w1: np.ndarray, b1: np.ndarray,
                    w2: np.ndarray, b2: np.ndarray, wp_moves: np.ndarray, bp: np.ndarray,
                    wp: np.ndarray, wv: np.ndarray, bv: np.ndarray, s: np.ndarray, flags: int,
                    idx: np.ndarray, h1: np.ndarray, h2: np.ndarray, rows: np.ndarray,
                    xs: np.ndarray, sums: np.ndarray, logits: np.ndarray) -> float:
    """`evaluate_moves` on the network's and the scratch's arrays themselves.

    A loop that evaluates many positions takes the arrays out of their tuples
    once and calls this (as `ninefold.players.mcts_tree.search` does): numba
    counts a reference to an array each time it is taken out of a tuple, and
    twenty of those an evaluation cost about 0.25 µs.
    """
    n = features(s, flags, idx)
    if w1q.shape[0]:
        sums[:] = 0
        _add_steps(sums, w1q, idx, n)
        for j in range(h1.shape[0]):
            h1[j] = b1[j] + step[j] * np.float32(sums[j])
        m = _relu_rows(h1, rows, xs)
    else:
        m = _first_layer(w1, b1, idx, n, h1, rows, xs)
    m = _second_layer(w2, b2, m, h2, rows, xs)
    legal = 0
    for k in range(n):
        legal += LEGAL <= idx[k] < LEGAL + 81
    if legal * h2.shape[0] <= m * 81:  # a row of H2 a move costs less than m rows of 81
        for j in range(h2.shape[0]):
            h2[j] = max(h2[j], np.float32(0.0))
        for k in range(n):
            a = idx[k] - LEGAL
            if 0 <= a < 81:
                total = np.float32(0.0)
                for j in range(h2.shape[0]):
                    total += wp_moves[a, j] * h2[j]
                logits[a] = bp[a] + total
    else:
        logits[:] = bp
        _add_rows(logits, wp, rows, xs, m)
    return _value(wv, bv, rows, xs, m)


# --- files -------------------------------------------------------------------------------


def save_net(net: Net, path: str | Path, meta: dict[str, object]) -> None:
    """Write `net` and its `meta` (how it was made) as a .npz, atomically."""
    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as f:
        # (the stub fears the unpacked names hold `allow_pickle`: they are the net's fields)
        np.savez(f, meta=np.array(json.dumps(meta, sort_keys=True)),
                 **{k: np.ascontiguousarray(v, np.float32)  # type: ignore[arg-type]
                    for k, v in net._asdict().items()})
    os.replace(tmp, path)


def load_net(path: str | Path = "default") -> Net:
    """The network in the .npz `path` (``"default"``: the one shipped with ninefold).

    Raises `NetError` with the reason if the file is missing or not a network.
    """
    p = net_path(path)
    if p.is_file() and not zipfile.is_zipfile(p):
        raise NetError(f"network file {str(p)!r} is not a .npz weights file")
    try:
        with np.load(p, allow_pickle=False) as data:
            arrays = {k: data[k] for k in Net._fields if k in data.files}
    except FileNotFoundError:
        raise NetError(f"no network file {str(p)!r}") from None
    except IsADirectoryError:
        raise NetError(f"network file {str(p)!r} is a directory") from None
    except Exception as exc:  # numpy raises several kinds for a damaged archive
        raise NetError(f"network file {str(p)!r} is not readable ({exc})") from None
    missing = [k for k in Net._fields if k not in arrays]
    if missing:
        raise NetError(f"network file {str(p)!r} has no {', '.join(missing)}")
    h1, h2 = arrays["b1"].shape[:1] or (0,), arrays["b2"].shape[:1] or (0,)
    want = shapes(h1[0], h2[0])
    for name, shape in want.items():
        a = arrays[name]
        if a.shape != shape or a.dtype != np.float32:
            raise NetError(f"network file {str(p)!r}: {name} is {a.dtype}{list(a.shape)}, "
                           f"not float32{list(shape)}")
        if not np.isfinite(a).all():
            raise NetError(f"network file {str(p)!r}: {name} holds NaN or infinity")
    return Net(*(np.ascontiguousarray(arrays[k]) for k in Net._fields))


def net_meta(path: str | Path = "default") -> dict[str, object]:
    """The ``meta`` entry of a weights file: how the network was made."""
    p = net_path(path)
    with np.load(p, allow_pickle=False) as data:
        return json.loads(str(data["meta"])) if "meta" in data.files else {}


def sha256(path: str | Path) -> str:
    """The SHA-256 of a file, in hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def random_net(seed: int = 0, h1: int = HIDDEN[0], h2: int = HIDDEN[1]) -> Net:
    """A network with small random weights (for tests and the first training round)."""
    rng = np.random.default_rng(seed)
    arrays = {}
    for name, shape in shapes(h1, h2).items():
        fan_in = shape[0] if len(shape) == 2 else 1
        scale = 0.0 if name.startswith("b") else np.sqrt(2.0 / max(fan_in, 1)) * 0.5
        arrays[name] = (rng.standard_normal(shape) * scale).astype(np.float32)
    return Net(**arrays)


def _tiny() -> tuple[Net, Scratch]:
    net = random_net(0, 8, 8)
    return net, new_scratch(net)


warmup.add("net", seconds=4, steps=[
    (new_scratch, lambda: _tiny()[:1]),
    (features, lambda: (kernel.new_state(), 0, np.empty(MAX_ACTIVE, np.int64))),
    (evaluate, lambda: (*_tiny()[:1], kernel.new_state(), 0, _tiny()[1],
                        np.empty(81, np.float32))),
    (evaluate_moves, lambda: (for_search(_tiny()[0]), kernel.new_state(), 0, _tiny()[1],
                              np.empty(81, np.float32))),
])
