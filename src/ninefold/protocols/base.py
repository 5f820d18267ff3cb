"""What every bot protocol shares: the clock, the bot process, and both ends of a connection.

A protocol has two ends, and each protocol module holds both:

- a `BotConnection` subclass is the referee's end: it starts an external bot
  (any program speaking the protocol on stdin/stdout), sends it the position
  and reads its move, applying the protocol's own rules for time-outs and bad
  answers;
- a `BotRunner` subclass is the bot's end: it runs a ninefold `Player` on
  stdin/stdout so that an official engine (or ninefold's own referee) can use
  it as a bot.

The referee only talks to the `Bot` interface (`start`, `play`, `close`);
`LocalBot` wraps a built-in player in it. Modelled on python-chess's
``engine.py``: one base, one subclass per protocol, a `TimeControl` value, and
moves returned as `PlayResult`.

>>> tc = TimeControl.parse("bank=10000,inc=500")
>>> clock = Clock(tc)
>>> clock.told_ms()
10000
>>> clock.charge(9700.0)   # the bot took 9.7 s: bank = min(max(10000 - 9700, 0) + 500, 10000)
>>> clock.told_ms()
800
>>> TimeControl.parse("turn=100,first=1000").turn_ms_for(0)
1000
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import IO, Any, ClassVar, TextIO

from ninefold.players.base import Limit, Player, PlayResult
from ninefold.rules import Board, Mark, Move, Rules, Termination

# --- the clock -------------------------------------------------------------------------


@dataclass(frozen=True)
class TimeControl:
    """How much time a bot has, and how the referee counts it.

    Two kinds, as on the platforms:

    - a **time bank** (AI Games, Riddles): the bot starts with `bank_ms`, which
      is also the maximum (`max_bank_ms` if set); after each answer
      ``bank = min(max(bank - elapsed, 0) + increment_ms, max)``. The bot must
      answer within what is left in its bank.
    - a **fixed time per turn** (CodinGame): `first_turn_ms` for the bot's
      first turn, `turn_ms` for each later one. Used when `turn_ms` is set.

    Two referee allowances that no platform states but every arena needs:
    `first_move_ms` is added to the deadline of a bot's first answer (it
    includes the process start-up: Java or Python can take seconds), and is
    not charged to its bank; `slack_ms` is added to every deadline (pipes and
    process scheduling are not free; CodinGame bots often take 105-108 ms).
    """

    bank_ms: int = 10000
    increment_ms: int = 500
    max_bank_ms: int | None = None
    turn_ms: int | None = None
    first_turn_ms: int | None = None
    first_move_ms: int = 0
    slack_ms: int = 0

    _KEYS: ClassVar[dict[str, str]] = {
        "bank": "bank_ms", "inc": "increment_ms", "max": "max_bank_ms", "turn": "turn_ms",
        "first": "first_turn_ms", "startup": "first_move_ms", "slack": "slack_ms",
    }

    @classmethod
    def for_protocol(cls, protocol: str | None) -> TimeControl:
        """The platform's own time control (no allowances)."""
        if protocol == "codingame":
            return cls(turn_ms=100, first_turn_ms=1000)
        return cls()

    @classmethod
    def parse(cls, text: str, base: TimeControl | None = None) -> TimeControl:
        """``key=value`` pairs separated by commas, changing `base`.

        Keys: ``bank``, ``inc``, ``max`` (a time bank), ``turn``, ``first`` (a
        fixed time per turn), ``startup`` (first-move allowance), ``slack``;
        all in milliseconds. A protocol name gives its platform's control.
        """
        text = text.strip().lower()
        if text in ("aigames", "riddles", "codingame"):
            return cls.for_protocol(text)
        tc = base or cls()
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, eq, value = part.partition("=")
            name = cls._KEYS.get(key.strip())
            if name is None or not eq:
                raise ValueError(
                    f"bad time control {part!r}: use key=ms with keys {', '.join(cls._KEYS)}"
                )
            try:
                ms = int(float(value))
            except ValueError:
                raise ValueError(f"time control {key}={value!r}: not a number of ms") from None
            if ms < 0 or (ms == 0 and name in ("bank_ms", "turn_ms", "first_turn_ms")):
                raise ValueError(f"time control {key}={value!r} must be positive")
            tc = replace(tc, **{name: ms})
        return tc

    def with_allowances(self, first_move_ms: int | None, slack_ms: int | None) -> TimeControl:
        changes = {}
        if first_move_ms is not None:
            changes["first_move_ms"] = first_move_ms
        if slack_ms is not None:
            changes["slack_ms"] = slack_ms
        return replace(self, **changes)

    @property
    def is_bank(self) -> bool:
        return self.turn_ms is None

    def turn_ms_for(self, turn: int) -> int:
        """The fixed time for a bot's `turn`-th request (0 = first)."""
        assert self.turn_ms is not None
        return self.first_turn_ms if turn == 0 and self.first_turn_ms else self.turn_ms

    def __str__(self) -> str:
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name.startswith("_") or value in (None, 0):
                continue
            if not self.is_bank and f.name in ("bank_ms", "increment_ms", "max_bank_ms"):
                continue
            key = next(k for k, v in self._KEYS.items() if v == f.name)
            parts.append(f"{key}={value}")
        return ",".join(parts)


