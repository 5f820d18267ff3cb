"""Ranked play on a Ray cluster (``pip install ninefold[cluster]``).

The scheduler stays one process beside the database; each game becomes a
Ray task (`jobs.play`, the same function a local worker runs) on any
node with a free CPU. The runner claims a game in the database before it
submits the task and keeps renewing the claim while the task runs; the
result comes back to the runner, which hands it in with the claim, so the
database is written from one place. A node or worker lost mid-game: Ray
runs the task again elsewhere (``max_retries``); if it cannot, the claim is
given back and the game is queued again. Either way the game is counted
once: the store keeps only a result whose claim is current.

Every node needs ninefold and bubblewrap installed (the compiled bots travel
inside the task, as the tar kept in the database). Uploads are not built on
Ray: ``ninefold platform run --ray`` starts local workers that only build
(`ninefold.platform.pool.Pool` with ``games=False``), beside this runner.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ninefold.platform.jobs import Job, job_for, play
from ninefold.platform.scheduler import QUEUE_PER_WORKER, rate_all, schedule_once
from ninefold.platform.store import Store
from ninefold.platform.worker import LEASE_S
from ninefold.raycluster import RETRIES, join, one_line, ray_module


class RayRunner:
    """The scheduler, with games played as tasks on the Ray cluster at `address`."""

    def __init__(self, url: str, address: str, cache: Path, *, lease_s: float = LEASE_S,
                 tick_s: float = 0.3) -> None:
        self.url, self.address, self.cache = url, address, cache
        self.lease_s, self.tick_s = lease_s, tick_s
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.ray = ray_module()
        self.remote: Any = None

    def start(self) -> RayRunner:
        join(self.address)
        self.remote = self.ray.remote(num_cpus=1, max_retries=RETRIES)(play)
        self.thread = threading.Thread(target=self._run, daemon=True, name="platform-ray")
        self.thread.start()
        return self

    def slots(self) -> int:
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def _run(self) -> None:
        store = Store(self.url)
        rng = random.Random()
        running: dict[Any, Job] = {}  # Ray's object ref -> the claimed job
        renewed = time.monotonic()
        name = f"ray:{self.address}"
        while not self.stop.is_set():
            slots = self.slots()
            schedule_once(store, max(2, QUEUE_PER_WORKER * slots), rng)
            while len(running) < slots:
                game = store.claim(name, self.lease_s, time.time())
                if game is None:
                    break
                job = job_for(store, game)
                running[self.remote.remote(job, str(self.cache))] = job
            if running:
                done, _ = self.ray.wait(list(running), num_returns=len(running),
                                        timeout=self.tick_s)
                for ref in done:
                    self._hand_in(store, running.pop(ref), ref)
            else:
                self.stop.wait(self.tick_s)
            if time.monotonic() - renewed > self.lease_s / 3:
                for job in running.values():
                    store.renew(job.game_id, job.claim, self.lease_s, time.time())
                renewed = time.monotonic()
        for job in running.values():  # stopped: these games go back to the queue
            store.release(job.game_id, job.claim)

    def _hand_in(self, store: Store, job: Job, ref: Any) -> None:
        try:
            played = self.ray.get(ref)
        except Exception as exc:  # the task failed for good (its node is gone...)
            print(f"ninefold: game {job.game_id} failed on Ray, queued again: "
                  f"{one_line(exc)}", file=sys.stderr)
            store.release(job.game_id, job.claim)
            return
        store.finish(job.game_id, job.claim, played.result, played.reason, played.moves,
                     played.times_ms, played.x_log, played.o_log, time.time(),
                     played.turn_logs.to_json())

    def close(self) -> None:
        """Stop: games under way go back to the queue; what finished is rated."""
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
        self.ray.shutdown()
        rate_all(Store(self.url))
