"""Uploads for the platform's tests and benchmarks: the bots of platform_bots/, packed.

`bot_archive` makes a well-behaved bot in any language, with its strategy and
seed set in the source; `hostile_archive` one that misbehaves.

>>> name, data = bot_archive("c", strategy="first", seed=7, kind="tar.gz")
>>> name, data[:2]
('c-first-7.tar.gz', b'\\x1f\\x8b')
"""

from __future__ import annotations

import io
import json
import re
import shlex
import struct
import tarfile
import time
import zipfile
import zlib
from pathlib import Path

from rar4 import Entry, rar4

from ninefold.platform.recipes import named

BOTS = Path(__file__).resolve().parent / "platform_bots"
LANGUAGES = ("python", "java", "c", "cpp", "rust", "go", "javascript")
STRATEGIES = ("random", "first", "center", "win-if-possible")
SOURCES = {"python": "bot.py", "java": "Bot.java", "c": "bot.c", "cpp": "bot.cpp",
           "rust": "main.rs", "go": "main.go", "javascript": "main.js"}
KINDS = ("zip", "rar", "tar", "tar.gz", "tgz", "tar.bz2", "tar.xz")  # rar: a stored RAR 4
# The hostile bots that run (shipped as main.py beside the Python bot), and the rest.
RUNNING = {"reads": "reads.py", "sockets": "sockets.py", "fork-bomb": "forkbomb.py",
           "fills-disk": "fills_disk.py", "allocates": "allocates.py",
           "syscalls": "syscalls.py", "shares-memory": "shares_memory.py"}
# Hostile bots in Rust, Go and JavaScript: Rust includes files at compile time, Go and
# JavaScript do their worst at start-up and then play as the fixture bot beside them.
OTHER_LANGUAGES = {"rust-includes": "include_files.rs", "go-escapes": "escapes.go",
                   "js-escapes": "escapes.js"}
HOSTILE = (*RUNNING, *OTHER_LANGUAGES, "slow-compile", "dot-dot", "absolute", "symlink",
           "hardlink", "zip-bomb")


def missing_compiler(language: str) -> str | None:
    """None if the programs that `language`'s recipe runs are installed, else the first
    one that is not."""
    recipe = named(language)
    words = shlex.split(f"{recipe.compile} {recipe.run}")
    return next((w for w in words if w.startswith("/usr/bin/") and not Path(w).exists()),
                None)


def bot_source(language: str, *, strategy: str = "random", seed: int = 0) -> tuple[str, str]:
    """The bot's file name and its source with `strategy` and `seed` set.

    >>> print(bot_source("python", strategy="center", seed=3)[1].splitlines()[4:6])
    ['STRATEGY = "center"  # random | first | center | win-if-possible', 'SEED = 3']
    """
    if language not in SOURCES:
        raise ValueError(f"no fixture bot in {language!r}: choose one of {LANGUAGES}")
    if strategy not in STRATEGIES:
        raise ValueError(f"no strategy {strategy!r}: choose one of {STRATEGIES}")
    name = SOURCES[language]
    text = (BOTS / language / name).read_text()
    # the constants' lines, with a type between name and value in C, Rust or Go
    text, n = re.subn(r'(STRATEGY\b[^=\n]*= )"random"', rf'\1"{strategy}"', text, count=1)
    text, m = re.subn(r"(SEED\b[^=\n]*= )0\b", rf"\g<1>{int(seed)}", text, count=1)
    assert n == m == 1, f"{name} lost its STRATEGY or SEED line"
    return name, text


def bot_archive(language: str, *, strategy: str = "random", seed: int = 0,
                kind: str = "zip") -> tuple[str, bytes]:
    """An upload of the fixture bot in `language`: (file name, archive bytes)."""
    name, text = bot_source(language, strategy=strategy, seed=seed)
    return pack({name: text}, f"{language}-{strategy}-{seed}", kind)


def pack(files: dict[str, str | bytes], stem: str, kind: str = "zip") -> tuple[str, bytes]:
    """`files` (path: content) as an archive of `kind` (`KINDS`) called `stem` + suffix."""
    if kind not in KINDS:
        raise ValueError(f"no archive kind {kind!r}: choose one of {KINDS}")
    if kind == "rar":
        return f"{stem}.rar", rar4([Entry(path, content.encode() if isinstance(content, str)
                                          else content) for path, content in files.items()])
    buf = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for path, content in files.items():
                z.writestr(path, content)
    else:
        mode = {"tar": "w", "tgz": "w:gz"}.get(kind, "w:" + kind.removeprefix("tar."))
        with tarfile.open(fileobj=buf, mode=mode) as tar:
            for path, content in files.items():
                data = content.encode() if isinstance(content, str) else content
                info = tarfile.TarInfo(path)
                info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
                tar.addfile(info, io.BytesIO(data))
    return f"{stem}.{kind}", buf.getvalue()


