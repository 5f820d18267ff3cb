"""The ranked play's scheduler: keeps the contests' queues topped up and rates finished games.

The database is the one source of truth. The scheduler (one per platform)
keeps each active contest's queue topped up with pairs chosen by
`ninefold.platform.ladder`, sends games whose worker vanished back to the
queue, and rates finished games in the order they finished.
"""

from __future__ import annotations

import random
import time

from ninefold.arena.config import Openings
from ninefold.platform import ladder
from ninefold.platform.store import Contest, Store, existing

QUEUE_PER_WORKER = 2  # games kept queued per worker, so none waits for the scheduler


def rate_finished(store: Store, contest_id: int) -> int:
    """Rate the contest's finished games not yet rated, in the order they finished."""
    rated = 0
    for game in store.unrated_games(contest_id):
        x = existing(store.version(game.x_version), f"version {game.x_version}")
        o = existing(store.version(game.o_version), f"version {game.o_version}")
        if game.result is None:
            raise ValueError(f"game {game.id} has no result to rate")
        new_x, new_o = ladder.update((x.mu, x.sigma), (o.mu, o.sigma), game.result)
        rated += store.rate(game.id, {x.id: new_x, o.id: new_o}, time.time())
    return rated


def top_up(store: Store, contest: Contest, depth: int, rng: random.Random) -> int:
    """Queue pairs of games (one opening, colours swapped) until `depth` games wait."""
    counts = store.counts(contest.id)
    missing = depth - counts.get("queued", 0)
    if missing <= 0:
        return 0
    ratings = {v.id: (v.mu, v.sigma) for v in store.active_versions(contest.id)}
    openings = Openings.parse(contest.openings or "none")
    queued = 0
    for a, b in ladder.pick_pairs(ratings, store.in_flight(contest.id), (missing + 1) // 2,
                                  rng):
        opening = openings.for_round(rng.randrange(1 << 30), seed=contest.id)
        store.queue_pair(contest.id, a, b, opening)
        queued += 2
    return queued


def schedule_once(store: Store, depth: int, rng: random.Random) -> None:
    """One pass of the scheduler over every active contest."""
    store.requeue_expired(time.time())
    rate_all(store)
    for contest in store.contests():
        if contest.active:
            top_up(store, contest, depth, rng)


def rate_all(store: Store) -> int:
    """Rate every contest's finished games not yet rated (also when a runner stops)."""
    return sum(rate_finished(store, c.id) for c in store.contests())
