"""The CodinGame protocol: both ends.

No settings. Every turn the bot reads the opponent's last move as
``row col`` (``-1 -1`` when it moves first), the number of valid actions and
that many ``row col`` lines (shuffled), and answers ``row col``, optionally
followed by a space and a message. 1000 ms for a bot's first turn, 100 ms for
each later one; a time-out, an unreadable answer or a move not in the list
eliminates the bot. Rows come first here, unlike the other two protocols.

The protocol tells a bot only the last move, so a CodinGame bot keeps its own
board from the empty grid: it cannot start from an opening position.

>>> CodinGameConnection.parse_answer(None, "4 5 winrate 0.61 sims 9000")
(5, 4)
"""

from __future__ import annotations

import contextlib
import random
from pathlib import Path
from typing import TextIO

from ninefold.players.player import Limit, Player, PlayResult
from ninefold.protocols.clock import Clock, TimeControl
from ninefold.protocols.connection import BotConnection
from ninefold.protocols.fields import parse_int
from ninefold.protocols.process import BotCommand
from ninefold.protocols.runner import BotRunner
from ninefold.rules import Board, IllegalMoveError, InvalidMoveError, Mark, Move, Rules


class CodinGameConnection(BotConnection):
    """An external CodinGame bot, seen from the referee. The first fault
    eliminates it (`BotConnection.play`)."""

    protocol = "codingame"

    def __init__(self, cmd: BotCommand, name: str | None = None,
                 log_path: str | Path | None = None, *, seed: int | None = None) -> None:
        super().__init__(cmd, name, log_path)
        self.rng = random.Random(seed)

    def start(self, seat: Mark, board: Board, tc: TimeControl) -> None:
        if board.ply:
            raise ValueError(
                "a CodinGame bot only learns the last move, so it cannot start from an "
                "opening position: play CodinGame bots without openings"
            )
        super().start(seat, board, tc)

    def request_lines(self, board: Board, last: Move | None, told_ms: int) -> list[str]:
        actions = [f"{m.xy[1]} {m.xy[0]}" for m in board.legal_moves]
        self.rng.shuffle(actions)
        head = "-1 -1" if last is None else f"{last.xy[1]} {last.xy[0]}"
        return [head, str(len(actions)), *actions]

    def parse_answer(self, line: str) -> tuple[int, int]:
        parts = line.split(" ", 2)
        if len(parts) < 2:
            raise ValueError("expected 'row col'")
        row, col = parse_int(parts[0]), parse_int(parts[1])
        return col, row

    def play(self, board: Board, last: Move | None, clock: Clock) -> PlayResult:
        result = super().play(board, last, clock)
        parts = result.info.get("text", "").split(" ", 2)
        if len(parts) == 3:
            result.info["message"] = parts[2][:200]
        return result


class CodinGameRunner(BotRunner):
    """ninefold as a CodinGame bot on stdin/stdout (rules: the ``codingame`` preset)."""

    protocol = "codingame"

    def __init__(self, player: Player, rules: Rules | str = "codingame",
                 first_turn_ms: float | None = None, turn_ms: float | None = None,
                 **kw: TextIO | None) -> None:
        super().__init__(player, rules, **kw)
        platform = TimeControl.for_protocol(self.protocol)  # the times not given
        self.first_turn_ms = float(first_turn_ms or platform.turn_ms_for(0))
        self.turn_ms = float(turn_ms or platform.turn_ms_for(1))

    def run(self) -> int:
        self.stalls.start()  # the first turns' safety sees the stalls of the start too
        self.warm_up()
        board = Board(self.rules)
        turn = 0
        lines = iter(self.reader)
        while True:
            head = next(lines, None)
            if head is None:
                return 0
            if not head.strip():
                continue
            start = self.request_arrived()  # the clock has run since the referee's write
            try:
                row, col = (int(v) for v in head.split()[:2])
                count = int(next(lines).strip())
                valid = []
                for _ in range(count):
                    r, c = (int(v) for v in next(lines).split()[:2])
                    valid.append(Move.from_xy(c, r))
            except (StopIteration, ValueError) as exc:
                self.note(f"cannot read a turn ({exc!r}); stopping")
                return 0
            if row >= 0:
                try:
                    board.push(Move.from_xy(col, row))
                except (IllegalMoveError, InvalidMoveError) as exc:
                    self.note(f"opponent move {row} {col} does not fit my board: {exc}")
            budget = self.first_turn_ms if turn == 0 else self.turn_ms
            turn_ms = max(1.0, budget - self.startup_ms(start))
            think, hard = self.turn_budget(turn_ms)
            if not valid:
                self.note("no valid action given; answering 4 4")
                self.say("4 4")
                continue
            if set(valid) == set(board.legal_moves):
                move = self.choose(board, Limit(move_ms=think), hard, fallback=valid,
                                   start=start)
            else:
                self.note("my board differs from the valid actions: playing from the list")
                move = self.rng.choice(valid)
            x, y = move.xy
            self.say(f"{y} {x}")
            self.turn_done(start, think, turn_ms)
            self.requests += 1
            with contextlib.suppress(IllegalMoveError, InvalidMoveError):
                board.push(move)
            turn += 1
