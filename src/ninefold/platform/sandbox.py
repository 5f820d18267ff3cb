"""The sandbox: bubblewrap (``bwrap``) around every compile and every game of an uploaded bot.

What one run in it gets, and so what it guards against:

- **no network**: a network namespace of its own, with only a loopback of its
  own in it: no route out, to the host or anywhere, and no DNS;
- **none of the server's files**: it sees ``/usr`` (read-only), the few runtime
  files of ``/etc`` in `ETC`, a ``/proc`` of its own processes, a minimal
  ``/dev``, and ``/bot``: a tmpfs of `Limits.disk_mb`, the only writable place
  (``/tmp`` points into it; ``/`` and ``/dev`` are read-only). The bot's
  folder is copied in as a tar stream, never bound, so another bot's folder
  is nowhere in sight, and the folder's path need not be reachable by the
  sandbox's user. Nor is the server's environment: bwrap starts with an
  empty one, and gives the bot only PATH, HOME and LANG;
- **a user of its own**: run as root, each sandbox becomes user and group
  `SANDBOX_UID_BASE` + its launcher's pid (unique among running sandboxes, no
  other process has it), so the process limit, which Linux counts per user
  across namespaces, is its own: a fork bomb in one sandbox cannot starve
  another, nor signal or trace it. Run as another user, it stays that user
  (bwrap unprivileged), which is weaker: see below;
- **limits**: rlimits of each process (address space, CPU seconds, file
  size, open files; no core dumps) and, where the host lets it make cgroups
  (`ninefold.platform.cgroups`: a delegated cgroup v2 folder, or cgroup v1 as
  root), a cgroup of its own capping all its processes together: memory (its
  tmpfs included, no swap; out of it, the whole sandbox is stopped, with a line
  on its stderr saying so), processes and threads, and CPU time per second
  (`ninefold.platform.confine`). Without cgroups, processes are capped per
  user as root (each sandbox has its own) and memory only per process;
- **a seccomp deny-list** (`ninefold.platform.seccomp`, loaded by bwrap once it
  has set up): io_uring, the key store, bpf, userfaultfd, ptrace, modules,
  mounts, namespaces and their kin answer EPERM; another architecture's calls
  kill the process;
- **no leftovers**: its own pid namespace and ``--die-with-parent``: when the
  launcher dies (the arena's supervisor kills it when the game ends,
  `compile_bot` at its time limit), everything inside dies, and the tmpfs
  with it. Nested user namespaces are disabled, and it runs in a new session
  (no terminal to push keys into).

What it does not guard against: kernel exploits through the calls it allows
(the kernel is shared: this is not a VM); CPU and cache side channels;
denial of service through the kernel (kernel memory: its tmpfs caps bytes, not
inodes, so millions of empty files cost the host memory until the run ends);
wall-clock contention (bots running at once share the CPUs). Not run as root,
every sandbox shares your user's process count: `nproc` is then added to
what your user runs already, and concurrent sandboxes share that headroom.

>>> limits = Limits(memory_mb=256)
>>> argv = command(Path("/usr/share"), "exec ./bot", limits)
>>> argv[argv.index("/bin/sh") + 1], f"--as={256 << 20}" in argv, argv[-1]
('-c', True, 'tar -xf - -C /bot <&3 && exec 3<&- && mkdir -p .tmp && exec ./bot')
"""

from __future__ import annotations

import contextlib
import functools
import glob
import logging
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from ninefold.platform import cgroups, confine, seccomp, unpacker
from ninefold.platform.archive import (
    HEADER_ROOM,
    ArchiveError,
    ArchiveLimits,
    archive_kind,
    check_dest,
    check_size,
    read_checked,
    stream_budget,
)
from ninefold.platform.recipes import Recipe, RecipeError
from ninefold.platform.unpacker import READER_LIMITS, ReaderLimits
from ninefold.system import process_ids, process_status

