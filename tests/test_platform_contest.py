"""A contest's life on the platform: house bots, unranked test games, opening and closing
times, the final standings; each store test on a SQLite file and on PostgreSQL.

The games here are played for real by house bots (ninefold's own players, in
the worker's process: no sandbox needed)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator

import pytest
from test_platform_store import at_once, contest_with_bots, finish

from ninefold.platform import house, practice
from ninefold.platform.jobs import job_for, play
from ninefold.platform.scheduler import final_standings, ranking, schedule_once
from ninefold.platform.store import HOUSE, NameTaken, Store, StoreError, TooManyBots
from ninefold.platform.uploads import ContestClosed, submit
from ninefold.platform.worker import work

pytest_plugins = ["pgserver"]


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with Store(store_url) as s:
        yield s


def admin(store: Store, name: str = "organiser"):
    store.add_user(name, "hash")
    store.set_admin(name, True)
    return store.user_by_name(name)


# --- house bots ------------------------------------------------------------------------


def test_house_bots_are_active_at_once_and_a_new_spec_is_a_new_version(store: Store):
    boss = admin(store)
    contest = store.add_contest("cup", "Cup", rules="standard", protocol="riddles",
                                max_bots_per_user=1)
    one = house.enter(store, contest, boss, "level3", "level:3")
    house.enter(store, contest, boss, "level7", "level:7")  # past the limit of bots a user
    assert (one.status, one.language, one.spec, one.number) == ("active", HOUSE, "level:3", 1)
    two = house.enter(store, contest, boss, "level3", "level:4")
    assert two.number == 2 and store.version(one.id).status == "retired"
    assert sorted(v.spec for v in store.active_versions(contest.id)) == ["level:4", "level:7"]
    with pytest.raises(house.HouseError, match="unknown player"):
        house.enter(store, contest, boss, "bad", "no-such-player:3")
    author = store.add_user("ann", "hash")
    with pytest.raises(PermissionError):
        house.enter(store, contest, author, "mine", "level:1")
    store.add_version(store.add_bot(contest.id, author.id, "annbot").id, "b.zip", b"PK")
    with pytest.raises(NameTaken):  # an uploaded bot's name
        house.enter(store, contest, boss, "annbot", "level:1")
    assert house.enter(store, contest, boss, "mcts", "mcts:net=default").spec == \
        "mcts:net=default"


def test_house_bots_do_not_count_against_the_bots_of_who_entered_them(store: Store):
    boss = admin(store)
    contest = store.add_contest("cup", "Cup", rules="standard", protocol="riddles",
                                max_bots_per_user=1)
    for name in ("level1", "level2", "level3"):
        house.enter(store, contest, boss, name, "level:1")
    assert store.add_bot(contest.id, boss.id, "bossbot").name == "bossbot"  # their one
    with pytest.raises(TooManyBots, match=r"^you have 1 bot in this contest"):
        store.add_bot(contest.id, boss.id, "second")


def test_an_organiser_organises_the_contests_they_created_only(store: Store):
    store.add_user("ann", "hash")
    store.set_organiser("ann", True)
    ann, boss = store.user_by_name("ann"), admin(store)
    bob = store.add_user("bob", "hash")
    assert ann.may_create_contests and boss.may_create_contests
    assert not bob.may_create_contests
    hers = store.add_contest("anns", "", rules="standard", protocol="riddles",
                             created_by=ann.id)
    other = store.add_contest("other", "", rules="standard", protocol="riddles",
                              created_by=boss.id)
    assert [hers.organised_by(u) for u in (ann, boss, bob)] == [True, True, False]
    assert [other.organised_by(u) for u in (ann, boss, bob)] == [False, True, False]
    assert house.enter(store, hers, ann, "level1", "level:1").status == "active"
    with pytest.raises(PermissionError, match="organiser"):
        house.enter(store, other, ann, "level1", "level:1")


def test_house_bots_are_scheduled_played_and_rated_like_the_others(store: Store, tmp_path):
    boss = admin(store)
    contest = store.add_contest("cup", "Cup", rules="standard", protocol="riddles",
                                openings="none")
    for name, spec in (("first", "random:seed=1"), ("second", "level:1")):
        house.enter(store, contest, boss, name, spec)
    schedule_once(store, 2, random.Random(0))
    game = store.claim("w", 30.0, now=time.time())
    job = job_for(store, game)
    assert job.x.spec and job.o.spec and job.x.build == b""
    played = play(job, tmp_path)
    assert store.finish(job.game_id, job.claim, played.result, played.reason, played.moves,
                        played.times_ms, "", "", time.time())
    schedule_once(store, 0, random.Random(0))
    assert store.game(game.id).rated
    assert sum(v.games for v in store.active_versions(contest.id)) == 2


# --- test games --------------------------------------------------------------------------


def test_test_games_are_played_but_never_rated(store: Store):
    contest_id, (a, b) = contest_with_bots(store)
    owner = store.user_by_name("owner")
    ids = practice.ask(store, owner, a, store.version(b).bot_id, random.Random(0))
    assert [store.game(i).ranked for i in ids] == [False, False]
    assert store.counts(contest_id) == {"queued": 0, "running": 0, "done": 0}
    assert store.counts(contest_id, ranked=False)["queued"] == 2
    for _ in ids:
        game = store.claim("w", 10.0, now=2.0)
        assert finish(store, game.id, game.claim)
    assert store.unrated_games(contest_id) == []
    assert not store.rate(ids[0], {a: (30.0, 5.0), b: (20.0, 5.0)}, now=3.0)
    assert store.version(a).games == 0 and store.version(a).mu == 25.0
    assert [g.id for g in store.games(contest_id, ranked=False)] == sorted(ids, reverse=True)
    assert store.games(contest_id, ranked=True) == []


def test_test_games_are_asked_of_ones_own_built_version_and_are_limited(store: Store):
    _, (a, b) = contest_with_bots(store)
    owner, stranger = store.user_by_name("owner"), store.add_user("eve", "hash")
    opponent = store.version(b).bot_id
    with pytest.raises(PermissionError):
        practice.ask(store, stranger, a, opponent)
    with pytest.raises(practice.PracticeError, match="no bot"):
        practice.ask(store, owner, a, opponent + 100)
    newer = store.add_version(store.version(a).bot_id, "b.zip", b"PK")
    with pytest.raises(practice.PracticeError, match="uploaded"):
        practice.ask(store, owner, newer.id, opponent)
    assert store.activate(newer.id)
    practice.ask(store, owner, a, opponent)  # a retired version plays too
    practice.ask(store, owner, newer.id, opponent)
    with pytest.raises(practice.PracticeError, match="at most 4"):
        practice.ask(store, owner, a, opponent)


def test_the_same_test_games_asked_twice_at_once_are_queued_once(store: Store):
    _, (a, b) = contest_with_bots(store)
    owner = store.user_by_name("owner")
    opponent = store.version(b).bot_id

    def ask(_: int) -> str:
        try:
            practice.ask(store, owner, a, opponent)
            return "queued"
        except practice.Waiting as exc:
            return str(exc)
    answers = at_once(2, ask)
    assert answers.count("queued") == 1, answers
    assert "waiting already" in " ".join(answers), answers
    assert len(store.games(ranked=False)) == 2
    game = store.claim("w", 10.0, now=2.0)  # one of them under way: still waiting
    with pytest.raises(practice.Waiting):
        practice.ask(store, owner, a, opponent)
    for claimed in (game, store.claim("w", 10.0, now=2.0)):
        assert finish(store, claimed.id, claimed.claim)
    assert len(practice.ask(store, owner, a, opponent)) == 2  # both played: again


# --- a contest's life --------------------------------------------------------------------


def test_uploads_are_refused_before_the_opening_and_after_the_close(store: Store):
    owner = store.add_user("ann", "hash")
    now = time.time()
    later = store.add_contest("later", "", rules="standard", protocol="riddles",
                              opens=now + 3600)
    over = store.add_contest("over", "", rules="standard", protocol="riddles",
                             opens=now - 7200, closes=now - 3600)
    with pytest.raises(ContestClosed, match="later opens at"):
        submit(store, later, owner, "b", "b.zip", b"PK")
    with pytest.raises(ContestClosed, match=r"over closed at .* no more uploads"):
        submit(store, over, owner, "b", "b.zip", b"PK")
    assert store.bots() == []
    with pytest.raises(ValueError, match="closes after it opens"):
        store.add_contest("odd", "", rules="standard", protocol="riddles", opens=5.0,
                          closes=5.0)


def test_at_the_close_ranked_play_stops_and_the_final_standings_are_stored(store: Store):
    contest_id, (a, b, c) = contest_with_bots(store, 3)
    owner = store.user_by_name("owner")
    store.queue_pair(contest_id, a, b, None, now=1.0)
    running = store.claim("w", 60.0, now=time.time())
    test_ids = practice.ask(store, owner, a, store.version(c).bot_id)
    now = time.time()
    store.set_contest_times(contest_id, None, now - 1)
    contest = store.contest(contest_id)
    assert store.claim("w2", 60.0, now=now).id == test_ids[0]  # a test game, not ranked
    assert not final_standings(store, contest, now)  # a ranked game is still running
    queued = store.game(running.id + 1)
    assert (queued.status, queued.result, queued.reason) == (
        "done", None, "not played: the contest closed")
    schedule_once(store, 6, random.Random(0))
    assert store.counts(contest_id)["queued"] == 0  # nothing new queued after the close
    assert store.contest(contest_id).frozen is None
    assert finish(store, running.id, running.claim, "0-1", now=now)
    schedule_once(store, 6, random.Random(0))
    frozen = store.contest(contest_id)
    assert frozen.frozen is not None
    standings = store.standings(contest_id)
    order = [v.id for v in ranking(store.active_versions(contest_id))]
    assert [s.version_id for s in standings] == order and order[0] == b
    assert [s.rank for s in standings] == [1, 2, 3]
    assert (standings[0].mu, standings[0].games) == (store.version(b).mu, 1)
    assert final_standings(store, frozen, now)  # stored once
    assert not store.freeze(contest_id, order, now)
    with pytest.raises(StoreError, match="final standings"):
        store.set_contest_times(contest_id, None, None)


def test_a_worker_plays_house_bots_until_stopped(store: Store, tmp_path):
    boss = admin(store)
    contest = store.add_contest("cup", "Cup", rules="standard", protocol="riddles")
    for name in ("a", "b"):
        house.enter(store, contest, boss, name, f"random:seed={len(name)}")
    store.queue_pair(contest.id, *[v.id for v in store.active_versions(contest.id)], None)
    stop = threading.Event()
    kept = []
    worker = threading.Thread(target=lambda: kept.append(work(store, "w", tmp_path, stop)))
    worker.start()
    deadline = time.monotonic() + 30
    while store.counts(contest.id)["done"] < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    worker.join()
    assert kept == [2]


def test_the_operators_commands_set_times_and_enter_house_bots(tmp_path):
    from typer.testing import CliRunner

    import ninefold.cli.platform  # noqa: F401  (registers `ninefold platform`)
    from ninefold.cli import app

    url = f"sqlite:///{tmp_path / 'p.sqlite'}"
    with Store(url) as store:
        admin(store)
    runner = CliRunner()

    def ok(*args: str) -> str:
        result = runner.invoke(app, ["platform", *args, "--db", url])
        assert result.exit_code == 0, result.output
        return result.output

    def refused(*args: str) -> str:
        result = runner.invoke(app, ["platform", *args, "--db", url])
        assert result.exit_code != 0 and "Traceback" not in result.output, result.output
        return result.output

    ok("contest", "cup", "--opens", "2030-01-01T00:00", "--closes", "2030-02-01T00:00+01:00")
    assert "not a time" in refused("contest", "cup2", "--opens", "soon")
    assert "v1 (level:3) is active" in ok("house", "cup", "l3", "level:3", "--admin",
                                          "organiser")
    assert "unknown player" in refused("house", "cup", "x", "nobody:1", "--admin", "organiser")
    ok("times", "cup", "--closes", "2001-01-01T00:00")
    with Store(url) as store:
        cup = store.contest_by_name("cup")
        assert (cup.opens, cup.closes) == (None, 978307200.0)
        schedule_once(store, 2, random.Random(0))
    assert "final standings" in refused("times", "cup", "--closes", "")
    assert "no contest" in refused("times", "nope")
    with Store(url) as store:
        store.add_user("ann", "hash")
    assert "ann is an organiser" in ok("organiser", "ann")
    assert "no account 'bob'" in refused("organiser", "bob")
    with Store(url) as store:
        assert store.user_by_name("ann").may_create_contests
    assert "ann is no longer an organiser" in ok("organiser", "ann", "--revoke")
