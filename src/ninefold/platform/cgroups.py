"""Where the sandbox may make cgroups, so that each build and game is capped as a whole.

Two set-ups are used, found by `find` once per process:

- **cgroup v2, delegated**: the folder named by ``NINEFOLD_SANDBOX_CGROUP``
  (else this process's own cgroup, which works only where it holds no
  process: the root) is writable and hands the ``memory`` and ``pids``
  controllers (``cpu`` too, where it has it) down to its children, or can be
  made to: a systemd service with ``Delegate=yes`` and ``DelegateSubgroup=``
  (its processes then sit in a child cgroup, and the variable names the
  service's cgroup), or a folder the operator made and gave to the
  platform's user;
- **cgroup v1** (a hybrid host, run as root): this process's own cgroups of
  the ``memory`` and ``pids`` hierarchies (and ``cpu``) are writable.

Each sandbox then gets ``sandbox-PID`` below them (`ninefold.platform.confine`
makes, caps and removes it). Anywhere else there are no cgroups: each
process of a sandbox keeps its rlimits, and `Tree.line` says so.

>>> Tree(1, {"memory": "/m", "pids": "/p"}).line()
'sandbox: cgroup v1 (memory, pids): each build and game capped as a whole'
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from ninefold.platform import confine

VARIABLE = "NINEFOLD_SANDBOX_CGROUP"  # a delegated cgroup v2 folder, if not this process's
NEEDED = ("memory", "pids")
SWEEP_S = 1.0  # how often cgroups of ended sandboxes are looked for while any exist
NONE_LINE = "sandbox: no delegated cgroup: limits are per process (rlimits)"
CONFINE = str(Path(confine.__file__))


@dataclass(frozen=True)
class Tree:
    """Where sandboxes' cgroups go: cgroup `version` 1 or 2, and the parent folder of
    each controller (``unified`` for v2)."""

    version: int
    parents: dict[str, str]

    def line(self) -> str:
        """What the server says at start, in one line."""
        kinds = ", ".join(self.controllers())
        return f"sandbox: cgroup v{self.version} ({kinds}): each build and game capped as a whole"

    def controllers(self) -> list[str]:
        if self.version == 1:
            return list(self.parents)
        return [*NEEDED, *(["cpu"] if _has(self.parents["unified"], "cpu") else [])]


def _has(folder: str, controller: str) -> bool:
    """True if the v2 cgroup `folder` hands `controller` down to its children."""
    with contextlib.suppress(OSError):
        return controller in Path(folder, "cgroup.subtree_control").read_text().split()
    return False


def _hand_down(folder: str) -> None:
    """Have the v2 cgroup `folder` hand memory, pids and cpu down where it has them and
    does not yet (refused where it holds processes itself, or is not ours: then not)."""
    with contextlib.suppress(OSError):
        offered = Path(folder, "cgroup.controllers").read_text().split()
        wanted = [c for c in (*NEEDED, "cpu") if c in offered and not _has(folder, c)]
        if wanted:
            Path(folder, "cgroup.subtree_control").write_text(
                " ".join(f"+{c}" for c in wanted))


def _mounts() -> list[tuple[str, str, str, str]]:
    """(root, mount point, type, super options) of each cgroup file system."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields = line.split()
            rest = fields[fields.index("-") + 1:]
            if rest[0] in ("cgroup", "cgroup2"):
                found.append((fields[3], fields[4], rest[0], rest[2]))
    return found


def _own() -> dict[str, str]:
    """This process's cgroup per controller ("" for v2's), from /proc/self/cgroup."""
    own = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                own[controller] = path
    return own


def _inside(root: str, point: str, path: str) -> str | None:
    """The folder of cgroup `path` under a mount of the hierarchy's `root` at `point`."""
    if root != "/" and not (path == root or path.startswith(root + "/")):
        return None
    relative = path[len(root):] if root != "/" else path
    return point + relative.rstrip("/") if relative.strip("/") else point


