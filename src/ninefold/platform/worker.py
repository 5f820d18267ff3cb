"""A match worker: claims queued games one at a time and plays them, under a lease.

A worker claims one queued game at a time (a lease with a random claim
token), plays it in the sandbox (`ninefold.platform.jobs.play`), renews the
lease while it plays, and hands the result in with its token. A worker
killed mid-game (even by ``kill -9``) loses its lease; the game goes back to
the queue and is played again, and a late result from the old claim is
dropped by the store: no game is lost, none is counted twice. A starting
worker removes the temporary game folders such a kill left (`sweep_games`).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from ninefold.platform.jobs import Job, job_for, play, sweep_games
from ninefold.platform.store import Store

LEASE_S = 30.0  # a worker renews its claim every third of this while it plays
IDLE_S = 0.3  # how long a worker without a game waits before it looks again


def work(store: Store, name: str, cache: Path, stop: threading.Event,
         lease_s: float = LEASE_S, idle_s: float = IDLE_S) -> int:
    """Claim and play games until `stop` is set; returns how many results were kept."""
    sweep_games()
    kept = 0
    while not stop.is_set():
        game = store.claim(name, lease_s, time.time())
        if game is None:
            stop.wait(idle_s)
            continue
        job = job_for(store, game)
        renewing = threading.Event()
        beat = threading.Thread(target=_renew, args=(store, job, lease_s, renewing),
                                daemon=True)
        beat.start()
        try:
            played = play(job, cache)
        finally:
            renewing.set()
            beat.join()
        kept += store.finish(job.game_id, job.claim, played.result, played.reason,
                             played.moves, played.times_ms, played.x_log, played.o_log,
                             time.time(), played.turn_logs.to_json())
    return kept


def _renew(store: Store, job: Job, lease_s: float, done: threading.Event) -> None:
    while not done.wait(lease_s / 3):
        if not store.renew(job.game_id, job.claim, lease_s, time.time()):
            return  # the game went back to the queue: the result will be dropped
