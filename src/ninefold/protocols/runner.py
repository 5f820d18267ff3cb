"""The bot's end of a protocol: `BotRunner` runs a ninefold `Player` as a bot on stdin/stdout.

A subclass per protocol reads its lines (`run`) and calls `choose` when a
move is asked for; the budgets come from `ninefold.timing`. With a fixed time
per turn the runner plans the thinking time itself, from the turn less a
safety it measures as it plays (`turn_done`); with a time bank it passes the
bank, its increment and its maximum to the player, which plans, and keeps
only a hard limit. No automatic garbage collection runs once the bot has had
its first request: what the warm-up made is frozen, and young objects are
collected once each answer is written.
"""

from __future__ import annotations

import contextlib
import gc
import random
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterator
from typing import Any, TextIO

from ninefold import timing
from ninefold.players.player import Limit, Player
from ninefold.protocols import engine
from ninefold.protocols.search_process import play_since, warm_up_player
from ninefold.rules import Board, Move, Rules
from ninefold.system import LineReader, process_age_s

GC_AFTER_ANSWER = 1  # the generations collected once an answer is written (young ones)
PLAN_NOTE_MS = 10.0  # a change of what a turn keeps back by this much is noted in the log


class TurnMeasures:
    """What a bot's recent turns measured: how far past its planned thinking time each
    answer was written (`overshoots`), and how long its main thread took to wake once the
    player was done (`wakes`), in ms, the newest last."""

    def __init__(self) -> None:
        self.overshoots: deque[float] = deque(maxlen=timing.TURN_SAFETY_WINDOW)
        self.wakes: deque[float] = deque(maxlen=timing.TURN_SAFETY_WINDOW)


