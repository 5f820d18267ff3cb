"""Unpacking uploads (`ninefold.platform.archive`): every kind, and every trick refused
with one line, leaving nothing behind."""

from __future__ import annotations

import contextlib
import io
import random
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest
from platform_fixtures import KINDS, hostile_archive, pack, tar_gz_bomb, zip_bomb
from rar4 import Entry, rar4

from ninefold.platform import archive
from ninefold.platform.archive import ArchiveError, ArchiveLimits, unpack

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
    """`unpack` raises ArchiveError matching `match`, and leaves the folder as it was."""
    with pytest.raises(ArchiveError, match=match) as caught:
        unpack(data, filename, tmp_path / "dest", limits or ArchiveLimits())
    assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_unpacks(tmp_path, kind):
    files = {"main.py": "print(1)\n", "lib/util.py": "X = 2\n", "data/book.txt": "e5"}
    name, data = pack(files, "bot", kind)
    assert unpack(data, name, tmp_path / "dest") == sorted(files)
    assert (tmp_path / "dest" / "lib" / "util.py").read_text() == "X = 2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["dest"]  # no temporary folder left


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
