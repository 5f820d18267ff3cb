"""Unpacking an uploaded bot archive safely: .zip, .rar, .tar, .tar.gz/.tgz, .tar.bz2, .tar.xz.

An upload is hostile data. `unpack` refuses, with one line (`ArchiveError`):

- an upload, a file count or an unpacked size over its `ArchiveLimits`;
- absolute paths, ``..``, drive letters and backslashes in names;
- links (symbolic or hard), devices, fifos and sparse files: only files and folders;
- bombs: the sizes the archive declares are checked first, and the bytes really
  unpacked are counted while they stream, so a lying header or a 1 GB bomb
  stops at the limit, having written no more than it;
- encrypted members (zip or rar).

RAR 4 and RAR 5 archives are read by libarchive (Debian's libarchive13, through
``libarchive-c``), as a stream like a tar: only the RAR formats are enabled, each
entry's declared size is counted before its data is read or skipped, and its bytes
are counted as they come, so the same limits hold. libarchive cannot read solid
RAR 4, encrypted or multi-volume archives: those are refused, with its reason.

The server never runs this reading itself: `ninefold.platform.sandbox.unpack` hands
the archive to a short-lived child in the sandbox (`ninefold.platform.unpacker`),
which calls `unpack` and writes its result back as one plain tar (`write_checked`:
files and folders only, modes normalised); the server reads only that stream,
its format fixed, with every check above again (`read_checked`). So libarchive is
only ever loaded in the child, and a parser that crashes or hangs costs one upload.

It unpacks into a hidden folder beside `dest` and renames it at the end, so
`dest` is complete or absent. Modes are normalised (files 0644, or 0755 when
the archive marks them executable; folders 0755). Nothing is ever unpacked
recursively: a zip inside the archive stays a file.

>>> import io, tempfile, zipfile
>>> buf = io.BytesIO()
>>> with zipfile.ZipFile(buf, "w") as z:
...     z.writestr("mybot/main.py", "print('hi')")
...     z.writestr("mybot/lib/util.py", "")
>>> dest = Path(tempfile.mkdtemp()) / "src"
>>> unpack(buf.getvalue(), "mybot.zip", dest)   # the single top folder is stripped
['lib/util.py', 'main.py']
>>> try:
...     unpack(b"Rar!\\x1a\\x07\\x00...", "bot.rar", Path(tempfile.mkdtemp()) / "src")
... except ArchiveError as exc:
...     print(exc)
the rar archive cannot be read: damaged, encrypted or split into volumes?
"""

from __future__ import annotations

import bz2
import contextlib
import ctypes
import dataclasses
import functools
import gzip
import io
import lzma
import os
import re
import shutil
import stat
import struct
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import IO, Protocol

from ninefold.options import clip

SUPPORTED = ".zip, .rar, .tar.gz, .tgz, .tar, .tar.bz2 or .tar.xz"
CHUNK = 1 << 16
RATIO_FLOOR = 1 << 20  # members smaller than this are never called bombs, whatever their ratio
HEADER_ROOM = 4 << 20  # tar headers, padding and long names, beyond the members' own bytes
ENTRY_ROOM = 6 << 10  # a checked stream's headers for one entry: a pax header, a long path
REASON_CHARS = 200  # of a parser's own words in a refusal
STREAM = "the unpacked archive"  # what a damaged checked stream is called

# The first bytes of each kind of archive (a plain tar says "ustar" at offset 257).
MAGIC = (
    (b"PK\x03\x04", "zip"), (b"PK\x05\x06", "zip"), (b"\x1f\x8b", "gz"), (b"BZh", "bz2"),
    (b"\xfd7zXZ\x00", "xz"), (b"Rar!\x1a\x07\x00", "rar"), (b"Rar!\x1a\x07\x01\x00", "rar5"),
)
RAR_KINDS = ("rar", "rar5")  # RAR 4 and RAR 5: libarchive's names for the two formats
_DECOMPRESSORS: dict[str, Callable[[io.BytesIO], io.BufferedIOBase]] = {
    "gz": lambda f: gzip.GzipFile(fileobj=f),
    "bz2": bz2.BZ2File,
    "xz": lzma.LZMAFile,
    "tar": lambda f: f,
}
# What a damaged archive raises from deep inside the standard library while it is read
# (bz2 and gzip raise OSError, zipfile ValueError for a bad offset and
# NotImplementedError for a compression method it does not know).
_DAMAGED = (zipfile.BadZipFile, tarfile.TarError, zlib.error, lzma.LZMAError, EOFError,
            OSError, ValueError, NotImplementedError, struct.error)


