"""Pictures of a position for the environments: ``"ansi"`` text and an ``"rgb_array"`` image.

>>> from ninefold.rules import Board, Move
>>> board = Board()
>>> board.push(Move(4, 4))
>>> image = rgb_array(board)
>>> image.shape, image.dtype.name
((318, 318, 3), 'uint8')
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from ninefold.rules import Board, X

CELL = 32  # pixels a cell
GAP = 9  # pixels between small boards
MARGIN = 6
SIZE = 2 * MARGIN + 9 * CELL + 2 * GAP
BACKGROUND = (250, 248, 240)
LINE = (120, 120, 120)
X_COLOUR = (200, 40, 40)
O_COLOUR = (30, 80, 200)
LEGAL = (255, 236, 150)
LAST = (210, 230, 210)


def ansi(board: Board) -> str:
    """The board's text picture and status line."""
    return str(board) + "\n"


def _corner(row: int, col: int) -> tuple[int, int]:
    return (MARGIN + col * CELL + (col // 3) * GAP, MARGIN + row * CELL + (row // 3) * GAP)


def rgb_array(board: Board) -> np.ndarray:
    """A (SIZE, SIZE, 3) uint8 picture: marks, legal cells shaded, won boards tinted."""
    image = Image.new("RGB", (SIZE, SIZE), BACKGROUND)
    draw = ImageDraw.Draw(image)
    legal = {move.action for move in board.legal_moves}
    last = board.move_stack[-1].action if board.move_stack else None
    for b in range(9):
        owner = board.owners[b]
        if owner is not None:
            x0, y0 = _corner(3 * (b // 3), 3 * (b % 3))
            tint = (250, 215, 215) if owner is X else (215, 225, 250)
            draw.rectangle([x0 - 3, y0 - 3, x0 + 3 * CELL + 3, y0 + 3 * CELL + 3], fill=tint)
        for c in range(9):
            row, col = 3 * (b // 3) + c // 3, 3 * (b % 3) + c % 3
            x0, y0 = _corner(row, col)
            box = [x0 + 1, y0 + 1, x0 + CELL - 1, y0 + CELL - 1]
            action = 9 * b + c
            if action in legal:
                draw.rectangle(box, fill=LEGAL)
            elif action == last:
                draw.rectangle(box, fill=LAST)
            draw.rectangle(box, outline=LINE)
            mark = board.cells[action]
            pad = 7
            if mark is X:
                draw.line([x0 + pad, y0 + pad, x0 + CELL - pad, y0 + CELL - pad], X_COLOUR, 3)
                draw.line([x0 + pad, y0 + CELL - pad, x0 + CELL - pad, y0 + pad], X_COLOUR, 3)
            elif mark is not None:
                draw.ellipse([x0 + pad, y0 + pad, x0 + CELL - pad, y0 + CELL - pad],
                             outline=O_COLOUR, width=3)
    return np.asarray(image, dtype=np.uint8).copy()
