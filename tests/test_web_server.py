"""``ninefold serve`` as a process: its one-line errors, and no process left behind."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import httpx2 as httpx
import pytest
from webserver import alive, children, start_server, stop_server


def test_a_killed_server_leaves_no_worker_behind(tmp_path):
    proc, url = start_server(tmp_path / "games.sqlite")
    try:
        made = httpx.post(f"{url}/api/games", json={"mode": "computer", "level": 3,
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


KILLED_EARLY = """
import asyncio, os, signal, sys, time
from ninefold.rules import Board
from ninefold.web.analysis import _Worker
from ninefold.web.computer import Computer

async def main():
    if sys.argv[2] == "computer":
        computer = Computer(workers=2)
        asyncio.get_running_loop().create_task(computer.move(3, Board()))  # a searching level
    else:
        _Worker("mcts").start()
    await asyncio.sleep(float(sys.argv[1]))  # the workers are being spawned
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


@pytest.mark.parametrize("worker", ["computer", "analysis"])
def test_workers_spawned_as_the_server_is_killed_end_too(worker):
    """A worker still starting when the server dies (before it could ask for the
    parent-death signal) ends as well, instead of holding the server's pipes forever."""
    from test_processes import kill_all, marked, survivors

    mark = os.urandom(8).hex()
    env = dict(os.environ, NINEFOLD_TEST_MARK=mark)
    try:
        for delay in (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8):
            done = subprocess.run([sys.executable, "-c", KILLED_EARLY, str(delay), worker], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  timeout=60)
            assert done.returncode == -signal.SIGKILL
        left = survivors(mark, wait_s=10)
        assert not left, f"{len(left)} workers outlive the server killed while starting them"
    finally:
        kill_all(marked(mark))
