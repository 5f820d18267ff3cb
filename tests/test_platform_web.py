"""The platform's API on the web app: accounts, contests, uploads, ranked games, and
hostile users (someone else's bot, someone else's logs, forged sessions and ids).

Real parts: the app, a SQLite file, the sandbox and compilers for the uploads, real
workers' code for the builds (a worker that only builds, in a thread beside the app) and
the ranked games."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from needs import require
from platform_fixtures import bot_archive, bot_source, pack

from ninefold.platform import sandbox
from ninefold.platform.jobs import TURN_LOG_BYTES
from ninefold.platform.scheduler import schedule_once
from ninefold.platform.store import Store
from ninefold.platform.worker import work
from ninefold.web.app import create_app
from ninefold.web.computer import Computer

require("the sandbox (bubblewrap)", sandbox.available(), module=True)

PASSWORD = "a long enough password"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("platform")
    url = f"sqlite:///{tmp / 'platform.sqlite'}"
    computer = Computer(workers=1)
    stop = threading.Event()
    with pytest.MonkeyPatch.context() as env:  # one client signs all up, uploads 7 at once
        for limit in ("SIGNUPS_PER_HOUR_PER_ADDRESS", "LOGINS_PER_MINUTE_PER_ADDRESS",
                      "UNFINISHED_BUILDS_PER_USER"):
            env.setenv(f"NINEFOLD_{limit}", "0")  # 0: no limit (tests/test_platform_limits.py)
        app = create_app(tmp / "web.sqlite", computer, platform_url=url)
    with TestClient(app) as client:
        builder = threading.Thread(target=work, args=(Store(url), "test-builder", tmp / "cache",
                                                      stop), kwargs={"games": False})
        builder.start()  # the server builds nothing: a worker does
        yield client, url, tmp
        stop.set()
        builder.join()
    computer.close()


def signed(client: TestClient, name: str) -> dict[str, str]:
    """Sign `name` up (or in) and return the headers of an API token of theirs."""
    client.cookies.clear()
    r = client.post("/api/platform/signup", json={"name": name, "password": PASSWORD})
    if r.status_code == 409:
        r = client.post("/api/platform/login", json={"name": name, "password": PASSWORD})
    assert r.status_code in (200, 201), r.text
    token = client.post("/api/platform/tokens").json()["token"]
    client.cookies.clear()
    return {"Authorization": f"Bearer {token}"}


def upload(client: TestClient, who: dict[str, str], contest: str, bot: str,
           archive: tuple[str, bytes]):
    return client.post(f"/api/platform/contests/{contest}/bots", headers=who,
                       data={"bot": bot}, files={"file": archive})


def wait_built(client: TestClient, version: int, who: dict[str, str]) -> dict:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        v = client.get(f"/api/platform/versions/{version}", headers=who).json()
        if v["status"] not in ("uploaded", "compiling", "testing"):
            return v
        time.sleep(0.2)
    raise AssertionError(f"version {version} still building")


@pytest.fixture(scope="module")
def contest(site):
    client, url, _ = site
    admin = signed(client, "organiser")
    Store(url).set_admin("organiser", True)
    r = client.post("/api/platform/contests", headers=admin, json={
        "name": "spring", "title": "Spring cup", "protocol": "riddles",
        "time_control": "bank=2000,inc=100", "openings": "random4", "max_bots_per_user": 2})
    assert r.status_code == 201, r.text
    return "spring"


@pytest.fixture(scope="module")
def alice_bots(site, contest):
    """Alice's two bots (Python and C), built and active."""
    client, _, _ = site
    alice = signed(client, "alice")
    made = []
    for name, lang in (("pyrandom", "python"), ("cfirst", "c")):
        r = upload(client, alice, contest, name, bot_archive(lang, strategy="first", seed=1))
        assert r.status_code == 201, r.text
        v = wait_built(client, r.json()["id"], alice)
        assert v["status"] == "active", v
        made.append(v)
    return alice, made


