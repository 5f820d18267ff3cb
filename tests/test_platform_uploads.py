"""An upload and the builder that takes it: on a SQLite file and on PostgreSQL."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import pytest
from platform_fixtures import bot_archive

from ninefold.platform.limits import PlatformLimits
from ninefold.platform.store import Store
from ninefold.platform.uploads import UNFINISHED, UploadLimit, submit

pytest_plugins = ["pgserver"]


def test_an_upload_is_never_seen_by_the_builder_without_its_language(store_url, monkeypatch):
    """The server's builder thread may look at the queue between any two of `submit`'s
    transactions. Before, the version was stored, then its language: a builder that took
    it in between failed it (``compile_failed``, "internal error: no recipe for ''"), and
    kept it failed when the language landed before its own write."""
    seen: list[str | None] = []  # the languages of the versions waiting, after each commit
    write = Store._write

    @contextlib.contextmanager
    def watched(self: Store) -> Iterator[object]:
        with write(self) as conn:
            yield conn
        seen.extend(v.language for v in self.versions_in(UNFINISHED))

    with Store(store_url) as store:
        user = store.add_user("ann", "hash")
        contest = store.add_contest("cup", "Cup", rules="standard", protocol="riddles")
        monkeypatch.setattr(Store, "_write", watched)
        _, version = submit(store, contest, user, "annbot", *bot_archive("c"))
    assert (version.status, version.language) == ("uploaded", "c")
    assert seen and set(seen) == {"c"}


def test_an_author_has_three_builds_waiting_at_most(store_url):
    with Store(store_url) as store:
        ann, bob = store.add_user("ann", "hash"), store.add_user("bob", "hash")
        contest = store.add_contest("cup", "Cup", rules="standard", protocol="riddles",
                                    max_bots_per_user=2)
        made = [submit(store, contest, ann, "annbot", *bot_archive("c"))[1] for _ in range(3)]
        for bot in ("annbot", "another"):  # a new bot is not made either
            with pytest.raises(UploadLimit, match=r"^you have 3 versions waiting to be "
                                                  r"built \(at most 3\): upload again"):
                submit(store, contest, ann, bot, *bot_archive("c"))
        assert [b.name for b in store.bots(owner_id=ann.id)] == ["annbot"]
        assert len(store.versions(made[0].bot_id)) == 3
        submit(store, contest, bob, "bobbot", *bot_archive("c"))  # others go on
        store.set_version_status(made[0].id, "compile_failed")
        submit(store, contest, ann, "annbot", *bot_archive("c"))


def test_an_author_uploads_fifty_versions_a_day_at_most(store_url):
    with Store(store_url) as store:
        ann = store.add_user("ann", "hash")
        contest = store.add_contest("cup", "Cup", rules="standard", protocol="riddles")
        bot = store.add_bot(contest.id, ann.id, "annbot")
        now = time.time()
        for hours_ago in [25] * 3 + [23] * 49:
            v = store.add_version(bot.id, "bot.zip", b"PK", now=now - hours_ago * 3600)
            store.set_version_status(v.id, "compile_failed")
        submit(store, contest, ann, "annbot", *bot_archive("c"))  # the 50th today
        store.set_version_status(store.versions(bot.id)[-1].id, "test_failed")
        with pytest.raises(UploadLimit, match=r"^you have uploaded 50 versions in the last "
                                              r"24 hours \(at most 50\)"):
            submit(store, contest, ann, "annbot", *bot_archive("c"))
        more = PlatformLimits(uploads_per_day_per_user=51)
        submit(store, contest, ann, "annbot", *bot_archive("c"), limits=more)


def test_thirty_versions_queued_delay_another_authors_first_build_by_one_build(store_url):
    """The builders take turns across authors: the author with the fewest builds
    started lately goes first (the caps on waiting builds set aside: the versions are
    stored directly)."""
    with Store(store_url) as store:
        ann, bob = store.add_user("ann", "hash"), store.add_user("bob", "hash")
        contest = store.add_contest("cup", "Cup", rules="standard", protocol="riddles")
        anns = store.add_bot(contest.id, ann.id, "annbot")
        now = time.time()
        queued = [store.add_version(anns.id, "a.zip", b"PK", language="c", now=now + i).id
                  for i in range(30)]
        bobs = store.add_bot(contest.id, bob.id, "bobbot")
        first = store.add_version(bobs.id, "b.zip", b"PK", language="c", now=now + 31).id
        built = []
        while (taken := store.claim_build("worker", 60.0, now + 40)) is not None:
            built.append(taken[0].id)
            store.set_version_status(taken[0].id, "compile_failed")
            if len(built) == 3:  # bob's second upload waits for one of ann's, not 28
                second = store.add_version(bobs.id, "b.zip", b"PK", language="c",
                                           now=now + 41).id
        assert built[:4] == [queued[0], first, queued[1], second]  # turn by turn
        assert sorted(built) == sorted([*queued, first, second])
