"""Ratings with uncertainty (openskill's Plackett-Luce model) and the choice of who plays next.

A rating is ``(mu, sigma)``: the skill estimate and its uncertainty. The
leaderboard orders bots by the conservative ``mu - 3 sigma`` (openskill's
"ordinal"), so a new bot climbs as its games make it certain, not by luck.

The scheduler asks `pick_pairs` for the pairs to queue next. A pair's
*information* is how much its result should teach: the two uncertainties
(``sigma_a^2 + sigma_b^2``) times how open the result is (``4 p (1 - p)``,
where ``p`` is the chance that the first wins; 1 for an even pair). Games
already queued or running for a bot divide its pairs' weight, so every bot
keeps playing while the ladder is still learning about it.

>>> x, o = update(INITIAL, INITIAL, "1-0")
>>> x[0] > INITIAL[0] > o[0] and x[1] < INITIAL[1]
True
>>> ordinal(*INITIAL)
0.0
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from openskill.models import PlackettLuce

Rating = tuple[float, float]  # (mu, sigma)

MODEL = PlackettLuce()
INITIAL: Rating = (MODEL.mu, MODEL.sigma)
# openskill: lower rank is better
RANKS: dict[str, list[float]] = {"1-0": [1, 2], "0-1": [2, 1], "1/2-1/2": [1, 1]}


def ordinal(mu: float, sigma: float) -> float:
    """The leaderboard's key: a skill the bot has with high confidence (mu - 3 sigma)."""
    return round(mu - 3 * sigma, 6)


def update(x: Rating, o: Rating, result: str) -> tuple[Rating, Rating]:
    """The two ratings after one game; `result` is ``1-0``, ``0-1`` or ``1/2-1/2``."""
    if result not in RANKS:
        raise ValueError(f"no such result: {result!r}")
    a, b = MODEL.rating(mu=x[0], sigma=x[1]), MODEL.rating(mu=o[0], sigma=o[1])
    [[a2], [b2]] = MODEL.rate([[a], [b]], ranks=RANKS[result])
    return (a2.mu, a2.sigma), (b2.mu, b2.sigma)


def win_chance(a: Rating, b: Rating) -> float:
    """The chance that `a` beats `b` (draws split) under the model."""
    p = MODEL.predict_win([[MODEL.rating(mu=a[0], sigma=a[1])],
                           [MODEL.rating(mu=b[0], sigma=b[1])]])
    return float(p[0])


def information(a: Rating, b: Rating) -> float:
    """How much a game between `a` and `b` should teach the ladder (higher: more).

    >>> information(INITIAL, INITIAL) > information((40.0, 1.0), (10.0, 1.0))
    True
    """
    p = win_chance(a, b)
    return (a[1] ** 2 + b[1] ** 2) * 4 * p * (1 - p)


def pick_pairs(ratings: dict[int, Rating], in_flight: dict[int, int], count: int,
               rng: random.Random) -> list[tuple[int, int]]:
    """Up to `count` pairs of ids to play next, drawn in proportion to their
    information, divided by the games each side already has waiting.

    >>> pick_pairs({1: INITIAL}, {}, 3, random.Random(0))
    []
    >>> sorted(pick_pairs({1: INITIAL, 2: INITIAL}, {}, 1, random.Random(0))[0])
    [1, 2]
    """
    ids = sorted(ratings)
    if len(ids) < 2:
        return []
    waiting = dict(in_flight)
    chosen: list[tuple[int, int]] = []
    for _ in range(count):
        pairs, weights = _weighted(ids, ratings, waiting)
        a, b = rng.choices(pairs, weights)[0]
        chosen.append((a, b) if rng.random() < 0.5 else (b, a))
        waiting[a] = waiting.get(a, 0) + 1
        waiting[b] = waiting.get(b, 0) + 1
    return chosen


def _weighted(ids: Sequence[int], ratings: dict[int, Rating],
              waiting: dict[int, int]) -> tuple[list[tuple[int, int]], list[float]]:
    pairs, weights = [], []
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            busy = (1 + waiting.get(a, 0)) * (1 + waiting.get(b, 0))
            pairs.append((a, b))
            weights.append(information(ratings[a], ratings[b]) / busy + 1e-9)
    return pairs, weights
