"""A match worker's leftovers (`ninefold.platform.worker`, `ninefold.platform.jobs`): a
worker killed mid-game leaves its game's temporary folder; the next one removes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

from ninefold.platform import jobs
from ninefold.platform.worker import work

# A process that plays a "game" as `play` does: in a game folder of the temporary directory.
PLAYS = """
import sys, tempfile, time
from ninefold.platform.jobs import GAME_PREFIX
import os
folder = tempfile.mkdtemp(prefix=f"{GAME_PREFIX}{os.getpid()}-")
open(os.path.join(folder, "x.log"), "w").write("stderr")
print(folder, flush=True)
time.sleep(60)
"""


def test_a_worker_killed_mid_game_leaves_a_folder_the_next_one_removes(tmp_path,
                                                                       monkeypatch):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", PLAYS], stdout=subprocess.PIPE,
                            text=True, env=env)
    folder = proc.stdout.readline().strip()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    assert os.path.isdir(folder) and folder.startswith(str(tmp_path))
    mine = tempfile.mkdtemp(prefix=f"{jobs.GAME_PREFIX}{os.getpid()}-", dir=tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stop = threading.Event()
    stop.set()
    started = time.monotonic()
    assert work(object(), "w", tmp_path / "cache", stop) == 0  # a store it never reads
    assert time.monotonic() - started < 5
    assert not os.path.exists(folder) and os.path.isdir(mine)  # a live process's stays