def play_with_a_worker(store: Store, games: list[int], cache: Path) -> None:
    """Run a match worker in a thread until `games` are done (at most 120 s)."""
    stop = threading.Event()
    worker = threading.Thread(target=work, args=(store, "test-worker", cache, stop))
    worker.start()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and any(
                store.game(g).status != "done" for g in games):
            time.sleep(0.2)
    finally:
        stop.set()
        worker.join()


def test_cookie_is_http_only_and_same_site(site):
    client, _, _ = site
    client.cookies.clear()
    r = client.post("/api/platform/signup", json={"name": "carol", "password": PASSWORD})
    assert r.status_code == 201
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    assert client.get("/api/platform/me").json()["name"] == "carol"
    client.post("/api/platform/logout")
    assert client.get("/api/platform/me").status_code == 401


def test_bad_accounts_get_one_line(site):
    client, _, _ = site
    client.cookies.clear()
    cases = [("/api/platform/signup", {"name": "x", "password": PASSWORD}, 422),
             ("/api/platform/signup", {"name": "dave", "password": "short"}, 422),
             ("/api/platform/login", {"name": "nobody", "password": PASSWORD}, 401)]
    for path, body, status in cases:
        r = client.post(path, json=body)
        assert r.status_code == status, r.text
        assert "\n" not in r.json()["detail"]
    signed(client, "erin")
    r = client.post("/api/platform/signup", json={"name": "ERIN", "password": PASSWORD})
    assert r.status_code == 409
    r = client.post("/api/platform/login", json={"name": "erin", "password": "wrong password"})
    assert r.status_code == 401 and r.json()["detail"] == "wrong name or password"


def test_upload_builds_tests_and_shows_logs_to_the_author_only(site, alice_bots):
    client, _, _ = site
    alice, versions = alice_bots
    mine = client.get(f"/api/platform/versions/{versions[1]['id']}", headers=alice).json()
    assert "compiled" in mine["compile_log"] and "input test passed" in mine["test_log"]
    bob = signed(client, "bob")
    theirs = client.get(f"/api/platform/versions/{versions[1]['id']}", headers=bob).json()
    assert theirs["compile_log"] is None and theirs["test_log"] is None
    anonymous = client.get(f"/api/platform/bots/{versions[1]['bot']}").json()
    assert anonymous["mine"] is False
    assert all(v["compile_log"] is None for v in anonymous["versions"])


def test_hostile_users_change_nothing(site, contest, alice_bots):
    client, url, _ = site
    _, versions = alice_bots
    bob = signed(client, "bob")
    store = Store(url)
    before = [len(store.versions(v["bot"])) for v in versions]
    # uploading to someone else's bot
    r = upload(client, bob, contest, "pyrandom", bot_archive("python"))
    assert r.status_code == 403 and "someone else" in r.json()["detail"]
    # forged sessions and tokens
    for headers in ({"Authorization": "Bearer forged"}, {}):
        client.cookies.clear()
        r = upload(client, headers, contest, "newbot", bot_archive("python"))
        assert r.status_code == 401
    client.cookies.set("ninefold_session", "forged-cookie")
    assert client.get("/api/platform/me").status_code == 401
    client.cookies.clear()
    # forged contest ids and names
    assert upload(client, bob, "no-such-contest", "b", bot_archive("python")).status_code == 404
    assert client.get("/api/platform/contests/no-such-contest").status_code == 404
    assert client.get("/api/platform/bots/99999").status_code == 404
    assert client.get("/api/platform/games/99999/replay").status_code == 404
    # not an admin
    r = client.post("/api/platform/contests", headers=bob, json={"name": "bobs-cup"})
    assert r.status_code == 403
    # a bad archive: one line, nothing stored
    r = upload(client, bob, contest, "junk", ("junk.zip", b"not a zip at all"))
    assert r.status_code == 422 and "\n" not in r.json()["detail"]
    assert not [b for b in store.bots() if b.name == "junk"]
    assert [len(store.versions(v["bot"])) for v in versions] == before


