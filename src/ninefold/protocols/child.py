"""A Python child process serving its parent over pipes: both ends, written once.

The bot's search (`ninefold.protocols.search_process`), the web's computer
(`ninefold.web.computer`) and the web's analysis (`ninefold.web.analysis`) each run in
such a child, so that a search holds neither the bot's nor the server's interpreter.

- Start: `Child(target).start()` runs `COMMAND` (a fresh Python calling `main`) with
  `target` (``"module:function"``) and this process's pid; the child calls
  ``function(Parent)`` and ends when it returns.
- Messages: tuples, pickled and framed (`write_message`, `read_messages`), on the
  child's stdin and stdout (whatever else it prints goes to its stderr). The parent
  waits for one with `Child.receive`, or on an event loop with `Child.receive_async`;
  what they mean (a load and its answer, a move, a stop) is the caller's protocol.
- Stop: the child's `Parent` reads in a thread of its own and sets the event
  `Parent.halt` gave as soon as a message comes, so work under way can end at once.
- Shutdown: `Child.close` closes the child's stdin (its `Parent` yields no more
  messages), waits, then kills; `Child.kill` kills at once.
- Death of the parent: the child ends with it, even on SIGKILL (`end_with_parent`),
  and when its stdin closes. Death of the child: the parent's next send or
  receive raises `ChildGone`; `Child.start` starts a fresh one.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

from ninefold.protocols.process import end_with_parent

COMMAND = (sys.executable, "-c", "from ninefold.protocols.child import main; main()")
CLOSE_WAIT_S = 5.0  # a child that has not ended this long after its stdin closed is killed
HEADER = 4  # bytes: each message's length, before it
CHUNK = 1 << 16  # bytes read at a time

Message = tuple[Any, ...]


class ChildGone(RuntimeError):
    """The child process has ended (or was never started): nothing more goes either way."""


def frame(message: Message) -> bytes:
    """`message` as it goes over a pipe: its length, then its pickle.

    >>> frame(("stop", 1))[:HEADER] == len(pickle.dumps(("stop", 1), 5)).to_bytes(HEADER, "big")
    True
    """
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(HEADER, "big") + data


def write_message(stream: IO[bytes], message: Message) -> None:
    """Send `message` on `stream` (`OSError` or `ValueError` if it is closed)."""
    stream.write(frame(message))
    stream.flush()


class _Frames:
    """Messages cut out of the bytes `read` gives (a read of up to n bytes; b"" at the end)."""

    def __init__(self, read: Callable[[int], bytes]) -> None:
        self.read = read
        self.buffer = bytearray()
        self.ended = False

    def take(self) -> Message | None:
        """The next whole message already read, if any."""
        if len(self.buffer) < HEADER:
            return None
        end = HEADER + int.from_bytes(self.buffer[:HEADER], "big")
        if len(self.buffer) < end:
            return None
        message: tuple[Any, ...] = pickle.loads(self.buffer[HEADER:end])
        del self.buffer[:end]
        return message

    def fill(self) -> bool:
        """Read once more (this blocks if nothing is there); False at the end."""
        try:
            chunk = self.read(CHUNK)
        except (OSError, ValueError):  # a closed or broken pipe
            chunk = b""
        self.ended = not chunk
        self.buffer += chunk
        return not self.ended

    def next(self) -> Message | None:
        """The next message, read as needed; None at the end (or for bytes that are no
        message)."""
        try:
            while (message := self.take()) is None:
                if self.ended or not self.fill():
                    return None
        except (pickle.UnpicklingError, EOFError, ValueError):
            self.ended = True
            return None
        return message


def read_messages(stream: IO[bytes]) -> Iterator[Message]:
    """The messages on `stream`, until it ends.

    >>> import io
    >>> stream = io.BytesIO()
    >>> write_message(stream, ("play", 1))
    >>> write_message(stream, ("new_game",))
    >>> _ = stream.seek(0)
    >>> list(read_messages(stream))
    [('play', 1), ('new_game',)]
    """
    frames = _Frames(getattr(stream, "read1", stream.read))
    while (message := frames.next()) is not None:
        yield message


# --- the parent's end ------------------------------------------------------------------


class Child:
    """A child process running `target` (``"module:function"``, see `main`), started by
    `command` (default `COMMAND`; the target and this process's pid are added to it).

    One thread at a time may receive; any thread may send."""

    def __init__(self, target: str, command: Sequence[str] = COMMAND) -> None:
        self.target = target
        self.command = list(command)
        self.proc: subprocess.Popen[bytes] | None = None
        self._frames: _Frames | None = None
        self._send_lock = threading.Lock()
        self._read_lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def running(self) -> bool:
        """Started, and neither ended nor known to have ended."""
        return (self.proc is not None and self.proc.poll() is None
                and self._frames is not None and not self._frames.ended)

    def start(self) -> None:
        """Start the child (a fresh one, if one ran before: it is killed); `OSError` if it
        cannot start."""
        self.kill()
        proc = subprocess.Popen([*self.command, self.target, str(os.getpid())],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        self.proc = proc
        self._frames = _Frames(functools.partial(os.read, proc.stdout.fileno()))

    def fileno(self) -> int:
        """The pipe the child's messages come on (to wait on it, as `receive_async` does)."""
        if self.proc is None or self.proc.stdout is None:
            raise ChildGone("the child process was not started")
        return self.proc.stdout.fileno()

    def send(self, message: Message) -> None:
        """Send `message` to the child; `ChildGone` if it has ended."""
        proc = self.proc
        if proc is None or proc.stdin is None:
            raise ChildGone("the child process was not started")
        with self._send_lock:
            try:
                write_message(proc.stdin, message)
            except (OSError, ValueError) as exc:  # a closed pipe
                raise ChildGone(f"the child process has ended ({exc})") from None

    def receive(self) -> Message:
        """The child's next message, waited for; `ChildGone` once it has ended."""
        frames = self._started()
        with self._read_lock:
            message = frames.next()
        if message is None:
            raise ChildGone("the child process has ended")
        return message

    def messages(self) -> Iterator[Message]:
        """The child's messages, until it ends."""
        with contextlib.suppress(ChildGone):
            while True:
                yield self.receive()

    def read_ready(self) -> list[Message]:
        """The messages that have come, after one read: call it when the pipe is readable
        (`fileno`, as an event loop's reader does), so the read does not block. Empty
        while a message is still coming; `ChildGone` once the child has ended."""
        frames = self._started()
        messages = []
        with self._read_lock:
            try:
                frames.fill()
                while (message := frames.take()) is not None:
                    messages.append(message)
            except (pickle.UnpicklingError, EOFError, ValueError):
                frames.ended = True
                raise ChildGone("the child process sent what is not a message") from None
        if not messages and frames.ended:
            raise ChildGone("the child process has ended")
        return messages

    async def receive_async(self) -> Message:
        """`receive`, waited for on the running event loop (no thread blocks)."""
        import asyncio  # only the web waits this way: the bot does not import asyncio

        frames = self._started()
        loop = asyncio.get_running_loop()
        fd = self.fileno()
        try:
            while (message := frames.take()) is None:
                if frames.ended:
                    raise ChildGone("the child process has ended")
                ready = loop.create_future()
                loop.add_reader(fd, _wake, ready)
                try:
                    await ready
                finally:
                    loop.remove_reader(fd)
                with self._read_lock:
                    frames.fill()  # readable: this read does not block
        except (pickle.UnpicklingError, EOFError, ValueError):
            frames.ended = True
            raise ChildGone("the child process sent what is not a message") from None
        return message

    def _started(self) -> _Frames:
        if self._frames is None:
            raise ChildGone("the child process was not started")
        return self._frames

    def close(self, wait_s: float = CLOSE_WAIT_S) -> None:
        """End the child: close its stdin (it ends when its function returns), wait up
        to `wait_s`, then kill it."""
        proc = self.proc
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError), self._send_lock:
            if proc.stdin is not None:
                proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=wait_s)
        self.kill()

    def kill(self) -> None:
        """Kill the child at once (if it runs) and free its pipes."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(OSError):
                proc.kill()
            proc.wait()
        with contextlib.suppress(OSError, ValueError), self._send_lock:
            if proc.stdin is not None:
                proc.stdin.close()
        with self._read_lock:  # a thread reading sees the end first: it is dead
            if self._frames is not None:
                self._frames.ended = True
            if proc.stdout is not None:
                proc.stdout.close()


def _wake(ready: Any) -> None:
    if not ready.done():
        ready.set_result(None)


# --- the child's end -------------------------------------------------------------------


class Parent:
    """The child's end: the parent's messages on `inp`, read by a thread of its own, and
    `send` on `out`. Work that should stop as soon as the parent speaks watches the
    event `halt` gives."""

    def __init__(self, inp: IO[bytes], out: IO[bytes]) -> None:
        self.out = out
        self._messages: queue.Queue[Message | None] = queue.Queue()
        self._lock = threading.Lock()
        self._halt = threading.Event()
        threading.Thread(target=self._read, args=(inp,), name="parent-inbox",
                         daemon=True).start()

    def _read(self, inp: IO[bytes]) -> None:
        for message in read_messages(inp):
            self._put(message)
        self._put(None)  # the end: it stops work under way, too

    def _put(self, message: Message | None) -> None:
        with self._lock:  # together: `halt` never misses a message
            self._messages.put(message)
            self._halt.set()

    def halt(self) -> threading.Event:
        """A new event, set when a message comes (already set if one is waiting)."""
        with self._lock:
            self._halt = threading.Event()
            if not self._messages.empty():
                self._halt.set()
            return self._halt

    @property
    def spoke(self) -> bool:
        """A message (or the end) waits to be received."""
        return not self._messages.empty()

    def receive(self) -> Message | None:
        """The parent's next message, waited for; None once its end has closed."""
        message = self._messages.get()
        if message is None:
            self._messages.put(None)  # and for any later call
        return message

    def __iter__(self) -> Iterator[Message]:
        while (message := self.receive()) is not None:
            yield message

    def send(self, message: Message) -> None:
        """Send `message` to the parent (`OSError` if its end has closed)."""
        write_message(self.out, message)


def main(argv: list[str] | None = None) -> None:
    """The child (`COMMAND` TARGET PARENT_PID): end with the parent, then call the
    function TARGET (``module:function``) with the `Parent` on stdin and stdout."""
    target, parent = sys.argv[1:3] if argv is None else argv
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C ends the parent, and the parent this
    end_with_parent(int(parent))
    module, name = target.split(":")
    function = getattr(importlib.import_module(module), name)
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print cannot break the pipe
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        function(Parent(sys.stdin.buffer, out))
