"""The platform's database, each test on a SQLite file and on a real PostgreSQL server.

The races are real: threads with a `Store` (an engine, a connection pool) each,
as separate processes would have, started together at a barrier.
"""

from __future__ import annotations

import sqlite3
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from ninefold.platform.jobs import job_for
from ninefold.platform.store import (
    FutureSchema,
    NameTaken,
    NotFound,
    Store,
    TooManyBots,
    alembic_config,
    metadata,
)

pytest_plugins = ["pgserver"]

WORKERS = 4


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with Store(store_url) as s:
        yield s


def contest_with_bots(store: Store, n: int = 2) -> tuple[int, list[int]]:
    """A contest with `n` bots of one user, each with an active version: their ids."""
    owner = store.add_user("owner", "hash")
    contest = store.add_contest("uttt", "Ultimate", rules="standard", protocol="riddles",
                                max_bots_per_user=n, created_by=owner.id)
    ids = []
    for i in range(n):
        bot = store.add_bot(contest.id, owner.id, f"bot{i}")
        version = store.add_version(bot.id, "bot.zip", b"PK")
        assert store.activate(version.id)
        ids.append(version.id)
    return contest.id, ids


def at_once(n: int, job: Callable[[int], Any]) -> list[Any]:
    """Run job(0), ..., job(n-1) in n threads that start together; their results."""
    start = threading.Barrier(n)
    results: list[Any] = [None] * n
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            start.wait()
            results[i] = job(i)
        except BaseException as exc:  # the test raises it below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def finish(store: Store, game_id: int, claim: str, result: str = "1-0", now: float = 5.0
           ) -> bool:
    return store.finish(game_id, claim, result, "three in a row", ["e5", "a1"], [12.5, 30.0],
                        "x says", "o says", now)


# --- migrations ------------------------------------------------------------------------


def test_an_empty_database_is_migrated_to_the_tables_of_the_code(store: Store):
    with store.engine.connect() as conn, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SQLite cannot reflect the lower(name) index
        context = MigrationContext.configure(conn, opts={"compare_type": True,
                                                         "compare_server_default": True})
        head = ScriptDirectory.from_config(alembic_config(conn)).get_current_head()
        assert head is not None and context.get_current_heads() == (head,)
        assert compare_metadata(context, metadata) == []
    Store(store.url).close()  # opened again: already at head, nothing to do


def test_processes_opening_an_empty_database_at_once_migrate_it_once(store_url: str):
    for opened in at_once(WORKERS, lambda _: Store(store_url)):
        assert opened.contests() == []
        opened.close()


def test_opening_a_new_sqlite_database_waits_for_another_writer(tmp_path):
    """SQLite does not call its busy handler to switch a database to WAL while another
    connection holds the write lock: without a retry, one of several processes opening
    a new database at once failed with 'database is locked' (seen in CI)."""
    path = tmp_path / "new.sqlite"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")  # as another process's first migration does
    releaser = threading.Timer(0.5, writer.rollback)
    releaser.start()
    try:
        Store(f"sqlite:///{path}").close()
    finally:
        releaser.join()
        writer.close()


def test_a_database_from_newer_code_is_refused_in_one_line(store: Store):
    with store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(FutureSchema, match="'9999', newer than") as refused:
        Store(store.url)
    assert "\n" not in str(refused.value)


# --- users and sessions ----------------------------------------------------------------


def test_user_names_are_unique_in_any_letter_case(store: Store):
    ann = store.add_user("Ann", "h1", now=1.0)
    with pytest.raises(NameTaken, match="'ANN' is taken"):
        store.add_user("ANN", "h2")
    assert store.user_by_name("aNN") == ann == store.user(ann.id)
    assert store.user_by_name("bob") is None and store.user(999) is None
    store.set_admin("ann", True)
    store.set_password("ann", "h3")
    assert store.user(ann.id) == ann.__class__(ann.id, "Ann", "h3", True, 1.0)
    with pytest.raises(NotFound):
        store.set_admin("bob", True)


