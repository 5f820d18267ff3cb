"""The field codec AI Games and Riddles share: the 81-square field, the macroboard, numbers.

Both protocols describe a position by two comma-separated lines, the field
(81 squares row by row) and the macroboard (the nine small boards); they
differ in the ids of the players and in how empty squares and inactive
boards are written, which a `FieldEncoding` holds (`AIGAMES`, `RIDDLES`).
Answers are read as each official engine reads them: `java_int` (AI Games,
``(int) Double.parseDouble``) and `parse_int` (Riddles and CodinGame,
``Integer.parseInt``).

>>> from ninefold import Board, Move
>>> board = Board()
>>> board.push(Move.from_xy(5, 2))
>>> encode_macroboard(board, AIGAMES), encode_macroboard(board, RIDDLES)
('0,0,0,0,0,0,0,0,-1', '.,.,.,.,.,.,.,.,-1')
>>> encode_field(board, AIGAMES).split(",")[23]
'1'
>>> decode_position(encode_field(board, AIGAMES), encode_macroboard(board, AIGAMES),
...                 AIGAMES, own_id="2") == board
True
>>> java_int("3.9"), parse_int("-4")
(3, -4)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ninefold.rules import Board, InvalidPositionError, Mark, Move, Rules


@dataclass(frozen=True)
class FieldEncoding:
    """How a settings-style protocol writes players and empty squares."""

    ids: tuple[str, str]  # (id of X, id of O)
    empty: str  # an empty square of the field
    inactive: str  # a small board of the macroboard that is neither active nor won
    seat_names: tuple[str, str]  # (name of X, name of O)

    def id_of(self, mark: Mark) -> str:
        return self.ids[int(mark)]

    def mark_of(self, ident: str) -> Mark | None:
        return Mark(self.ids.index(ident)) if ident in self.ids else None


AIGAMES = FieldEncoding(("1", "2"), "0", "0", ("player1", "player2"))
RIDDLES = FieldEncoding(("0", "1"), ".", ".", ("player0", "player1"))


def encode_field(board: Board, enc: FieldEncoding) -> str:
    """The 81 squares row by row (index ``9 * y + x``)."""
    out = []
    for y in range(9):
        for x in range(9):
            mark = board.cells[Move.from_xy(x, y).action]
            out.append(enc.empty if mark is None else enc.id_of(mark))
    return ",".join(out)


def encode_macroboard(board: Board, enc: FieldEncoding) -> str:
    """The nine small boards in reading order: ``-1`` where the mover may play,
    the owner's id for a won board, else the inactive mark."""
    active = set(board.open_boards())
    out = []
    for b in range(9):
        owner = board.owners[b]
        if b in active:
            out.append("-1")
        elif owner is not None:
            out.append(enc.id_of(owner))
        else:
            out.append(enc.inactive)
    return ",".join(out)


def decode_position(field_text: str, macro_text: str, enc: FieldEncoding, own_id: str,
                    rules: Rules | str = "standard") -> Board:
    """The `Board` (with the bot to move) that a field and macroboard describe.

    The move history is not known; the board's target is the single active
    small board, or none (a free move) when several are active. Raises
    `InvalidPositionError` if the two lines do not describe a position.
    """
    rules = Rules.parse(rules)
    values = field_text.split(",")
    macro = macro_text.split(",")
    if len(values) != 81 or len(macro) != 9:
        raise InvalidPositionError(
            f"field needs 81 values and macroboard 9, got {len(values)} and {len(macro)}"
        )
    me = enc.mark_of(own_id)
    if me is None:
        raise InvalidPositionError(f"unknown bot id {own_id!r}")
    chars = {enc.ids[0]: "x", enc.ids[1]: "o", enc.empty: "."}
    rows = []
    for y in range(9):
        row, run = "", 0
        for x in range(9):
            ch = chars.get(values[9 * y + x].strip())
            if ch is None:
                raise InvalidPositionError(f"field value {values[9 * y + x]!r} at ({x}, {y})")
            if ch == ".":
                run += 1
                continue
            row += (str(run) if run else "") + ch
            run = 0
        rows.append(row + (str(run) if run else ""))
    # The grid is in (x, y) order; the position string wants the same rows.
    macro = [m.strip() for m in macro]
    owners = "".join("x" if m == enc.ids[0] else "o" if m == enc.ids[1] else "." for m in macro)
    active = [b for b, m in enumerate(macro) if m == "-1"]
    side = "x" if me is Mark.X else "o"
    base = f"{rules.name} {'/'.join(rows)} {side}"
    attempts = []
    if len(active) == 1:
        attempts.append(f"{base} {active[0]} {owners}")
    attempts += [f"{base} - {owners}", f"{base} -"]
    error: Exception | None = None
    for text in attempts:
        try:
            return Board.from_position(text)
        except InvalidPositionError as exc:
            error = error or exc
    raise InvalidPositionError(str(error))


def java_int(text: str) -> int:
    """``(int) Double.parseDouble(text)``: decimals are truncated toward zero."""
    value = float(text.strip().rstrip("dDfF"))  # Java allows a type suffix
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return 2**31 - 1 if value > 0 else -(2**31)
    return int(value)


_INT = re.compile(r"[+-]?\d+")


def parse_int(text: str) -> int:
    """A decimal integer as Java's ``Integer.parseInt`` reads it."""
    if not _INT.fullmatch(text):
        raise ValueError(f"{text!r} is not an integer")
    return int(text)
