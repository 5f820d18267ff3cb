"""Writing files so that a failure never leaves a truncated one behind.

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