class ArchiveError(ValueError):
    """An archive refused, with the reason in one line."""


@dataclass(frozen=True)
class ArchiveLimits:
    """How much an archive may hold."""

    max_upload_bytes: int = 16 << 20  # the archive itself
    max_files: int = 1000  # entries: files and folders
    max_unpacked_bytes: int = 64 << 20  # all files together, unpacked
    max_ratio: int = 200  # unpacked / compressed, for one member (of at least RATIO_FLOOR)
    max_name_bytes: int = 255  # one part of a path


class _Source(Protocol):
    """A member's bytes, read a chunk at a time."""

    def read(self, n: int, /) -> bytes: ...

    def close(self) -> None: ...


@dataclass
class _Member:
    """One entry of an archive, whatever its kind."""

    name: str
    kind: str  # "file", "dir", "link" or "other"
    executable: bool
    declared: int  # the size its header claims
    open: Callable[[], _Source]


def archive_kind(data: bytes, filename: str) -> str:
    """``zip``, ``rar``, ``rar5``, ``gz``, ``bz2``, ``xz`` (compressed tars) or ``tar``, from
    the first bytes (the name only when they say nothing: an old tar); `ArchiveError` for
    anything else.

    >>> archive_kind(b"PK\\x03\\x04rest", "bot.tar.gz"), archive_kind(b"\\x1f\\x8b...", "x.tgz")
    ('zip', 'gz')
    >>> archive_kind(b"Rar!\\x1a\\x07\\x00.", ""), archive_kind(b"Rar!\\x1a\\x07\\x01\\x00", "")
    ('rar', 'rar5')
    >>> try:
    ...     archive_kind(b"7z\\xbc\\xaf\\x27\\x1c...", "bot.7z")
    ... except ArchiveError as exc:
    ...     print(exc)
    'bot.7z' is not a .zip, .rar, .tar.gz, .tgz, .tar, .tar.bz2 or .tar.xz archive
    """
    kind = next((k for magic, k in MAGIC if data.startswith(magic)), None)
    if kind is None and (data[257:262] == b"ustar" or filename.lower().endswith(".tar")):
        kind = "tar"
    if kind is None:
        raise ArchiveError(f"{clip(filename)} is not a {SUPPORTED} archive")
    return kind


def safe_path(name: str, limits: ArchiveLimits = ArchiveLimits()) -> PurePosixPath | None:
    """A member's name as a relative path inside the archive, or None for its root (``./``);
    `ArchiveError` for a name that could land outside it.

    >>> safe_path("./bot/./main.py"), safe_path("./")
    (PurePosixPath('bot/main.py'), None)
    >>> safe_path("bot/../../etc/passwd")
    Traceback (most recent call last):
    ...
    ninefold.platform.archive.ArchiveError: 'bot/../../etc/passwd': '..' in a path is not allowed
    """
    if "\\" in name:
        raise ArchiveError(f"{clip(name)}: backslashes in a path are not allowed")
    if name.startswith("/") or re.match(r"[A-Za-z]:", name):
        raise ArchiveError(f"{clip(name)}: absolute paths are not allowed")
    if any(ord(c) < 32 or c == "\x7f" for c in name):
        raise ArchiveError(f"{clip(name)}: control characters in a path are not allowed")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"{clip(name)}: '..' in a path is not allowed")
    if any(len(p.encode()) > limits.max_name_bytes for p in parts):
        raise ArchiveError(f"{clip(name)}: a name longer than {limits.max_name_bytes} bytes")
    return PurePosixPath(*parts) if parts else None


def unpack(data: bytes, filename: str, dest: Path, limits: ArchiveLimits = ArchiveLimits(),
           *, strip_single_folder: bool = True, kind: str | None = None) -> list[str]:
    """Unpack `data` (an archive called `filename`) into the new folder `dest`; its files,
    relative and sorted. If every entry sits under one top folder, that folder is
    stripped (unless `strip_single_folder` is False). `kind` (one of `archive_kind`'s)
    fixes the format; None: `archive_kind` tells it. Raises `ArchiveError`.

    This parses hostile bytes in the calling process: the server calls
    `ninefold.platform.sandbox.unpack`, which runs it in a child."""
    check_size(data, limits)
    return _unpack(data, filename, Path(dest), limits, kind or archive_kind(data, filename),
                   strip_single_folder, tar_budget(limits))