# Root's sandboxes run as SANDBOX_UID_BASE + their launcher's pid (pids stay below 2**22):
# above the ranges systemd hands to containers, below 2**31, unused by any account.
SANDBOX_UID_BASE = 0x7000_0000
PID_SPAN = 1 << 22
# What runtimes read from the host's /etc, bound read-only: /usr/bin/java and cc are links
# through /etc/alternatives, the JVM reads its configuration from /etc/java-NN-openjdk, the
# dynamic loader its cache. Nothing else of /etc is visible (no passwd, shadow, hosts).
ETC = ("/etc/alternatives", "/etc/java-*", "/etc/ld.so.cache", "/etc/ld.so.conf",
       "/etc/ld.so.conf.d", "/etc/localtime")
# Top-level folders a runtime may use: links into /usr on a merged-/usr system (mirrored
# as links), else bound read-only.
TOP_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
LOG_BYTES = 64 << 10  # compile output kept
LAUNCHER_TASKS = 16  # room in a sandbox's process cap for its launcher (sh, tar, bwrap)
BUILD_FILES = 10_000  # files a compiled folder may hold
KILL_WAIT_S = 5.0  # a killed sandbox's processes are gone within this

# The launcher, run by /bin/sh on the host as the caller (root or not): it streams the bot's
# folder ($1) as a tar into fd 3 of the rest of its arguments (the jail), keeping stdin for
# the bot; as root it first becomes a user of its own, SANDBOX_UID_BASE + its pid ($$).
# With a seccomp filter it first opens it on a free fd of 5-9 (the shell's highest), for
# bwrap's --seccomp.
_LAUNCHER = ('{seccomp}exec 4<&0; tar -C "$1" -cf - . 4<&- | {{ exec 3<&0 <&4 4<&-; '
             'shift; {become}exec "$@"; }}')
SECCOMP_FDS = range(5, 10)
_BECOME = ('u=$(({base} + $$)); '
           'set -- {setpriv} --reuid "$u" --regid "$u" --clear-groups -- "$@"; ')
# Inside the jail: unpack the folder from fd 3 into /bot (its working folder), then run.
_INSIDE = "tar -xf - -C /bot <&3 && exec 3<&- && mkdir -p .tmp && {shell}"


@dataclass(frozen=True)
class Limits:
    """What one sandbox may use. `memory_mb`, `cpu_s`, `file_mb` and `open_files` are
    rlimits of each of its processes; `total_mb`, `nproc` and `cpus` cap the sandbox as a
    whole where the host lets it make cgroups (`ninefold.platform.cgroups`; else `nproc`
    is an rlimit of its user, and the others are not enforced)."""

    memory_mb: int = 1024  # address space (RLIMIT_AS): the JVM reserves far more than it uses
    cpu_s: int = 300  # CPU seconds (RLIMIT_CPU)
    nproc: int = 64  # processes and threads of its user (RLIMIT_NPROC): a JVM has 14
    disk_mb: int = 128  # the tmpfs /bot (and /tmp), its only writable place
    file_mb: int = 64  # the largest file it may write (RLIMIT_FSIZE)
    wall_s: float = 60.0  # wall-clock time of a compile (a game has its clocks)
    open_files: int = 256  # RLIMIT_NOFILE
    total_mb: int | None = None  # memory of all its processes and its tmpfs, no swap
    # (cgroup); None: memory_mb + disk_mb (one process's worth, and a full disk)
    cpus: float = 1.0  # CPU time per wall-clock second of all its processes (cgroup quota)

    def whole_mb(self) -> int:
        """The memory the sandbox's processes may use together, its tmpfs included."""
        return self.total_mb if self.total_mb is not None else self.memory_mb + self.disk_mb


# Measured on Debian 12 (address space): javac with -J-Xmx512m needs 1 GiB (896 MiB fails),
# g++ 128 MiB for a small bot; the fixtures compile in 0.1 s (C, Python) to 0.5 s (C++, Java).
COMPILE_LIMITS = Limits(memory_mb=2048, cpu_s=120, disk_mb=192, file_mb=128, wall_s=60,
                        cpus=2.0)
# A game: memory_mb comes from the bot's recipe (`game_command`): the JVM needs 704 MiB with
# the recipe's options, the fixture bots in C, C++ and Python under 16 MiB.
GAME_LIMITS = Limits()


