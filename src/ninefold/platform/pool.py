"""Work on this machine: worker processes (builds and games), and the scheduler in a thread.

A worker process gets the database's URL, password and all, in its environment
(`DB_URL_VARIABLE`), never on its command line, which every user of the
machine can read (``ps``, ``/proc/PID/cmdline``); a process's environment is
readable by its own user and root only.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from pathlib import Path

from ninefold.platform import DB_URL_VARIABLE
from ninefold.platform.scheduler import QUEUE_PER_WORKER, rate_all, schedule_once
from ninefold.platform.store import Store
from ninefold.platform.worker import LEASE_S


class Pool:
    """Workers as separate processes on this machine (``ninefold platform worker``:
    each builds uploads, then plays games, or with `games` False only builds),
    started again when one dies, plus the scheduler in a thread (`schedule`)."""

    def __init__(self, url: str, workers: int, cache: Path, *, lease_s: float = LEASE_S,
                 tick_s: float = 0.5, schedule: bool = True, games: bool = True) -> None:
        self.url, self.workers, self.cache = url, workers, cache
        self.lease_s, self.tick_s, self.schedule = lease_s, tick_s, schedule
        self.games = games
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> Pool:
        self.stop.clear()
        self.thread = threading.Thread(target=self._run, daemon=True, name="platform-pool")
        self.thread.start()
        return self

    def _spawn(self, name: str) -> None:
        self.procs[name] = subprocess.Popen(
            [sys.executable, "-m", "ninefold", "platform", "worker", "--name", name,
             "--cache", str(self.cache), "--lease", str(self.lease_s),
             *([] if self.games else ["--no-games"])],
            stdin=subprocess.DEVNULL, env={**os.environ, DB_URL_VARIABLE: self.url})

    def _run(self) -> None:
        store = Store(self.url)
        rng = random.Random()
        while not self.stop.is_set():
            for i in range(self.workers):
                name = f"{os.uname().nodename}-{os.getpid()}-w{i + 1}"
                proc = self.procs.get(name)
                if proc is None or proc.poll() is not None:
                    self._spawn(name)
            if self.schedule:
                schedule_once(store, max(2, QUEUE_PER_WORKER * self.workers), rng)
            self.stop.wait(self.tick_s)

    def close(self) -> None:
        """Stop the workers (a game under way goes back to the queue when its lease
        ends) and rate what finished."""
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
        for proc in self.procs.values():
            proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.schedule:
            rate_all(Store(self.url))