def _unpack(data: bytes, filename: str, dest: Path, limits: ArchiveLimits, kind: str,
            strip_single_folder: bool, budget: int) -> list[str]:
    """`unpack`, once the kind is known; a tar stream may give at most `budget` bytes."""
    check_dest(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent))
    try:
        files = _read(data, filename, kind, temp, limits, budget)
        top = temp
        entries = list(temp.iterdir())
        if strip_single_folder and len(entries) == 1 and entries[0].is_dir():
            top = entries[0]
            prefix = entries[0].name + "/"
            files = [f.removeprefix(prefix) for f in files]
        os.chmod(top, 0o755)
        os.replace(top, dest)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return sorted(files)


def check_size(data: bytes, limits: ArchiveLimits) -> None:
    """`ArchiveError` if the archive itself is over its limit."""
    if len(data) > limits.max_upload_bytes:
        raise ArchiveError(f"the upload is {_mib(len(data))}: at most "
                           f"{_mib(limits.max_upload_bytes)}")


def check_dest(dest: Path) -> None:
    """`FileExistsError` unless `dest` is absent or an empty folder."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise FileExistsError(f"cannot unpack into {dest}: it already exists")


def write_checked(root: Path, out: IO[bytes]) -> None:
    """Write the folder `root`, just unpacked by `unpack`, to `out` as one plain tar
    stream: its files and its empty folders (the others are implied by the paths),
    sorted, with normalised modes and no owners or times. This is what the child
    gives the server (`read_checked`); it holds no more entries than the archive
    did, so the same limits hold."""
    with tarfile.open(fileobj=out, mode="w|", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(root.rglob("*")):
            info = tarfile.TarInfo(path.relative_to(root).as_posix())
            st = path.lstat()
            if stat.S_ISDIR(st.st_mode):
                if any(path.iterdir()):
                    continue
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif stat.S_ISREG(st.st_mode):
                info.size, info.mode = st.st_size, 0o755 if st.st_mode & 0o111 else 0o644
                with path.open("rb") as f:
                    tar.addfile(info, f)
            else:  # unpack writes only files and folders
                raise ArchiveError(f"{clip(info.name)} is neither a file nor a folder")


def read_checked(stream: bytes, dest: Path, limits: ArchiveLimits = ArchiveLimits()) -> list[str]:
    """Unpack the child's stream (`write_checked`) into the new folder `dest`, as
    `unpack` would with `limits`: a plain tar read as a stream (tarfile's ``r|``, never
    guessed), every name, type, size and count checked again; nothing stripped."""
    budget = stream_budget(limits)
    check_size(stream, dataclasses.replace(limits, max_upload_bytes=budget))
    return _unpack(stream, STREAM, Path(dest), limits, "tar", False, budget)


def stream_budget(limits: ArchiveLimits) -> int:
    """The most bytes the child's checked stream may hold, for an archive within `limits`:
    the files' bytes, and room for each entry's headers and long path (up to 4096 bytes).

    >>> stream_budget(ArchiveLimits()) >> 20
    73
    """
    return limits.max_unpacked_bytes + HEADER_ROOM + ENTRY_ROOM * limits.max_files


def _read(data: bytes, filename: str, kind: str, root: Path, limits: ArchiveLimits,
          budget: int) -> list[str]:
    """Unpack the archive under `root`; the files written. A damaged archive raises
    `ArchiveError`, whatever the standard library raised; a tar stream may give at most
    `budget` bytes."""
    try:
        members = (_zip_members(data, limits) if kind == "zip" else
                   _rar_members(data, kind, limits) if kind in RAR_KINDS else
                   _tar_members(data, kind, limits, budget))
        return _write(members, root, limits)
    except ArchiveError:
        raise
    except _DAMAGED as exc:
        raise ArchiveError(f"{clip(filename)} is damaged or not a {kind} archive "
                           f"({_reason(exc)})") from None


def _zip_members(data: bytes, limits: ArchiveLimits) -> Iterator[_Member]:
    """A zip's members, after the checks its central directory allows (count, sizes, ratios)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
        _check_count(len(infos), limits)
        _check_declared(sum(i.file_size for i in infos), limits)
        for info in infos:
            if info.flag_bits & 0x1:
                raise ArchiveError(f"{clip(info.filename)} is encrypted: upload it without "
                                   "a password")
            ratio = info.file_size // max(info.compress_size, 1)
            if info.file_size > RATIO_FLOOR and ratio > limits.max_ratio:
                raise ArchiveError(f"{clip(info.filename)} unpacks {ratio} times larger than "
                                   f"it is packed (at most {limits.max_ratio}): a zip bomb?")
            mode = info.external_attr >> 16
            kind = ("dir" if info.is_dir() else
                    "file" if not stat.S_IFMT(mode) or stat.S_ISREG(mode) else
                    "dir" if stat.S_ISDIR(mode) else
                    "link" if stat.S_ISLNK(mode) else "other")
            yield _Member(info.filename, kind, bool(mode & 0o111), info.file_size,
                          functools.partial(zf.open, info))


