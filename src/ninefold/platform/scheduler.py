"""The ranked play's scheduler: keeps the contests' queues topped up and rates finished games.

The database is the one source of truth. The scheduler (one per platform)
keeps each active contest's queue topped up with pairs chosen by
`ninefold.platform.ladder` while the contest is open (between its opening and
closing times), sends games whose worker vanished back to the queue, and rates
finished games in the order they finished. Once a contest has closed it queues
no more ranked games, gives up those still queued, and when the last one
running is rated it stores the final standings (`final_standings`).
"""

from __future__ import annotations

import random
import time

from ninefold.arena.config import Openings
from ninefold.platform import ladder
from ninefold.platform.store import Contest, Store, Version, existing

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
    queued = 0
    for a, b in ladder.pick_pairs(ratings, store.in_flight(contest.id), (missing + 1) // 2,
                                  rng):
        store.queue_pair(contest.id, a, b, opening_for(contest, rng))
        queued += 2
    return queued


def opening_for(contest: Contest, rng: random.Random) -> str | None:
    """A pair's opening, drawn from the contest's openings (None: the empty board)."""
    return Openings.parse(contest.openings or "none").for_round(rng.randrange(1 << 30),
                                                                seed=contest.id)


def ranking(active: list[Version]) -> list[Version]:
    """Versions in the leaderboard's order: by score (`ladder.ordinal`), best first."""
    return sorted(active, key=lambda v: -ladder.ordinal(v.mu, v.sigma))


def final_standings(store: Store, contest: Contest, now: float) -> bool:
    """For a closed contest: give up its queued ranked games, rate the finished ones
    and, once none is left running, store its final standings; whether they are
    stored (now or before)."""
    if contest.frozen is not None:
        return True
    store.cancel_queued(contest.id, now)
    rate_finished(store, contest.id)
    order = [v.id for v in ranking(store.active_versions(contest.id))]
    return store.freeze(contest.id, order, now)


def schedule_once(store: Store, depth: int, rng: random.Random) -> None:
    """One pass of the scheduler over every contest: active open ones are topped up,
    closed ones get their final standings."""
    now = time.time()
    store.requeue_expired(now)
    rate_all(store)
    for contest in store.contests():
        if contest.is_closed(now):
            final_standings(store, contest, now)
        elif contest.active and contest.is_open(now):
            top_up(store, contest, depth, rng)


def rate_all(store: Store) -> int:
    """Rate every contest's finished games not yet rated (also when a runner stops)."""
    return sum(rate_finished(store, c.id) for c in store.contests())
