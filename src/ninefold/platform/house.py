"""House bots: ninefold's own players entered in a contest by its organiser (or an admin).

A house bot (``level:3``, ``level:7``, ``mcts:net=default``...) is a bot of
the account that entered it whose versions carry a player spec instead of an
archive: it needs no compile or input test, is active at once, and is paired
and rated like every other bot, so that a new author meets opponents at once; it
does not count against its owner's limit of bots in the contest.
A worker plays it in its own process, as the arena plays a built-in seat
(`ninefold.platform.jobs.seat`).
"""

from __future__ import annotations

import time

from ninefold.platform.store import Contest, Store, User, Version
from ninefold.players.registry import PlayerSpecError, make_player


class HouseError(ValueError):
    """A house bot refused (one line); nothing was stored."""


def enter(store: Store, contest: Contest, who: User, name: str, spec: str) -> Version:
    """Enter `spec` as the house bot `name` of `contest` (a new version if `name` is
    already a house bot of `who`'s); `PermissionError` unless `who` organises the
    contest (`Contest.organised_by`), `HouseError` for a bad spec or a closed contest,
    `NameTaken` for a name in use."""
    if not contest.organised_by(who):
        raise PermissionError("only the contest's organiser or an admin can enter a house bot")
    if contest.is_closed(time.time()):
        raise HouseError(f"the contest {contest.name} has closed")
    try:
        make_player(spec)
    except PlayerSpecError as exc:
        raise HouseError(str(exc)) from None
    return store.add_house_version(contest.id, who.id, name, spec.strip())