def _tar_members(data: bytes, kind: str, limits: ArchiveLimits,
                 budget: int) -> Iterator[_Member]:
    """A tar's members, read as a stream through a decompressor that stops at `budget`."""
    with (_DECOMPRESSORS[kind](io.BytesIO(data)) as raw,
          tarfile.open(fileobj=_Capped(raw, budget, limits), mode="r|") as tf):
        for count, info in enumerate(tf, 1):
            _check_count(count, limits)
            what = ("file" if info.isreg() and not info.issparse() else
                    "dir" if info.isdir() else
                    "link" if info.issym() or info.islnk() else "other")
            yield _Member(info.name, what, bool(info.mode & 0o111), info.size,
                          functools.partial(_extract, tf, info))


def _extract(tf: tarfile.TarFile, info: tarfile.TarInfo) -> IO[bytes]:
    """A tar member's bytes (it is a plain file: only those are opened)."""
    f = tf.extractfile(info)
    if f is None:
        raise ArchiveError(f"{clip(info.name)} is not a plain file")
    return f


def _rar_members(data: bytes, kind: str, limits: ArchiveLimits) -> Iterator[_Member]:
    """A RAR archive's entries, read by libarchive as a stream (its RAR format only). The
    sizes declared so far are checked before each entry's data is read or skipped (a
    skip decompresses, in a solid archive); an entry with no size is a RAR 5 link or
    file copy."""
    lib = _libarchive()
    declared = 0
    try:
        with lib.memory_reader(data, format_name=kind, filter_name="none") as entries:
            for count, entry in enumerate(entries, 1):
                _check_count(count, limits)
                size = entry.size
                what = ("link" if entry.issym or entry.islnk or size is None else
                        "file" if entry.isreg else "dir" if entry.isdir else "other")
                if what == "file":
                    # libarchive marks a RAR 4 entry encrypted; a RAR 5 one fails to read
                    if lib.ffi.entry_is_encrypted(entry._entry_p):
                        raise ArchiveError(f"{clip(entry.pathname)} is encrypted: upload it "
                                           "without a password")
                    declared += size
                    _check_declared(declared, limits)
                yield _Member(entry.pathname, what, bool(entry.mode & 0o111), size or 0,
                              functools.partial(_Blocks, entry.get_blocks(CHUNK), kind))
    except lib.exception.ArchiveError as exc:
        raise _unreadable(kind, exc) from None


class _Blocks:
    """A libarchive entry's bytes, one block (at most `CHUNK`) per read."""

    def __init__(self, blocks: Generator[bytes, None, None], kind: str) -> None:
        self.blocks, self.kind = blocks, kind

    def read(self, n: int, /) -> bytes:
        try:
            return next(self.blocks, b"")
        except _libarchive().exception.ArchiveError as exc:
            raise _unreadable(self.kind, exc) from None

    def close(self) -> None:
        self.blocks.close()


def _unreadable(kind: str, exc: Exception) -> ArchiveError:
    """A libarchive error as the one line an author reads."""
    msg = getattr(exc, "msg", None)  # libarchive's own words, when it gives any
    reason = f" ({' '.join(msg.split()).rstrip('.')})" if isinstance(msg, str) and msg else ""
    return ArchiveError(f"the {kind} archive cannot be read{reason}: damaged, encrypted or "
                        "split into volumes?")


def preload(kind: str) -> None:
    """Load what reading `kind` needs (libarchive, for RAR), before the reader caps itself:
    finding the library runs ``ldconfig``. `ArchiveError` where it is missing."""
    if kind in RAR_KINDS:
        _libarchive()


