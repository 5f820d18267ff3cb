"""The network's inputs without numba or numpy: the feature layout, and a `Board`'s features.

`ninefold.players.net` computes the features inside the search, on the
kernel's integer masks; `board_features` computes the same ones from a
`Board` in plain Python, for a player that must answer before numba loads
(`ninefold.players.policy`). The test suite checks that the two agree on
positions of every rules preset.

The 455 features are seen by the side to move (offsets below): its marks,
the opponent's, the legal cells, the boards each side owns, the closed
boards, a free move, playing O, the three rules flags, and the threats: the
empty cells that would win an undecided small board for each side, and the
undecided boards whose win would win the game for each side.

>>> from ninefold.rules import Board, Move
>>> board = Board()
>>> board.push(Move(4, 4))
>>> active = board_features(board)
>>> OPP + 9 * 4 + 4 in active, PLAYS_O in active, FREE_MOVE in active
(True, True, False)
>>> sum(LEGAL <= f < LEGAL + 81 for f in active)  # the eight empty cells of e5's board
8
"""

from __future__ import annotations

from pathlib import Path

from ninefold.moves import LINES, Mark
from ninefold.rules import FLAG_COUNT_FULL, FLAG_OPEN_BOARDS, FLAG_WIN_FIVE, Board

# feature offsets
OWN, OPP, LEGAL, OWN_BOARDS, OPP_BOARDS, CLOSED_BOARDS = 0, 81, 162, 243, 252, 261
FREE_MOVE, PLAYS_O, COUNT_FULL, OPEN_BOARDS, WIN_FIVE = 270, 271, 272, 273, 274
OWN_THREATS, OPP_THREATS, OWN_BIG_THREATS, OPP_BIG_THREATS = 275, 356, 437, 446
FEATURES = 455
CELL_GROUPS = (OWN, OPP, LEGAL, OWN_THREATS, OPP_THREATS)  # a feature per cell (81 each)
BOARD_GROUPS = (OWN_BOARDS, OPP_BOARDS, CLOSED_BOARDS, OWN_BIG_THREATS, OPP_BIG_THREATS)  # 9 each
HIDDEN = (512, 128)  # the shipped network's, and what `python -m ninefold.learn` trains

_FLAGS = ((FLAG_COUNT_FULL, COUNT_FULL), (FLAG_OPEN_BOARDS, OPEN_BOARDS), (FLAG_WIN_FIVE, WIN_FIVE))

DEFAULT_PATH = Path(__file__).with_name("net_default.npz")
DEFAULT_SHA256 = "21fc7b8881b4e43a93de827a7a3323b80a16223a3a7bbdc4eb13329b44334148"


def net_path(name: str | Path) -> Path:
    """The weights file a network's name stands for: ``"default"`` is the one shipped
    with ninefold (`DEFAULT_PATH`), anything else a path.

    >>> net_path("default") == DEFAULT_PATH, net_path("runs/a.npz")
    (True, PosixPath('runs/a.npz'))
    """
    return DEFAULT_PATH if str(name) == "default" else Path(name)


def board_features(board: Board) -> list[int]:
    """The indices of the features that are on in `board`, a game in progress, ascending:
    the same set `ninefold.players.net.features` finds, computed the readable way."""
    me, them = board.turn, board.turn.other
    on = set()
    legal = {move.action for move in board.legal_moves}
    for a, mark in enumerate(board.cells):
        if mark is not None:
            on.add((OWN if mark is me else OPP) + a)
        if a in legal:
            on.add(LEGAL + a)
    for b, owner in enumerate(board.owners):
        if owner is not None:
            on.add((OWN_BOARDS if owner is me else OPP_BOARDS) + b)
        if board.is_closed(b):
            on.add(CLOSED_BOARDS + b)
    # threats: an empty cell that would win its undecided board, an undecided board that
    # would win the game
    undecided = [b for b in range(9) if board.owners[b] is None and not board.is_closed(b)]
    five = board.rules.win == "five"
    for side, cells_base, boards_base in ((me, OWN_THREATS, OWN_BIG_THREATS),
                                          (them, OPP_THREATS, OPP_BIG_THREATS)):
        owned = {b for b in range(9) if board.owners[b] is side}
        for b in undecided:
            mine = {c for c in range(9) if board.cells[9 * b + c] is side}
            for c in range(9):
                if board.cells[9 * b + c] is None and _completes(mine, c):
                    on.add(cells_base + 9 * b + c)
            if len(owned) >= 4 if five else _completes(owned, b):
                on.add(boards_base + b)
    if board.target is None:
        on.add(FREE_MOVE)
    if me is Mark.O:
        on.add(PLAYS_O)
    on.update(feature for flag, feature in _FLAGS if board.rules.flags & flag)
    return sorted(on)


def _completes(marked: set[int], square: int) -> bool:
    """True if `square` would complete a line of three with the squares `marked`."""
    return any(set(line) <= marked | {square} for line in LINES)