def test_ranked_games_rated_replayed_and_logs_private(site, contest, alice_bots):
    client, url, tmp = site
    alice, _ = alice_bots
    bob = signed(client, "bob")
    r = upload(client, bob, contest, "bobcpp", bot_archive("cpp", strategy="random", seed=2))
    assert r.status_code == 201, r.text
    assert wait_built(client, r.json()["id"], bob)["status"] == "active"
    store = Store(url)
    schedule_once(store, 6, random.Random(1))
    stop = threading.Event()
    worker = threading.Thread(target=work, args=(store, "test-worker", tmp / "cache", stop))
    worker.start()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if store.counts(store.contest_by_name(contest).id).get("done", 0) >= 4:
                break
            time.sleep(0.2)
    finally:
        stop.set()
        worker.join()
    board = client.get(f"/api/platform/contests/{contest}").json()
    assert board["games"]["done"] == 0 and board["games"]["rating"] >= 4  # none rated yet
    schedule_once(store, 0, random.Random(1))  # rate what finished
    board = client.get(f"/api/platform/contests/{contest}").json()
    assert sum(row["games"] for row in board["rows"]) >= 8
    assert 2 * board["games"]["done"] <= sum(row["games"] for row in board["rows"])
    assert board["games"]["rating"] == 0
    games = client.get(f"/api/platform/games?contest={contest}").json()["games"]
    assert len(games) >= 4
    game = games[0]
    replay = client.get(f"/api/platform/games/{game['id']}/replay").json()
    assert replay["moves"] and replay["result"] == game["result"]
    assert replay["title"] == f"Ranked game {game['id']}"
    # logs: each author sees their own side only; a stranger sees nothing
    owners = {"alice": alice, "bob": bob}
    for name, who in owners.items():
        r = client.get(f"/api/platform/games/{game['id']}/logs", headers=who)
        sides = {"x": game["x"].startswith("bob") == (name == "bob"),
                 "o": game["o"].startswith("bob") == (name == "bob")}
        if not any(sides.values()):
            assert r.status_code == 403
            continue
        logs = r.json()
        for side, mine in sides.items():
            assert (logs[f"{side}_log"] is not None) == mine
    stranger = signed(client, "mallory")
    assert client.get(f"/api/platform/games/{game['id']}/logs",
                      headers=stranger).status_code == 403
    png = client.get(f"/api/platform/bots/{game['x_bot']}/rating.png")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")


def test_pages_are_served(site, contest, alice_bots):
    client, _, _ = site
    for path in ("/platform", "/platform/c/spring", "/platform/bot/1"):  # games: below
        r = client.get(path)
        assert r.status_code == 200 and "<html" in r.text


def test_the_page_of_no_such_game_is_404(site):
    client, _, _ = site
    for path in ("/platform-game/999999", "/platform-game/0", "/platform-game/abc",
                 "/platform-game/" + "9" * 5000):
        r = client.get(path)
        assert r.status_code == 404 and "<html" in r.text, path  # the page says it in words


def test_upload_is_refused_over_the_size_limit(site, contest):
    client, _, _ = site
    bob = signed(client, "bob")
    big = ("big.zip", b"PK" + b"\0" * (17 << 20))
    r = upload(client, bob, contest, "big", big)
    assert r.status_code in (413, 422) and "\n" not in r.json()["detail"]



def test_a_rar_upload_builds_and_becomes_active(site, contest):
    client, _, _ = site
    dora = signed(client, "dora")
    r = upload(client, dora, contest, "rarbot", bot_archive("python", kind="rar"))
    assert r.status_code == 201, r.text
    assert wait_built(client, r.json()["id"], dora)["status"] == "active"


def test_starter_bots_are_listed_and_refused_for_unknown_languages(site, contest):
    client, _, _ = site
    languages = client.get("/api/platform/languages").json()
    assert languages == ["python", "java", "cpp", "c", "rust", "go", "javascript"]
    r = client.get(f"/api/platform/contests/{contest}/starters/c")
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    assert r.headers["content-disposition"] == 'attachment; filename="starter-c-riddles.zip"'
    r = client.get(f"/api/platform/contests/{contest}/starters/cobol")
    assert r.status_code == 404 and r.json()["detail"].startswith("no recipe for 'cobol'")
    assert client.get("/api/platform/contests/nowhere/starters/c").status_code == 404