@functools.cache
def _libarchive() -> ModuleType:
    """``libarchive-c``, with `entry_is_encrypted` bound; `ArchiveError` where this machine
    lacks libarchive (its import fails without the C library)."""
    try:
        import libarchive
        import libarchive.exception
        import libarchive.ffi
    except (ImportError, OSError, AttributeError):
        raise ArchiveError("rar archives need libarchive (Debian's libarchive13), which this "
                           "server lacks: upload a .zip or .tar.gz") from None
    libarchive.ffi.ffi("entry_is_encrypted", [libarchive.ffi.c_archive_entry_p], ctypes.c_int)
    module: ModuleType = libarchive
    return module


def tar_budget(limits: ArchiveLimits) -> int:
    """The most bytes a tar stream may give, headers included, before it is refused."""
    return limits.max_unpacked_bytes + HEADER_ROOM + 1024 * limits.max_files


def _write(members: Iterator[_Member], root: Path, limits: ArchiveLimits) -> list[str]:
    """Write the members under `root`, counting every byte; the files written."""
    files: list[str] = []
    total = 0
    for m in members:
        path = safe_path(m.name, limits)
        if path is None or path.parts[0] == "__MACOSX":  # the root; macOS's resource forks
            continue
        if m.kind == "link":
            raise ArchiveError(f"{clip(m.name)} is a link: links are not allowed")
        if m.kind == "other":
            raise ArchiveError(f"{clip(m.name)}: only plain files and folders are allowed "
                               "(no devices, fifos or sparse files)")
        if m.kind == "file" and total + m.declared > limits.max_unpacked_bytes:
            raise _too_big(limits)
        target = root.joinpath(*path.parts)
        try:
            if m.kind == "dir":
                target.mkdir(mode=0o755, parents=True, exist_ok=True)
                os.chmod(target, 0o755)
                continue
            target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            raise ArchiveError(f"{clip(m.name)} appears twice, or as a file and a folder") \
                from None
        except OSError as exc:
            raise ArchiveError(f"{clip(m.name)} cannot be unpacked ({_reason(exc)})") from None
        with os.fdopen(fd, "wb") as out, contextlib.closing(m.open()) as src:
            written = 0
            while chunk := src.read(CHUNK):
                written += len(chunk)
                if written > m.declared:
                    raise ArchiveError(f"{clip(m.name)} holds more than its header says")
                if total + written > limits.max_unpacked_bytes:
                    raise _too_big(limits)
                out.write(chunk)
            os.fchmod(out.fileno(), 0o755 if m.executable else 0o644)
        total += written
        files.append(path.as_posix())
    if not files:
        raise ArchiveError("the archive holds no files")
    return files


class _Capped(io.RawIOBase):
    """A stream that raises `ArchiveError` once more than `budget` bytes come out of it."""

    def __init__(self, raw: io.BufferedIOBase, budget: int, limits: ArchiveLimits) -> None:
        self.raw, self.left, self.limits = raw, budget, limits

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        want = self.left + 1 if n is None or n < 0 else min(n, self.left + 1)
        data = self.raw.read(want)
        self.left -= len(data)
        if self.left < 0:
            raise _too_big(self.limits)
        return data


def _too_big(limits: ArchiveLimits) -> ArchiveError:
    return ArchiveError(f"the archive unpacks to more than {_mib(limits.max_unpacked_bytes)}")


def _check_declared(declared: int, limits: ArchiveLimits) -> None:
    if declared > limits.max_unpacked_bytes:
        raise ArchiveError(f"the archive unpacks to {_mib(declared)}: at most "
                           f"{_mib(limits.max_unpacked_bytes)}")


def _check_count(count: int, limits: ArchiveLimits) -> None:
    if count > limits.max_files:
        raise ArchiveError(f"the archive holds more than {limits.max_files} files and folders")


def _mib(n: int) -> str:
    """A size for a message.

    >>> _mib(16 << 20), _mib(1 << 19), _mib(3 << 29)
    ('16 MiB', '0.5 MiB', '1536 MiB')
    """
    return f"{n >> 20} MiB" if n % (1 << 20) == 0 or n >= 10 << 20 else f"{n / (1 << 20):.1f} MiB"


def _reason(exc: BaseException) -> str:
    """What went wrong, for a refusal's line: one line, at most `REASON_CHARS` (a damaged
    zip's names may be long).

    >>> _reason(ValueError("bad\\n" + "x" * 300))[-12:]
    'xxxxxxxxxxx…'
    """
    text = " ".join((getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS - 1] + "…"
