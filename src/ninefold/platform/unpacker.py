"""The archive reader: the short-lived child that unpacks one archive where it cannot hurt.

The server never parses an uploaded archive, nor a compiler's output, itself:
`ninefold.platform.sandbox.unpack` starts this module as a child,

    python -I -m ninefold.platform.unpacker KIND FILENAME LIMITS STRIP [--uid UID]

in the sandbox (no network, none of the server's files, environment or database,
a user of its own when the server runs as root), gives it the archive on its
stdin, and reads back from its stdout one plain tar stream: the archive's files
and folders as `ninefold.platform.archive.unpack` unpacked them, written by
`ninefold.platform.archive.write_checked`. The format is fixed by the caller
(`KIND`), never guessed here. An archive refused exits `REFUSED` with its one
line on stderr; anything else (a crash, a hang past `ReaderLimits.wall_s`, more
output than the archive may hold) is told in one line by `failure`.

Before it reads a byte of the archive, the child closes every inherited file
descriptor but its three standard ones (bwrap's binds are given as descriptors
of folders outside the sandbox: one kept open would lead out of it) and caps
itself (`confine`): address space, CPU seconds, file size, open files, no core
dumps. Started as root, it then becomes the user of its own it is given (``--uid``:
the sandbox's base + its launcher's pid, as for bots), which may not fork.
So only this child ever loads libarchive (for ``.rar``).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from ninefold.platform.archive import ArchiveError, ArchiveLimits, preload, unpack, write_checked

MODULE = "ninefold.platform.unpacker"
# How the child is started after the interpreter: isolated (-I: no PYTHON* variables, no
# user site, neither the working folder nor the script's on sys.path). Tests replace it.
CHILD: tuple[str, ...] = ("-I", "-m", MODULE)
REFUSED = 3  # the child's exit status for an archive refused (its one line on stderr)
MIB = 1 << 20


@dataclass(frozen=True)
class ReaderLimits:
    """What one archive reader may use, beyond what the archive's own limits need."""

    memory_mb: int = 384  # address space, plus twice the archive's size (RLIMIT_AS)
    cpu_s: int = 20  # CPU seconds (RLIMIT_CPU)
    wall_s: float = 30.0  # wall-clock seconds before it is killed
    nproc: int = 16  # processes of its user, in the sandbox (its shell and tar, then itself)
    open_files: int = 64  # RLIMIT_NOFILE
    stderr_bytes: int = 4096  # of its stderr kept, for a crash's last line


READER_LIMITS = ReaderLimits()


