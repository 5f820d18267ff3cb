"""The AI Games (2016) protocol, "theaigames": both ends.

Seats ``player1`` (moves first, X, id 1) and ``player2`` (O, id 2). Every move
request is four ``update game`` lines and ``action move <bank ms>``; the bot
answers ``place_move X Y``. The engine checks the verb, reads the numbers as
decimals (truncated), warns and asks once more after a bad answer or a
time-out, and a second failure in a row loses; a bot with more than two
time-outs in a game is shut off and loses.

>>> from ninefold import Board, Move
>>> board = Board()
>>> board.push(Move.from_xy(5, 2))
>>> encode_macroboard(board, AIGAMES)
'0,0,0,0,0,0,0,0,-1'
>>> encode_field(board, AIGAMES).split(",")[23]
'1'
>>> decode_position(encode_field(board, AIGAMES), encode_macroboard(board, AIGAMES),
...                 AIGAMES, own_id="2") == board
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ninefold.players.base import Player, PlayResult
from ninefold.protocols.base import (
    Answer,
    BotConnection,
    BotFault,
    BotRunner,
    Clock,
    TimeControl,
    read_lines,
)
from ninefold.rules import (
    Board,
    InvalidPositionError,
    Mark,
    Move,
    Rules,
    Termination,
)

# --- encodings ------------------------------------------------------------------------


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


def _java_int(text: str) -> int:
    """``(int) Double.parseDouble(text)``: decimals are truncated toward zero."""
    value = float(text.strip().rstrip("dDfF"))  # Java allows a type suffix
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return 2**31 - 1 if value > 0 else -(2**31)
    return int(value)


# --- the referee's end ----------------------------------------------------------------


class AIGamesConnection(BotConnection):
    """An external AI Games bot, seen from the referee."""

    protocol = "aigames"
    enc = AIGAMES

    def start(self, seat: Mark, board: Board, tc: TimeControl) -> None:
        self.timeouts = 0
        super().start(seat, board, tc)

    def _setup_lines(self, tc: TimeControl) -> list[str]:
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

    def _request_lines(self, board: Board, last: Move | None, told_ms: int) -> list[str]:
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
        return _java_int(parts[1]), _java_int(parts[2])

    def play(self, board: Board, last: Move | None, clock: Clock) -> PlayResult:
        """Ask; after a failure warn and ask once more (only ``action move``);
        a second failure loses, and so does a third time-out in the game."""
        lines = self._request_lines(board, last, clock.told_ms())
        first: BotFault | None = None
        for attempt in (0, 1):
            answer: Answer = self._ask(lines, clock)
            if answer.failure == "timeout":
                self.timeouts += 1
            move, fault = self._judge(answer, board)
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
            if self.process is not None:
                self.process._note(f"engine warning: {fault.reason}; asking once more")
            lines = [f"action move {clock.told_ms()}"]
        raise AssertionError("unreachable")  # pragma: no cover


# --- the bot's end ------------------------------------------------------------------------


class AIGamesRunner(BotRunner):
    """ninefold as an AI Games bot on stdin/stdout."""

    protocol = "aigames"
    enc = AIGAMES
    verb = "place_move"

    def __init__(self, player: Player, rules: Rules | str = "standard", **kw) -> None:
        super().__init__(player, rules, **kw)
        self.settings: dict[str, str] = {"timebank": "10000", "time_per_move": "500"}
        self.field: str | None = None
        self.macroboard: str | None = None

    def run(self) -> int:
        self.warm_up()
        for line in read_lines(self.inp):
            parts = line.split()
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
            except Exception as exc:  # never die on a strange line
                self.note(f"could not handle {line[:80]!r}: {exc!r}")
                if parts and parts[0] == "action":
                    self.say(self.emergency_answer())
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
        increment = float(self.settings.get("time_per_move", "500"))
        think, hard = self.bank_budget(max(1.0, bank_ms - self.startup_ms()), increment)
        move = self.choose(board, think, hard)
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