def test_sessions_expire_and_remember_their_last_use(store: Store):
    ann = store.add_user("ann", "h")
    store.add_session(ann.id, "a" * 64, "cookie", expires=100.0, now=10.0)
    assert store.session_user("a" * 64, now=50.0) == ann
    assert store.sessions(ann.id)[0].last_used == 10.0  # touched at most once a minute
    assert store.session_user("a" * 64, now=99.0) == ann
    assert store.sessions(ann.id)[0].last_used == 99.0
    assert store.session_user("a" * 64, now=100.0) is None  # expired
    assert store.session_user("b" * 64, now=50.0) is None
    assert store.drop_expired_sessions(now=100.0) == 1
    store.add_session(ann.id, "c" * 64, "api", expires=1e12, now=10.0)
    store.drop_session("c" * 64)
    assert store.session_user("c" * 64, now=50.0) is None
    with pytest.raises(ValueError, match="session kind 'token'"):
        store.add_session(ann.id, "d" * 64, "token", expires=1e12)


# --- contests, bots, versions ----------------------------------------------------------


def test_a_codingame_contest_with_openings_is_refused(store: Store):
    """A CodinGame bot learns only the last move, so it cannot start from an opening:
    such a contest would queue games that no worker can play."""
    with pytest.raises(ValueError, match=r"CodinGame bot .* openings none"):
        store.add_contest("cg", "x", rules="standard", protocol="codingame", openings="random4")
    assert store.contests() == []
    made = store.add_contest("cg", "x", rules="codingame", protocol="codingame", openings="none")
    assert made.openings == "none"


def test_contests_and_bots(store: Store):
    ann, bob = store.add_user("ann", "h"), store.add_user("bob", "h")
    uttt = store.add_contest("uttt", "Ultimate", rules="standard", protocol="riddles")
    with pytest.raises(NameTaken):
        store.add_contest("uttt", "Again", rules="standard", protocol="riddles")
    with pytest.raises(ValueError, match="contest name"):
        store.add_contest("Not a slug", "x", rules="standard", protocol="riddles")
    with pytest.raises(ValueError, match="protocol 'uci'"):
        store.add_contest("chess", "x", rules="standard", protocol="uci")
    assert store.contest_by_name("uttt") == uttt == store.contest(uttt.id)
    assert store.contests() == [uttt] and uttt.active and uttt.max_bots_per_user == 1
    mine = store.add_bot(uttt.id, ann.id, "zero")
    with pytest.raises(TooManyBots):
        store.add_bot(uttt.id, ann.id, "one")
    with pytest.raises(NameTaken, match="'zero'"):
        store.add_bot(uttt.id, bob.id, "zero")
    with pytest.raises(NotFound):
        store.add_bot(999, bob.id, "zero")
    theirs = store.add_bot(uttt.id, bob.id, "one")
    assert store.bots() == [mine, theirs] == store.bots(contest_id=uttt.id)
    assert store.bots(owner_id=bob.id) == [theirs] and store.bot(mine.id) == mine


def test_a_version_keeps_its_archive_build_and_logs(store: Store):
    _, (v1, _) = contest_with_bots(store)
    bot_id = store.version(v1).bot_id
    v = store.add_version(bot_id, "next.tar.gz", b"\x00archive\xff")
    assert (v.number, v.status, v.games) == (2, "uploaded", 0)
    assert store.version_blob(v.id, "archive") == b"\x00archive\xff"
    assert store.version_blob(v.id, "build") is None
    assert store.set_version_status(v.id, "compiling", expect="uploaded")
    assert not store.set_version_status(v.id, "compiling", expect="uploaded")  # taken
    assert store.set_version_status(v.id, "testing", compile_log="ok", build=b"tar",
                                    language="python")
    assert store.version_blob(v.id, "build") == b"tar"
    got = store.version(v.id)
    assert (got.status, got.compile_log, got.language) == ("testing", "ok", "python")
    assert store.versions_in(["testing", "uploaded"]) == [got]
    with pytest.raises(ValueError, match="activate"):
        store.set_version_status(v.id, "active")
    with pytest.raises(ValueError, match="blob 'log'"):
        store.version_blob(v.id, "log")


def test_activating_a_version_retires_the_one_before(store: Store):
    contest_id, (v1, other) = contest_with_bots(store)
    bot_id = store.version(v1).bot_id
    v2, v3 = (store.add_version(bot_id, "b.zip", b"PK").id for _ in range(2))
    assert store.activate(v3)
    assert [store.version(v).status for v in (v1, v3)] == ["retired", "active"]
    assert not store.activate(v2)  # v3 is newer and already plays: v2 never does
    assert store.version(v2).status == "retired"
    assert [v.id for v in store.active_versions(contest_id)] == [other, v3]
    with pytest.raises(NotFound):
        store.activate(999)


