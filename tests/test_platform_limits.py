"""No one starves the rest: sign-ups and log-ins counted per address and per account,
password hashing in a bounded pool of its own, paging capped, request bodies small
except an upload's, read only after its author is known, and rating plots drawn once
per change of the ratings (the upload caps and the builders' turns:
tests/test_platform_uploads.py)."""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from platform_fixtures import Clock, bot_archive

from ninefold.platform import accounts as accounts_module
from ninefold.platform.accounts import Accounts, AuthError, hash_password
from ninefold.platform.limits import BoundedPool, Busy, PlatformLimits, RateLimit, RateLimited
from ninefold.platform.store import Store
from ninefold.web import routes_platform
from ninefold.web.app import create_app
from ninefold.web.computer import Computer

PASSWORD = "correct horse battery"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def accounts(tmp_path, clock: Clock) -> Iterator[Accounts]:
    with Store(f"sqlite:///{tmp_path / 'platform.sqlite'}") as store:
        made = Accounts(store, clock)
        yield made
        made.hashing.close()


@pytest.fixture
def hashes(monkeypatch) -> list[str]:
    """The passwords checked against a hash (argon2's costly work), in order."""
    checked: list[str] = []
    verify = accounts_module.verify_password

    def counted(password_hash: str, password: str) -> bool:
        checked.append(password)
        return verify(password_hash, password)

    monkeypatch.setattr(accounts_module, "verify_password", counted)
    return checked


def test_fifty_quick_wrong_log_ins_are_refused_past_the_first_ten(accounts: Accounts,
                                                                  clock: Clock,
                                                                  hashes: list[str]):
    accounts.sign_up("ann", PASSWORD)
    answers = []
    for i in range(50):
        clock.now += 0.1
        try:
            accounts.log_in("ann", f"guess {i:02}", address="203.0.113.9")
        except AuthError:
            answers.append("wrong")
        except RateLimited as exc:
            assert 0 < exc.retry_after <= 60
            answers.append("429")
    assert answers == ["wrong"] * 10 + ["429"] * 40
    assert len(hashes) == 10  # a refused try costs no hash
    user, token = accounts.log_in("ann", PASSWORD, address="198.51.100.4")
    assert user.name == "ann" and accounts.user_for(token) == user
    with pytest.raises(RateLimited) as refused:
        accounts.log_in("ann", PASSWORD, address="203.0.113.9")
    clock.now += refused.value.retry_after
    assert accounts.log_in("ann", PASSWORD, address="203.0.113.9")[0] == user


def test_wrong_passwords_from_many_addresses_lock_the_name_for_a_minute(
        accounts: Accounts, clock: Clock, hashes: list[str]):
    accounts.sign_up("ann", PASSWORD)
    for i in range(20):
        with pytest.raises(AuthError):
            accounts.log_in("ANN", "wrong horse", address=f"10.0.0.{i}")
    hashed = len(hashes)
    with pytest.raises(RateLimited, match="too many wrong passwords for 'ann'") as refused:
        accounts.log_in("ann", PASSWORD, address="10.0.1.1")
    assert len(hashes) == hashed and 0 < refused.value.retry_after <= 60
    with pytest.raises(RateLimited):  # an unknown name is counted alike
        for i in range(21):
            with contextlib.suppress(AuthError):
                accounts.log_in("nobody", "wrong horse", address=f"10.1.0.{i}")
    clock.now += 60
    assert accounts.log_in("ann", PASSWORD, address="10.0.1.1")[0].name == "ann"


def test_sign_ups_from_one_address_are_counted_per_hour(accounts: Accounts, clock: Clock):
    for i in range(5):
        accounts.sign_up(f"user{i}", PASSWORD, address="192.0.2.1")
    with pytest.raises(RateLimited, match="too many sign-ups from your address: try again "
                                          "in 60 min") as refused:
        accounts.sign_up("user5", PASSWORD, address="192.0.2.1")
    assert 3599 <= refused.value.retry_after <= 3600
    assert accounts.store.user_by_name("user5") is None
    accounts.sign_up("user5", PASSWORD, address="192.0.2.2")
    clock.now += 3600
    accounts.sign_up("user6", PASSWORD, address="192.0.2.1")


def test_limits_are_settings_with_safe_defaults():
    limits = PlatformLimits()
    assert (limits.logins_per_minute_per_address, limits.signups_per_hour_per_address) == (10, 5)
    assert limits.logins_per_minute_per_account > limits.logins_per_minute_per_address
    env = {"NINEFOLD_LOGINS_PER_MINUTE_PER_ADDRESS": "3", "NINEFOLD_OTHER": "x"}
    changed = PlatformLimits.from_env(env)
    assert changed.logins_per_minute_per_address == 3
    assert changed.hash_queue == limits.hash_queue
    for bad in ("-1", "1.5", ""):
        with pytest.raises(ValueError, match="NINEFOLD_HASH_QUEUE="):
            PlatformLimits.from_env({"NINEFOLD_HASH_QUEUE": bad})
    with pytest.raises(ValueError, match="hash_threads"):
        PlatformLimits(hash_threads=0)


