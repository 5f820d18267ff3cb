"""``ninefold serve`` as a process: its one-line errors, and no process left behind."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import httpx2 as httpx
from webserver import alive, children, start_server, stop_server


def test_a_killed_server_leaves_no_worker_behind(tmp_path):
    proc, url = start_server(tmp_path / "games.sqlite")
    try:
        made = httpx.post(f"{url}/api/games", json={"mode": "computer", "level": 1,
                                                     "side": "o"}).json()
        gid, token = made["game"]["id"], made["token"]
        end = time.monotonic() + 60
        while httpx.get(f"{url}/api/games/{gid}").json()["ply"] < 1:  # the computer moved
            assert time.monotonic() < end
            time.sleep(0.1)
        workers = children(proc.pid)
        assert workers, "the computer's move ran in a worker process"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        end = time.monotonic() + 10
        while any(alive(w) for w in workers):
            assert time.monotonic() < end, "workers left after the server was killed"
            time.sleep(0.1)
        proc, url = start_server(tmp_path / "games.sqlite")  # and the game is still there
        view = httpx.get(f"{url}/api/games/{gid}",
                         headers={"Authorization": f"Bearer {token}"}).json()
        assert view["ply"] == 1 and view["you"] == ["o"]
    finally:
        stop_server(proc)


def test_a_port_in_use_is_one_line(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "ninefold.cli", "serve", "--port",
                               str(port), "--db", str(tmp_path / "g.sqlite")],
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: cannot listen on 127.0.0.1:")
    assert len(done.stderr.strip().splitlines()) == 1


def test_an_unusable_database_is_one_line(tmp_path):
    (tmp_path / "dir.sqlite").mkdir()
    done = subprocess.run([sys.executable, "-m", "ninefold.cli", "serve", "--port", "0",
                           "--db", str(tmp_path / "dir.sqlite")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "cannot open the games database" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