def _writable(folder: str) -> bool:
    """True if a child cgroup can be made and removed in `folder`."""
    probe = os.path.join(folder, f"{confine.PREFIX}probe-{os.getpid()}")
    try:
        os.mkdir(probe)
    except OSError:
        return False
    with contextlib.suppress(OSError):
        os.rmdir(probe)
    return True


def _v2(mounts: list[tuple[str, str, str, str]], own: dict[str, str]) -> Tree | None:
    folder = os.environ.get(VARIABLE)
    if not folder:
        for root, point, kind, _ in mounts:
            if kind == "cgroup2" and "" in own:
                folder = _inside(root, point, own[""])
                break
    if folder:
        _hand_down(folder)
    if folder and all(_has(folder, c) for c in NEEDED) and _writable(folder):
        return Tree(2, {"unified": folder})
    return None


def _v1(mounts: list[tuple[str, str, str, str]], own: dict[str, str]) -> Tree | None:
    parents = {}
    for controller in (*NEEDED, "cpu"):
        for root, point, kind, options in mounts:
            if kind == "cgroup" and controller in options.split(",") and controller in own:
                folder = _inside(root, point, own[controller])
                if folder and _writable(folder):
                    parents[controller] = folder
                break
    return Tree(1, parents) if all(c in parents for c in NEEDED) else None


@functools.cache
def find() -> Tree | None:
    """Where this process's sandboxes get their cgroups (None: nowhere; per-process
    rlimits only). v2 first, then v1."""
    if not sys.platform.startswith("linux"):
        return None
    mounts, own = _mounts(), _own()
    return _v2(mounts, own) or _v1(mounts, own)


def line() -> str:
    """What the server says at start about its sandboxes' limits (one line)."""
    tree = find()
    return tree.line() if tree else NONE_LINE


def prefix(tree: Tree, memory_bytes: int, tasks: int, cpus: float) -> list[str]:
    """The argv that runs a command in a cgroup of its own with these limits (`cpus`: CPU
    time per wall-clock time; 0: no quota). The sweeper runs while any may be left."""
    period = 100_000
    quota = int(cpus * period) if cpus > 0 else -1
    _sweeper.wake()
    return [sys.executable, "-I", "-S", CONFINE, str(memory_bytes), str(tasks), str(quota),
            str(period), *(f"{k}={v}" for k, v in tree.parents.items()), "--"]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def sandboxes(tree: Tree | None = None) -> dict[int, list[str]]:
    """The sandbox cgroups in this process's parents: confine's pid -> its folders."""
    tree = tree or find()
    found: dict[int, list[str]] = {}
    for parent in tree.parents.values() if tree else ():
        with contextlib.suppress(OSError):
            for name in os.listdir(parent):
                number = name.removeprefix(confine.PREFIX)
                if name.startswith(confine.PREFIX) and number.isdigit():
                    found.setdefault(int(number), []).append(os.path.join(parent, name))
    return found


def stale(tree: Tree | None = None) -> list[str]:
    """The cgroups of sandboxes whose confine process has ended (`sweep` removes them)."""
    return sorted(f for pid, folders in sandboxes(tree).items() if not _alive(pid)
                  for f in folders)


def sweep(tree: Tree | None = None) -> int:
    """Empty and remove the cgroups of ended sandboxes; how many are left (of any)."""
    left = 0
    for pid, folders in sandboxes(tree).items():
        if _alive(pid) or not confine.empty(folders):
            left += 1
    return left


class _Sweeper:
    """A daemon thread that sweeps every `SWEEP_S` while any sandbox cgroup is left."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def wake(self) -> None:
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="cgroup-sweeper",
                                               daemon=True)
                self.thread.start()

    def _run(self) -> None:
        idle = 0
        while idle < 30:  # a sandbox about to start has 30 s to make its cgroup
            threading.Event().wait(SWEEP_S)
            idle = 0 if sweep() else idle + 1


_sweeper = _Sweeper()
