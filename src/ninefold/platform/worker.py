"""A worker: builds uploads and plays games, one at a time, each under a lease.

This is the only place an upload is compiled, input-tested or played: the web
server compiles and plays nothing (``ninefold platform worker``, or the processes that
``ninefold serve --workers N`` and ``ninefold platform run`` start). Each turn
of its loop a worker first claims a version waiting to be built
(`Store.claim_build`) and builds it (`ninefold.platform.uploads.build`); when
none waits, it claims one queued game (a lease with a random claim token),
plays it in the sandbox (`ninefold.platform.jobs.play`), renews the lease
while it plays, and hands the result in with its token. It looks at the
database again every `IDLE_S` when there is nothing to do.

A worker killed mid-game (even by ``kill -9``) loses its lease; the game goes
back to the queue and is played again, and a late result from the old claim
is dropped by the store: no game is lost, none is counted twice. A build
whose worker died is taken again by another when its lease ends. A starting
worker removes the temporary game folders such a kill left (`sweep_games`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from ninefold.platform.jobs import job_for, play, private_folder, sweep_games
from ninefold.platform.store import Store, Version
from ninefold.platform.uploads import build

LEASE_S = 30.0  # a worker renews its claim every third of this while it works
IDLE_S = 0.3  # how long a worker without a build or a game waits before it looks again


def work(store: Store, name: str, cache: Path, stop: threading.Event,
         lease_s: float = LEASE_S, idle_s: float = IDLE_S, *, builds: bool = True,
         games: bool = True) -> int:
    """Build uploads (`builds`) and play games (`games`), builds first, until `stop` is
    set; returns how many game results were kept."""
    sweep_games()
    private_folder(cache)
    kept = 0
    while not stop.is_set():
        if builds and build_next(store, name, lease_s) is not None:
            continue
        game = store.claim(name, lease_s, time.time()) if games else None
        if game is None:
            stop.wait(idle_s)
            continue
        job = job_for(store, game)
        with _renewing(partial(store.renew, job.game_id, job.claim, lease_s), lease_s):
            played = play(job, cache)
        kept += store.finish(job.game_id, job.claim, played.result, played.reason,
                             played.moves, played.times_ms, played.x_log, played.o_log,
                             time.time(), played.turn_logs.to_json())
    return kept


def build_next(store: Store, name: str, lease_s: float = LEASE_S) -> Version | None:
    """Claim the next version waiting to be built and build it, renewing the claim while
    it runs; the version as it ends, or None if none waited. A version that breaks the
    build is failed with the reason (``compile_failed``), and the worker goes on."""
    taken = store.claim_build(name, lease_s, time.time())
    if taken is None:
        return None
    version, claim = taken
    with _renewing(partial(store.renew_build, version.id, claim, lease_s), lease_s):
        try:
            return build(store, version.id)
        except Exception as exc:  # one broken version must not stop the rest
            store.set_version_status(version.id, "compile_failed",
                                     compile_log=f"internal error: {exc}")
            return store.version(version.id)


@contextmanager
def _renewing(renew: Callable[[float], bool], lease_s: float) -> Iterator[None]:
    """Call `renew` with the time every third of `lease_s` while the block runs (until it
    answers False: the claim was lost, and the work's result will be dropped)."""
    done = threading.Event()

    def beat() -> None:
        while not done.wait(lease_s / 3):
            if not renew(time.time()):
                return

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
