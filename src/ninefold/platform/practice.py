"""Test games: unranked games an author asks for, of any version of their bot against any
active bot of the contest.

A test game is queued, claimed and played like a ranked one (a pair, colours
swapped, one opening) and shown in the viewer marked as a test, but it is never
rated (`ninefold.platform.store.Store.rate` refuses it) and never counts in the
leaderboard. The same request twice (a double click) queues one pair: while a pair
of the same two versions waits, another is refused.
"""

from __future__ import annotations

import random

from ninefold.platform.scheduler import opening_for
from ninefold.platform.store import AlreadyQueued, Store, User, existing

MAX_WAITING = 4  # test games an author may have queued or running at once
PLAYABLE = ("active", "retired")  # versions that compiled and passed the input test


class PracticeError(ValueError):
    """Test games refused (one line); nothing was queued."""


class Waiting(PracticeError):
    """The same test games are asked for again while the first ones wait."""


def ask(store: Store, user: User, version_id: int, opponent_bot: int,
        rng: random.Random | None = None) -> tuple[int, int]:
    """Queue a pair of test games of `user`'s version `version_id` against the active
    version of the bot `opponent_bot` (of the same contest); the two games' ids.
    `PermissionError` if the version is not `user`'s, `Waiting` while the same two
    versions' test games wait, `PracticeError` otherwise."""
    rng = rng or random.Random()
    version = store.version(version_id)
    if version is None:
        raise PracticeError(f"no version {version_id}")
    bot = existing(store.bot(version.bot_id), f"bot {version.bot_id}")
    if bot.owner_id != user.id:
        raise PermissionError("test games are for your own bots' versions")
    if version.status not in PLAYABLE:
        raise PracticeError(f"version {version.number} of {bot.name} is {version.status}: "
                            "only a version that passed its input test can play")
    opponent = store.bot(opponent_bot)
    if opponent is None or opponent.contest_id != bot.contest_id:
        raise PracticeError(f"no bot {opponent_bot} in this contest")
    active = [v for v in store.versions(opponent.id) if v.status == "active"]
    if not active:
        raise PracticeError(f"{opponent.name} has no active version")
    if store.waiting_test_games(user.id) + 2 > MAX_WAITING:
        raise PracticeError(f"you have test games waiting: at most {MAX_WAITING} at once")
    contest = existing(store.contest(bot.contest_id), f"contest {bot.contest_id}")
    try:
        return store.queue_pair(contest.id, version.id, active[0].id,
                                opening_for(contest, rng), ranked=False, once=True)
    except AlreadyQueued:
        raise Waiting(f"test games of {bot.name} v{version.number} against "
                            f"{opponent.name} are waiting already: watch them in the list "
                            "of games") from None
