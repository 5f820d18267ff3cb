"""The Riddles.io (2017 and later) protocol, "riddles": both ends.

Seats ``player0`` (moves first, X, id 0) and ``player1`` (O, id 1). The settings
come in another order than on AI Games, there is no ``update game move``
line, empty squares are ``.``, and inactive or drawn boards are ``.`` in the
macroboard. The engine reads exactly three tokens and does not check the verb
(a published starter bot answers ``place_disc X Y``). The first fault loses:
an illegal or unreadable move, or a time-out.

>>> RiddlesConnection.parse_answer(None, "place_disc 7 6")
(7, 6)
"""

from __future__ import annotations

from ninefold.protocols.aigames import AIGamesRunner
from ninefold.protocols.clock import TimeControl
from ninefold.protocols.connection import BotConnection
from ninefold.protocols.fields import (
    RIDDLES,
    FieldEncoding,
    encode_field,
    encode_macroboard,
    parse_int,
)
from ninefold.rules import Board, Move


class RiddlesConnection(BotConnection):
    """An external Riddles.io bot, seen from the referee. The first fault loses
    (`BotConnection.play`)."""

    protocol = "riddles"
    enc: FieldEncoding = RIDDLES

    def setup_lines(self, tc: TimeControl) -> list[str]:
        bank = tc.bank_ms if tc.is_bank else tc.turn_ms_for(0)
        per_move = tc.increment_ms if tc.is_bank else tc.turn_ms
        return [
            f"settings player_names {','.join(self.enc.seat_names)}",
            f"settings your_bot {self.enc.seat_names[int(self.seat)]}",
            f"settings timebank {bank}",
            f"settings time_per_move {per_move}",
            f"settings your_botid {self.enc.id_of(self.seat)}",
        ]

    def request_lines(self, board: Board, last: Move | None, told_ms: int) -> list[str]:
        return [
            f"update game round {board.ply // 2 + 1}",
            f"update game field {encode_field(board, self.enc)}",
            f"update game macroboard {encode_macroboard(board, self.enc)}",
            f"action move {told_ms}",
        ]

    def parse_answer(self, line: str) -> tuple[int, int]:
        parts = line.split()
        if len(parts) != 3:
            raise ValueError(f"expected 3 tokens (place_move X Y), got {len(parts)}")
        return parse_int(parts[1]), parse_int(parts[2])


class RiddlesRunner(AIGamesRunner):
    """ninefold as a Riddles.io bot on stdin/stdout."""

    protocol = "riddles"
    enc: FieldEncoding = RIDDLES

