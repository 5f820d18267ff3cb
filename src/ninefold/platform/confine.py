"""Runs one sandbox in a cgroup of its own: memory, processes and CPU capped as a whole.

`ninefold.platform.sandbox` starts every sandbox through this script when the
host lets it make cgroups (`ninefold.platform.cgroups`)::

    python -I -S confine.py MEMORY_BYTES TASKS CPU_QUOTA_US CPU_PERIOD_US \\
        CONTROLLER=PARENT... -- ARGV...

For each ``CONTROLLER=PARENT`` (``memory``, ``pids`` and ``cpu`` of cgroup v1,
or ``unified`` for cgroup v2) it makes the cgroup ``PARENT/sandbox-PID`` (PID:
its own), sets the limits (memory and swap together, processes and threads,
CPU time per period; ``-1``: none), forks, moves the child into it and execs
ARGV there; it stays outside, watching. If the cgroup runs out of memory, it
says so on stderr in one line and kills everything in it: the sandbox ends
as a whole, as a bot that loses half its processes must not play on. When
the child ends it kills what is left in the cgroup, removes it, and exits
with the child's status. If it is killed first (a game's supervisor kills it
when the game ends), the cgroup is left empty, and `cgroups.sweep` removes
it (the process that made the command sweeps every second while any exist).

Like the game supervisor it imports only the standard library, so that it
starts in a few tens of milliseconds with ``-I -S``.
"""

from __future__ import annotations

import os
import select
import sys

TYPE_CHECKING = False  # not `typing`'s: importing typing would double the start-up
if TYPE_CHECKING:
    import signal
else:
    import _signal as signal  # the C module: ``signal`` imports enum

PREFIX = "sandbox-"  # a sandbox's cgroup: PREFIX + the pid of its confine process
EMPTY_WAIT_S = 5.0  # the killed processes have left the cgroup within this


def _put(folder: str, name: str, value: str, optional: bool = False) -> None:
    try:
        with open(os.path.join(folder, name), "w") as f:
            f.write(value)
    except FileNotFoundError:
        if not optional:
            raise


def make(parents: dict[str, str], memory: int, tasks: int, quota: int,
         period: int) -> dict[str, str]:
    """Make (or take over) this process's cgroups and set their limits."""
    made = {}
    for kind, parent in parents.items():
        folder = made[kind] = os.path.join(parent, f"{PREFIX}{os.getpid()}")
        try:  # noqa: SIM105 - no contextlib: the fewest imports
            os.mkdir(folder, 0o755)
        except FileExistsError:
            pass  # left by a process of the same pid: empty, taken over
    limit = str(memory) if memory >= 0 else "-1"
    if "unified" in made:
        folder = made["unified"]
        _put(folder, "memory.max", limit if memory >= 0 else "max")
        _put(folder, "memory.swap.max", "0", optional=True)
        _put(folder, "pids.max", str(tasks) if tasks >= 0 else "max")
        _put(folder, "cpu.max", f"{quota if quota >= 0 else 'max'} {period}", optional=True)
        return made
    _put(made["memory"], "memory.memsw.limit_in_bytes", "-1", optional=True)  # memsw >= mem
    _put(made["memory"], "memory.limit_in_bytes", limit)
    _put(made["memory"], "memory.memsw.limit_in_bytes", limit, optional=True)  # no swap
    _put(made["pids"], "pids.max", str(tasks) if tasks >= 0 else "max")
    if "cpu" in made:
        _put(made["cpu"], "cpu.cfs_period_us", str(period))
        _put(made["cpu"], "cpu.cfs_quota_us", str(quota))
    return made


def members(folder: str) -> list[int]:
    """The processes in a cgroup (none if it is gone)."""
    try:
        with open(os.path.join(folder, "cgroup.procs")) as f:
            return [int(line) for line in f.read().split()]
    except OSError:
        return []


def empty(folders: list[str]) -> bool:
    """Kill every process in the cgroups `folders`; once none is left (within
    `EMPTY_WAIT_S`), remove them and return True. False: they are left for
    `cgroups.sweep`."""
    deadline = _now() + EMPTY_WAIT_S
    while True:
        left = {pid for folder in folders for pid in members(folder)}
        for pid in left:
            try:  # noqa: SIM105 - no contextlib: the fewest imports
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if not left:
            busy = False
            for folder in folders:
                try:
                    os.rmdir(folder)
                except FileNotFoundError:
                    pass
                except OSError:
                    busy = True  # a process is still leaving
            if not busy:
                return True
        if _now() > deadline:
            return False
        select.select([], [], [], 0.01)


def _now() -> float:
    return os.times().elapsed


def _oom_watch(made: dict[str, str]) -> tuple[int, str]:
    """A file descriptor that becomes readable when the cgroup runs out of memory, and
    how to tell ("eventfd": v1's notification; "events": v2's memory.events changed)."""
    if "unified" in made:
        return os.open(os.path.join(made["unified"], "memory.events"), os.O_RDONLY), "events"
    event = os.eventfd(0, os.EFD_CLOEXEC)
    control = os.open(os.path.join(made["memory"], "memory.oom_control"), os.O_RDONLY)
    _put(made["memory"], "cgroup.event_control", f"{event} {control}")
    return event, "eventfd"


def _oom_kills(made: dict[str, str]) -> int:
    """How many processes the kernel killed for lack of memory in the cgroup."""
    name = "memory.events" if "unified" in made else "memory.oom_control"
    try:
        with open(os.path.join(made.get("unified") or made["memory"], name)) as f:
            for line in f:
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _exit_like(status: int) -> None:
    """Exit with the child's wait status: the same code, or 128 + its signal."""
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def main(args: list[str]) -> None:
    split = args.index("--")
    memory, tasks, quota, period = (int(a) for a in args[:4])
    parents = dict(a.split("=", 1) for a in args[4:split])
    argv = args[split + 1:]
    try:
        made = make(parents, memory, tasks, quota, period)
        watch, kind = _oom_watch(made)
    except OSError as exc:
        os.write(2, f"sandbox: cannot make its cgroup: {exc}\n".encode())
        os._exit(125)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    child = os.fork()
    if child == 0:
        try:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.set_wakeup_fd(-1)
            for name in ("SIGPIPE", "SIGXFSZ"):  # Python ignores these; the sandbox must not
                signal.signal(getattr(signal, name), signal.SIG_DFL)
            for folder in made.values():
                _put(folder, "cgroup.procs", "0")  # this process
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"sandbox: cannot start in its cgroup: {exc}\n".encode())
        finally:
            os._exit(125)
    polled = select.poll()
    polled.register(wake_r, select.POLLIN)
    polled.register(watch, select.POLLPRI if kind == "events" else select.POLLIN)
    oom = _oom_kills(made)
    while True:
        for fd, _ in polled.poll():
            if fd == wake_r:
                os.read(wake_r, 64)
            elif kind == "eventfd":
                os.read(watch, 8)
            else:  # read it again, or poll keeps reporting the same change
                os.lseek(watch, 0, os.SEEK_SET)
                os.read(watch, 4096)
            if fd == watch and (kind == "eventfd" or _oom_kills(made) > oom):
                os.write(2, f"\nsandbox: out of memory: its processes together may use "
                            f"{memory >> 20} MiB; all of them stopped\n".encode())
                empty(list(made.values()))
                oom = _oom_kills(made)
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid == child:
            break
    empty(list(made.values()))
    _exit_like(status)


if __name__ == "__main__":
    main(sys.argv[1:])