@pytest.mark.slow
def test_starter_bots_of_all_seven_languages_pass_and_play_each_other(site, contest):
    """Each language's starter bot, downloaded from the contest's page, passes the input
    test as it is; then every pair of the seven plays in one contest, and is rated."""
    client, url, tmp = site
    admin = signed(client, "organiser")
    r = client.post("/api/platform/contests", headers=admin, json={
        "name": "babel", "title": "Seven languages", "protocol": "aigames",
        "time_control": "bank=2000,inc=100", "openings": "none", "max_bots_per_user": 7})
    assert r.status_code == 201, r.text
    carol = signed(client, "carol")
    versions = {}
    for language in client.get("/api/platform/languages").json():
        kit = client.get(f"/api/platform/contests/babel/starters/{language}")
        filename = kit.headers["content-disposition"].split('"')[1]
        r = upload(client, carol, "babel", f"starter-{language}", (filename, kit.content))
        assert r.status_code == 201, r.text
        versions[language] = r.json()["id"]
    for language, version in versions.items():
        v = wait_built(client, version, carol)
        assert (v["status"], v["language"]) == ("active", language), v
        assert v["test_log"].splitlines()[4] == "input test passed"
    store = Store(url)
    babel = store.contest_by_name("babel")
    assert babel is not None
    ids = list(versions.values())
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            store.queue_pair(babel.id, a, b, None)
    stop = threading.Event()
    workers = [threading.Thread(target=work, args=(store, f"babel-{n}", tmp / "cache", stop))
               for n in range(2)]
    for worker in workers:
        worker.start()
    try:
        deadline = time.monotonic() + 300
        while store.counts(babel.id).get("done", 0) < 42 and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    assert {k: n for k, n in store.counts(babel.id).items() if n} == {"done": 42}
    schedule_once(store, 0, random.Random(1))  # rate them
    rows = client.get("/api/platform/contests/babel").json()["rows"]
    assert sorted(row["language"] for row in rows) == sorted(versions)
    assert all(row["games"] == 12 for row in rows)


def test_house_bots_and_test_games_that_change_no_rating(site, contest, alice_bots):
    client, url, tmp = site
    alice, versions = alice_bots
    organiser, bob = signed(client, "organiser"), signed(client, "bob")
    house = f"/api/platform/contests/{contest}/house"
    assert client.post(house, headers=bob, json={"name": "hb", "spec": "level:2"}
                       ).status_code == 403
    r = client.post(house, headers=organiser, json={"name": "hb", "spec": "level:99"})
    assert r.status_code == 422 and "\n" not in r.json()["detail"]
    r = client.post(house, headers=organiser, json={"name": "level2", "spec": "level:2"})
    assert r.status_code == 201 and r.json()["language"] == "house", r.text
    house_bot = r.json()["bot"]
    board = client.get(f"/api/platform/contests/{contest}").json()
    assert "level2" in [row["name"] for row in board["rows"]]
    ask = {"version": versions[0]["id"], "opponent": house_bot}
    assert client.post("/api/platform/test-games", headers=bob, json=ask).status_code == 403
    r = client.post("/api/platform/test-games", headers=alice, json=ask)
    assert r.status_code == 201, r.text
    tests = r.json()["games"]
    assert [g["ranked"] for g in tests] == [False, False]
    store = Store(url)
    play_with_a_worker(store, [g["id"] for g in tests], tmp / "cache")
    schedule_once(store, 0, random.Random(1))
    for g in tests:
        game = store.game(g["id"])
        assert game.result and not game.rated
        replay = client.get(f"/api/platform/games/{g['id']}/replay").json()
        assert replay["title"] == f"Test game {g['id']} (unranked)" and replay["moves"]
    house_version = store.versions(house_bot)[0]
    assert (house_version.games, house_version.mu) == (0, 25.0)
    listed = client.get(f"/api/platform/games?bot={house_bot}&ranked=false").json()["games"]
    assert sorted(g["id"] for g in listed) == sorted(g["id"] for g in tests)