@dataclass
class Build:
    """What `compile_bot` did: `log` ends with a line saying it."""

    ok: bool
    log: str
    seconds: float


TOOLS = {"bwrap": "bubblewrap", "prlimit": "util-linux", "setpriv": "util-linux",
         "tar": "tar", "env": "coreutils"}  # the programs the sandbox needs, their packages


@functools.cache
def _tool(name: str) -> str:
    """The program's full path (its bare name if it is missing: `available` says so)."""
    return shutil.which(name) or shutil.which(name, path="/usr/bin:/usr/sbin") or name


def _as_root() -> bool:
    return os.geteuid() == 0


def _tasks(uid: int | None = None) -> dict[int, int]:
    """The living processes (not zombies) of `uid` (None: of any sandbox user), with
    their thread counts."""
    found = {}
    for pid in process_ids():
        status = process_status(pid)
        if status is None:
            continue  # gone meanwhile
        mine = (status.uid == uid if uid is not None
                else SANDBOX_UID_BASE <= status.uid < SANDBOX_UID_BASE + PID_SPAN)
        if mine and status.state not in ("Z", "X"):
            found[pid] = status.threads
    return found


def leftovers() -> list[int]:
    """The pids of living processes of any sandbox user (always empty when not root)."""
    return sorted(_tasks()) if _as_root() else []


def _nproc(limits: Limits) -> int:
    """RLIMIT_NPROC for a sandbox: its own user's count as root, else on top of yours."""
    if _as_root():
        return limits.nproc
    return limits.nproc + sum(_tasks(os.getuid()).values())


def _jail(limits: Limits, binds: Sequence[Path] = ()) -> list[str]:
    """env, prlimit and bwrap, up to (not including) the command run inside. bwrap runs
    with an empty environment: it is the sandbox's process 1, whose environment (the
    server's) would be readable in /proc/1/environ. `binds`: folders bound read-only
    where they are (for ninefold's own archive reader, never for a bot)."""
    rlimits = [_tool("env"), "-i", _tool("prlimit"), f"--as={limits.memory_mb << 20}",
               f"--cpu={limits.cpu_s}", f"--nproc={_nproc(limits)}",
               f"--fsize={limits.file_mb << 20}", f"--nofile={limits.open_files}", "--core=0",
               "--"]
    jail = [_tool("bwrap"), "--unshare-all", "--unshare-user", "--disable-userns",
            "--die-with-parent", "--new-session", "--hostname", "sandbox",
            *(["--seccomp", str(_seccomp_fd())] if _seccomp() else []),
            "--ro-bind", "/usr", "/usr"]
    for top in TOP_DIRS:
        if os.path.islink(top):
            jail += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            jail += ["--ro-bind", top, top]
    for pattern in ETC:
        for path in sorted(glob.glob(pattern)):
            jail += ["--ro-bind", path, path]
    made: set[Path] = set()
    # a folder under /tmp (a clone or virtual environment there) is bound inside a /tmp of
    # its own, which then replaces the link to /bot/.tmp (bwrap cannot link over it)
    tmp_bound = any(Path(folder).is_relative_to("/tmp") for folder in binds)
    if tmp_bound:
        jail += ["--size", str(limits.disk_mb << 20), "--tmpfs", "/tmp"]
        made.add(Path("/tmp"))
    for folder in binds:  # their parents made searchable (bwrap's own would be 0700)
        for parent in (*reversed(folder.parents[:-1]), folder):
            if parent not in made:
                made.add(parent)
                jail += ["--perms", "0755", "--dir", str(parent)]
        jail += ["--ro-bind", str(folder), str(folder)]
    jail += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(limits.disk_mb << 20), "--tmpfs", "/bot",
             *([] if tmp_bound else ["--symlink", "bot/.tmp", "/tmp"]),
             "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/bot",
             "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/bot",
             "--setenv", "LANG", "C.UTF-8", "--"]
    return rlimits + jail