def test_versions_uploaded_at_once_get_one_number_each(store: Store):
    _, (v1, _) = contest_with_bots(store)
    bot_id = store.version(v1).bot_id

    def upload(_: int) -> list[int]:
        with Store(store.url) as mine:
            return [mine.add_version(bot_id, "b.zip", b"PK").number for _ in range(5)]

    numbers = [n for batch in at_once(WORKERS, upload) for n in batch]
    assert sorted(numbers) == list(range(2, 2 + 5 * WORKERS))
    assert [v.number for v in store.versions(bot_id)] == list(range(1, 2 + 5 * WORKERS))


# --- the work queue --------------------------------------------------------------------


def test_a_pair_is_two_games_with_colours_swapped(store: Store):
    contest_id, (a, b) = contest_with_bots(store)
    first, second = store.queue_pair(contest_id, a, b, "e5 a1", now=1.0)
    g1, g2 = store.game(first), store.game(second)
    assert (g1.x_version, g1.o_version, g2.x_version, g2.o_version) == (a, b, b, a)
    assert g1.pair == g2.pair == first and g1.opening == g2.opening == "e5 a1"
    assert g1.status == "queued" and g1.attempts == 0 and not g1.rated
    assert store.counts(contest_id) == {"queued": 2, "running": 0, "done": 0}
    assert store.in_flight(contest_id) == {a: 2, b: 2}


def test_workers_claiming_at_once_take_every_game_exactly_once(store: Store):
    contest_id, (a, b) = contest_with_bots(store)
    for _ in range(100):
        store.queue_pair(contest_id, a, b, None, now=1.0)

    def worker(i: int) -> list[int]:
        taken = []
        with Store(store.url) as mine:
            while (game := mine.claim(f"w{i}", 30.0, now=2.0)) is not None:
                assert game.worker == f"w{i}" and game.attempts == 1
                taken.append(game.id)
        return taken

    taken = at_once(WORKERS, worker)
    every = Counter(g for mine in taken for g in mine)
    assert len(every) == 200 and set(every.values()) == {1}
    assert store.counts(contest_id) == {"queued": 0, "running": 200, "done": 0}
    assert len({g.claim for g in store.games(limit=1000)}) == 200


def test_a_late_result_from_a_lost_claim_is_dropped(store: Store):
    contest_id, (a, b) = contest_with_bots(store)
    game_id, _ = store.queue_pair(contest_id, a, b, None, now=1.0)
    old = store.claim("slow", lease_s=10.0, now=2.0)
    assert old.id == game_id and store.renew(game_id, old.claim, 10.0, now=5.0)
    assert store.requeue_expired(now=14.0) == 0  # renewed until 15
    assert store.requeue_expired(now=16.0) == 1
    assert store.game(game_id).status == "queued" and store.game(game_id).claim is None
    new = store.claim("fast", lease_s=10.0, now=17.0)
    assert new.id == game_id and new.attempts == 2 and new.claim != old.claim
    assert not store.renew(game_id, old.claim, 10.0, now=18.0)
    assert not finish(store, game_id, old.claim, "0-1")  # dropped
    assert finish(store, game_id, new.claim, "1-0", now=20.0)
    assert not finish(store, game_id, new.claim, "0-1")  # done once
    assert not store.renew(game_id, new.claim, 10.0, now=21.0)
    done = store.game(game_id)
    assert (done.status, done.result, done.worker, done.finished) == ("done", "1-0", "fast",
                                                                      20.0)
    assert done.moves == "e5 a1" and done.times_ms == (12.5, 30.0)
    assert (done.x_log, done.o_log) == ("x says", "o says")
    assert store.games(contest_id, status="done")[0].x_log is None  # listings skip logs
    with pytest.raises(ValueError, match="result '2-0'"):
        finish(store, game_id, new.claim, "2-0")


def test_a_game_no_worker_can_finish_is_given_up(store: Store):
    contest_id, (a, b) = contest_with_bots(store)
    game_id, _ = store.queue_pair(contest_id, a, b, None, now=1.0)
    for attempt in range(3):
        assert store.claim("crashy", 1.0, now=10.0 * attempt).id == game_id
        assert store.requeue_expired(now=10.0 * attempt + 5) == 1
    given_up = store.game(game_id)
    assert (given_up.status, given_up.result, given_up.attempts) == ("done", None, 3)
    assert "abandoned" in given_up.reason
    assert store.unrated_games(contest_id) == []  # no result, nothing to rate