def test_a_contest_opens_closes_and_keeps_its_final_standings(site, contest):
    client, url, _ = site
    organiser, alice = signed(client, "organiser"), signed(client, "alice")
    now = time.time()
    r = client.post("/api/platform/contests", headers=organiser, json={
        "name": "autumn", "protocol": "riddles", "opens": now + 3600, "closes": now + 7200})
    assert r.status_code == 201 and r.json()["opens"] == now + 3600, r.text
    r = upload(client, alice, "autumn", "early", bot_archive("python"))
    assert r.status_code == 409 and "opens at" in r.json()["detail"]
    for name, spec in (("l1", "level:1"), ("l2", "level:2")):
        r = client.post("/api/platform/contests/autumn/house", headers=organiser,
                        json={"name": name, "spec": spec})
        assert r.status_code == 201, r.text
    times = "/api/platform/contests/autumn/times"
    assert client.put(times, headers=alice, json={"closes": now - 1}).status_code == 403
    r = client.put(times, headers=organiser, json={"opens": now - 10, "closes": now - 1})
    assert r.status_code == 200, r.text
    r = upload(client, alice, "autumn", "late", bot_archive("python"))
    assert r.status_code == 409 and "closed at" in r.json()["detail"]
    store = Store(url)
    schedule_once(store, 6, random.Random(1))
    board = client.get("/api/platform/contests/autumn").json()
    assert board["final"] and board["contest"]["frozen"] is not None
    assert [row["name"] for row in board["rows"]] in (["l1", "l2"], ["l2", "l1"])
    assert board["games"] == {"queued": 0, "running": 0, "done": 0, "rating": 0}
    assert client.put(times, headers=organiser, json={"closes": now + 99}).status_code == 409


def test_names_that_break_the_rules_are_refused_in_words(site, contest):
    client, _, _ = site
    organiser = signed(client, "organiser")
    bot_rule = "a bot's name is 1 to 32 letters, digits, - and _, starting with a letter or"
    r = upload(client, organiser, contest, "bad name!", bot_archive("python"))
    assert r.status_code == 422 and r.json()["detail"].startswith(bot_rule), r.text
    r = client.post(f"/api/platform/contests/{contest}/house", headers=organiser,
                    json={"name": "-dash-first", "spec": "level:1"})
    assert r.status_code == 422 and r.json()["detail"] == f"name: {bot_rule} a digit"
    r = client.post("/api/platform/contests", headers=organiser, json={"name": "Big-Cup"})
    assert r.status_code == 422 and r.json()["detail"] == (
        "name: a contest's name is 3 to 32 lower-case letters, digits and -, starting with "
        "a letter or a digit")


def test_an_address_that_names_nothing_is_a_page_for_browsers_and_json_for_the_api(site):
    client, _, _ = site
    page = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    for path, said in (("/platform/bot/9999", "There is no bot &#x27;9999&#x27;."),
                       ("/platform/bot/abc", "There is no bot &#x27;abc&#x27;."),
                       ("/platform/c/no-such-cup", "no contest called &#x27;no-such-cup"),
                       ("/platform/nope", "There is nothing at this address."),
                       ("/nope", "There is nothing at this address.")):
        r = client.get(path, headers=page)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), path
        assert "<h1>Page not found</h1>" in r.text and said in r.text, path
        assert 'href="/" data-control="notfound-home"' in r.text
        assert 'data-control="notfound-contests" data-platform>' in r.text  # shown
        r = client.get(path)  # a script: JSON
        assert r.status_code == 404 and r.json()["detail"], path
    r = client.get("/api/platform/nope", headers=page)
    assert r.status_code == 404 and r.json() == {"detail": "Not Found"}


ECHO = """import sys
import bot


def echo(lines):
    for line in lines:
        print("got " + line.strip(), file=sys.stderr, flush=True)
        yield line


sys.stdin = echo(sys.stdin)
bot.main()
"""