def command(src: Path, shell: str, limits: Limits) -> list[str]:
    """The argv that runs the shell command `shell` in the sandbox, in /bot: a fresh,
    writable copy of the folder `src`. Its first process, the launcher, lives as long
    as the sandbox: killing it ends everything inside."""
    src = Path(src).resolve()
    if not src.is_dir():
        raise FileNotFoundError(f"no bot folder {src}")
    become = (_BECOME.format(base=SANDBOX_UID_BASE, setpriv=shlex.quote(_tool("setpriv")))
              if _as_root() else "")
    announce()
    filter_file = _seccomp()
    seccomp = (f"exec {_seccomp_fd()}<{shlex.quote(str(filter_file))}; "
               if filter_file else "")
    tree = cgroups.find()
    confined = (cgroups.prefix(tree, limits.whole_mb() << 20, limits.nproc + LAUNCHER_TASKS,
                               limits.cpus) if tree else [])
    return [*confined, "/bin/sh", "-c", _LAUNCHER.format(become=become, seccomp=seccomp),
            "sandbox", str(src), *_jail(limits), "sh", "-c", _INSIDE.format(shell=shell)]


def _seccomp_fd() -> int:
    """The descriptor the launcher opens the seccomp filter on, for bwrap's --seccomp."""
    return SECCOMP_FDS[0]


@functools.cache
def _seccomp() -> Path | None:
    """The seccomp filter's file (None if libseccomp is missing: `setup_line` says so)."""
    try:
        return seccomp.filter_file()
    except (seccomp.SeccompError, OSError):
        return None


@functools.cache
def announce() -> None:
    """Say `setup_line` once per process (logged): at its first sandbox, or earlier, as a
    worker starts; a warning where a sandbox is not capped as a whole or has no filter."""
    line = setup_line()
    weak = line.startswith(cgroups.NONE_LINE) or "no seccomp filter" in line
    logging.getLogger(__name__).log(logging.WARNING if weak else logging.INFO, line)


def setup_line() -> str:
    """What a server running sandboxes says at start, in one line: how each is capped
    as a whole (cgroups) or not (rlimits only), and whether it has a seccomp filter."""
    try:
        seccomp.filter_file()
        filtered = "seccomp deny-list on"
    except (seccomp.SeccompError, OSError) as exc:
        filtered = f"no seccomp filter ({exc})"
    return f"{cgroups.line()}; {filtered}"


def game_command(build_dir: Path, recipe: Recipe, limits: Limits | None = None) -> str:
    """The command line (for ``Seat.external``) that runs the compiled bot in `build_dir`
    in the sandbox; the arena's supervisor kills it all when the game ends. `limits`:
    `GAME_LIMITS` with the recipe's memory by default. Raises `RecipeError` if the
    folder has no entry for the recipe."""
    recipe = recipe.for_folder(build_dir)
    limits = limits or replace(GAME_LIMITS, memory_mb=recipe.memory_mb)
    return shlex.join(command(build_dir, f"exec {recipe.run}", limits))


