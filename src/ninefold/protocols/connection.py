"""The referee's end of a protocol: the `Bot` interface, and `BotConnection` for external bots.

The referee only talks to `Bot` (`start`, `play`, `close`). A `BotConnection`
subclass per protocol starts an external bot (any program speaking the
protocol on stdin/stdout, see `ninefold.protocols.process`), sends it the
position and reads its move, applying the protocol's own rules for
time-outs and bad answers: a bot that breaks them raises `BotFault`.
Modelled on python-chess's ``engine.py``: one base, one subclass per
protocol, a `TimeControl` value, and moves returned as `PlayResult`.
"""

from __future__ import annotations

import contextlib
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

from ninefold.players.player import PlayResult
from ninefold.protocols.clock import Clock, TimeControl
from ninefold.protocols.process import BotCommand, BotProcess, BotStartError, NoAnswer
from ninefold.rules import Board, Mark, Move, Rules, Termination


class BotFault(Exception):
    """A bot lost the game by its protocol's rules: time-out, illegal or bad answer, crash.

    `termination` is the `Termination` the game ends with; the message says
    what happened, in words, for the record.
    """

    def __init__(self, termination: Termination, reason: str) -> None:
        super().__init__(reason)
        self.termination = termination
        self.reason = reason


class Bot(ABC):
    """Anything the referee can seat: a built-in player or an external bot."""

    name: str = "?"
    protocol: str | None = None

    def start(self, seat: Mark, board: Board, tc: TimeControl) -> None:  # noqa: B027
        """Prepare for a game in which this bot plays `seat` from `board`."""

    @abstractmethod
    def play(self, board: Board, last: Move | None, clock: Clock) -> PlayResult:
        """The bot's move for `board` (its side to move). `last` is the opponent's
        last move (None when the bot moves first or after an opening). Charges
        `clock`; raises `BotFault` when the bot loses by its protocol's rules.
        ``result.info["ms"]`` is the time taken."""

    def close(self) -> None:  # noqa: B027
        """End the game: free resources, kill processes."""


@dataclass
class Answer:
    """One line read from a bot, or why none came."""

    line: str | None
    elapsed_ms: float
    failure: str | None = None  # "timeout" or "eof"
    detail: str = ""


class BotConnection(Bot):
    """The referee's end of an external bot's protocol. Subclasses say what to
    send (`setup_lines`, `request_lines`), how to read an answer
    (`parse_answer`) and what a fault costs (`play`)."""

    protocol = "?"

    def __init__(self, cmd: BotCommand, name: str | None = None,
                 log_path: str | Path | None = None) -> None:
        self.cmd = cmd
        self.name = name or cmd.command
        self.log_path = log_path
        self.process: BotProcess | None = None
        self.seat: Mark = Mark.X
        self.rules: Rules = Rules()
        self.turns = 0  # move requests sent this game

    def start(self, seat: Mark, board: Board, tc: TimeControl) -> None:
        self.seat = seat
        self.rules = board.rules
        self.turns = 0
        self.process = BotProcess(self.cmd, self.log_path)
        try:
            self.process.start()
        except BotStartError as exc:
            raise BotFault(Termination.BOT_FAILURE, str(exc)) from None
        lines = self.setup_lines(tc)
        if lines:
            with contextlib.suppress(NoAnswer):  # a crash shows at the first request
                self.process.send(*lines)

    def close(self) -> None:
        if self.process is not None:
            self.process.close()
            self.process = None

    def note(self, text: str) -> None:
        """A referee's remark in the bot's log."""
        if self.process is not None:
            self.process.note(text)

    def setup_lines(self, tc: TimeControl) -> list[str]:
        """The lines sent once, when the game starts (none by default)."""
        return []

    @abstractmethod
    def request_lines(self, board: Board, last: Move | None, told_ms: int) -> list[str]:
        """The lines that ask for a move."""

    @abstractmethod
    def parse_answer(self, line: str) -> tuple[int, int]:
        """The square (x, y) an answer names, x the column and y the row; raises
        ValueError if the answer cannot be read. Range and legality are checked
        by the caller."""

    def ask(self, lines: list[str], clock: Clock) -> Answer:
        """Send a request and wait for one line, charging the clock."""
        assert self.process is not None
        self.process.drain()
        told = clock.deadline_ms()
        t0 = time.monotonic()
        try:
            self.process.send(*lines)
            arrived, line = self.process.read_line(told / 1000.0)
            elapsed = (arrived - t0) * 1000
            answer = Answer(line, elapsed)
            if elapsed > told:  # arrived in the queue just after the deadline
                answer = Answer(None, elapsed, "timeout", f"answered after {elapsed:.0f} ms")
        except NoAnswer as exc:
            elapsed = (time.monotonic() - t0) * 1000
            answer = Answer(None, elapsed, exc.kind, str(exc))
            if exc.kind == "timeout":
                answer.detail = f"no answer within {told:.0f} ms"
        clock.charge(answer.elapsed_ms)
        self.turns += 1
        return answer

    def judge(self, answer: Answer, board: Board) -> tuple[Move | None, BotFault | None]:
        """The move of an answer, or the fault it is (not yet raised)."""
        if answer.failure == "timeout":
            return None, BotFault(Termination.TIME_FORFEIT, f"time-out: {answer.detail}")
        if answer.failure == "eof":
            return None, BotFault(Termination.BOT_FAILURE, f"crashed: {answer.detail}")
        assert answer.line is not None
        try:
            x, y = self.parse_answer(answer.line)
        except (ValueError, IndexError) as exc:
            return None, BotFault(
                Termination.BOT_FAILURE, f"unreadable answer {answer.line[:80]!r}: {exc}"
            )
        if not (0 <= x <= 8 and 0 <= y <= 8):
            return None, BotFault(
                Termination.ILLEGAL_MOVE,
                f"move out of range {answer.line[:80]!r}: column {x}, row {y} (0-8)",
            )
        move = Move.from_xy(x, y)
        reason = board.why_illegal(move)
        if reason is not None:
            return None, BotFault(
                Termination.ILLEGAL_MOVE, f"illegal move {answer.line[:80]!r}: {reason}"
            )
        return move, None

    def play(self, board: Board, last: Move | None, clock: Clock) -> PlayResult:
        """Default rule (Riddles, CodinGame): the first fault loses."""
        answer = self.ask(self.request_lines(board, last, clock.told_ms()), clock)
        move, fault = self.judge(answer, board)
        if fault is not None:
            raise fault
        assert move is not None and answer.line is not None
        return PlayResult(move, {"ms": round(answer.elapsed_ms, 1), "text": answer.line})
