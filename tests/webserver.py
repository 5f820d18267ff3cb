"""A real ``ninefold serve`` process for the web board's tests."""

from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest
    from fastapi.testclient import TestClient


def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """A `TestClient` of the web app on a fresh SQLite file, the computer on one worker
    process: a module's ``client`` fixture is ``pytest.fixture(scope="module")(app_client)``."""
    from fastapi.testclient import TestClient

    from ninefold.web.app import create_app
    from ninefold.web.computer import Computer

    computer = Computer(workers=1)
    with TestClient(create_app(tmp_path_factory.mktemp("web") / "web.sqlite", computer)) as c:
        yield c
    computer.close()


def start_server(db: Path, port: int = 0, *more: str,
                 ninefold: Sequence[str] = (sys.executable, "-m", "ninefold.cli"),
                 env: Mapping[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """Start the server on `db` (`more`: further options; `ninefold`: the command, e.g.
    another venv's console script; `env`: its environment); returns the process and its
    base URL (no slash)."""
    proc = subprocess.Popen([*ninefold, "serve", "--port", str(port), "--db", str(db), *more],
                            stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    found = re.search(r"http://[\d.]+:\d+/", line)
    assert found, line
    return proc, found.group(0).rstrip("/")


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _stat(pid: int | str) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (None: no such process)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux)."""
    return [int(p.name) for p in Path("/proc").glob("[0-9]*")
            if (fields := _stat(p.name)) is not None and int(fields[1]) == pid]


def alive(pid: int) -> bool:
    """The process runs (it exists and is not a zombie)."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def receive(ws, timeout: float = 120.0) -> dict:
    """A WebSocket's next message (JSON), or a failure after `timeout` s (never a hung
    test)."""
    box: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: box.put(ws.receive_json()), daemon=True).start()
    try:
        return box.get(timeout=timeout)
    except queue.Empty:
        raise AssertionError(f"no message in {timeout} s") from None
