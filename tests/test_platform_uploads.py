"""An upload and the builder that takes it: on a SQLite file and on PostgreSQL."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from platform_fixtures import bot_archive

from ninefold.platform.store import Store
from ninefold.platform.uploads import UNFINISHED, submit

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