class StallProbe:
    """A thread that sleeps `timing.STALL_PROBE_MS` over and over, while no search runs
    (`pause`, `resume`), and notes how late it wakes: the time this process was kept
    off the CPU (or its interpreter lock held) when it had something to do.
    `longest_ms` is the longest of the last `timing.STALL_WINDOW_S` (of
    `timing.STALL_COUNTED_MS` or more); the turn's safety covers it."""

    def __init__(self) -> None:
        self._stalls: deque[tuple[float, float]] = deque()  # (when, ms late), oldest first
        self._thread: threading.Thread | None = None
        self._idle = threading.Event()  # set while no search runs
        self._idle.set()
        self._pauses = 0

    def start(self) -> None:
        """Start watching (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="stall-probe",
                                            daemon=True)
            self._thread.start()

    def pause(self) -> None:
        """A search starts: sleep until `resume` (a probe waking 200 times a second takes
        a CPU from the search each time; the bot's turns used 83 ms at the median
        instead of 89 on a quiet machine, measured)."""
        self._pauses += 1
        self._idle.clear()

    def resume(self) -> None:
        self._idle.set()

    def _watch(self) -> None:
        step = timing.STALL_PROBE_MS / 1000.0
        while True:
            self._idle.wait()
            pauses, last = self._pauses, time.monotonic()
            time.sleep(step)
            now = time.monotonic()
            if self._pauses != pauses:
                continue  # a search began meanwhile: this wake-up waited for it
            late_ms = 1000.0 * (now - last - step)
            if late_ms >= timing.STALL_COUNTED_MS:
                self._stalls.append((now, late_ms))
            while self._stalls and self._stalls[0][0] < now - timing.STALL_WINDOW_S:
                self._stalls.popleft()

    def longest_ms(self) -> float:
        """The longest stall of the last `timing.STALL_WINDOW_S` (0 if none)."""
        since = time.monotonic() - timing.STALL_WINDOW_S
        return max((ms for at, ms in list(self._stalls) if at >= since), default=0.0)


class BotRunner(ABC):
    """Runs a ninefold `Player` as a bot on a text stream, managing its own time.

    `choose` never lets the player overrun: if it is still thinking at the
    hard deadline a legal move is sent anyway (the player's late answer is
    dropped).
    """

    protocol = "?"
    safety_ms = timing.RUNNER_SAFETY_MS  # a bank: kept back for reading, writing and the pipe

    def __init__(self, player: Player, rules: Rules | str = "standard",
                 inp: TextIO | None = None, out: TextIO | None = None,
                 log: TextIO | None = None) -> None:
        self.player = player
        self.rules = Rules.parse(rules)
        self.inp = inp or sys.stdin
        self.out = out or sys.stdout
        self.log = log or sys.stderr
        self.rng = random.Random()
        self._busy = threading.Event()
        self.reader = LineReader(self.inp)  # the only reader of `inp`
        # The platform's clock for the first request runs from about when the
        # process started (imports and warm-up count): remember when that was.
        # Unless the request came while the bot already waited for it
        # (`request_arrived`): its clock then runs from its coming.
        self.started = time.monotonic() - process_age_s()
        self.first_request_awaited = False
        self.requests = 0
        # what the turns measured, kept apart while an `Engine` loads its search (its
        # process competes for the CPU meanwhile: answers wait longer) and after
        self._loading, self._settled = TurnMeasures(), TurnMeasures()
        self._turn = self._settled  # where the current turn's measures go
        self._collect_after_answer = False  # a request is being answered
        # the last `choose`, for a late answer's note: ms from the request's arrival to
        # the player's thread starting, the player done, and this thread awake again
        self._stamps: tuple[float, float, float] | None = None
        self.said_at = 0.0  # when the last line was written (`time.monotonic()`)
        self.stalls = StallProbe()  # watched on a fixed time per turn (`turn_budget`)
        self._noted_plan: tuple[bool, float] | None = None  # (loading, ms kept back) said

    def request_arrived(self) -> float:
        """A request's first line has just been read (from `reader`): its clock runs
        from now (`time.monotonic()`, returned; `clock_starts`).

        A referee starts the bots at the game's start and writes a request when it is the
        bot's turn, and its clock runs from that write (CodinGame: "measured between the
        moment when we start sending you some inputs and the time we read your output";
        AI Games and Riddles ask with ``action move``). The first player's first request
        is written at once, while the bot still starts up, so that turn counts from the
        process's start (`startup_ms`). The second player's comes after the first
        player's whole first turn (up to 1,000 ms at CodinGame, seconds from a bank): if
        the bot was already waiting for it (`LineReader.waited`), its clock starts when
        it came; counting from the start would leave that turn next to nothing."""
        if not self.requests:
            self.first_request_awaited = self.reader.waited
        return self.clock_starts()

    def startup_ms(self, at: float | None = None) -> float:
        """For the first request: time spent since the process started, until `at`
        (a `time.monotonic()` value; now if None); nothing if the bot waited for it
        (`request_arrived`)."""
        if self.requests or self.first_request_awaited:
            return 0.0
        return ((time.monotonic() if at is None else at) - self.started) * 1000.0

    def warm_up(self) -> None:
        """Let the player compile or load whatever it needs before the clock runs
        (an `Engine` loads in the background and answers meanwhile)."""
        if isinstance(self.player, engine.Engine):
            self.player.start()
        else:
            warm_up_player(self.player, self.rules)

    def clock_starts(self) -> float:
        """A request's first line has come: the clock runs from now (`time.monotonic()`,
        returned). From the first request on no automatic garbage collection runs at
        all: one could start on any allocation, reading or parsing a request included,
        and a full collection took 11-23 ms late in a game (measured); the young
        objects are collected once each answer is said, off the clock."""
        gc.disable()
        self._collect_after_answer = True
        return time.monotonic()

    def say(self, line: str) -> None:
        """Write one line (its time is `said_at`); after an answer, collect young objects
        (off the clock)."""
        self.out.write(line + "\n")
        self.out.flush()
        self.said_at = time.monotonic()
        if self._collect_after_answer:
            self._collect_after_answer = False
            gc.collect(GC_AFTER_ANSWER)

    def note(self, text: str) -> None:
        with contextlib.suppress(Exception):
            self.log.write(f"ninefold: {text}\n")
            self.log.flush()

    def choose(self, board: Board, limit: Limit, hard_ms: float,
               fallback: list[Move] | None = None, start: float | None = None) -> Move:
        """A legal move for `board` within `hard_ms`, the player given `limit`; both
        counted from `start` (a `time.monotonic()` value: the request's arrival; now if
        None). No automatic garbage collection runs until the answer is said."""
        t0 = time.monotonic() if start is None else start
        measures = self.measures
        self._stamps = None
        self.clock_starts()
        legal = fallback if fallback is not None else list(board.legal_moves)
        if not legal:
            raise ValueError("no legal move")
        if len(legal) == 1 and limit.move_ms is None:
            # a bank: the time saved is kept. A fixed time per turn is lost if unused, so
            # the player thinks on (its tree, reused, is then deeper on the next turn)
            return legal[0]
        if self._busy.is_set():  # the player is still stuck on an earlier move
            return self.rescue(board, legal, "player still busy")
        self.stalls.pause()
        try:
            return self._think(board, limit, hard_ms, legal, t0, measures)
        finally:
            self.stalls.resume()

    def _think(self, board: Board, limit: Limit, hard_ms: float, legal: list[Move],
               t0: float, measures: TurnMeasures) -> Move:
        """`choose`'s search: the player in a thread, a legal move by `hard_ms` anyway."""
        box: dict[str, Any] = {}
        done = threading.Event()

        def think() -> None:
            self._busy.set()
            box["began_at"] = time.monotonic()
            try:
                box["move"] = play_since(self.player, board.copy(), limit, t0).move
            except Exception as exc:
                box["error"] = exc
            finally:
                self._busy.clear()
                box["done_at"] = time.monotonic()
                done.set()

        threading.Thread(target=think, daemon=True).start()
        wait_s = max(0.0, hard_ms / 1000.0 - (time.monotonic() - t0))
        if not done.wait(wait_s):
            return self.rescue(board, legal, f"player overran {hard_ms:.0f} ms")
        # how long this thread took to wake once the player was done: the scheduler's
        # latency, which the referee's write and the pipe back suffer too
        woke = time.monotonic()
        measures.wakes.append(1000.0 * (woke - box["done_at"]))
        self._stamps = (1000.0 * (box["began_at"] - t0), 1000.0 * (box["done_at"] - t0),
                        1000.0 * (woke - t0))
        move: Move | None = box.get("move")
        if move is None or move not in legal:
            return self.rescue(board, legal, f"player gave {move!r} ({box.get('error')!r})")
        return move

    def rescue(self, board: Board, legal: list[Move], why: str) -> Move:
        """A legal move at once when the player gave none in time (`why`, noted): an
        `Engine`'s quick player (its opening book, then the naive player: 1.3 ms at
        worst, measured), else a random one."""
        quick = self.player.quick if isinstance(self.player, engine.Engine) else None
        if quick is not None:
            with contextlib.suppress(Exception):
                move = quick.play(board.copy()).move
                if move in legal:
                    self.note(f"{why}: playing the fallback's move")
                    return move
        self.note(f"{why}: playing a random move")
        return self.rng.choice(legal)

    def bank_budget(self, bank_ms: float, increment_ms: float,
                    max_bank_ms: float | None) -> tuple[Limit, float]:
        """The player's `Limit` and the hard limit (ms) for a request with `bank_ms` left
        in a bank that refills by `increment_ms` up to `max_bank_ms`: the player plans."""
        limit = Limit(bank_ms=max(1.0, bank_ms - self.safety_ms), increment_ms=increment_ms,
                      max_bank_ms=max_bank_ms)
        return limit, timing.runner_bank_hard_ms(bank_ms, increment_ms, self.safety_ms)

    def turn_budget(self, turn_ms: float) -> timing.Plan:
        """(think, hard) times in ms, from the request's arrival, for a fixed time per
        turn: the turn less the safety this process has measured in the phase it is in
        (`settled` or not: `turn_done`, and the wake-ups of `choose`), and at least the
        longest recent stall (`stalls`, watched from the first turn on)."""
        self.stalls.start()
        self._turn = self.measures
        stall = self.stalls.longest_ms()
        plan = timing.runner_turn_plan(turn_ms, self._turn.overshoots, self._turn.wakes,
                                       stall)
        self._note_plan(turn_ms, plan.think_ms, stall)
        return plan

    def _note_plan(self, turn_ms: float, think_ms: float, stall_ms: float) -> None:
        """Say in the log (the platform shows it) when the plan changes: the search has
        loaded, or what is kept back of a turn moved by `PLAN_NOTE_MS` or more (a busy
        machine: the bot thinks less, and why)."""
        kept, loading = turn_ms - think_ms, not self.settled
        if self._noted_plan is not None and self._noted_plan[0] == loading and abs(
                kept - self._noted_plan[1]) < PLAN_NOTE_MS:
            return
        self._noted_plan = (loading, kept)
        over = timing.quantile(list(self._turn.overshoots), timing.TURN_SAFETY_QUANTILE) \
            if self._turn.overshoots else 0.0
        wake = timing.quantile(list(self._turn.wakes), timing.TURN_SAFETY_QUANTILE) \
            if self._turn.wakes else 0.0
        self.note(f"turn {self.requests + 1}: thinking {think_ms:.0f} of {turn_ms:.0f} ms"
                  f"{', loading' if loading else ''} (keeping back {kept:.0f}: overshoots "
                  f"{over:.0f} ms, wake-ups {wake:.0f} ms, longest stall {stall_ms:.0f} ms)")

    @property
    def settled(self) -> bool:
        """True once the player is loaded (an `Engine` may still be loading its search)."""
        return not isinstance(self.player, engine.Engine) or self.player.ready

    @property
    def measures(self) -> TurnMeasures:
        """What the turns of the phase this bot is in (`settled` or not) have measured."""
        return self._settled if self.settled else self._loading

    @property
    def overshoots(self) -> deque[float]:
        return self.measures.overshoots

    @property
    def wakes(self) -> deque[float]:
        return self.measures.wakes

    def turn_done(self, start: float, think_ms: float, turn_ms: float) -> None:
        """An answer to a request that arrived at `start`, planned (by `turn_budget`) to
        think `think_ms` of its `turn_ms`, is written: note how far past the plan it was,
        and say on stderr when it was late by this bot's own clock (where the time went:
        the platform's log then shows it). The turn ended with the write (`said_at`):
        what came after it (collecting, the referee woken by the write taking this CPU)
        is not the platform's time."""
        took_ms = 1000.0 * ((self.said_at if self.said_at >= start else time.monotonic())
                            - start)
        if self.requests:  # the first answer also paid for starting up
            self._turn.overshoots.append(took_ms - think_ms)
        if took_ms > turn_ms:
            where = ""
            if self._stamps is not None:
                began, done, woke = self._stamps
                where = (f"; player began at {began:.0f} ms, done at {done:.0f}, "
                         f"answer picked up at {woke:.0f}")
            self.note(f"late answer: {took_ms:.0f} ms of {turn_ms:.0f} by this bot's clock "
                      f"(planned {think_ms:.0f}{', loading' if not self.settled else ''}"
                      f"){where}")

    @abstractmethod
    def run(self) -> int:
        """Play until the input ends; returns the exit status."""


def read_lines(reader: LineReader) -> Iterator[str]:
    """The lines of `reader`, stripped, until it ends (empty lines skipped)."""
    for raw in reader:
        line = raw.strip()
        if line:
            yield line