def test_a_job_needs_a_claim_and_both_builds(store: Store):
    contest_id, (a, b) = contest_with_bots(store)  # active, but never built
    game_id, _ = store.queue_pair(contest_id, a, b, None, now=1.0)
    with pytest.raises(ValueError, match=f"game {game_id} is not claimed"):
        job_for(store, store.game(game_id))
    game = store.claim("w", 30.0, now=2.0)
    with pytest.raises(NotFound, match=f"no build of version {a}"):
        job_for(store, game)
    for v in (a, b):
        store.set_version_status(v, "testing", build=f"tar {v}".encode())
        store.activate(v)
    job = job_for(store, game)
    assert (job.game_id, job.claim, job.rules, job.protocol) == (game_id, game.claim,
                                                                 "standard", "riddles")
    assert (job.x.name, job.x.build, job.o.name) == ("bot0-v1", f"tar {a}".encode(), "bot1-v1")


def test_a_released_game_is_queued_again_then_given_up(store: Store):
    # what the Ray runner does with a game whose task failed for good
    contest_id, (a, b) = contest_with_bots(store)
    game_id, _ = store.queue_pair(contest_id, a, b, None, now=1.0)
    held = store.claim("ray", 30.0, now=2.0)
    assert not store.release(game_id, "not-the-claim")
    assert store.game(game_id).status == "running"
    assert store.release(game_id, held.claim)
    assert store.game(game_id).status == "queued" and store.game(game_id).claim is None
    assert not store.release(game_id, held.claim)  # once
    for attempt in (2, 3):
        again = store.claim("ray", 30.0, now=float(attempt))
        assert again.id == game_id and again.attempts == attempt
        assert store.release(game_id, again.claim)
    assert store.game(game_id).status == "done" and "abandoned" in store.game(game_id).reason


def test_a_paused_contest_gives_no_games(store: Store):
    contest_id, (a, b) = contest_with_bots(store)
    store.queue_pair(contest_id, a, b, None)
    store.set_contest_active(contest_id, False)
    assert store.claim("w", 10.0, now=1.0) is None
    store.set_contest_active(contest_id, True)
    assert store.claim("w", 10.0, now=1.0) is not None


def test_a_game_is_rated_once_even_by_two_raters_at_once(store: Store):
    contest_id, (a, b) = contest_with_bots(store)
    ids = store.queue_pair(contest_id, a, b, None, now=1.0)
    for finished_at, game_id in zip((9.0, 8.0), ids, strict=True):
        game = store.claim("w", 10.0, now=2.0)
        assert game.id == game_id and finish(store, game.id, game.claim, now=finished_at)
    assert [g.id for g in store.unrated_games(contest_id)] == [ids[1], ids[0]]  # finish order
    game_id = ids[1]
    updates = {a: (27.0, 7.5), b: (23.0, 7.5)}
    assert store.rate(game_id, updates, now=10.0)
    assert not store.rate(game_id, updates, now=11.0)
    assert [g.id for g in store.unrated_games(contest_id)] == [ids[0]]

    def rater(_: int) -> bool:
        with Store(store.url) as mine:
            return mine.rate(ids[0], {a: (28.0, 7.0), b: (22.0, 7.0)}, now=12.0)

    assert sorted(at_once(WORKERS, rater)) == [False] * (WORKERS - 1) + [True]
    assert store.unrated_games(contest_id) == []
    assert (store.version(a).mu, store.version(a).sigma, store.version(a).games) == (28.0, 7.0,
                                                                                      2)
    assert [(p.game_id, p.mu, p.at) for p in store.rating_history(a)] == [
        (ids[1], 27.0, 10.0), (ids[0], 28.0, 12.0)]


def test_listing_games(store: Store):
    contest_id, (a, b, c) = contest_with_bots(store, 3)
    first, second = store.queue_pair(contest_id, a, b, None)
    third, _ = store.queue_pair(contest_id, b, c, None)
    game = store.claim("w", 10.0, now=1.0)
    assert game.id == first
    assert [g.id for g in store.games(contest_id, limit=2)] == [third + 1, third]
    assert [g.id for g in store.games(contest_id, limit=2, offset=3)] == [first]
    assert [g.id for g in store.games(version_id=a)] == [second, first]
    assert [g.id for g in store.games(status="running")] == [first]
    assert store.games(contest_id + 1) == []
    assert store.in_flight(contest_id) == {a: 2, b: 4, c: 2}
    assert store.counts(contest_id) == {"queued": 3, "running": 1, "done": 0}
