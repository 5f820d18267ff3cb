"""A real PostgreSQL server for the tests, started once a session from Debian's binaries.

A test module that wants it says ``pytest_plugins = ["pgserver"]`` and asks for:

- `pg_server`: the running `PgServer` (session-wide);
- `pg_url`: the SQLAlchemy URL of a database ``ninefold`` on it;
- `store_url`: parametrized, a fresh empty database for each test, once on a
  SQLite file and once on PostgreSQL, so the same test checks both backends.

The server listens on a unix socket only, in a temporary folder removed at
the end. PostgreSQL refuses to run as root: as root, it runs as the
``postgres`` system user (Debian's package makes it). Durability is off
(fsync), which changes nothing a test can see but its speed. Without the
binaries (``apt-get install postgresql``) the PostgreSQL tests are skipped,
saying so.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from needs import require

DEBIAN = Path("/usr/lib/postgresql")  # /usr/lib/postgresql/<major>/bin/postgres
SUPERUSER = "postgres"
START_S = 30.0
FAST = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]


class PgServerError(RuntimeError):
    """The test server would not start."""


def postgres_bin() -> Path | None:
    """The bin folder of the newest PostgreSQL installed, or None."""
    found = [p.parent for p in DEBIAN.glob("*/bin/postgres") if p.parent.parent.name.isdigit()]
    return max(found, key=lambda b: int(b.parent.name), default=None)


class PgServer:
    """A throw-away PostgreSQL cluster in a temporary folder (`stop` removes it)."""

    def __init__(self, bindir: Path) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="ninefold-pg-"))
        self.names = itertools.count(1)
        self._as: dict[str, Any] = {}  # how subprocesses run: as postgres when we are root
        if os.geteuid() == 0:
            owner = pwd.getpwnam(SUPERUSER)
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._as = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
        data = self.root / "data"
        made = subprocess.run(
            [bindir / "initdb", "-D", data, "-U", SUPERUSER, "--auth=trust", "--no-sync",
             "--no-locale", "-E", "UTF8"],
            cwd=self.root, capture_output=True, text=True, **self._as)
        if made.returncode != 0:
            self._remove()
            raise PgServerError(f"initdb failed: {made.stderr.strip()}")
        self.log = self.root / "postgres.log"
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [bindir / "postgres", "-D", data, "-k", self.root, "-c", "listen_addresses=",
                 *FAST], cwd=self.root, stdout=log, stderr=subprocess.STDOUT, **self._as)
        self._wait_ready()

    def _connect(self, dbname: str = "postgres") -> psycopg.Connection[Any]:
        return psycopg.connect(host=str(self.root), user=SUPERUSER, dbname=dbname,
                               autocommit=True, connect_timeout=5)

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_S
        while True:
            try:
                self._connect().close()
                return
            except psycopg.OperationalError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    tail = self.log.read_text(errors="replace")[-2000:]
                    self.stop()
                    raise PgServerError(f"postgres did not start: {tail.strip()}") from None
                time.sleep(0.05)

    def url(self, dbname: str) -> str:
        """The SQLAlchemy URL of database `dbname` on this server."""
        return f"postgresql+psycopg://{SUPERUSER}@/{dbname}?host={self.root}"

    def create_database(self, dbname: str | None = None) -> str:
        """A new empty database (named ``test_<n>`` unless given); its URL."""
        dbname = dbname or f"test_{next(self.names)}"
        with self._connect() as conn:
            conn.execute(f'CREATE DATABASE "{dbname}"')
        return self.url(dbname)

    def stop(self) -> None:
        """Fast shutdown (SIGINT), then remove the folder."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(START_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._remove()

    def _remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    bindir = postgres_bin()
    require("PostgreSQL", None if bindir is not None else
            f"no binaries in {DEBIAN}/*/bin (apt-get install postgresql)")
    server = PgServer(bindir)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def pg_url(pg_server: PgServer) -> str:
    return pg_server.create_database("ninefold")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database for one test: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'platform.sqlite'}"
    server: PgServer = request.getfixturevalue("pg_server")
    return server.create_database()
