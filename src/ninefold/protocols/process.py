"""An external bot's process: started under a supervisor, lines in, lines out, stderr to a log.

Every bot runs under `ninefold.protocols.supervisor`, a small process that is
the *subreaper* of everything the bot starts: when the game ends (`close`)
or the arena dies (even by ``kill -9``), it kills the bot and every
descendant, including children that called ``setsid`` or forked twice. The
bot's stdin, stdout and stderr are the arena's pipes, inherited through the
supervisor untouched. A reader thread cuts long lines and drops a flood of
unread ones, so no bot can fill the referee's memory or block it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import queue
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, NoReturn

from ninefold.options import clip

MAX_LINE = 4096  # longer lines are cut (and the bot's answer then cannot be read)
MAX_PENDING = 256  # lines kept while nobody reads; later ones are counted and dropped
MAX_LOG_BYTES = 4 << 20  # stderr kept per bot and game
START_TIMEOUT_S = 30.0  # the supervisor reports within this (it needs tens of ms)
CLOSE_TIMEOUT_S = 5.0  # the supervisor has killed everything within this
SUPERVISOR = str(Path(__file__).with_name("supervisor.py"))


PR_SET_PDEATHSIG = 1  # prctl(2)


def end_with_parent(parent: int) -> None:
    """In a child process, first: end when the process `parent` (its pid) ends, even by
    SIGKILL (Linux's parent-death signal, sent when the thread that started the child
    ends; elsewhere a child ends when its pipe closes).

    The parent passes its pid: a child that finds another parent was orphaned while
    it started, before the signal could be asked for, and ends at once."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)


class BotStartError(OSError):
    """The bot's program could not be started (no such file, not executable...)."""


