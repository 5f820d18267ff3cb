"""Unpacking uploads (`ninefold.platform.archive`): every kind, and every trick refused
with one line, leaving nothing behind; each in the test's process and again as the server
does it (`ninefold.platform.sandbox.unpack`: in a child, the server reading back only its
checked stream), which must refuse it with the same line."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import stat
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from platform_fixtures import KINDS, bot_archive, hostile_archive, pack, tar_gz_bomb, zip_bomb
from rar4 import Entry, rar4

from ninefold.platform import archive, sandbox, unpacker, uploads
from ninefold.platform.archive import ArchiveError, ArchiveLimits, unpack
from ninefold.platform.store import Store

# A bomb is refused "fast" when little is decompressed before the refusal: counted in
# bytes, not seconds, so a busy machine cannot fail these tests.


class _Counted:
    """A decompressor (zlib's object or a decompressing file) that counts what it gives."""

    def __init__(self, inner, count: list[int]) -> None:
        self._inner, self._count = inner, count

    def counted(self, data: bytes) -> bytes:
        self._count[0] += len(data)
        return data

    def decompress(self, *args):
        return self.counted(self._inner.decompress(*args))

    def read(self, *args):
        return self.counted(self._inner.read(*args))

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._inner.close()


@pytest.fixture
def decompressed(monkeypatch) -> list[int]:
    """``[n]``: the bytes decompressed by zip members, tar streams and rar entries during
    the test."""
    count = [0]
    read = archive._Blocks.read
    monkeypatch.setattr(archive._Blocks, "read",
                        lambda self, n: _Counted(None, count).counted(read(self, n)))
    get = zipfile._get_decompressor
    monkeypatch.setattr(zipfile, "_get_decompressor",
                        lambda kind: None if (d := get(kind)) is None else _Counted(d, count))
    for kind, make in list(archive._DECOMPRESSORS.items()):
        monkeypatch.setitem(archive._DECOMPRESSORS, kind,
                            lambda f, make=make: _Counted(make(f), count))
    return count


def refused(data: bytes, filename: str, tmp_path: Path, match: str,
            limits: ArchiveLimits | None = None) -> None:
    """`unpack` raises ArchiveError matching `match`, and leaves the folder as it was; so
    does the server's unpacking, in a child, with the same line."""
    with pytest.raises(ArchiveError, match=match) as caught:
        unpack(data, filename, tmp_path / "dest", limits or ArchiveLimits())
    assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ArchiveError) as child:
        sandbox.unpack(data, filename, tmp_path / "dest", limits)
    assert str(child.value) == str(caught.value)
    assert list(tmp_path.iterdir()) == []