def memory_mb(size: int, reader: ReaderLimits) -> int:
    """The reader's address space for an archive of `size` bytes: the archive and a copy.

    >>> memory_mb(3 << 20, ReaderLimits())
    390
    """
    return reader.memory_mb + 2 * -(-size // MIB)


def disk_mb(limits: ArchiveLimits) -> int:
    """The reader's disk (the sandbox's tmpfs, or a file-size cap): every byte it may unpack,
    a block for each file, and room for folders.

    >>> disk_mb(ArchiveLimits())
    72
    """
    return -(-(limits.max_unpacked_bytes + limits.max_files * 4096) // MIB) + 4


def arguments(kind: str, filename: str, limits: ArchiveLimits, strip_single_folder: bool,
              reader: ReaderLimits) -> list[str]:
    """The child's arguments after `CHILD` (a launcher started as root adds ``--uid``).

    >>> arguments("zip", "bot.zip", ArchiveLimits(max_files=9), True, ReaderLimits())[:2]
    ['zip', 'bot.zip']
    """
    caps = {"memory_mb": reader.memory_mb, "cpu_s": reader.cpu_s,
            "open_files": reader.open_files, "file_mb": disk_mb(limits)}
    return [kind, filename, json.dumps({"archive": asdict(limits), "caps": caps}),
            "strip" if strip_single_folder else "keep"]


def confine(caps: dict[str, int], size: int, uid: int | None) -> None:
    """Cap this process before it reads an archive of `size` bytes: as root with `uid`,
    become that user and group, owner of the working folder, unable to fork."""
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    limit = resource.setrlimit
    limit(resource.RLIMIT_CORE, (0, 0))
    address = memory_mb(size, ReaderLimits(memory_mb=caps["memory_mb"])) * MIB
    limit(resource.RLIMIT_AS, (address, address))
    limit(resource.RLIMIT_CPU, (caps["cpu_s"], caps["cpu_s"]))
    limit(resource.RLIMIT_FSIZE, (caps["file_mb"] * MIB, caps["file_mb"] * MIB))
    limit(resource.RLIMIT_NOFILE, (caps["open_files"], caps["open_files"]))
    if uid is not None and os.geteuid() == 0:
        os.chown(".", uid, uid)
        os.chmod(".", 0o700)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        limit(resource.RLIMIT_NPROC, (1, 1))  # itself: no fork, no thread


def main(argv: Sequence[str] | None = None) -> int:
    """The child: read the archive on stdin, unpack it under the working folder, write the
    checked stream to stdout. Its exit status: 0, or `REFUSED` with one line on stderr."""
    args = list(sys.argv[1:] if argv is None else argv)
    uid = int(args[args.index("--uid") + 1]) if "--uid" in args else None
    kind, filename, settings, strip = args[:4]
    given = json.loads(settings)
    limits = ArchiveLimits(**given["archive"])
    try:
        preload(kind)
        confine(given["caps"], os.fstat(0).st_size, uid)  # the archive is a file, not a pipe
        data = sys.stdin.buffer.read(limits.max_upload_bytes + 1)
        unpack(data, filename, Path("out"), limits, strip_single_folder=strip == "strip",
               kind=kind)
        write_checked(Path("out"), sys.stdout.buffer)
    except ArchiveError as exc:
        print(" ".join(str(exc).split()), file=sys.stderr)
        return REFUSED
    except MemoryError:
        print(f"the archive needs more than {given['caps']['memory_mb']} MiB of memory to "
              "read", file=sys.stderr)
        return REFUSED
    sys.stdout.flush()
    return 0


def failure(status: int | None, overflow: bool, stderr: bytes, limits: ArchiveLimits,
            reader: ReaderLimits) -> ArchiveError | None:
    """Why the reader gave nothing to read (None: it ended well), in one line. `status`
    None: it was killed at its time limit; `overflow`: it wrote more than the archive
    may hold.

    >>> failure(REFUSED, False, b"'a.py' is a link: links are not allowed\\n",
    ...         ArchiveLimits(), ReaderLimits())
    ArchiveError("'a.py' is a link: links are not allowed")
    >>> str(failure(-6, False, b"", ArchiveLimits(), ReaderLimits()))
    'the archive could not be read: its reader crashed (killed by SIGABRT)'
    >>> str(failure(None, False, b"", ArchiveLimits(), ReaderLimits(wall_s=30)))
    'the archive could not be read: its reader was stopped after 30 s (time limit)'
    """
    lines = stderr.decode(errors="replace").strip().splitlines()
    last = " ".join(lines[-1].split()) if lines else ""
    if overflow:
        why = f"its reader wrote more than the archive may hold ({limits.max_unpacked_bytes >> 20}"\
              " MiB and headers)"
    elif status is None:
        why = f"its reader was stopped after {reader.wall_s:g} s (time limit)"
    elif status == REFUSED and last:
        return ArchiveError(last[:1000])
    elif status == 0:
        return None
    else:
        sig = -status if status < 0 else status - 128 if status > 128 else 0
        why = (f"its reader crashed (killed by {signal.Signals(sig).name})"
               if sig in signal.valid_signals() else f"its reader failed (exit {status}"
               + (f": {last[:200]}" if last else "") + ")")
    return ArchiveError(f"the archive could not be read: {why}")


# Where this process may not run its own interpreter again (started through a folder its
# user cannot search, by a parent that could), Debian's, given this process's import path.
SYSTEM_PYTHON = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
_BOOT = ("import runpy, sys; sys.path[:0] = sys.argv.pop(1).split(':'); "
         "runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)")


def command(args: list[str]) -> list[str]:
    """The argv that starts the reader with `args` (`arguments`): this interpreter, else
    `SYSTEM_PYTHON` with this process's import path."""
    if os.access(sys.executable, os.X_OK) or not os.access(SYSTEM_PYTHON, os.X_OK):
        return [sys.executable, *CHILD, *args]
    path = ":".join(p for p in sys.path if p and os.path.isdir(p))
    return [SYSTEM_PYTHON, "-I", "-c", _BOOT, path, MODULE, *args]


def interpreter_paths() -> list[Path]:
    """The folders outside /usr that this interpreter and ninefold need, to be bound
    read-only into the sandbox: the virtual environment, the Python it was made from
    (where its program lies, and its library: a user that cannot read that folder, as
    ``nobody`` a pyenv's under /root, gets /usr's), and ninefold's own package (an
    editable install's lies outside both)."""
    package = Path(__file__).resolve().parent.parent
    program = Path(sys.executable).resolve().parent.parent
    found: list[Path] = []
    for path in sorted({Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(),
                        Path(sys.exec_prefix).resolve(), program, package},
                       key=lambda p: len(p.parts)):
        if path.is_relative_to("/usr") or any(path.is_relative_to(f) for f in found):
            continue
        found.append(path)
    return found


if __name__ == "__main__":
    sys.exit(main())
