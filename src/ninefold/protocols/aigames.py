"""The AI Games (2016) protocol, "theaigames": both ends.

Seats ``player1`` (moves first, X, id 1) and ``player2`` (O, id 2). Every move
request is four ``update game`` lines and ``action move <bank ms>``; the bot
answers ``place_move X Y``. The engine checks the verb, reads the numbers as
decimals (truncated), warns and asks once more after a bad answer or a
time-out, and a second failure in a row loses; a bot with more than two
time-outs in a game is shut off and loses.

The field and macroboard lines are written and read by
`ninefold.protocols.fields`, which Riddles shares.

>>> AIGamesConnection.parse_answer(None, "place_move 3.7 8")
(3, 8)
"""

from __future__ import annotations

import time
from typing import TextIO

from ninefold.players.player import Player, PlayResult
from ninefold.protocols.clock import Clock, TimeControl
from ninefold.protocols.connection import Answer, BotConnection, BotFault
from ninefold.protocols.fields import (
    AIGAMES,
    FieldEncoding,
    decode_position,
    encode_field,
    encode_macroboard,
    java_int,
)
from ninefold.protocols.runner import BotRunner, read_lines
from ninefold.rules import Board, InvalidPositionError, Mark, Move, Rules, Termination

# --- the referee's end ----------------------------------------------------------------


class AIGamesConnection(BotConnection):
    """An external AI Games bot, seen from the referee."""

    protocol = "aigames"
    enc: FieldEncoding = AIGAMES

    def start(self, seat: Mark, board: Board, tc: TimeControl) -> None:
        self.timeouts = 0
        super().start(seat, board, tc)

    def setup_lines(self, tc: TimeControl) -> list[str]:
        names = ",".join(self.enc.seat_names)
        bank = tc.bank_ms if tc.is_bank else tc.turn_ms_for(0)
        per_move = tc.increment_ms if tc.is_bank else tc.turn_ms
        return [
            f"settings timebank {bank}",
            f"settings time_per_move {per_move}",
            f"settings player_names {names}",
            f"settings your_bot {self.enc.seat_names[int(self.seat)]}",
            f"settings your_botid {self.enc.id_of(self.seat)}",
        ]

    def request_lines(self, board: Board, last: Move | None, told_ms: int) -> list[str]:
        return [
            f"update game round {board.ply // 2 + 1}",
            f"update game move {board.ply + 1}",
            f"update game field {encode_field(board, self.enc)}",
            f"update game macroboard {encode_macroboard(board, self.enc)}",
            f"action move {told_ms}",
        ]

    def parse_answer(self, line: str) -> tuple[int, int]:
        parts = line.split(" ")
        if parts[0] != "place_move":
            raise ValueError("the answer must start with place_move")
        return java_int(parts[1]), java_int(parts[2])

    def play(self, board: Board, last: Move | None, clock: Clock) -> PlayResult:
        """Ask; after a failure warn and ask once more (only ``action move``);
        a second failure loses, and so does a third time-out in the game."""
        lines = self.request_lines(board, last, clock.told_ms())
        first: BotFault | None = None
        for attempt in (0, 1):
            answer: Answer = self.ask(lines, clock)
            if answer.failure == "timeout":
                self.timeouts += 1
            move, fault = self.judge(answer, board)
            if fault is None:
                assert move is not None and answer.line is not None
                return PlayResult(move, {"ms": round(answer.elapsed_ms, 1),
                                         "text": answer.line, "attempts": attempt + 1})
            if self.timeouts > 2:
                raise BotFault(Termination.TIME_FORFEIT,
                               f"shut off after {self.timeouts} time-outs ({fault.reason})")
            if answer.failure == "eof" or attempt == 1:
                if first is not None:
                    fault.reason = f"second failure: {fault.reason} (first: {first.reason})"
                raise fault
            first = fault
            self.note(f"engine warning: {fault.reason}; asking once more")
            lines = [f"action move {clock.told_ms()}"]
        raise AssertionError("unreachable")  # pragma: no cover


# --- the bot's end ------------------------------------------------------------------------


class AIGamesRunner(BotRunner):
    """ninefold as an AI Games bot on stdin/stdout."""

    protocol = "aigames"
    enc: FieldEncoding = AIGAMES
    verb = "place_move"

    def __init__(self, player: Player, rules: Rules | str = "standard",
                 **kw: TextIO | None) -> None:
        super().__init__(player, rules, **kw)
        platform = TimeControl.for_protocol(self.protocol)  # until the settings say
        self.settings: dict[str, str] = {"timebank": str(platform.bank_ms),
                                         "time_per_move": str(platform.increment_ms)}
        self.field: str | None = None
        self.macroboard: str | None = None
        self.arrived: float | None = None  # when the request being read began to come

    def run(self) -> int:
        self.warm_up()
        for line in read_lines(self.reader):
            parts = line.split()
            if self.arrived is None and parts[0] != "settings":
                # a request's first line (the settings come once, at the game's start)
                self.arrived = self.request_arrived()
            try:
                if parts[0] == "settings" and len(parts) >= 3:
                    self.settings[parts[1]] = parts[2]
                elif parts[0] == "update" and len(parts) >= 4 and parts[1] == "game":
                    if parts[2] == "field":
                        self.field = parts[3]
                    elif parts[2] == "macroboard":
                        self.macroboard = parts[3]
                elif parts[0] == "action" and len(parts) >= 2 and parts[1] == "move":
                    bank = float(parts[2]) if len(parts) >= 3 else float(
                        self.settings["timebank"])
                    self.say(self.answer(bank))
                    self.arrived = None
            except Exception as exc:  # never die on a strange line
                self.note(f"could not handle {line[:80]!r}: {exc!r}")
                if parts and parts[0] == "action":
                    self.say(self.emergency_answer())
                    self.arrived = None
        return 0

    def own_id(self) -> str:
        return self.settings.get("your_botid", self.enc.ids[0])

    def answer(self, bank_ms: float) -> str:
        if self.field is None or self.macroboard is None:
            raise InvalidPositionError("asked for a move before any field or macroboard")
        try:
            board = decode_position(self.field, self.macroboard, self.enc, self.own_id(),
                                    self.rules)
        except InvalidPositionError as exc:
            self.note(f"cannot read the position ({exc}); playing any free square")
            return self.emergency_answer()
        if board.is_game_over() or not list(board.legal_moves):
            return self.emergency_answer()
        increment = float(self.settings["time_per_move"])
        top = float(self.settings["timebank"])  # the bank starts full
        start = self.arrived if self.arrived is not None else time.monotonic()
        limit, hard = self.bank_budget(max(1.0, bank_ms - self.startup_ms(start)), increment,
                                       max(top, bank_ms))
        move = self.choose(board, limit, hard, start=start)
        self.requests += 1
        x, y = move.xy
        return f"{self.verb} {x} {y}"

    def emergency_answer(self) -> str:
        """Any empty square of an active board, read straight from the lines."""
        values = (self.field or "").split(",")
        macro = (self.macroboard or "").split(",")
        for i, value in enumerate(values):
            x, y = i % 9, i // 9
            board = 3 * (y // 3) + x // 3
            if value == self.enc.empty and len(macro) == 9 and macro[board] == "-1":
                return f"{self.verb} {x} {y}"
        for i, value in enumerate(values):
            if value == self.enc.empty:
                return f"{self.verb} {i % 9} {i // 9}"
        return f"{self.verb} 4 4"