class NoAnswer(Exception):
    """No line before the deadline (`kind` "timeout") or the bot's output closed ("eof")."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


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


def supervised(argv: list[str], control_fd: int, report_fd: int, memory_mb: int | None = None,
               cpu_s: int | None = None) -> list[str]:
    """The command line that runs `argv` under the supervisor.

    >>> supervised(["./bot", "-v"], 5, 6, memory_mb=512)[-7:]
    ['5', '6', '536870912', '0', '--', './bot', '-v']
    """
    memory = (memory_mb or 0) << 20
    return [sys.executable, "-I", "-S", SUPERVISOR, str(control_fd), str(report_fd),
            str(memory), str(cpu_s or 0), "--", *argv]


class BotProcess:
    """An external bot's process (under its supervisor), with timed line reads."""

    def __init__(self, cmd: BotCommand, log_path: str | Path | None = None) -> None:
        self.cmd = cmd
        self.log_path = Path(log_path) if log_path else None
        self.proc: subprocess.Popen[bytes] | None = None  # the supervisor
        self.bot_pid: int | None = None
        self.lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.pending = 0
        self.dropped = 0
        self.cut = 0
        self._control: int | None = None  # closing it ends the game for the supervisor
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._log: IO[bytes] | None = None
        self._log_bytes = 0

    # ---- life cycle

    def start(self) -> None:
        """Start the bot; `BotStartError` if its program cannot be run."""
        try:
            argv = self.cmd.argv()
        except ValueError as exc:  # an unclosed quote
            raise BotStartError(f"cannot read the bot command {clip(self.cmd.command)}: "
                                f"{exc}") from None
        if not argv:
            raise BotStartError("empty bot command")
        if self.log_path:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in close()
        env = dict(os.environ, **self.cmd.env) if self.cmd.env else None
        control_r, self._control = os.pipe()
        report_r, report_w = os.pipe()
        try:
            proc = self.proc = subprocess.Popen(
                supervised(argv, control_r, report_w, self.cmd.memory_mb, self.cmd.cpu_s),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=self.cmd.cwd or None, env=env, start_new_session=True, bufsize=0,
                pass_fds=(control_r, report_w),
            )
        except OSError as exc:  # no such working directory, no Python...
            for fd in (report_r, self._control):
                os.close(fd)
            self._control = None
            self._fail_start(f"cannot start bot {self.cmd.command!r}: {exc}")
        finally:
            os.close(control_r)
            os.close(report_w)
        report = self._read_report(report_r)
        if not report.startswith("ok "):
            errno, _, text = report.removeprefix("error ").partition(" ")
            error = OSError(int(errno) if errno.isdigit() else 0, text or "no report", argv[0])
            message = f"cannot start bot {self.cmd.command!r}: {error}"
            self.note(message)
            self.close()
            raise BotStartError(message)
        self.bot_pid = int(report.split()[1])
        assert proc.stdout is not None and proc.stderr is not None  # both are PIPEs
        for target, stream in ((self._read_stdout, proc.stdout),
                               (self._read_stderr, proc.stderr)):
            t = threading.Thread(target=target, args=(stream,), daemon=True)
            t.start()
            self._threads.append(t)

    def _fail_start(self, text: str) -> NoReturn:
        self.note(text)
        if self._log:
            self._log.close()
            self._log = None
        raise BotStartError(text)

    @staticmethod
    def _read_report(fd: int) -> str:
        """The supervisor's one-line report: ``ok PID`` or ``error ERRNO TEXT``."""
        data = b""
        deadline = time.monotonic() + START_TIMEOUT_S
        try:
            while (left := deadline - time.monotonic()) > 0:
                if not select.select([fd], [], [], left)[0]:
                    break
                chunk = os.read(fd, 1000)
                if not chunk:
                    break
                data += chunk
        finally:
            os.close(fd)
        return data.decode(errors="replace").strip() or "error 0 the supervisor gave no report"

    def close(self) -> int | None:
        """End the game: the supervisor kills the bot and all its descendants.

        Returns the supervisor's exit status (the bot's, or -9 if it was
        still running).
        """
        proc = self.proc
        if proc is None:
            return None
        with contextlib.suppress(OSError):
            if proc.stdin:
                proc.stdin.close()
        if self._control is not None:
            os.close(self._control)  # the supervisor's signal: kill them all
            self._control = None
        try:
            status = proc.wait(timeout=CLOSE_TIMEOUT_S)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process in D state
            status = None
        # Without a subreaper (not Linux) or if the supervisor hung: its whole group.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if status is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                status = proc.wait(timeout=CLOSE_TIMEOUT_S)
        for t in self._threads:
            t.join(timeout=1)
        for stream in (proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                if stream:
                    stream.close()
        if self.dropped or self.cut:
            self.note(f"{self.dropped} unread lines dropped, {self.cut} overlong lines cut")
        if self._log:
            self._log.close()
            self._log = None
        return status

    @property
    def pid(self) -> int | None:
        """The bot's own process id (its supervisor is `proc`)."""
        return self.bot_pid

    def exit_status(self) -> int | None:
        return self.proc.poll() if self.proc else None

    # ---- I/O

    def send(self, *lines: str) -> None:
        """Write lines to the bot; a closed pipe raises `NoAnswer` ("eof")."""
        assert self.proc is not None and self.proc.stdin is not None
        data = "".join(line + "\n" for line in lines).encode()
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise NoAnswer("eof", self._died_text()) from None

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
            self.note(f"{len(stale)} unasked line(s) ignored, first: {stale[0][:80]!r}")
        return stale

    def read_line(self, timeout_s: float) -> tuple[float, str]:
        """The next line and when it arrived (monotonic); raises `NoAnswer`."""
        try:
            arrived, line = self.lines.get(timeout=max(0.0, timeout_s))
        except queue.Empty:
            raise NoAnswer("timeout", "no answer in time") from None
        if line is None:
            self.lines.put((arrived, None))
            raise NoAnswer("eof", self._died_text())
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

    def note(self, text: str) -> None:
        """A referee's remark in the bot's log."""
        self._write_log(f"[ninefold referee] {text}\n".encode())