def tree(folder: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every path under `folder`: its mode and, for a file, its bytes."""
    return {p.relative_to(folder).as_posix(): (stat.S_IMODE(p.lstat().st_mode),
                                               None if p.is_dir() else p.read_bytes())
            for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_unpacks(tmp_path, kind):
    files = {"main.py": "print(1)\n", "lib/util.py": "X = 2\n", "data/book.txt": "e5"}
    name, data = pack(files, "bot", kind)
    assert unpack(data, name, tmp_path / "dest") == sorted(files)
    assert (tmp_path / "dest" / "lib" / "util.py").read_text() == "X = 2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["dest"]  # no temporary folder left
    assert sandbox.unpack(data, name, tmp_path / "child") == sorted(files)
    assert tree(tmp_path / "child") == tree(tmp_path / "dest")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["child", "dest"]


def test_the_reader_runs_from_a_checkout_under_tmp(tmp_path, monkeypatch):
    """A clone (or a virtual environment) under /tmp, as a CI's may be: its folders are
    bound under the sandbox's /tmp, which must not then collide with /tmp's link (bwrap:
    "Can't make symlink at /tmp: File exists")."""
    from ninefold.platform import unpacker

    assert tmp_path.is_relative_to("/tmp")
    found = unpacker.interpreter_paths()
    monkeypatch.setattr(unpacker, "interpreter_paths", lambda: [*found, tmp_path])
    name, data = pack({"main.py": "print(1)\n"}, "bot", "zip")
    assert sandbox.unpack(data, name, tmp_path / "child") == ["main.py"]


def test_the_content_decides_the_kind_not_the_name(tmp_path):
    _, data = pack({"main.py": "x"}, "bot", "tar.gz")
    assert unpack(data, "bot.zip", tmp_path / "dest") == ["main.py"]


def test_a_single_top_folder_is_stripped(tmp_path):
    name, data = pack({"mybot/main.py": "x", "mybot/src/a.py": "y",
                       "__MACOSX/mybot/._main.py": "junk"}, "bot")
    assert unpack(data, name, tmp_path / "a") == ["main.py", "src/a.py"]
    assert unpack(data, name, tmp_path / "b", strip_single_folder=False) == [
        "mybot/main.py", "mybot/src/a.py"]
    name, data = pack({"mybot/main.py": "x", "README": "y"}, "bot")
    assert unpack(data, name, tmp_path / "c") == ["README", "mybot/main.py"]
    name, data = pack({"mybot/mybot/main.py": "x"}, "bot")  # the child strips one, once
    assert sandbox.unpack(data, name, tmp_path / "d") == ["mybot/main.py"]
    assert sandbox.unpack(data, name, tmp_path / "e", strip_single_folder=False) == [
        "mybot/mybot/main.py"]


def test_modes_are_normalised(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path, mode in (("run.sh", 0o4777), ("main.py", 0o600), ("sub/", 0o700)):
            info = zipfile.ZipInfo(path)
            info.external_attr = (mode | (stat.S_IFDIR if path.endswith("/")
                                          else stat.S_IFREG)) << 16
            z.writestr(info, "" if path.endswith("/") else "x")
    dest = tmp_path / "dest"
    assert unpack(buf.getvalue(), "bot.zip", dest) == ["main.py", "run.sh"]
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in [dest, *dest.iterdir()]}
    assert modes == {"dest": 0o755, "run.sh": 0o755, "main.py": 0o644, "sub": 0o755}
    assert sandbox.unpack(buf.getvalue(), "bot.zip", tmp_path / "child") == ["main.py", "run.sh"]
    assert tree(tmp_path / "child") == tree(dest)  # the empty folder too


@pytest.mark.parametrize("name", ["dot-dot", "absolute"])
def test_paths_outside_are_refused(tmp_path, name):
    filename, data = hostile_archive(name)
    refused(data, filename, tmp_path, "not allowed")


@pytest.mark.parametrize("path,why", [
    ("C:/windows/evil.py", "absolute"), ("bot\\..\\evil.py", "backslash"),
    ("a/../../b.py", r"'\.\.'"), ("bell\x07.py", "control characters"),
    ("x" * 300 + ".py", "longer than 255 bytes"),
])
def test_tricky_names_are_refused(tmp_path, path, why):
    name, data = pack({"main.py": "x", path: "y"}, "bot")
    refused(data, name, tmp_path, why)


@pytest.mark.parametrize("name", ["symlink", "hardlink"])
def test_links_are_refused(tmp_path, name):
    filename, data = hostile_archive(name)
    refused(data, filename, tmp_path, "is a link")


def test_a_symlink_in_a_zip_is_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        info = zipfile.ZipInfo("etc")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(info, "/etc")
    refused(buf.getvalue(), "bot.zip", tmp_path, "is a link")


@pytest.mark.parametrize("kind", [tarfile.FIFOTYPE, tarfile.CHRTYPE, tarfile.BLKTYPE])
def test_devices_and_fifos_are_refused(tmp_path, kind):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("dev")
        info.type = kind
        tar.addfile(info)
    refused(buf.getvalue(), "bot.tar", tmp_path, "only plain files and folders")


def test_too_large_an_upload_is_refused(tmp_path):
    name, data = pack({"main.py": "x"}, "bot")
    refused(data, name, tmp_path, "the upload is 0.0 MiB: at most 0.0 MiB",
            ArchiveLimits(max_upload_bytes=10))


def test_too_many_files_are_refused(tmp_path):
    files = {f"f{i}.py": "" for i in range(11)}
    for kind in ("zip", "tar.gz", "rar"):
        name, data = pack(files, "bot", kind)
        refused(data, name, tmp_path, "more than 10 files", ArchiveLimits(max_files=10))


def test_too_much_unpacked_data_is_refused(tmp_path):
    files = {f"f{i}.bin": bytes(400_000) for i in range(3)}  # 1.2 MB in all
    for kind in ("zip", "tar.xz", "rar"):
        name, data = pack(files, "bot", kind)
        refused(data, name, tmp_path, "unpacks to .*1 MiB",
                ArchiveLimits(max_unpacked_bytes=1 << 20))


def test_a_1_gb_zip_bomb_is_refused_fast(tmp_path, decompressed):
    name, data = hostile_archive("zip-bomb")
    assert len(data) < 2 << 20
    refused(data, name, tmp_path, "unpacks to 1024 MiB: at most 64 MiB")
    assert decompressed == [0]  # refused on the sizes its directory declares


def test_a_zip_bomb_under_the_size_limit_is_refused_by_its_ratio(tmp_path):
    refused(zip_bomb(32 << 20), "bomb.zip", tmp_path,
            "'zeros.bin' unpacks 1010 times larger than it is packed")


def test_a_zip_that_lies_about_its_size_stops_at_what_it_declared(tmp_path, decompressed):
    refused(zip_bomb(1 << 30, declared=1000), "liar.zip", tmp_path, "damaged")
    assert 1000 <= decompressed[0] <= 2 * archive.CHUNK  # of the 1 GiB it holds


@pytest.mark.parametrize("pax", [False, True])
def test_a_tar_gz_bomb_is_refused_fast(tmp_path, pax, decompressed):
    data = tar_gz_bomb(1 << 30, pax=pax)
    assert len(data) < 2 << 20
    refused(data, "bomb.tar.gz", tmp_path, "unpacks to more than 64 MiB")
    assert decompressed[0] <= archive.tar_budget(ArchiveLimits()) + archive.CHUNK  # not 1 GiB


def test_a_zip_inside_stays_a_file(tmp_path):
    inner = pack({"a.py": "x" * 1000}, "inner")[1]
    name, data = pack({"main.py": "x", "inner.zip": inner}, "bot")
    assert unpack(data, name, tmp_path / "dest") == ["inner.zip", "main.py"]
    assert (tmp_path / "dest" / "inner.zip").read_bytes() == inner


def test_a_nested_zip_bomb_is_refused_fast(tmp_path, decompressed):
    name, data = pack({"main.py": "x", "inner.zip": zip_bomb(1 << 30)}, "bot")
    refused(data, name, tmp_path, "'inner.zip' unpacks .* times larger than it is packed")
    assert decompressed == [1]  # main.py's one byte: inner.zip is refused on its ratio


def test_duplicates_and_clashes_are_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z, pytest.warns(UserWarning, match="Duplicate"):
        z.writestr("main.py", "a")
        z.writestr("main.py", "b")
    refused(buf.getvalue(), "bot.zip", tmp_path, "appears twice")
    name, data = pack({"main.py": "x", "lib": "file", "lib/a.py": "y"}, "bot", "tar")
    refused(data, name, tmp_path, "as a file and a folder")


def test_encrypted_members_are_refused(tmp_path):
    name, data = pack({"main.py": "x"}, "bot")
    data = bytearray(data)
    for magic, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # local, central
        data[data.index(magic) + flags_at] |= 0x1
    refused(bytes(data), name, tmp_path, "'main.py' is encrypted")


@pytest.mark.parametrize("data,filename,match", [
    (b"Rar!\x1a\x07\x01\x00rest", "bot.rar", "the archive holds no files"),  # ends early
    (b"Rar!\x1a\x07\x00rest", "bot.rar", "the rar archive cannot be read"),
    (b"not an archive at all", "bot.rar", "'bot.rar' is not a .zip, .rar, .tar.gz"),
    (b"7z\xbc\xaf\x27\x1c....", "bot.7z", "'bot.7z' is not a .zip, .rar, .tar.gz"),
    (b"PK\x03\x04 broken", "bot.zip", "'bot.zip' is damaged or not a zip archive"),
    (b"\x1f\x8b\x08\x00 broken", "bot.tgz", "damaged or not a gz archive"),
    (b"", "empty.tar", "damaged or not a tar archive"),
    (pack({}, "bot", "zip")[1], "bot.zip", "the archive holds no files"),
])
def test_unsupported_or_damaged_archives_are_refused(tmp_path, data, filename, match):
    refused(data, filename, tmp_path, match)


def test_an_archive_of_folders_only_is_refused(tmp_path):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("empty")
        info.type = tarfile.DIRTYPE
        tar.addfile(info)
    refused(buf.getvalue(), "bot.tgz", tmp_path, "the archive holds no files")


def test_a_truncated_archive_is_refused(tmp_path):
    name, data = pack({"main.py": "x" * 100_000}, "bot", "tar.gz")
    refused(data[: len(data) // 2], name, tmp_path, "damaged")


def test_an_existing_folder_is_not_overwritten(tmp_path):
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / "mine").write_text("keep")
    name, data = pack({"main.py": "x"}, "bot")
    with pytest.raises(FileExistsError, match="already exists"):
        unpack(data, name, tmp_path / "dest")
    assert [p.name for p in (tmp_path / "dest").iterdir()] == ["mine"]


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_archives_raise_only_archive_errors(tmp_path, kind):
    """Truncated archives and flipped bytes: ArchiveError, or a clean unpack; no junk."""
    rng = random.Random(kind)
    name, good = pack({"main.py": "x" * 3000, "lib/a.py": "y" * 500, "d/e/f.txt": "z"},
                      "bot", kind)
    for i in range(100):
        data = bytearray(good[: rng.randrange(len(good))] if i % 3 == 0 else good)
        # A cut can leave nothing (the packed size varies with mtimes): no bytes to flip.
        for _ in range(rng.randint(0 if i % 3 == 0 else 1, 8) if data else 0):
            data[rng.randrange(len(data))] = rng.randrange(256)
        with contextlib.suppress(ArchiveError):
            unpack(bytes(data), name, tmp_path / f"d{i}")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


# RAR: stored RAR 4 archives written by tests/rar4.py, and RAR 5 ones from rarfile's test
# corpus (tests/data/rar, its README says what each holds).
RAR_FILES = Path(__file__).resolve().parent / "data" / "rar"


def corpus(name: str) -> bytes:
    return (RAR_FILES / name).read_bytes()


def test_rar5_archives_unpack_stored_or_compressed_and_solid(tmp_path):
    assert unpack(corpus("rar5-subdirs.rar"), "bot.rar", tmp_path / "a") == [
        "dir1/file1.txt", "dir2/file2.txt", "with space/long fn.txt", "üȵĩöḋè/file.txt"]
    assert (tmp_path / "a" / "with space" / "long fn.txt").read_bytes() == b"long fn\n"
    assert unpack(corpus("rar5-solid.rar"), "bot.rar", tmp_path / "b") == [
        "stest1.txt", "stest2.txt"]
    assert (tmp_path / "b" / "stest2.txt").stat().st_size == 2048


@pytest.mark.parametrize("name", ["../evil.py", "..\\evil.py", "bot/../../evil.py",
                                  "/tmp/ninefold-evil.py", "C:/evil.py"])
def test_rar_paths_outside_are_refused(tmp_path, name):
    refused(rar4([Entry("main.py", b"x"), Entry(name, b"y")]), "bot.rar", tmp_path,
            "not allowed")


@pytest.mark.parametrize("name,match", [
    ("rar5-evil-symlink-traversal.rar", "'up' is a link"),  # up -> .., then up/pwned.txt
    ("rar5-symlink-win.rar", "is a link"),
    ("rar5-hlink.rar", "'stest2.txt' is a link"),
    ("rar5-dups.rar", "'stest2.txt' is a link"),  # a copy of an earlier entry
])
def test_rar5_links_and_copies_are_refused(tmp_path, name, match):
    refused(corpus(name), "bot.rar", tmp_path, match)


@pytest.mark.parametrize("mode,match", [
    (0o120777, "'dev' is a link"), (stat.S_IFCHR | 0o644, "only plain files and folders"),
    (stat.S_IFBLK | 0o644, "only plain files"), (stat.S_IFIFO | 0o644, "only plain files"),
    (stat.S_IFSOCK | 0o644, "only plain files"),
])
def test_rar_links_devices_and_fifos_are_refused(tmp_path, mode, match):
    refused(rar4([Entry("main.py", b"x"), Entry("dev", b"/etc", mode=mode)]), "bot.rar",
            tmp_path, match)


@pytest.mark.parametrize("skipped", [False, True])
def test_a_rar_bomb_by_declared_size_is_refused_before_its_data(tmp_path, skipped,
                                                                decompressed):
    """1 TiB declared: refused on its header, even where the entry would be skipped (a
    skip decompresses, in a solid archive)."""
    bomb = Entry("__MACOSX/zeros.bin" if skipped else "zeros.bin", bytes(1000), declared=1 << 40)
    refused(rar4([Entry("main.py", b"x"), bomb]), "bomb.rar", tmp_path,
            "unpacks to 1048576 MiB: at most 64 MiB")
    assert decompressed == [1]  # main.py's one byte


def test_a_rar_that_lies_about_its_size_stops_at_what_it_declared(tmp_path, decompressed):
    refused(rar4([Entry("main.py", bytes(1 << 20), declared=1000)]), "liar.rar", tmp_path,
            "'main.py' holds more than its header says")
    assert 1000 <= decompressed[0] <= archive.CHUNK  # of the 1 MiB it holds


def test_rar_limits_hold_on_rar5(tmp_path):
    data = corpus("rar5-solid.rar")  # two files of 2048 bytes
    refused(data, "bot.rar", tmp_path, "more than 1 files", ArchiveLimits(max_files=1))
    refused(data, "bot.rar", tmp_path, "unpacks to 0.0 MiB: at most 0.0 MiB",
            ArchiveLimits(max_unpacked_bytes=3000))
    refused(data, "bot.rar", tmp_path, "the upload is", ArchiveLimits(max_upload_bytes=100))


@pytest.mark.parametrize("name,match", [
    ("rar3-comment-psw.rar", "'file1.txt' is encrypted"),
    ("rar5-psw.rar", "the rar5 archive cannot be read .*encrypted"),
    ("rar3-solid.rar", "RAR solid archive support unavailable"),
])
def test_rars_libarchive_cannot_read_are_refused(tmp_path, name, match):
    refused(corpus(name), "bot.rar", tmp_path, match)


def test_damaged_rar5_archives_raise_only_archive_errors(tmp_path):
    """Truncated RAR 5 archives and flipped bytes, compressed or stored (the RAR 4 ones:
    `test_damaged_archives_raise_only_archive_errors`)."""
    rng = random.Random(5)
    for i, source in enumerate(["rar5-solid.rar", "rar5-subdirs.rar"] * 50):
        data = bytearray(corpus(source))
        if i % 3 == 0:
            data = data[: rng.randrange(len(data))]
        for _ in range(rng.randint(0 if i % 3 == 0 else 1, 8) if data else 0):
            data[rng.randrange(len(data))] = rng.randrange(256)
        with contextlib.suppress(ArchiveError):
            unpack(bytes(data), "bot.rar", tmp_path / f"d{i}")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


# The server's side: the reader is a child; what it does cannot reach the server's process.

def running(token: str) -> list[int]:
    """The pids of living processes whose command line holds `token`."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and token.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
    return found


def hook(monkeypatch, code: str) -> str:
    """Make the reader run `code` (Python) instead of `ninefold.platform.unpacker`; a token
    in its command line, to find any process it leaves."""
    token = f"hook-{random.randrange(1 << 30)}"
    monkeypatch.setattr(unpacker, "CHILD", ("-I", "-c", f"{token!r}\n{code}"))
    return token


def stream(name: str, kind: bytes = tarfile.REGTYPE) -> str:
    """Code for a reader that answers with a tar of one member, `name`, ending well."""
    return ("import io, sys, tarfile\n"
            "t = tarfile.open(fileobj=sys.stdout.buffer, mode='w|')\n"
            f"i = tarfile.TarInfo({name!r}); i.type = {kind!r}; i.linkname = '/etc'\n"
            "i.size = 0 if i.type != tarfile.REGTYPE else 1\n"
            "t.addfile(i, io.BytesIO(b'x')); t.close()")


@pytest.mark.parametrize("code,match", [
    ("import os; os.abort()", "its reader crashed \\(killed by SIGABRT\\)"),
    ("import time; time.sleep(600)", "its reader was stopped after 2 s \\(time limit\\)"),
    ("import sys; sys.stdout.buffer.write(bytes(range(256)) * 64)",
     "'the unpacked archive' is damaged or not a tar archive"),
    ("import sys\nwhile True: sys.stdout.buffer.write(bytes(1 << 16))",
     "its reader wrote more than the archive may hold \\(1 MiB and headers\\)"),
    ("raise SystemExit('lost')", "its reader failed \\(exit 1: lost\\)"),
    (stream("../evil.py"), "'\\.\\./evil\\.py': '\\.\\.' in a path is not allowed"),
    (stream("/etc/evil.py"), "absolute paths are not allowed"),
    (stream("etc", tarfile.SYMTYPE), "'etc' is a link"),
    (stream("dev", tarfile.CHRTYPE), "only plain files and folders"),
])
def test_a_reader_that_crashes_hangs_or_lies_fails_that_archive_alone(tmp_path, monkeypatch,
                                                                       code, match):
    """Whatever the child does, the server refuses the archive with one line, kills what
    it left running, writes nothing, and unpacks the next archive."""
    name, data = pack({"main.py": "x"}, "bot")
    token = hook(monkeypatch, code)
    reader = replace(unpacker.READER_LIMITS, wall_s=2)
    with pytest.raises(ArchiveError, match=match) as caught:
        sandbox.unpack(data, name, tmp_path / "dest", ArchiveLimits(max_unpacked_bytes=1 << 20),
                       reader=reader)
    assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []
    assert running(token) == []
    monkeypatch.undo()
    assert sandbox.unpack(data, name, tmp_path / "next") == ["main.py"]


def test_without_bwrap_the_reader_is_still_a_capped_child_of_its_own(tmp_path, monkeypatch):
    """Where the sandbox does not work, the reader runs as a plain child: it unpacks, a
    crash costs one archive, and (as root) it first becomes a user of its own that may
    not fork."""
    monkeypatch.setattr(sandbox, "available", lambda: "bwrap is not installed")
    name, data = pack({"bot/main.py": "x", "bot/lib/a.py": "y"}, "bot", "rar")
    assert sandbox.unpack(data, name, tmp_path / "dest") == ["lib/a.py", "main.py"]
    hook(monkeypatch, "import os; os.abort()")
    with pytest.raises(ArchiveError, match="killed by SIGABRT"):
        sandbox.unpack(data, name, tmp_path / "crash")
    hook(monkeypatch, """
import os, resource, sys
from ninefold.platform import unpacker
uid = int(sys.argv[sys.argv.index('--uid') + 1]) if '--uid' in sys.argv else None
unpacker.confine({'memory_mb': 64, 'cpu_s': 5, 'file_mb': 1, 'open_files': 16}, 0, uid)
try:
    os.fork() or os._exit(0)
    forked = 'forked'
except OSError:
    forked = 'no fork'
print(os.getuid(), os.getgroups(), resource.getrlimit(resource.RLIMIT_AS)[0] >> 20,
      forked if uid else '', file=sys.stderr)
sys.exit(unpacker.REFUSED)""")
    with pytest.raises(ArchiveError) as caught:
        sandbox.unpack(data, name, tmp_path / "who")
    uid, groups, memory, forked = str(caught.value).split(" ", 3)
    assert int(memory) == 64
    if os.geteuid() == 0:
        assert int(uid) >= sandbox.SANDBOX_UID_BASE and groups == "[]"
        assert forked == "no fork"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dest"]


SERVER = """
import json, sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from platform_fixtures import bot_archive
from ninefold.platform import uploads
from ninefold.platform.store import Store
with Store({url!r}) as store:
    user = store.add_user("ann", "hash")
    contest = store.add_contest("cup", "Cup", rules="standard", protocol="riddles")
    _, version = uploads.submit(store, contest, user, "annbot", *bot_archive("python", kind="rar"))
    built = uploads.build(store, version.id)
maps = [line for line in open("/proc/self/maps") if "libarchive" in line]
print(json.dumps([built.status, maps, sorted(m for m in sys.modules if "libarchive" in m)]))
"""


def test_the_server_never_loads_libarchive(tmp_path):
    """A .rar uploaded and built, as the server does it (in a fresh process: this one has
    read rars itself): libarchive is in neither its memory nor its modules."""
    code = SERVER.format(tests=str(Path(__file__).parent),
                         url=f"sqlite:///{tmp_path / 'platform.sqlite'}")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    status, maps, modules = json.loads(run.stdout.splitlines()[-1])
    assert (status, maps, modules) == ("active", [], [])


def test_a_build_whose_reader_hangs_fails_alone_and_the_next_is_built(tmp_path, monkeypatch):
    """The builder's unpacking (the upload passed its check, then its reader hangs): that
    version fails with one line, and the next version is built."""
    with Store(f"sqlite:///{tmp_path / 'platform.sqlite'}") as store:
        user = store.add_user("ann", "hash")
        contest = store.add_contest("cup", "Cup", rules="standard", protocol="riddles")
        bot = store.add_bot(contest.id, user.id, "annbot")
        name, data = bot_archive("python")
        stuck = store.add_version(bot.id, "hang-" + name, data, language="python")
        good = store.add_version(bot.id, name, data, language="python")
        hook(monkeypatch, """
import runpy, sys, time
if sys.argv[2].startswith('hang-'):
    time.sleep(600)
runpy.run_module('ninefold.platform.unpacker', run_name='__main__')""")
        monkeypatch.setattr(sandbox, "READER_LIMITS", replace(unpacker.READER_LIMITS, wall_s=3))
        failed = uploads.build(store, stuck.id)
        assert (failed.status, failed.compile_log) == (
            "compile_failed", "the archive was refused: the archive could not be read: its "
            "reader was stopped after 3 s (time limit)")
        assert uploads.build(store, good.id).status == "active"


def mutated(kind: str, rng: random.Random) -> tuple[str, bytes]:
    """A valid archive of `kind`, then cut short or with bytes flipped."""
    name, good = pack({"main.py": "x" * 3000, "lib/a.py": "y" * 500, "d/e/f.txt": "z"},
                      "bot", kind)
    data = bytearray(good[: rng.randrange(len(good))] if rng.random() < 0.3 else good)
    for _ in range(rng.randint(1, 8) if data else 0):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return name, bytes(data)


def fuzz(tmp_path: Path, monkeypatch, cases: int, seed: int) -> None:
    """`cases` mutated .rar, .zip and .tar archives through the child: each unpacks as in
    this process or is refused with the same one line; nothing is left behind."""
    rng = random.Random(seed)
    token = f"fuzz-{rng.randrange(1 << 30)}"  # in the readers' command lines (-X: ignored)
    monkeypatch.setattr(unpacker, "CHILD", ("-I", "-X", token, "-m", unpacker.MODULE))
    for i in range(cases):
        name, data = mutated(("rar", "zip", "tar")[i % 3], rng)
        try:
            here: list[str] | str = unpack(data, name, tmp_path / "here" / str(i))
        except ArchiveError as exc:
            here = str(exc)
        try:
            child: list[str] | str = sandbox.unpack(data, name, tmp_path / "child" / str(i))
        except ArchiveError as exc:
            child = str(exc)
        assert child == here, (i, name)
        if isinstance(child, str):
            assert "\n" not in child
        else:
            assert tree(tmp_path / "child" / str(i)) == tree(tmp_path / "here" / str(i))
    assert not [p for p in tmp_path.rglob(".*")]  # no temporary folder or file left
    assert running(token) == []


def test_mutated_archives_are_handled_in_the_child(tmp_path, monkeypatch):
    fuzz(tmp_path, monkeypatch, 12, seed=62)


@pytest.mark.slow
def test_hundreds_of_mutated_archives_are_handled_in_the_child(tmp_path, monkeypatch):
    fuzz(tmp_path, monkeypatch, 300, seed=6200)