def test_test_games_asked_twice_are_queued_once_and_show_each_turn(site, contest, alice_bots):
    """A double-clicked request queues one pair; the viewer's turns show each move's time
    to all and, to its author only, what the bot wrote to stderr during that turn."""
    client, url, tmp = site
    _, versions = alice_bots
    tess = signed(client, "tess")
    files = {"main.py": ECHO, "bot.py": bot_source("python", strategy="first")[1]}
    r = upload(client, tess, contest, "echo", pack(files, "echo"))
    assert r.status_code == 201, r.text
    mine = wait_built(client, r.json()["id"], tess)
    assert mine["status"] == "active", mine
    ask = {"version": mine["id"], "opponent": versions[0]["bot"]}
    r = client.post("/api/platform/test-games", headers=tess, json=ask)
    assert r.status_code == 201, r.text
    again = client.post("/api/platform/test-games", headers=tess, json=ask)
    assert again.status_code == 409 and "waiting already" in again.json()["detail"]
    tests = [g["id"] for g in r.json()["games"]]
    store = Store(url)
    play_with_a_worker(store, tests, tmp / "cache")
    for game_id in tests:
        game = store.game(game_id)
        assert game.result, game
        echo_side = "X" if game.x_version == mine["id"] else "O"
        turns = client.get(f"/api/platform/games/{game_id}/turns", headers=tess).json()
        assert turns["game"] == game_id and turns["contest"] == contest
        assert not turns["ranked"] and turns["x_bot"] != turns["o_bot"]
        assert [t["ms"] for t in turns["turns"]] == list(game.times_ms)
        assert [t["side"] for t in turns["turns"]][:2] in (["X", "O"], ["O", "X"])
        assert turns["turns"][-1]["ply"] == len(game.moves.split())
        echoed = [t["stderr"] for t in turns["turns"] if t["side"] == echo_side]
        other = [t["stderr"] for t in turns["turns"] if t["side"] != echo_side]
        assert other == [None] * len(other)  # alice's side: not tess's to read
        end = turns["x_end" if echo_side == "X" else "o_end"]
        whole = game.x_log if echo_side == "X" else game.o_log
        # Every byte in one turn or after the last, in order; a turn whose stderr was
        # read late (a busy machine) carries the text of several, cut to its last bytes;
        # so does what the bot wrote after its last move (the lines of the game's end).
        cut = any(len(text.encode()) >= TURN_LOG_BYTES for text in [*echoed, end])
        if not cut:
            assert "".join(echoed) + end == whole
        at = 0
        for piece in [*echoed, end]:
            found = whole.find(piece, at)
            assert found >= 0, (piece, whole[at:])
            at = found + len(piece)
        assert any("got action move" in text for text in echoed)
        assert all(len(text.encode()) <= 1024 for text in echoed)
        page = client.get(f"/platform-game/{game_id}")
        assert page.status_code == 200 and 'src="/static/platform-game.js"' in page.text
        stranger = client.get(f"/api/platform/games/{game_id}/turns").json()
        assert [t["ms"] for t in stranger["turns"]] == list(game.times_ms)
        assert {t["stderr"] for t in stranger["turns"]} == {None}
        assert stranger["x_end"] is None and stranger["o_end"] is None


def test_an_organiser_creates_a_contest_and_organises_it_only(site, contest):
    client, url, _ = site
    olga, zed = signed(client, "olga"), signed(client, "zed")
    Store(url).set_organiser("olga", True)
    new = {"name": "olgas-cup", "protocol": "riddles", "max_bots_per_user": 2}
    r = client.post("/api/platform/contests", headers=zed, json=new)
    assert r.status_code == 403 and "organiser" in r.json()["detail"]
    assert client.get("/api/platform/me", headers=olga).json()["organiser"] is True
    r = client.post("/api/platform/contests", headers=olga, json=new)
    assert r.status_code == 201, r.text
    assert r.json()["organiser"] == client.get("/api/platform/me", headers=olga).json()["id"]
    for name, entered, timed in (("olgas-cup", 201, 200), (contest, 403, 403)):
        r = client.post(f"/api/platform/contests/{name}/house", headers=olga,
                        json={"name": "olgas-level1", "spec": "level:1"})
        assert r.status_code == entered, r.text
        r = client.put(f"/api/platform/contests/{name}/times", headers=olga,
                       json={"opens": None, "closes": time.time() + 3600})
        assert r.status_code == timed, r.text
    r = client.post("/api/platform/contests/olgas-cup/house", headers=zed,
                    json={"name": "zeds", "spec": "level:1"})
    assert r.status_code == 403