def hostile_archive(name: str, *, extra: dict[str, str] | None = None) -> tuple[str, bytes]:
    """An upload that misbehaves (`HOSTILE`); `extra` files go beside a running one's code
    (e.g. a ``targets.txt`` for ``reads`` and ``sockets``)."""
    if name in RUNNING:
        files = {"main.py": (BOTS / "hostile" / RUNNING[name]).read_text(),
                 "bot.py": bot_source("python")[1], **(extra or {})}
        return pack(files, name)
    if name in OTHER_LANGUAGES:
        source = (BOTS / "hostile" / OTHER_LANGUAGES[name]).read_text()
        targets = (extra or {}).get("targets.txt", "").split("\n")
        if name == "rust-includes":
            lines = "".join(f"    include_str!({json.dumps(t)}),\n" for t in targets if t)
            return pack({"main.rs": source.replace("    // TARGETS\n", lines)}, name)
        if name == "go-escapes":
            files = {"escapes.go": source, "main.go": bot_source("go")[1]}
        else:
            files = {"main.js": source, "bot.js": bot_source("javascript")[1]}
        return pack({**files, **(extra or {})}, name)
    if name == "slow-compile":
        return pack({"bot.c": (BOTS / "hostile" / "slow_compile.c").read_text()}, name)
    if name == "dot-dot":
        return pack({"main.py": "print('hi')", "../escaped.py": "print('out')"}, name)
    if name == "absolute":
        return pack({"main.py": "print('hi')", "/tmp/ninefold-absolute.py": "x"}, name,
                    "tar.gz")
    if name in ("symlink", "hardlink"):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            main = tarfile.TarInfo("main.py")
            main.size = 11
            tar.addfile(main, io.BytesIO(b"print('hi')"))
            link = tarfile.TarInfo("etc")
            link.type = tarfile.SYMTYPE if name == "symlink" else tarfile.LNKTYPE
            link.linkname = "/etc" if name == "symlink" else "main.py"
            tar.addfile(link)
        return f"{name}.tar.gz", buf.getvalue()
    if name == "zip-bomb":
        return "zip-bomb.zip", zip_bomb(1 << 30)
    raise ValueError(f"no hostile archive {name!r}: choose one of {HOSTILE}")


def deflated_zeros(size: int, prefix: bytes = b"") -> tuple[bytes, int]:
    """`prefix` and `size` zero bytes, raw-deflated (about 1000 times smaller), and their
    CRC-32, in ~0.2 s a GiB: one deflated MiB of zeros is repeated (each block ends
    with a full flush, which resets the compressor, so the blocks are identical)."""
    mib = 1 << 20
    assert size % mib == 0, "whole MiB"
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = packer.compress(prefix) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(bytes(mib)) + packer.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(prefix)
    for _ in range(size // mib):
        crc = zlib.crc32(bytes(mib), crc)
    return head + block * (size // mib) + packer.flush(), crc


def zip_bomb(size: int, name: str = "zeros.bin", *, declared: int | None = None) -> bytes:
    """A zip with one member of `size` zero bytes; `declared` lies about its size.

    >>> data = zip_bomb(8 << 20)
    >>> len(data) < 16_000, zipfile.ZipFile(io.BytesIO(data)).read("zeros.bin") == bytes(8 << 20)
    (True, True)
    """
    assert size < 1 << 32, "under 4 GiB (no zip64)"
    deflated, crc = deflated_zeros(size)
    size_field = size if declared is None else declared
    raw = name.encode()
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(deflated),
                        size_field, len(raw), 0) + raw
    central = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc,
                          len(deflated), size_field, len(raw), 0, 0, 0, 0, 0o644 << 16,
                          0) + raw
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central),
                      len(local) + len(deflated), 0)
    return local + deflated + central + end


def tar_gz_bomb(size: int, *, pax: bool = False) -> bytes:
    """A .tar.gz whose one member is `size` zero bytes: a file, or (`pax`) an extended
    header, which the tarfile module reads into memory whole.

    >>> import gzip
    >>> len(tar_gz_bomb(4 << 20)) < 10_000, len(gzip.decompress(tar_gz_bomb(4 << 20)))
    (True, 4194816)
    """
    info = tarfile.TarInfo("zeros.bin")
    info.size = size
    if pax:
        info.type = tarfile.XHDTYPE
    header = info.tobuf(tarfile.GNU_FORMAT)
    deflated, crc = deflated_zeros(size, header)
    gzip_header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
    return gzip_header + deflated + struct.pack("<2L", crc, (len(header) + size) & 0xFFFFFFFF)


class Clock:
    """A clock the test moves (the accounts' and the rate limits' tests)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now
