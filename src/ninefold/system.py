"""What the operating system says about this computer and its processes, read in one place.

The CPUs this process may use, the computer's memory and the memory this
process may use (``ulimit -v``, its cgroup's limit), and what ``/proc`` says
about processes (their ids, users, states, thread counts; this one's age),
and whether a line read from a pipe had to be waited for (`LineReader`).
Every probe says "unknown" in its own way (None, 0, an empty list) where the
OS does not tell (no ``/proc`` outside Linux): callers decide what that means.

>>> usable_cpus() >= 1
True
"""

from __future__ import annotations

import contextlib
import math
import os
import select
from collections.abc import Iterator
from pathlib import Path
from typing import IO, NamedTuple

CGROUP_ROOT = "/sys/fs/cgroup"
NO_CGROUP_LIMIT = 2**60  # a cgroup v1 memory limit this high is none (it says 2^63 - 4096)


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, where the OS keeps one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def physical_memory_bytes() -> int | None:
    """Bytes of memory this computer has, if the OS says."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def memory_limit_mb() -> float:
    """The memory this process may use, in MB: the least of the computer's memory,
    its address-space limit (``ulimit -v``) and its cgroup's limit (v2 ``memory.max``
    or v1 ``memory.limit_in_bytes``), those that are set and readable."""
    limits = []
    memory = physical_memory_bytes()
    if memory is not None:
        limits.append(memory / 2**20)
    with contextlib.suppress(ImportError, OSError, ValueError):
        import resource  # not on Windows

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            limits.append(soft / 2**20)
    with contextlib.suppress(OSError, ValueError):
        for path in cgroup_limit_files(Path("/proc/self/cgroup").read_text()):
            with contextlib.suppress(OSError, ValueError):
                text = Path(path).read_text().strip()
                if text != "max" and int(text) < NO_CGROUP_LIMIT:
                    limits.append(int(text) / 2**20)
    return min(limits) if limits else math.inf


def cgroup_limit_files(cgroups: str) -> list[str]:
    """The memory-limit files of the cgroups listed in `cgroups` (the text of
    ``/proc/self/cgroup``): v2's ``memory.max``, v1's memory controller's
    ``memory.limit_in_bytes``.

    >>> cgroup_limit_files("0::/user.slice/app/\\n")
    ['/sys/fs/cgroup/user.slice/app/memory.max']
    >>> cgroup_limit_files("4:cpu:/x\\n3:memory,hugetlb:/bots\\n")
    ['/sys/fs/cgroup/memory/bots/memory.limit_in_bytes']
    """
    files = []
    for line in cgroups.splitlines():
        if line.count(":") < 2:
            continue
        _, controllers, path = line.split(":", 2)
        if controllers == "":  # cgroup v2
            files.append(f"{CGROUP_ROOT}{path.rstrip('/')}/memory.max")
        elif "memory" in controllers.split(","):  # cgroup v1
            files.append(f"{CGROUP_ROOT}/memory{path.rstrip('/')}/memory.limit_in_bytes")
    return files


# --- processes, from /proc -----------------------------------------------------------------


class ProcessStatus(NamedTuple):
    """What ``/proc/PID/status`` says of a process, the fields ninefold reads."""

    uid: int  # its real user
    state: str
    threads: int


def process_ids() -> list[int]:
    """The ids of every process (empty where there is no ``/proc``)."""
    try:
        return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return []


def process_status(pid: int) -> ProcessStatus | None:
    """``/proc/PID/status`` of `pid`; None if it is gone.

    >>> process_status(os.getpid()).uid == os.getuid()
    True
    """
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            status = dict(line.split(b":", 1) for line in f.read().splitlines()
                          if b":" in line)
    except OSError:
        return None
    return ProcessStatus(int(status[b"Uid"].split()[0]), status[b"State"].split()[0].decode(),
                         int(status[b"Threads"]))


def process_age_s() -> float:
    """Seconds since this process started (0 if unknown).

    >>> 0 < process_age_s() < 86_400
    True
    """
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


class LineReader:
    """The lines of a text stream, each marked with whether it came while the reader
    waited for input (`waited`, for the line last yielded): a referee's clock runs from
    its write, and a request written while the bot already waited was written just now.

    With a file descriptor behind the stream the reader reads it itself (``os.read``)
    and checks it with a zero-timeout ``select`` before each read, so it knows what it
    holds; Python's own buffer would hide that. Without one (or where ``select`` cannot
    poll it) every line counts as already there: the cautious answer for a clock that
    may have been running. The reader must be the stream's only reader.

    >>> import io
    >>> reader = LineReader(io.StringIO("a\\nb\\n"))
    >>> [(line, reader.waited) for line in reader]
    [('a\\n', False), ('b\\n', False)]
    """

    CHUNK = 65536

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        try:
            self.fd: int | None = stream.fileno()
        except (OSError, ValueError):  # io.UnsupportedOperation is an OSError and a ValueError
            self.fd = None
        self.waited = False

    def _ready(self) -> bool:
        """Whether the descriptor has input at once (True when that cannot be told)."""
        assert self.fd is not None
        try:
            ready, _, _ = select.select([self.fd], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(ready)

    def __iter__(self) -> Iterator[str]:
        if self.fd is None:
            for line in self.stream:
                self.waited = False
                yield line
            return
        buf = bytearray()
        awaited_from: int | None = None  # where in `buf` what came after a wait begins
        while True:
            end = buf.find(b"\n")
            if end < 0:
                waited = not self._ready()
                chunk = os.read(self.fd, self.CHUNK)
                if not chunk:
                    if buf:
                        self.waited = awaited_from == 0
                        yield buf.decode("utf-8", "replace")
                    return
                if not buf:
                    awaited_from = 0 if waited else None
                elif waited and awaited_from is None:
                    awaited_from = len(buf)
                buf += chunk
                continue
            line = buf[:end + 1].decode("utf-8", "replace")
            del buf[:end + 1]
            self.waited = awaited_from == 0
            if awaited_from is not None:
                awaited_from = max(0, awaited_from - end - 1)
            yield line
