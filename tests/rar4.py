"""A writer of RAR 4 archives of stored (uncompressed) entries, for the tests.

No tool here writes RAR; the RAR 4 format for stored files is short and public
(RARLAB's technote.txt, "RAR version 4.x - File format description"): a marker
block, an archive header, then one header per entry followed by its bytes, and an
end block. Each header starts with the low 16 bits of the CRC-32 of the rest of
it. Entries are written as made on Unix (host OS 3), so their attribute field is a
Unix mode: symbolic links (their data is the target), devices and fifos can be
written as easily as files, and a header can lie about its sizes.

>>> data = rar4([Entry("bot/main.py", b"print(1)"), Entry("bot", mode=0o40755)])
>>> data[:7], len(data)
(b'Rar!\\x1a\\x07\\x00', 113)
"""

from __future__ import annotations

import stat
import struct
import zlib
from dataclasses import dataclass

MARKER = b"Rar!\x1a\x07\x00"
MAIN_HEAD, FILE_HEAD, END_HEAD = 0x73, 0x74, 0x7B
LONG_BLOCK, LARGE, DIRECTORY, END_FLAGS = 0x8000, 0x0100, 0x00E0, 0x4000
UNIX, VERSION, STORED = 3, 20, 0x30
DOS_TIME = (2024 - 1980) << 25 | 1 << 21 | 1 << 16  # 2024-01-01 00:00


@dataclass(frozen=True)
class Entry:
    """One entry: its name, bytes and Unix mode (type bits included); `declared` is
    the unpacked size its header claims (the true one unless given)."""

    name: str
    data: bytes = b""
    mode: int = 0o100644
    declared: int | None = None


def rar4(entries: list[Entry]) -> bytes:
    """The RAR 4 archive of `entries`, each stored."""
    main = _block(MAIN_HEAD, 0, struct.pack("<HI", 0, 0))
    return MARKER + main + b"".join(map(_file, entries)) + _block(END_HEAD, END_FLAGS, b"")


def _file(entry: Entry) -> bytes:
    """An entry's header and bytes."""
    name = entry.name.encode()
    unpacked = len(entry.data) if entry.declared is None else entry.declared
    flags = LONG_BLOCK | (DIRECTORY if stat.S_ISDIR(entry.mode) else 0)
    high = b""
    if unpacked >> 32:
        flags |= LARGE
        high = struct.pack("<2I", len(entry.data) >> 32, unpacked >> 32)
    fields = struct.pack("<2IBIIBBHI", len(entry.data), unpacked & 0xFFFFFFFF, UNIX,
                         zlib.crc32(entry.data), DOS_TIME, VERSION, STORED, len(name),
                         entry.mode)
    return _block(FILE_HEAD, flags, fields + high + name) + entry.data


def _block(kind: int, flags: int, rest: bytes) -> bytes:
    """A header: its CRC, kind, flags and size, then `rest`."""
    body = struct.pack("<BHH", kind, flags, 7 + len(rest)) + rest
    return struct.pack("<H", zlib.crc32(body) & 0xFFFF) + body