@functools.cache
def available() -> str | None:
    """None if the sandbox works here, else why not (one line)."""
    for name, package in TOOLS.items():
        if (name != "setpriv" or _as_root()) and not os.path.isabs(_tool(name)):
            return f"{name} is not installed (apt-get install {package})"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "probe").write_text("ok")
            run = subprocess.run(command(Path(tmp), "cat probe", Limits(wall_s=30)),
                                 stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the sandbox cannot start: {exc}"
    if run.returncode != 0 or run.stdout != b"ok":
        lines = run.stderr.decode(errors="replace").strip().splitlines()
        return f"the sandbox does not work here: {lines[-1] if lines else 'no output'}"
    return None


class _Capture(threading.Thread):
    """Reads a stream to its end, keeping its first `cap` bytes and counting the rest;
    the first byte past `cap` calls `on_overflow`."""

    def __init__(self, stream: IO[bytes], cap: int,
                 on_overflow: Callable[[], None] | None = None) -> None:
        super().__init__(daemon=True)
        self.stream, self.cap, self.on_overflow = stream, cap, on_overflow
        self.data = bytearray()
        self.dropped = 0
        self.start()

    def run(self) -> None:
        while chunk := self.stream.read(65536):
            room = self.cap - len(self.data)  # never negative
            self.data += chunk[:room]
            if len(chunk) > room:
                self.dropped += len(chunk) - room
                if self.on_overflow is not None:
                    self.on_overflow()
                    self.on_overflow = None


def compile_bot(src: Path, recipe: Recipe, out: Path, limits: Limits = COMPILE_LIMITS) -> Build:
    """Compile the bot in `src` with `recipe` in the sandbox; on success its folder (sources
    and all) is unpacked into the new folder `out`. The log ends with what happened."""
    t0 = time.monotonic()
    try:
        recipe = recipe.for_folder(src)
    except RecipeError as exc:
        return Build(False, f"compile failed: {exc}", 0.0)
    shell = f"{{ {recipe.compile or 'true'}\n}} >&2 && exec tar -cf - --exclude=./.tmp ."
    proc = subprocess.Popen(command(src, shell, limits), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    assert proc.stdout is not None and proc.stderr is not None
    cap = (limits.disk_mb << 20) + HEADER_ROOM
    output = _Capture(proc.stdout, cap, on_overflow=lambda: _kill(proc))
    log = _Capture(proc.stderr, LOG_BYTES)
    try:
        status: int | None = proc.wait(timeout=limits.wall_s)
    except subprocess.TimeoutExpired:
        status = None
        _kill(proc)
    for reader in (output, log):
        reader.join(KILL_WAIT_S)
    seconds = time.monotonic() - t0
    text = log.data.decode(errors="replace")
    if log.dropped:
        text += f"\n[{log.dropped} more bytes of compile output not kept]"
    ended = _ending(status, output.dropped, limits)
    if ended is None:
        try:
            unpack(bytes(output.data), "build.tar", out,
                   ArchiveLimits(max_upload_bytes=cap, max_files=BUILD_FILES,
                                 max_unpacked_bytes=limits.disk_mb << 20),
                   kind="tar", strip_single_folder=False)
        except ArchiveError as exc:
            ended = f"compile failed: its result was refused ({exc})"
    lines = [text.rstrip("\n")] if text.strip() else []
    lines.append(ended or f"compiled in {seconds:.1f} s")
    return Build(ended is None, "\n".join(lines), round(seconds, 3))


def _ending(status: int | None, overflow: int, limits: Limits) -> str | None:
    """Why a compile failed, in one line (None: it did not); `status` None: timed out.

    >>> _ending(None, 0, Limits(wall_s=60))
    'compile stopped after 60 s (time limit)'
    >>> _ending(137, 0, Limits()), _ending(1, 0, Limits())
    ('compile failed (killed by SIGKILL)', 'compile failed (exit 1)')
    """
    if overflow:
        return f"compile output exceeded {limits.disk_mb} MiB"
    if status is None:
        return f"compile stopped after {limits.wall_s:g} s (time limit)"
    sig = -status if status < 0 else status - 128 if status > 128 else 0
    if sig in signal.valid_signals():
        return f"compile failed (killed by {signal.Signals(sig).name})"
    if status != 0:
        return f"compile failed (exit {status})"
    return None


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the launcher's group (bwrap's pid namespace takes everything inside with it)
    and wait until the sandbox's user has no process left."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(KILL_WAIT_S)
    made = cgroups.sandboxes().get(proc.pid)  # its launcher's cgroup, if it has one
    if made:
        confine.empty(made)  # whatever is left in it, and the cgroup itself
    if not _as_root():
        return
    deadline = time.monotonic() + KILL_WAIT_S
    while _tasks(SANDBOX_UID_BASE + proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)


def unpack(data: bytes, filename: str, dest: Path, limits: ArchiveLimits | None = None,
           *, kind: str | None = None, strip_single_folder: bool = True,
           reader: ReaderLimits | None = None) -> list[str]:
    """`archive.unpack` done where it cannot hurt: by a short-lived child
    (`ninefold.platform.unpacker`) in the sandbox, with `reader`'s limits (where the
    sandbox does not work here, `available`, by a child that caps itself, as its own
    user when run as root). The server reads back only the child's plain tar, its
    format fixed, with every check again (`archive.read_checked`). `kind` fixes the
    archive's format; None: an upload's, told by `archive_kind` from its first bytes
    (compared, never parsed). Raises `ArchiveError` (one line) also when the child
    crashes, hangs or writes too much; nothing is left behind. `limits`: `ArchiveLimits`'s
    defaults by default; `reader`: `READER_LIMITS`."""
    dest, limits, reader = Path(dest), limits or ArchiveLimits(), reader or READER_LIMITS
    check_size(data, limits)
    kind = kind or archive_kind(data, filename)
    check_dest(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with (tempfile.TemporaryDirectory(prefix=f".{dest.name}.", suffix=".unpack",
                                      dir=dest.parent) as work,
          tempfile.TemporaryFile(dir=work) as archive):
        archive.write(data)
        archive.flush()
        archive.seek(0)
        args = unpacker.arguments(kind, filename, limits, strip_single_folder, reader)
        stream = _read_archive(Path(work), archive, args, len(data), limits, reader)
    return read_checked(stream, dest, limits)


def _read_archive(work: Path, archive: IO[bytes], args: list[str], size: int,
                  limits: ArchiveLimits, reader: ReaderLimits) -> bytes:
    """Run the reader on `archive` (its stdin) in the folder `work`; its stream, or
    `ArchiveError` with why there is none."""
    disk = unpacker.disk_mb(limits)
    jail = Limits(memory_mb=unpacker.memory_mb(size, reader), cpu_s=reader.cpu_s,
                  nproc=reader.nproc, disk_mb=disk, file_mb=disk, wall_s=reader.wall_s,
                  open_files=reader.open_files, cpus=1.0)
    proc = subprocess.Popen(_reader_command(unpacker.command(args), jail),
                            stdin=archive, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=work, start_new_session=True,
                            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    assert proc.stdout is not None and proc.stderr is not None
    output = _Capture(proc.stdout, stream_budget(limits), on_overflow=lambda: _kill(proc))
    log = _Capture(proc.stderr, reader.stderr_bytes)
    status: int | None
    try:
        status = proc.wait(timeout=reader.wall_s)
    except subprocess.TimeoutExpired:
        status = None
        _kill(proc)
    for capture in (output, log):
        capture.join(KILL_WAIT_S)
    problem = unpacker.failure(status, output.dropped > 0, bytes(log.data), limits, reader)
    if problem is not None:
        raise problem
    return bytes(output.data)


def _reader_command(child: list[str], limits: Limits) -> list[str]:
    """The argv that runs the archive reader `child` in the sandbox (seccomp filter and
    cgroup included, as `command` does), with the interpreter's folders bound where they
    are, or, where the sandbox does not work here (`available`) or this process cannot
    read those folders (bwrap could not bind them), as a plain child. Run as
    root, bwrap binds them as root (the sandbox's users may not reach them: a home
    folder), in every namespace but the user's, and the reader becomes its own real
    user itself (`--uid`: SANDBOX_UID_BASE + this launcher's pid) before it reads."""
    launcher = 'exec "$@"'
    if _as_root():
        launcher += f" --uid $(({SANDBOX_UID_BASE} + $$))"
    paths = unpacker.interpreter_paths()
    if available() is not None or not all(os.access(p, os.R_OK | os.X_OK) for p in paths):
        return ["/bin/sh", "-c", launcher, "reader", *child]
    jail = _jail(limits, paths)
    if _as_root():
        jail = [new for arg in jail if arg not in ("--unshare-user", "--disable-userns")
                for new in (["--unshare-ipc", "--unshare-pid", "--unshare-net",
                             "--unshare-uts", "--unshare-cgroup-try"]
                            if arg == "--unshare-all" else [arg])]
    filter_file = _seccomp()
    if filter_file:
        launcher = f"exec {_seccomp_fd()}<{shlex.quote(str(filter_file))}; {launcher}"
    tree = cgroups.find()
    confined = (cgroups.prefix(tree, limits.whole_mb() << 20, limits.nproc + LAUNCHER_TASKS,
                               limits.cpus) if tree else [])
    return [*confined, "/bin/sh", "-c", launcher, "reader", *jail, *child]
