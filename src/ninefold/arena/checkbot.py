"""The platforms' input test: does a bot answer standard situations legally and in time?

A bot that fails it cannot enter ranked play, and ninefold's tournaments
refuse it. The situations: the first move of the game, a forced board, a
free move (sent to a closed board), and a nearly full board. AI Games and
Riddles bots get each situation as a fresh game; a CodinGame bot, which
only learns the last move, plays whole games against an opponent that
steers towards those situations.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from ninefold.arena.config import DEFAULT_FIRST_MOVE_MS, DEFAULT_SLACK_MS, ArenaError
from ninefold.arena.referee import Seat, safe_name
from ninefold.protocols import BotFault, Clock, TimeControl
from ninefold.rules import Board, Move, Termination

SITUATIONS = ("first move", "forced board", "free move", "nearly full board")
CODINGAME_GAMES = 12  # whole games a CodinGame bot plays at most to meet every situation


@dataclass
class Check:
    """One situation of the input test.

    >>> print(Check("free move", None, "not run: the bot timed out on an earlier check"))
    skipped free move: not run: the bot timed out on an earlier check
    """

    situation: str
    ok: bool | None  # None: not run (it did not come up, or an earlier check timed out)
    detail: str
    ms: float | None = None

    def __str__(self) -> str:
        mark = {True: "ok     ", False: "FAIL   ", None: "skipped"}[self.ok]
        ms = f" {self.ms:.0f} ms" if self.ms is not None else ""
        return f"{mark} {self.situation}:{ms} {self.detail}"


def passed(checks: list[Check]) -> bool:
    """Passed only if every situation was checked and answered well: a skipped
    check is not a pass.

    >>> passed([Check(s, True, "") for s in SITUATIONS])
    True
    >>> passed([Check("first move", True, ""), Check("free move", None, "did not come up")])
    False
    """
    return ({c.situation for c in checks} >= set(SITUATIONS)
            and all(c.ok is True for c in checks))


def verdict(checks: list[Check]) -> str:
    """One line: ``input test passed``, ``FAILED`` (with the count), or not
    passed because checks were skipped.

    >>> verdict([Check("first move", True, ""), Check("free move", None, "")])
    'input test not passed: 1 of 2 checks skipped'
    """
    if passed(checks):
        return "input test passed"
    failed = sum(c.ok is False for c in checks)
    skipped = sum(c.ok is None for c in checks)
    if failed:
        more = f", {skipped} skipped" if skipped else ""
        return f"input test FAILED: {failed} of {len(checks)} checks failed{more}"
    return f"input test not passed: {skipped} of {len(checks)} checks skipped"


def failure_reason(checks: list[Check]) -> str:
    bad = [c for c in checks if c.ok is False] or [c for c in checks if c.ok is None]
    return "; ".join(f"{c.situation}: {c.detail}" for c in bad) or "no answer"


def _not_run(situation: str) -> Check:
    return Check(situation, None, "not run: the bot timed out on an earlier check")


def standard_positions(rules: str = "standard") -> dict[str, Board]:
    """Deterministic positions for the four situations."""
    positions = {"first move": Board(rules)}
    forced = Board(rules)
    forced.push(Move(4, 4))  # e5: O is sent to the centre board
    positions["forced board"] = forced
    rng = random.Random(2016)
    free = full = None
    while free is None or full is None:
        board = Board(rules)
        while not board.is_game_over():
            if free is None and board.ply > 10 and board.target is None:
                free = board.copy()
            if full is None and board.ply >= 58 and len(board.legal_moves) > 1:
                full = board.copy()
            board.push(rng.choice(list(board.legal_moves)))
    positions["free move"] = free
    positions["nearly full board"] = full
    return positions


def check_bot(seat: Seat, *, rules: str = "standard", first_move_ms: int = DEFAULT_FIRST_MOVE_MS,
              slack_ms: int = DEFAULT_SLACK_MS, log_dir: str | Path | None = None) -> list[Check]:
    """Run the input test on an external bot."""
    if not seat.is_external:
        return [Check(s, True, "built-in player") for s in SITUATIONS]
    tc = seat.time_control(first_move_ms, slack_ms)
    if seat.protocol == "codingame":
        return _check_codingame(seat, tc, log_dir)
    checks: list[Check] = []
    timed_out = False
    for situation, board in standard_positions(rules).items():
        if timed_out:  # a silent bot: waiting for it again tells nothing more
            checks.append(_not_run(situation))
            continue
        log = Path(log_dir) / f"check-{situation.replace(' ', '-')}.log" if log_dir else None
        bot = seat.make_bot(log)
        clock = Clock(tc)
        try:
            bot.start(board.turn, board, tc)
            played = bot.play(board, board.move_stack[-1] if board.move_stack else None, clock)
            if played.info.get("attempts", 1) > 1:
                checks.append(Check(situation, False, "first answer failed; the retry was legal",
                                    played.info.get("ms")))
            else:
                checks.append(Check(situation, True, f"{played.info.get('text')!r} -> "
                                    f"{played.move}", played.info.get("ms")))
        except BotFault as fault:
            checks.append(Check(situation, False, fault.reason))
            timed_out = fault.termination is Termination.TIME_FORFEIT
        finally:
            bot.close()
    return checks


def _steer(board: Board, rng: random.Random) -> Move:
    """The CodinGame test opponent: never wins a small board, sends the bot to a
    closed board when it can (a free move), else plays at random."""
    moves = list(board.legal_moves)
    safe = []
    for m in moves:
        board.push(m)
        won = board.owners[m.board] is not None and board.owners[m.board] is not board.turn
        board.pop()
        if not won:
            safe.append(m)
    moves = safe or moves
    sending = [m for m in moves if board.is_closed(m.cell) and m.cell != m.board]
    return rng.choice(sending or moves)


def _check_codingame(seat: Seat, tc: TimeControl, log_dir: str | Path | None) -> list[Check]:
    found: dict[str, Check] = {}
    rng = random.Random(7)
    ended = ""  # why the test games stopped early
    for game in range(CODINGAME_GAMES):
        if all(s in found for s in SITUATIONS):
            break
        board = Board("codingame")
        log = Path(log_dir) / f"check-game-{game}.log" if log_dir else None
        bot = seat.make_bot(log)
        clock = Clock(tc)
        mark = board.turn  # the bot plays X: its first turn is a first move
        try:
            bot.start(mark, board, tc)
            while not board.is_game_over():
                if board.turn is not mark:
                    board.push(_steer(board, rng))
                    continue
                if board.ply == 0:
                    situation = "first move"
                elif board.target is None:
                    situation = "free move"
                elif board.ply >= 50:
                    situation = "nearly full board"
                else:
                    situation = "forced board"
                last = board.move_stack[-1] if board.move_stack else None
                played = bot.play(board, last, clock)
                found.setdefault(situation, Check(situation, True, f"{played.info['text']!r} -> "
                                                  f"{played.move}", played.info.get("ms")))
                board.push(played.move)
        except BotFault as fault:
            found[situation] = Check(situation, False, fault.reason)
            ended = ("the bot timed out on an earlier check"
                     if fault.termination is Termination.TIME_FORFEIT
                     else "the bot failed an earlier check")
            break
        finally:
            bot.close()
    missing = (f"not run: {ended}" if ended
               else f"did not come up in {CODINGAME_GAMES} test games")
    return [found.get(s, Check(s, None, missing)) for s in SITUATIONS]


def refuse_failing(seats: list[Seat], *, rules: str = "standard",
                   first_move_ms: int = DEFAULT_FIRST_MOVE_MS, slack_ms: int = DEFAULT_SLACK_MS,
                   log_dir: str | Path | None = None) -> None:
    """Raise `ArenaError` naming every external bot that fails the input test, and why."""

    failures = []
    for seat in seats:
        if not seat.is_external:
            continue
        sub = Path(log_dir) / f"check-{safe_name(seat.name)}" if log_dir else None
        checks = check_bot(seat, rules=rules, first_move_ms=first_move_ms, slack_ms=slack_ms,
                           log_dir=sub)
        if not passed(checks):
            failures.append(f"{seat.name} fails the input test ({failure_reason(checks)})")
    if failures:
        raise ArenaError("; ".join(failures))