class Clock:
    """One bot's clock during one game."""

    def __init__(self, tc: TimeControl) -> None:
        self.tc = tc
        self.bank_ms: float = float(tc.bank_ms)
        self.requests = 0  # move requests answered or failed so far
        self.used_ms = 0.0

    def told_ms(self) -> int:
        """The time the bot is told it has for this request."""
        if self.tc.is_bank:
            return int(self.bank_ms)
        return self.tc.turn_ms_for(self.requests)

    def deadline_ms(self) -> float:
        """How long the referee waits for this answer."""
        extra = self.tc.slack_ms + (self.tc.first_move_ms if self.requests == 0 else 0)
        return self.told_ms() + extra

    def limit(self) -> Limit:
        """The same clock as a `Limit` for a built-in player."""
        if self.tc.is_bank:
            return Limit(bank_ms=max(self.bank_ms, 1.0), increment_ms=self.tc.increment_ms)
        return Limit(move_ms=self.told_ms())

    def charge(self, elapsed_ms: float) -> None:
        """Count one request that took `elapsed_ms` (answered or not)."""
        if self.requests == 0:
            elapsed_ms = max(0.0, elapsed_ms - self.tc.first_move_ms)
        self.used_ms += elapsed_ms
        if self.tc.is_bank:
            top = self.tc.max_bank_ms or self.tc.bank_ms
            self.bank_ms = min(max(self.bank_ms - elapsed_ms, 0.0) + self.tc.increment_ms, top)
        self.requests += 1


# --- faults ------------------------------------------------------------------------------


class BotFault(Exception):
    """A bot lost the game by its protocol's rules: time-out, illegal or bad answer, crash.

    `termination` is the `Termination` the game ends with; the message says
    what happened, in words, for the record.
    """

    def __init__(self, termination: Termination, reason: str) -> None:
        super().__init__(reason)
        self.termination = termination
        self.reason = reason


class _NoAnswer(Exception):
    """Internal: no line before the deadline (`timeout`) or the bot's output closed."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind  # "timeout" or "eof"


# --- the bot process --------------------------------------------------------------------

MAX_LINE = 4096  # longer lines are cut (and the bot's answer then cannot be read)
MAX_PENDING = 256  # lines kept while nobody reads; later ones are counted and dropped
MAX_LOG_BYTES = 4 << 20  # stderr kept per bot and game


@dataclass(frozen=True)
class BotCommand:
    """How to start an external bot: a command line, a working directory, limits."""

    command: str
    protocol: str
    cwd: str | None = None
    memory_mb: int | None = None  # address-space limit (RLIMIT_AS); JVMs need a lot
    cpu_s: int | None = None  # CPU-time limit (RLIMIT_CPU) for the whole game
    env: dict[str, str] = field(default_factory=dict)

    def argv(self) -> list[str]:
        return shlex.split(self.command)


def _pdeathsig() -> Any:
    """A preexec function that kills the bot if the referee dies (Linux), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def preexec() -> None:  # runs in the child between fork and exec
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    return preexec


_PREEXEC = _pdeathsig()


