"""A proved strategy stored as arrays, read in a tenth of a second without numba or `Board`.

A `Strategy` of `ninefold.proof.search` is a dict from position strings to
X's moves, and proving one and reading it off the search's table takes a
minute, most of it in building position strings through `Board`. Stored, it
is three arrays in the order of `ninefold.proof.walk`'s walk: each position's
exact key (three integers: the marks, owners, board sent to and side; see
`board_key`), X's move there (an action, ``9 * board + cell``) and the plies
to X's win against O's longest defence, with the root position. `Stored`
looks a `Board` up by its key, a binary search among the keys' hashes.

The arrays are what the walk makes from the moves alone (`check` walks them
again with the kernel and demands the same keys and plies: the walk verifies
that every line wins), so a file is a strategy that `check` can verify.

>>> from ninefold.proof.search import prove
>>> board = Board.from_position("open-boards x1xx1xoox/o1ox1xxo1/oxoxxxx1o/"
...     "1o1xo1xoo/x1ooxo1xx/oox2xoxo/oo2oooox/xox1xooox/2x1oxxxo x 3 .xo.x...o")
>>> stored = make(prove(board))
>>> len(stored), stored.move(board), stored.plies_left(board)
(10, Move(board=3, cell=4), 9)
>>> check(from_bytes(stored.to_bytes())) == stored
True
"""

from __future__ import annotations

import io
import zipfile
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ninefold.proof.certificate import CertificateError
from ninefold.rules import Board, Mark, Move

if TYPE_CHECKING:
    from ninefold.proof.search import Strategy

FORMAT = 1


class StoredError(CertificateError):
    """A stored strategy that cannot be read, or whose arrays are not its moves' walk (the
    walk itself refuses moves that do not win with a `CertificateError`)."""


def board_key(board: Board) -> tuple[int, int, int]:
    """`board`'s exact key, as `ninefold.proof.walk.exact_key` makes it from its kernel
    state: X's then O's 9-bit masks of boards 1-9 at 9 bits apiece over three integers of
    63 bits, then the owners' masks, the board sent to plus one and the side to move."""
    masks = [0] * 18
    for i, mark in enumerate(board.cells):
        if mark is not None:
            masks[9 * int(mark) + i // 9] |= 1 << (i % 9)
    owned = [0, 0]
    for b, owner in enumerate(board.owners):
        if owner is not None:
            owned[int(owner)] |= 1 << b
    k0 = sum(masks[b] << (9 * b) for b in range(7))
    k1 = sum(masks[7 + b] << (9 * b) for b in range(7))
    k2 = sum(masks[14 + b] << (9 * b) for b in range(4))
    forced = -1 if board.target is None else board.target
    k2 |= owned[0] << 36 | owned[1] << 45 | (forced + 1) << 54 | int(board.turn) << 58
    return k0, k1, k2


def _hashes(keys: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of exact keys (n, 3) (int64 products wrap)."""
    mix = np.array([0x5851F42D4C957F2D, 0x14057B7EF767814F, 0x2545F4914F6CDD1D], np.int64)
    rows = keys * mix
    return rows[:, 0] ^ rows[:, 1] ^ rows[:, 2]


class Stored:
    """X's strategy from `root`: for each position X meets, its key, X's move and the plies
    to X's win against O's longest defence, in walk order (the root first)."""

    def __init__(self, root: str, keys: np.ndarray, actions: np.ndarray,
                 plies: np.ndarray) -> None:
        if not len(keys) == len(actions) == len(plies) or keys.shape[1:] != (3,):
            raise StoredError(f"its arrays differ in length ({len(keys):,} keys, "
                              f"{len(actions):,} moves, {len(plies):,} plies)")
        self.root = root
        self.rules = Board.from_position(root).rules
        self.keys = keys.astype(np.int64)
        self.actions = actions.astype(np.uint8)
        self.plies = plies.astype(np.int16)

    def __repr__(self) -> str:
        return f"Stored({self.root!r}, {len(self):,} positions)"

    def __len__(self) -> int:
        return len(self.actions)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Stored) and self.root == other.root
                and all(np.array_equal(a, b) for a, b in (
                    (self.keys, other.keys), (self.actions, other.actions),
                    (self.plies, other.plies))))

    __hash__ = None  # type: ignore[assignment]  # arrays inside

    @cached_property
    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        """(the keys' hashes sorted, the index of each): a lookup is a binary search."""
        hashes = _hashes(self.keys)
        order = np.argsort(hashes, kind="stable")
        return hashes[order], order

    def _find(self, board: Board) -> int | None:
        if board.rules != self.rules or board.turn is not Mark.X:
            return None
        key = np.array([board_key(board)], np.int64)
        hashes, order = self._sorted
        wanted = _hashes(key)[0]
        at = int(np.searchsorted(hashes, wanted))
        while at < len(hashes) and hashes[at] == wanted:
            if np.array_equal(self.keys[order[at]], key[0]):
                return int(order[at])
            at += 1
        return None

    def move(self, board: Board) -> Move | None:
        """X's move on `board`, or None where the strategy does not reach."""
        i = self._find(board)
        return None if i is None else Move.from_action(int(self.actions[i]))

    def plies_left(self, board: Board) -> int | None:
        """Plies to X's win from `board` (X to move) against O's longest defence, or
        None where the strategy does not reach."""
        i = self._find(board)
        return None if i is None else int(self.plies[i])

    def to_bytes(self) -> bytes:
        """The stored form: a compressed ``.npz`` of the root, the format and the arrays
        (the keys as 24 rows of bytes, which compress to a fifth)."""
        out = io.BytesIO()
        rows = self.keys.astype("<i8").view(np.uint8).reshape(len(self), 24).T
        np.savez_compressed(out, format=np.array(FORMAT), root=np.array(self.root),
                            keys=np.ascontiguousarray(rows), actions=self.actions,
                            plies=self.plies)
        return out.getvalue()


def from_bytes(data: bytes) -> Stored:
    """Read `Stored.to_bytes`'s form; `StoredError` if it cannot be read (it is not
    walked: `check` does that)."""
    if not data.startswith(b"PK"):
        raise StoredError("not a stored strategy: not an .npz archive")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            if int(arrays["format"]) != FORMAT:
                raise StoredError(f"format {int(arrays['format'])}, not {FORMAT}")
            rows = arrays["keys"]
            keys = np.ascontiguousarray(rows.T).view("<i8").reshape(-1, 3)
            return Stored(str(arrays["root"]), keys, arrays["actions"], arrays["plies"])
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        if isinstance(exc, StoredError):
            raise
        raise StoredError(f"not a stored strategy: {exc}") from None


def load(path: Path) -> Stored:
    """Read the strategy stored at `path` (`StoredError`, or `OSError`)."""
    return from_bytes(path.read_bytes())


def make(strategy: Strategy) -> Stored:
    """A proved `Strategy`, walked (and so checked) and stored."""
    from ninefold.proof.walk import from_strategy

    return Stored(strategy.root, *from_strategy(strategy))


def check(stored: Stored) -> Stored:
    """`stored`, once the walk of its moves (with the kernel) has shown that they win for X
    everywhere and that its keys and plies are the walk's; `StoredError` if not."""
    from ninefold.proof.walk import walked

    again = Stored(stored.root, *walked(stored.root, stored.actions))
    if again != stored:
        raise StoredError("its keys or plies are not those of its moves' walk")
    return stored
