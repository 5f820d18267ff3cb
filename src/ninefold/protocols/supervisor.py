"""The supervisor: runs one external bot so that none of its processes outlives its game.

`ninefold.protocols.process` starts every external bot through this script::

    python -I -S supervisor.py CONTROL_FD REPORT_FD MEMORY_BYTES CPU_S -- BOT ARGV...

It makes itself a *child subreaper* (Linux ``PR_SET_CHILD_SUBREAPER``), so
every process the bot starts, including ones that call ``setsid`` or fork
twice to escape, stays its descendant; it then forks and execs the bot,
which inherits stdin, stdout and stderr straight from the arena (nothing is
copied). It reports ``ok PID`` (or ``error ERRNO TEXT`` if the bot cannot
start) on REPORT_FD, and waits. When the arena closes its end of
CONTROL_FD (the game is over) or dies (the kernel closes it for it, even
after ``kill -9``), when the bot itself exits, or on SIGTERM, SIGHUP or
SIGINT, it kills every descendant with SIGKILL, reaps them, and exits with
the bot's own status.

It imports only the standard library, and nothing of ninefold, so that it
starts in a few tens of milliseconds with ``-I -S``.
"""

from __future__ import annotations

import os
import select
import sys

TYPE_CHECKING = False  # not `typing`'s: importing typing would double the start-up
if TYPE_CHECKING:
    import signal
    from collections.abc import Callable

    Prctl = Callable[[int, int], object]
else:
    import _signal as signal  # the C module: ``signal`` imports enum, which doubles the start-up

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
ENDING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def _prctl() -> Prctl | None:
    """Linux's ``prctl`` through ``_ctypes`` (``ctypes`` itself costs ~10 ms to import)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import _ctypes

        class CInt(_ctypes._SimpleCData):  # type: ignore[type-arg]  # no [int] at run time
            _type_ = "i"

        class Function(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
            _restype_ = CInt

        # dlopen(None) is the program itself; typeshed's stub wants a path
        return Function(_ctypes.dlsym(_ctypes.dlopen(None), "prctl"))  # type: ignore[arg-type]
    except (ImportError, OSError, AttributeError):
        return None


def children_of(pid: int) -> list[int] | None:
    """`pid`'s children from ``/proc/PID/task/*/children`` (None if the kernel lacks it)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found  # gone meanwhile
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as f:
                found += [int(c) for c in f.read().split()]
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{task}"):
                continue  # the thread ended meanwhile
            return None  # no CONFIG_PROC_CHILDREN
        except OSError:
            continue
    return found


def scan(root: int) -> list[int]:
    """Every living process below `root`, from the parent ids of all of ``/proc``."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), ()):
            found.append(pid)
            todo.append(pid)
    return found


def descendants(root: int) -> list[int]:
    """Every process below `root` (parents first): read from each process's
    ``children`` file, or from a scan of ``/proc`` where the kernel has none.
    A process forked meanwhile can be missed: `kill_all` looks again."""
    found, todo = [], [root]
    while todo:
        children = children_of(todo.pop())
        if children is None:
            return scan(root)
        found += children
        todo += children
    return found


def kill_all() -> None:
    """SIGKILL every descendant and reap them, until this process has no child left.

    Orphans of the bot are re-parented to us (the subreaper), so when no
    child is left no descendant is left either; a process missed by one look
    (forked meanwhile) is found by the next.
    """
    me = os.getpid()
    while True:
        for pid in descendants(me):
            try:  # noqa: SIM105 - no contextlib: this script starts with the least imports
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        reaped = False
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return  # no child left
            if pid == 0:
                break
            reaped = True
        if not reaped:
            select.select([], [], [], 0.002)  # dying takes a moment: look again soon


def _exit_like(status: int) -> None:
    """Exit with the bot's wait status: the same code, or killed by the same signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig != signal.SIGKILL:
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _exec_bot(argv: list[str], memory: int, cpu: int, errors: int,
              prctl: Prctl | None) -> None:
    """In the forked child: restore what Python changed, apply the limits, exec the bot."""
    try:
        for sig in (signal.SIGCHLD, *ENDING):
            signal.signal(sig, signal.SIG_DFL)
        for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ"):  # Python ignores these; a bot must not
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # if this supervisor is killed outright
        import resource

        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if cpu:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        os.execvp(argv[0], argv)
    except Exception as exc:  # no such program, not executable, a limit refused...
        errno = getattr(exc, "errno", None) or 0
        os.write(errors, f"{errno} {getattr(exc, 'strerror', None) or exc}".encode())
    finally:
        os._exit(127)


def main(args: list[str]) -> None:
    control, report = int(args[0]), int(args[1])
    memory, cpu = int(args[2]), int(args[3])
    argv = args[5:]
    prctl = _prctl()
    if prctl is not None:
        prctl(PR_SET_CHILD_SUBREAPER, 1)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    for sig in (signal.SIGCHLD, *ENDING):
        signal.signal(sig, lambda *_: None)
    err_r, err_w = os.pipe()  # close-on-exec: EOF means the exec worked
    bot = os.fork()
    if bot == 0:
        os.close(control)
        os.close(report)
        _exec_bot(argv, memory, cpu, err_w, prctl)
    os.close(err_w)
    failure = os.read(err_r, 1000)
    os.close(err_r)
    os.write(report, b"error " + failure if failure else f"ok {bot}".encode())
    os.close(report)
    if failure:
        os.waitpid(bot, 0)
        os._exit(127)
    # The bot's pipes must close when its processes end: keep no copy of them.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    status = None
    while status is None:
        ready = select.select([control, wake_r], [], [])[0]
        if control in ready:
            break  # the arena closed the game, or died
        woken = os.read(wake_r, 64)
        if any(sig in woken for sig in ENDING):
            break
        while True:  # reap what ended; the bot's end is the game's end for all of them
            try:
                pid, wait_status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid == bot:
                status = wait_status
    kill_all()
    _exit_like(status if status is not None else signal.SIGKILL)


if __name__ == "__main__":
    main(sys.argv[1:])