def test_a_rate_limit_forgets_the_oldest_keys_past_its_size():
    now = [0.0]
    limit = RateLimit(1, 60.0, keys=3, clock=lambda: now[0])
    assert [limit.take(k) for k in "abc"] == [0.0] * 3
    assert limit.take("a") == 60.0  # still known
    limit.take("d")  # b, the least recently used, is forgotten
    assert limit.take("b") == 0.0 and len(limit._events) == 3
    assert RateLimit(0, 60.0).take("x") == 0.0  # 0: no limit


def test_a_bounded_pool_refuses_at_once_when_its_queue_is_full():
    pool = BoundedPool(threads=1, queue=1, name="test")
    go = threading.Event()
    try:
        running = pool.submit(go.wait, 30)
        waiting = pool.submit(lambda: "queued")
        with pytest.raises(Busy):
            pool.submit(lambda: "one too many")
        go.set()
        assert running.result(30) and waiting.result(30) == "queued"
        assert pool.submit(lambda: "room again").result(30) == "room again"
    finally:
        go.set()
        pool.close()


# --- on the web app ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """The web app with the platform: a contest, an organiser, an author (bob)."""
    tmp = tmp_path_factory.mktemp("limits")
    url = f"sqlite:///{tmp / 'platform.sqlite'}"
    with Store(url) as store:
        boss = store.add_user("boss", hash_password(PASSWORD))
        store.add_contest("cup", "Cup", rules="standard", protocol="riddles",
                          created_by=boss.id)
        store.add_user("bob", hash_password(PASSWORD))
    computer = Computer(workers=1)
    made = create_app(tmp / "web.sqlite", computer, platform_url=url)
    with TestClient(made):  # its lifespan runs
        yield made
    computer.close()


def client(app, address: str) -> TestClient:
    return TestClient(app, client=(address, 40000))


def bearer(app, name: str, address: str) -> dict[str, str]:
    c = client(app, address)
    assert c.post("/api/platform/login", json={"name": name, "password": PASSWORD}
                  ).status_code == 200
    return {"Authorization": f"Bearer {c.post('/api/platform/tokens').json()['token']}"}


def test_fifty_quick_wrong_log_ins_are_answered_429_with_retry_after(app):
    attacker = client(app, "203.0.113.50")
    statuses, waits = [], set()
    for i in range(50):
        r = attacker.post("/api/platform/login", json={"name": "bob", "password": f"guess {i}"})
        statuses.append(r.status_code)
        if r.status_code == 429:
            waits.add(r.headers["retry-after"])
            assert re.fullmatch(r"too many log-ins from your address: try again in "
                                rf"{r.headers['retry-after']} s", r.json()["detail"])
    assert statuses == [401] * 10 + [429] * 40
    assert all(w.isdigit() and 1 <= int(w) <= 60 for w in waits)
    friend = client(app, "198.51.100.50")
    r = friend.post("/api/platform/login", json={"name": "bob", "password": PASSWORD})
    assert r.status_code == 200 and r.json()["name"] == "bob"


def test_sign_ups_from_one_address_are_answered_429_past_five_an_hour(app):
    c = client(app, "192.0.2.60")
    codes = [c.post("/api/platform/signup", json={"name": f"new{i}", "password": PASSWORD}
                    ).status_code for i in range(7)]
    assert codes == [201] * 5 + [429] * 2
    assert client(app, "192.0.2.61").post("/api/platform/signup", json={
        "name": "new7", "password": PASSWORD}).status_code == 201


def test_a_full_hashing_queue_is_answered_503_at_once(app):
    accounts = app.state.platform.accounts
    pool, go = accounts.hashing, threading.Event()
    accounts.hashing = BoundedPool(threads=1, queue=0, name="test")
    try:
        accounts.hashing.submit(go.wait, 30)  # the only place taken
        r = client(app, "192.0.2.70").post("/api/platform/login",
                                           json={"name": "bob", "password": PASSWORD})
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert "busy" in r.json()["detail"]
    finally:
        go.set()
        accounts.hashing.close()
        accounts.hashing = pool


def test_paging_is_capped(app):
    c = client(app, "192.0.2.80")
    assert c.get("/api/platform/games?offset=100000").status_code == 200
    r = c.get("/api/platform/games?offset=100001")
    assert r.status_code == 422 and "offset: at most 100000" in r.json()["detail"]
    assert c.get("/api/platform/games?limit=101").status_code == 422