class BotProcess:
    """An external bot's process: lines in, lines out with deadlines, stderr to a log.

    Started in its own session (so its whole process group can be killed),
    read by a thread that cuts long lines and drops a flood of unread ones,
    so no bot can fill the referee's memory or block it.
    """

    def __init__(self, cmd: BotCommand, log_path: str | Path | None = None) -> None:
        self.cmd = cmd
        self.log_path = Path(log_path) if log_path else None
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.pending = 0
        self.dropped = 0
        self.cut = 0
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._log: IO[bytes] | None = None
        self._log_bytes = 0

    # ---- life cycle

    def start(self) -> None:
        argv = self.cmd.argv()
        if not argv:
            raise BotFault(Termination.BOT_FAILURE, "empty bot command")
        if self.log_path:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in close()
        env = dict(os.environ, **self.cmd.env) if self.cmd.env else None
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=self.cmd.cwd or None, env=env, start_new_session=True, bufsize=0,
                preexec_fn=_PREEXEC,  # only a prctl call: safe with threads
            )
        except OSError as exc:
            self._note(f"cannot start {self.cmd.command!r}: {exc}")
            raise BotFault(
                Termination.BOT_FAILURE, f"cannot start bot {self.cmd.command!r}: {exc}"
            ) from None
        self._set_limits()
        assert self.proc.stdout is not None and self.proc.stderr is not None
        for target, stream in ((self._read_stdout, self.proc.stdout),
                               (self._read_stderr, self.proc.stderr)):
            t = threading.Thread(target=target, args=(stream,), daemon=True)
            t.start()
            self._threads.append(t)

    def _set_limits(self) -> None:
        assert self.proc is not None
        try:
            import resource
        except ImportError:  # pragma: no cover - not POSIX
            return
        limits = []
        if self.cmd.memory_mb:
            size = self.cmd.memory_mb << 20
            limits.append((resource.RLIMIT_AS, (size, size)))
        if self.cmd.cpu_s:
            limits.append((resource.RLIMIT_CPU, (self.cmd.cpu_s, self.cmd.cpu_s + 1)))
        for which, value in limits:
            with contextlib.suppress(OSError, ValueError):
                resource.prlimit(self.proc.pid, which, value)

    def close(self) -> int | None:
        """Kill the bot's whole process group and reap it; returns its exit status."""
        proc = self.proc
        if proc is None:
            return None
        for stream in (proc.stdin,):
            with contextlib.suppress(OSError):
                if stream:
                    stream.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        try:
            status = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process in D state
            status = None
        # The group may outlive its leader (children that ignored the first kill
        # cannot exist, but a child forked just before it might): kill again.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        for t in self._threads:
            t.join(timeout=1)
        for stream in (proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                if stream:
                    stream.close()
        if self.dropped or self.cut:
            self._note(f"{self.dropped} unread lines dropped, {self.cut} overlong lines cut")
        if self._log:
            self._log.close()
            self._log = None
        return status

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def exit_status(self) -> int | None:
        return self.proc.poll() if self.proc else None

    # ---- I/O

    def send(self, *lines: str) -> None:
        """Write lines to the bot; a closed pipe is a crash."""
        assert self.proc is not None and self.proc.stdin is not None
        data = "".join(line + "\n" for line in lines).encode()
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise _NoAnswer("eof", self._died_text()) from None

    def drain(self) -> list[str]:
        """Throw away (and log) the lines the bot printed without being asked."""
        stale = []
        while True:
            try:
                _, line = self.lines.get_nowait()
            except queue.Empty:
                break
            if line is None:  # keep the end-of-output mark for the next read
                self.lines.put((time.monotonic(), None))
                break
            with self._lock:
                self.pending -= 1
            stale.append(line)
        if stale:
            self._note(f"{len(stale)} unasked line(s) ignored, first: {stale[0][:80]!r}")
        return stale

    def read_line(self, timeout_s: float) -> tuple[float, str]:
        """The next line and when it arrived (monotonic); raises `_NoAnswer`."""
        try:
            arrived, line = self.lines.get(timeout=max(0.0, timeout_s))
        except queue.Empty:
            raise _NoAnswer("timeout", "no answer in time") from None
        if line is None:
            self.lines.put((arrived, None))
            raise _NoAnswer("eof", self._died_text())
        with self._lock:
            self.pending -= 1
        return arrived, line

    def _died_text(self) -> str:
        status = None
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                status = self.proc.wait(timeout=0.2)
        if status is None:
            return "the bot closed its output"
        if status < 0:
            return f"the bot was killed by signal {-status} ({signal.Signals(-status).name})"
        return f"the bot exited with status {status}"

    def _read_stdout(self, stream: IO[bytes]) -> None:
        buf = bytearray()
        overlong = False
        fd = stream.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                piece = chunk[start:] if nl < 0 else chunk[start:nl]
                if not overlong:
                    room = MAX_LINE + 1 - len(buf)
                    buf += piece[:room]
                    if len(buf) > MAX_LINE:
                        overlong = True
                if nl < 0:
                    break
                self._emit(bytes(buf[:MAX_LINE]), overlong)
                buf.clear()
                overlong = False
                start = nl + 1
        if buf:
            self._emit(bytes(buf[:MAX_LINE]), overlong)
        self.lines.put((time.monotonic(), None))

    def _emit(self, raw: bytes, overlong: bool) -> None:
        now = time.monotonic()
        line = raw.decode("utf-8", errors="replace").rstrip("\r")
        if overlong:
            self.cut += 1
            line += " [cut]"
        with self._lock:
            if self.pending >= MAX_PENDING:
                self.dropped += 1
                return
            self.pending += 1
        self.lines.put((now, line))

    def _read_stderr(self, stream: IO[bytes]) -> None:
        fd = stream.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            self._write_log(chunk)

    def _write_log(self, data: bytes) -> None:
        with self._lock:
            log = self._log
            if log is None or self._log_bytes >= MAX_LOG_BYTES:
                return
            data = data[: MAX_LOG_BYTES - self._log_bytes]
            self._log_bytes += len(data)
            with contextlib.suppress(OSError, ValueError):
                log.write(data)
                log.flush()

    def _note(self, text: str) -> None:
        """A referee's remark in the bot's log."""
        self._write_log(f"[ninefold referee] {text}\n".encode())


# --- the referee's end -------------------------------------------------------------------


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


class LocalBot(Bot):
    """A built-in ninefold player, run in the referee's process.

    Its time is measured like a bot's; a built-in player that overruns its
    deadline (with slack) loses on time.
    """

    def __init__(self, player: Player, name: str | None = None) -> None:
        self.player = player
        self.name = name or player.spec

    def start(self, seat: Mark, board: Board, tc: TimeControl) -> None:
        self.player.new_game()

    def play(self, board: Board, last: Move | None, clock: Clock) -> PlayResult:
        deadline = clock.deadline_ms()
        limit = clock.limit()
        t0 = time.monotonic()
        try:
            result = self.player.play(board.copy(), limit)
        except Exception as exc:  # a built-in player's bug must not stop a tournament
            clock.charge((time.monotonic() - t0) * 1000)
            raise BotFault(Termination.BOT_FAILURE, f"player raised {exc!r}") from None
        elapsed = (time.monotonic() - t0) * 1000
        clock.charge(elapsed)
        if elapsed > deadline:
            raise BotFault(
                Termination.TIME_FORFEIT, f"took {elapsed:.0f} ms, deadline {deadline:.0f} ms"
            )
        if not board.is_legal(result.move):
            raise BotFault(
                Termination.ILLEGAL_MOVE, f"illegal move {result.move}: "
                f"{board.why_illegal(result.move)}"
            )
        result.info["ms"] = round(elapsed, 1)
        return result


@dataclass
class Answer:
    """One line read from a bot, or why none came."""

    line: str | None
    elapsed_ms: float
    failure: str | None = None  # "timeout" or "eof"
    detail: str = ""


class BotConnection(Bot):
    """The referee's end of an external bot's protocol. Subclasses say what to
    send (`_setup_lines`, `_request_lines`), how to read an answer
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
        self.process.start()
        lines = self._setup_lines(tc)
        if lines:
            with contextlib.suppress(_NoAnswer):  # a crash shows at the first request
                self.process.send(*lines)

    def close(self) -> None:
        if self.process is not None:
            self.process.close()
            self.process = None

    def _setup_lines(self, tc: TimeControl) -> list[str]:
        return []

    @abstractmethod
    def _request_lines(self, board: Board, last: Move | None, told_ms: int) -> list[str]:
        """The lines that ask for a move."""

    @abstractmethod
    def parse_answer(self, line: str) -> tuple[int, int]:
        """The square (x, y) an answer names, x the column and y the row; raises
        ValueError if the answer cannot be read. Range and legality are checked
        by the caller."""

    def _ask(self, lines: list[str], clock: Clock) -> Answer:
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
        except _NoAnswer as exc:
            elapsed = (time.monotonic() - t0) * 1000
            answer = Answer(None, elapsed, exc.kind, str(exc))
            if exc.kind == "timeout":
                answer.detail = f"no answer within {told:.0f} ms"
        clock.charge(answer.elapsed_ms)
        self.turns += 1
        return answer

    def _judge(self, answer: Answer, board: Board) -> tuple[Move | None, BotFault | None]:
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
        answer = self._ask(self._request_lines(board, last, clock.told_ms()), clock)
        move, fault = self._judge(answer, board)
        if fault is not None:
            raise fault
        assert move is not None and answer.line is not None
        return PlayResult(move, {"ms": round(answer.elapsed_ms, 1), "text": answer.line})


# --- the bot's end --------------------------------------------------------------------------


class BotRunner(ABC):
    """Runs a ninefold `Player` as a bot on a text stream, managing its own time.

    Subclasses read their protocol's lines (`run`) and call `choose` when a
    move is asked for. `choose` never lets the player overrun: the player gets
    a conservative budget, and if it is still thinking at the hard deadline a
    legal move is sent anyway (the player's late answer is dropped).
    """

    protocol = "?"
    safety_ms = 30.0  # kept back for reading, writing and the pipe

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
        # The platform's clock for the first request runs from about when the
        # process started (imports and warm-up count): remember when that was.
        self.started = time.monotonic() - process_age_s()
        self.requests = 0

    def startup_ms(self) -> float:
        """For the first request: time already spent since the process started."""
        if self.requests:
            return 0.0
        return (time.monotonic() - self.started) * 1000.0

    def warm_up(self) -> None:
        """Let the player compile or load whatever it needs before the clock runs."""
        with contextlib.suppress(Exception):
            self.player.play(Board(self.rules), Limit(move_ms=50))
        self.player.new_game()

    def say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def note(self, text: str) -> None:
        with contextlib.suppress(Exception):
            self.log.write(f"ninefold: {text}\n")
            self.log.flush()

    def choose(self, board: Board, budget_ms: float, hard_ms: float,
               fallback: list[Move] | None = None) -> Move:
        """A legal move for `board` within `hard_ms` (from now), thinking about `budget_ms`."""
        t0 = time.monotonic()
        legal = fallback if fallback is not None else list(board.legal_moves)
        if not legal:
            raise ValueError("no legal move")
        if len(legal) == 1:
            return legal[0]
        if self._busy.is_set():  # the player is still stuck on an earlier move
            self.note("player still busy: playing a random move")
            return self.rng.choice(legal)
        box: dict[str, Any] = {}
        done = threading.Event()

        def think() -> None:
            self._busy.set()
            try:
                box["move"] = self.player.play(
                    board.copy(), Limit(move_ms=max(1.0, budget_ms))
                ).move
            except Exception as exc:
                box["error"] = exc
            finally:
                self._busy.clear()
                done.set()

        threading.Thread(target=think, daemon=True).start()
        wait_s = max(0.0, hard_ms / 1000.0 - (time.monotonic() - t0))
        if not done.wait(wait_s):
            self.note(f"player overran {hard_ms:.0f} ms: playing a random move")
            return self.rng.choice(legal)
        move = box.get("move")
        if move is None or move not in legal:
            self.note(f"player gave {move!r} ({box.get('error')!r}): playing a random move")
            return self.rng.choice(legal)
        return move

    def bank_budget(self, bank_ms: float, increment_ms: float) -> tuple[float, float]:
        """(think, hard) times in ms for a request with `bank_ms` left in the bank."""
        hard = max(1.0, min(bank_ms * 0.6, bank_ms - 2 * self.safety_ms))
        spare = max(0.0, bank_ms - 2 * increment_ms)
        think = 0.8 * increment_ms + spare / 12.0
        think = max(1.0, min(think, hard * 0.7 - self.safety_ms))
        return think, hard

    @abstractmethod
    def run(self) -> int:
        """Play until the input ends; returns the exit status."""


def process_age_s() -> float:
    """Seconds since this process started (0 if unknown)."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def read_lines(stream: TextIO) -> Any:
    """The lines of `stream`, stripped, until it ends."""
    for raw in stream:
        line = raw.strip()
        if line:
            yield line


_INT = re.compile(r"[+-]?\d+")


def parse_int(text: str) -> int:
    """A decimal integer as Java's ``Integer.parseInt`` reads it."""
    if not _INT.fullmatch(text):
        raise ValueError(f"{text!r} is not an integer")
    return int(text)
