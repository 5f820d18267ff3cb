"""`policy`: the network's first guess, without a search: plain Python, ready at once.

The move the network's policy head rates highest among the legal moves, the
network evaluated once in plain Python (no numpy, no numba: 2-4 ms a move).
A bot answers with it while its search loads (`ninefold.protocols.engine`): at
CodinGame's clock that is the first half-dozen turns, where the naive player
answered before. It is far weaker than the search (one evaluation against
thousands) and far stronger than the naive player.

The weights are read from the network's ``.npz`` (``net=default``: the one
shipped) with the standard library: numpy would add about 0.2 s to the bot's
start, on the clock of its first turn.

>>> from ninefold import Board
>>> result = PolicyPlayer().play(Board("codingame"))
>>> result.info["reason"], result.move in Board().legal_moves
('policy', True)
"""

from __future__ import annotations

import ast
import math
import operator
import sys
import zipfile
from array import array
from functools import cache
from typing import NamedTuple

from ninefold.players.net_inputs import FEATURES, net_path
from ninefold.players.net_inputs import board_features as features
from ninefold.players.player import Limit, Player, PlayResult
from ninefold.players.registry import register
from ninefold.rules import Board

_MAGIC = b"\x93NUMPY"


class PlainNet(NamedTuple):
    """A network's policy weights as rows of plain float32 arrays (`read_net`; the value
    head is not read)."""

    w1: list[array[float]]  # a row of H1 per feature
    b1: array[float]
    w2: list[array[float]]  # a row of H2 per first-layer unit
    b2: array[float]
    wp_moves: list[array[float]]  # a row of H2 per move: the policy head, transposed
    bp: array[float]


def _npy(data: bytes, name: str) -> tuple[tuple[int, ...], array[float]]:
    """The shape and the values of a little-endian float32 ``.npy`` file's `data`."""
    if not data.startswith(_MAGIC) or len(data) < 10:
        raise ValueError(f"{name} is not a .npy array")
    size, at = (int.from_bytes(data[8:10], "little"), 10) if data[6] == 1 else (
        int.from_bytes(data[8:12], "little"), 12)
    header = ast.literal_eval(data[at:at + size].decode("latin-1"))
    if header.get("descr") != "<f4" or header.get("fortran_order"):
        raise ValueError(f"{name} is not a float32 array in C order")
    values: array[float] = array("f")
    values.frombytes(data[at + size:])
    if sys.byteorder != "little":
        values.byteswap()
    shape = tuple(header["shape"])
    if len(values) != math.prod(shape):
        raise ValueError(f"{name} holds {len(values)} values, not {shape}")
    return shape, values


def _rows(values: array[float], width: int) -> list[array[float]]:
    return [values[i:i + width] for i in range(0, len(values), width)]


@cache
def read_net(path: str = "default") -> PlainNet:
    """The network in the ``.npz`` `path` (``"default"``: the one shipped), for
    `forward`; `ValueError` with the reason if it is not a network."""
    p = net_path(path)
    try:
        with zipfile.ZipFile(p) as archive:
            arrays = {name: _npy(archive.read(f"{name}.npy"), name)
                      for name in ("w1", "b1", "w2", "b2", "wp", "bp")}
    except (OSError, KeyError, zipfile.BadZipFile, SyntaxError, ValueError) as exc:
        raise ValueError(f"network file {str(p)!r} is not readable ({exc})") from None
    (features, h1), w1 = arrays["w1"]
    (_, h2), w2 = arrays["w2"]
    if features != FEATURES:
        raise ValueError(f"network file {str(p)!r} has {features} features, not {FEATURES}")
    _, wp = arrays["wp"]
    wp_moves = [wp[j::81] for j in range(81)]  # column j of the (H2, 81) policy weights
    return PlainNet(_rows(w1, h1), arrays["b1"][1], _rows(w2, h2), arrays["b2"][1], wp_moves,
                    arrays["bp"][1])


def forward(net: PlainNet, active: list[int], actions: list[int]) -> list[float]:
    """The policy logits of `actions` for a position whose features `active` are on:
    each layer adds up the weight rows of its inputs that are on."""
    add, mul = operator.add, operator.mul
    h1: list[float] = list(net.b1)
    for f in active:
        h1 = list(map(add, h1, net.w1[f]))
    h2: list[float] = list(net.b2)
    for i, x in enumerate(h1):
        if x > 0.0:
            h2 = [a + x * w for a, w in zip(h2, net.w2[i], strict=True)]
    h2 = [max(x, 0.0) for x in h2]
    return [net.bp[a] + sum(map(mul, h2, net.wp_moves[a])) for a in actions]


@register("policy")
class PolicyPlayer(Player):
    """The legal move the network's policy rates highest (`net`: a ``.npz`` path, or
    ``default``); ready at once, but not `instant` (a few ms a move)."""

    def __init__(self, net: str = "default") -> None:
        self.net = net
        read_net(net)  # a bad file is refused when the player is made

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        moves = list(board.legal_moves)
        logits = forward(read_net(self.net), features(board), [m.action for m in moves])
        best = max(range(len(moves)), key=logits.__getitem__)
        return PlayResult(moves[best], {"reason": "policy"})