def test_an_upload_is_read_only_after_its_sender_is_known(app):
    """10 MB sent to the upload route without a session: 401, and the body is never
    read (the client's generator is asked for no chunk); before, the server read it all
    first. Any other platform route takes a small body only."""
    sent = []

    def body() -> Iterator[bytes]:
        for _ in range(160):
            sent.append(1)
            yield b"x" * 65536

    c = client(app, "192.0.2.90")
    r = c.post("/api/platform/contests/cup/bots", content=body(),
               headers={"Content-Type": "multipart/form-data; boundary=xyz",
                        "Content-Length": str(160 * 65536)})
    assert r.status_code == 401 and len(sent) <= 1
    r = c.post("/api/platform/contests/cup/bots", content=b"x" * (17 << 20),
               headers={"Content-Type": "multipart/form-data; boundary=xyz"})
    assert r.status_code == 413  # announced: refused before anything else
    r = c.put("/api/platform/contests/cup/times", content=b"{" + b" " * 100_000 + b"}",
              headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "over 16384 bytes" in r.json()["detail"]


def test_an_upload_over_the_limit_is_refused_while_it_streams(app):
    who = bearer(app, "bob", "192.0.2.91")

    def body() -> Iterator[bytes]:  # no Content-Length: counted as it comes
        yield b"--xyz\r\nContent-Disposition: form-data; name=\"bot\"\r\n\r\nbobbot\r\n"
        yield b"--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.zip\""
        yield b"\r\nContent-Type: application/zip\r\n\r\n"
        for _ in range(17 * 16):
            yield b"x" * 65536

    r = client(app, "192.0.2.91").post(
        "/api/platform/contests/cup/bots", content=body(),
        headers={**who, "Content-Type": "multipart/form-data; boundary=xyz"})
    assert r.status_code == 413 and "the body is over" in r.json()["detail"]


def test_an_author_past_the_caps_is_refused_before_the_body_is_read(app):
    who = bearer(app, "bob", "192.0.2.92")
    c = client(app, "192.0.2.92")
    store = app.state.platform.store
    bob = store.user_by_name("bob")
    contest = store.contest_by_name("cup")
    bot = store.add_bot(contest.id, bob.id, "capped")
    made = [store.add_version(bot.id, "b.zip", b"PK") for _ in range(3)]
    sent = []

    def body() -> Iterator[bytes]:
        sent.append(1)
        yield b"x" * 65536

    r = c.post("/api/platform/contests/cup/bots", content=body(),
               headers={**who, "Content-Type": "multipart/form-data; boundary=xyz",
                        "Content-Length": "65536"})
    assert r.status_code == 429 and "3 versions waiting" in r.json()["detail"]
    assert not sent
    for v in made:
        store.set_version_status(v.id, "compile_failed")
    r = c.post("/api/platform/contests/cup/bots", headers=who, data={"bot": "capped"},
               files={"file": bot_archive("c")})
    assert r.status_code == 201, r.text


def test_a_rating_plot_is_drawn_once_until_the_ratings_change(app, monkeypatch):
    store = app.state.platform.store
    boss = store.user_by_name("boss")
    contest = store.contest_by_name("cup")
    ids = [store.add_house_version(contest.id, boss.id, f"house{i}", "random").id
           for i in range(2)]
    drawn = []
    draw = routes_platform.rating_png

    def counted(points, title):
        drawn.append(len(points))
        return draw(points, title)

    monkeypatch.setattr(routes_platform, "rating_png", counted)
    c = client(app, "192.0.2.93")
    bot = store.version(ids[0]).bot_id
    first = c.get(f"/api/platform/bots/{bot}/rating.png")
    again = c.get(f"/api/platform/bots/{bot}/rating.png")
    assert first.status_code == again.status_code == 200 and first.content == again.content
    assert drawn == [0]
    game, _ = store.queue_pair(contest.id, ids[0], ids[1], None)
    claim = store.claim("w", 60.0, now=1.0)
    assert claim is not None and claim.id == game
    store.finish(game, claim.claim, "1-0", "win", "e5", [1.0], "", "", now=2.0)
    assert store.rate(game, {ids[0]: (26.0, 8.0), ids[1]: (24.0, 8.0)}, now=3.0)
    assert c.get(f"/api/platform/bots/{bot}/rating.png").content != first.content
    c.get(f"/api/platform/bots/{bot}/rating.png")
    assert drawn == [0, 1]


def test_a_bots_games_are_paged_in_one_query(app, monkeypatch):
    """Every version's games, newest first, one page of them: the store pages them
    (before, each version's first offset+limit games were read and sorted here)."""
    store = app.state.platform.store
    read: list[int] = []
    games = Store.games

    def counted(self, *args, **kwargs):
        rows = games(self, *args, **kwargs)
        read.append(len(rows))
        return rows

    boss = store.user_by_name("boss")
    contest = store.contest_by_name("cup")
    first = store.add_house_version(contest.id, boss.id, "paged", "random")
    second = store.add_house_version(contest.id, boss.id, "paged", "random")
    other = store.add_house_version(contest.id, boss.id, "rival", "random")
    assert first.bot_id == second.bot_id != other.bot_id
    ids = [g for v in (first, second, first) for g in store.queue_pair(
        contest.id, v.id, other.id, None, ranked=False)]
    store.queue_pair(contest.id, other.id, other.id, None, ranked=False)  # not the bot's
    c = client(app, "192.0.2.94")
    monkeypatch.setattr(Store, "games", counted)
    r = c.get(f"/api/platform/games?bot={first.bot_id}&status=queued&limit=3&offset=2")
    assert [g["id"] for g in r.json()["games"]] == sorted(ids, reverse=True)[2:5]
    assert read == [3]  # one page read, whatever the offset
