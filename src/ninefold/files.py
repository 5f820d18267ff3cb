"""Writing files so that a failure never leaves a truncated one behind (and SQLite
files in WAL mode, where a kill between two writes loses nothing written).

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "games.txt"
>>> with atomic_file(path) as out:
...     _ = out.write("1. e5 *\\n")
>>> path.read_text()
'1. e5 *\\n'
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


@contextmanager
def atomic_file(path: str | Path, *, binary: bool = False) -> Iterator[IO[Any]]:
    """A new file beside `path`, open for writing; renamed to `path` when the
    block ends without an error, removed (and `path` left as it was) otherwise.

    The file gets the usual permissions (0666 less the umask). An `OSError`
    from creating it (a missing or read-only folder) reaches the caller
    before anything is written.
    """
    path = Path(path)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb" if binary else "w") as file:
            yield file
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def sqlite_wal(connection: sqlite3.Connection | sqlite3.Cursor, timeout_s: float = 30.0) -> None:
    """Put the SQLite database of `connection` in WAL mode, waiting up to `timeout_s`
    for another connection's write lock.

    SQLite does not call its busy handler to change the journal mode: without the
    retry here, one of several processes opening a new database at once failed
    with 'database is locked'.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
