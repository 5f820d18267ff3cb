"""The contest platform in a real browser: sign up, upload a bot from a fixture archive,
see its compile log and input test, and its first ranked game in the viewer (each turn's
time and stderr, links to the bots and the contest); and every control of the platform's
pages exercised for its effect: logging in and out, the new-contest form of an admin and
of an organiser, house bots entered from the contest page, the names the browser checks,
the contest page's leaderboard, starter bots and game links, a bot's page as its author
(test games, a game's stderr, a new version joining the test-games form) and as someone
else, and the page of an address that names nothing. Each page, in each of those states,
is listed (`controls.assert_every_control_tested`: every control named and tested), its
headings checked for a skipped level, and checked by axe-core.

A real ``ninefold serve --platform ... --workers 1`` process (its builder and a
match worker process), the sandbox, and Debian's chromium driven by Playwright."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import httpx2 as httpx
import pytest
from accessibility import assert_accessible
from conftest import chromium_missing
from controls import assert_every_control_tested, control, key, wait_until
from needs import require
from platform_fixtures import bot_archive
from playwright.sync_api import Page, expect
from webserver import start_server, stop_server

from ninefold.platform import sandbox
from ninefold.platform.store import Store

require("Debian's chromium", chromium_missing(), module=True)
require("the sandbox (bubblewrap)", sandbox.available(), module=True)

PASSWORD = "a long enough password"
GAMES_COME = 120_000  # ms: compiling, the input test and a game, on a busy machine


@dataclass(frozen=True)
class Platform:
    base: str  # the server's URL
    tmp: Path
    rival_bot: int  # rival's bot, playing ranked games against boss's


@pytest.fixture(scope="module")
def platform_server(tmp_path_factory):
    """A server with a contest, an admin (boss) and two bots already uploaded to it,
    rival's and boss's, which play each other once compiled."""
    tmp = tmp_path_factory.mktemp("platform")
    url = f"sqlite:///{tmp / 'platform.sqlite'}"
    made = subprocess.run([sys.executable, "-m", "ninefold.cli", "platform", "contest", "cup",
                           "--db", url, "--title", "The Cup", "--tc", "bank=2000,inc=100"],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    with pytest.MonkeyPatch.context() as env:  # every page here signs in from 127.0.0.1
        for limit in ("SIGNUPS_PER_HOUR_PER_ADDRESS", "LOGINS_PER_MINUTE_PER_ADDRESS"):
            env.setenv(f"NINEFOLD_{limit}", "0")  # 0: no limit (tests/test_platform_limits.py)
        proc, base = start_server(tmp / "web.sqlite", 0, "--platform", url, "--workers", "1")
    try:  # stopped however the set-up ends (a failed upload left the server and its worker)
        bots = {}
        for who, bot, language in (("rival", "rivalbot", "c"), ("boss", "bossbot", "python")):
            with httpx.Client(base_url=base, timeout=60) as client:
                client.post("/api/platform/signup", json={"name": who, "password": PASSWORD})
                r = client.post("/api/platform/contests/cup/bots", data={"bot": bot},
                                files={"file": bot_archive(language, strategy="random", seed=3)})
                assert r.status_code == 201, r.text
                bots[who] = r.json()["bot"]
        with httpx.Client(base_url=base, timeout=60) as client:
            client.post("/api/platform/signup", json={"name": "orga", "password": PASSWORD})
        store = Store(url)
        store.set_admin("boss", True)
        store.set_organiser("orga", True)
        yield Platform(base, tmp, bots["rival"])
    finally:
        stop_server(proc)


def accessible(page: Page) -> None:
    """No serious or critical axe-core violation on `page` as it is now, in the dark
    colour scheme and the light one (the page is left light), and no heading level
    skipped."""
    for scheme in ("dark", "light"):
        page.emulate_media(color_scheme=scheme)
        assert_accessible(page)
    assert_headings_nest(page)


def assert_headings_nest(page: Page) -> None:
    """The headings shown on `page` start at h1 and never skip a level going down."""
    levels = page.evaluate("""() => [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")]
        .filter((h) => h.checkVisibility()).map((h) => Number(h.tagName[1]))""")
    assert levels and levels[0] == 1, levels
    skipped = [(a, b) for a, b in itertools.pairwise(levels) if b > a + 1]
    assert skipped == [], f"heading levels {levels} skip a level at {skipped}"


def store_of(platform: Platform) -> Store:
    return Store(f"sqlite:///{platform.tmp / 'platform.sqlite'}")


def refused_by_the_browser(page: Page, name: str) -> bool:
    """Whether the browser's own check refuses the field `name` for its pattern."""
    return page.evaluate("""(name) => {
        const input = document.querySelector(`[data-control="${name}"]`);
        return input.validity.patternMismatch && !input.form.checkValidity();
    }""", name)


def log_in(page: Page, base: str, name: str) -> None:
    page.goto(base + "/platform")
    control(page, "auth-name").fill(name)
    control(page, "auth-password").fill(PASSWORD)
    control(page, "log-in").click()
    expect(page.get_by_test_id("account")).to_contain_text(name)


def test_sign_up_upload_and_watch_the_first_ranked_game(page: Page, platform_server: Platform,
                                                        shots: Path):
    base = platform_server.base
    name, data = bot_archive("python", strategy="win-if-possible", seed=4)
    archive = platform_server.tmp / name
    archive.write_bytes(data)
    page.goto(base + "/")  # the board's pages link the contests when the platform runs
    control(page, "nav-platform").click()
    expect(page).to_have_url(base + "/platform")
    expect(page.locator("#auth")).to_be_visible()
    accessible(page)
    control(page, "auth-name").fill("newcomer")
    control(page, "auth-password").fill(PASSWORD)
    control(page, "sign-up").click()
    expect(page.get_by_test_id("account")).to_contain_text("newcomer")
    control(page, "contest-link").and_(page.get_by_text("The Cup")).click()
    expect(page.get_by_test_id("leaderboard")).to_contain_text("rivalbot", timeout=60_000)
    control(page, "upload-bot").fill("mybot")
    control(page, "upload-file").set_input_files(str(archive))
    control(page, "upload").click()
    expect(page.locator("#bot-title")).to_have_text("mybot")
    version = page.get_by_test_id("versions").locator(".version").first
    expect(version).to_have_attribute("data-status", "active", timeout=60_000)
    expect(version).to_contain_text("Compile log")
    expect(version).to_contain_text("compiled")
    expect(version).to_contain_text("input test passed")
    games = page.get_by_test_id("bot-games")
    expect(games.locator("li").first).to_be_visible(timeout=GAMES_COME)
    wait_until(page, "(() => { const img = document.getElementById('bot-plot');"
                     " return img.complete && !img.src.endsWith('n=0'); })()")
    page.screenshot(path=str(shots / "web_platform_bot.png"), full_page=True)
    accessible(page)
    control(page, "game").and_(page.get_by_text(re.compile(r"^Game"))).first.click()
    expect(page).to_have_url(re.compile(r"/platform-game/\d+(\?ply=\d+)?$"))
    expect(page.get_by_test_id("status")).to_contain_text("(ply ")
    expect(page.locator("#title")).to_contain_text(re.compile(r"^Ranked game \d+: "))
    turn = page.get_by_test_id("turn")
    key(page, "viewer", "Home")
    expect(page.get_by_test_id("status")).to_contain_text("Start (ply 0 of")
    expect(turn).to_have_text("The start: no move yet.")
    key(page, "viewer", "ArrowRight")  # the opening's first move (random4: no bot's)
    expect(turn).to_contain_text("Move 1 was the opening's")
    key(page, "viewer", "End")
    expect(page.locator(".cell.x").first).to_be_visible()
    expect(turn).to_contain_text(re.compile(r"^Move \d+: [XO] \(\w+ v1\) took \d+ ms\."))
    stderr = page.get_by_test_id("turn-stderr")  # shown for newcomer's mybot's turns only
    last = turn.text_content()
    seen = [stderr.is_visible()]
    control(page, "back").click()
    expect(turn).not_to_have_text(last or "")
    seen.append(stderr.is_visible())
    assert sorted(seen) == [False, True] or seen == [True, True], seen  # its stderr, or after
    expect(page.locator("#turns")).to_contain_text("Ranked game of cup: X ")
    page.screenshot(path=str(shots / "web_platform_game.png"))
    accessible(page)
    assert_every_control_tested(page, "a platform game in the viewer")
    x_bot = control(page, "viewer-bot-x").get_attribute("href")
    control(page, "viewer-bot-o").click()
    expect(page.locator("#bot-title")).to_be_visible()
    page.go_back()
    control(page, "viewer-contest").click()
    expect(page).to_have_url(base + "/platform/c/cup")
    assert re.fullmatch(r"/platform/bot/\d+", x_bot or "")
    page.goto(base + "/platform/c/cup")
    expect(page.get_by_test_id("leaderboard")).to_contain_text("mybot")
    page.screenshot(path=str(shots / "web_platform.png"), full_page=True)
    accessible(page)


def test_log_in_refused_then_accepted_and_log_out(page: Page, platform_server: Platform):
    base = platform_server.base
    page.goto(base + "/platform")
    control(page, "auth-name").fill("rival")
    control(page, "auth-password").fill("not the password")
    control(page, "log-in").click()
    expect(page.get_by_test_id("error")).not_to_be_empty()
    expect(page.get_by_test_id("account")).to_be_empty()
    control(page, "auth-password").fill(PASSWORD)
    control(page, "log-in").click()
    expect(page.get_by_test_id("account")).to_contain_text("rival")
    expect(page.get_by_test_id("error")).to_be_empty()
    expect(page.locator("#auth")).to_be_hidden()
    expect(page.locator("#new-contest")).to_be_hidden()  # not an admin
    assert_every_control_tested(page, "/platform")
    control(page, "log-out").click()
    expect(control(page, "log-in")).to_be_visible()
    expect(page.get_by_test_id("account")).to_be_empty()
    page.reload()  # the session is gone on the server too
    expect(control(page, "log-in")).to_be_visible()


def test_the_admin_creates_a_contest_as_the_form_describes_it(page: Page,
                                                              platform_server: Platform):
    base = platform_server.base
    log_in(page, base, "boss")
    expect(page.get_by_test_id("account")).to_contain_text("(admin)")
    expect(page.locator("#new-contest")).to_be_visible()
    accessible(page)
    assert_every_control_tested(page, "/platform as an admin")
    control(page, "contest-name").fill("open-cup")
    control(page, "contest-title").fill("The Open Cup")
    control(page, "contest-rules").fill("open-boards")
    control(page, "contest-protocol").select_option("aigames")
    control(page, "contest-time-control").fill("bank=5000,inc=200")
    control(page, "contest-openings").select_option("none")
    control(page, "contest-max-bots").fill("2")
    control(page, "create-contest").click()
    expect(page.get_by_test_id("notice")).to_have_text(
        "The contest open-cup is made: you organise it.")
    made = control(page, "contest-link").and_(page.get_by_text("The Open Cup"))
    expect(page.get_by_test_id("contest-list")).to_contain_text(
        "The Open Cup (aigames, open-boards rules, bank=5000,inc=200)")
    made.click()
    expect(page).to_have_url(base + "/platform/c/open-cup")
    expect(page.locator("#contest-info")).to_contain_text(
        "aigames protocol, open-boards rules, clock bank=5000,inc=200, openings none")
    closed = page.request.put(base + "/api/platform/contests/open-cup/times",
                              data={"opens": None, "closes": time.time() - 1})
    assert closed.ok, closed.text()
    # the page refreshes itself: the scheduler stores the closed contest's final standings
    expect(page.locator("#contest-info")).to_contain_text("Final standings, stored",
                                                          timeout=30_000)
    accessible(page)


def test_a_codingame_contest_made_on_the_form_starts_without_openings(
        page: Page, platform_server: Platform):
    """The form's default openings (random4) would be refused for CodinGame (its bots hear
    only the last move): choosing the protocol picks none, and random4 cannot be chosen."""
    log_in(page, platform_server.base, "boss")
    control(page, "contest-name").fill("cg-cup")
    expect(control(page, "contest-openings")).to_have_value("random4")
    control(page, "contest-protocol").select_option("codingame")
    expect(control(page, "contest-openings")).to_have_value("none")
    random4 = control(page, "contest-openings").locator("option", has_text="random4")
    expect(random4).to_be_disabled()
    control(page, "contest-protocol").select_option("riddles")
    expect(random4).to_be_enabled()
    control(page, "contest-protocol").select_option("codingame")
    control(page, "create-contest").click()
    expect(page.get_by_test_id("notice")).to_have_text(
        "The contest cg-cup is made: you organise it.")
    control(page, "contest-link").and_(page.get_by_text("cg-cup")).click()
    expect(page.locator("#contest-info")).to_contain_text("codingame protocol, standard rules")
    expect(page.locator("#contest-info")).to_contain_text("openings none")


def test_the_contest_page_links_its_bots_games_and_starter_bots(page: Page,
                                                               platform_server: Platform):
    base = platform_server.base
    page.goto(base + "/platform/c/cup")
    board = page.get_by_test_id("leaderboard")
    expect(board).to_contain_text("bossbot", timeout=60_000)
    expect(control(page, "upload")).to_be_hidden()  # signed out
    with page.expect_download() as download:
        control(page, "starter").and_(page.get_by_text("python", exact=True)).click()
    with zipfile.ZipFile(download.value.path()) as starter:
        assert "main.py" in starter.namelist()
    control(page, "leaderboard-bot").and_(page.get_by_text("rivalbot")).click()
    expect(page.locator("#bot-title")).to_have_text("rivalbot")
    control(page, "bot-contest").click()
    expect(page).to_have_url(base + "/platform/c/cup")
    games = page.get_by_test_id("contest-games")
    expect(games.locator("li").first).to_be_visible(timeout=GAMES_COME)
    accessible(page)
    assert_every_control_tested(page, "a contest's page")
    control(page, "game-bot").and_(page.get_by_text("bossbot")).first.click()
    expect(page.locator("#bot-title")).to_have_text("bossbot")
    page.go_back()
    control(page, "game").first.click()
    expect(page).to_have_url(re.compile(r"/platform-game/\d+(\?ply=\d+)?$"))
    expect(page.get_by_test_id("status")).to_contain_text("(ply ")


def test_a_bot_page_as_its_author_plays_test_games_and_shows_stderr(page: Page,
                                                                  platform_server: Platform):
    base = platform_server.base
    log_in(page, base, "rival")
    page.goto(f"{base}/platform/bot/{platform_server.rival_bot}")
    games = page.get_by_test_id("bot-games")
    expect(games.locator("li").first).to_be_visible(timeout=GAMES_COME)
    accessible(page)
    assert_every_control_tested(page, "a bot's page as its author")
    control(page, "test-version").select_option(label="v1")
    control(page, "test-opponent").select_option(label="bossbot")
    control(page, "test-games").click()
    expect(page.get_by_test_id("notice")).to_have_text(re.compile("Two test games queued"))
    expect(page.get_by_test_id("error")).to_be_empty()
    expect(games).to_contain_text("Test game", timeout=GAMES_COME)  # the list refreshes itself
    control(page, "stderr").first.click()
    expect(games.locator("li pre").first).to_be_visible()  # the game's stderr, or (empty)
    control(page, "game").and_(page.get_by_text(re.compile(r"^Test game"))).first.click()
    expect(page.locator("#title")).to_contain_text(re.compile(r"^Test game \d+ \(unranked\): "))
    expect(page.locator("#turns")).to_contain_text("Test game of cup")


def test_a_bot_page_as_someone_else_has_no_author_controls(page: Page,
                                                           platform_server: Platform):
    base = platform_server.base
    log_in(page, base, "boss")
    page.goto(f"{base}/platform/bot/{platform_server.rival_bot}")
    games = page.get_by_test_id("bot-games")
    expect(games.locator("li").first).to_be_visible(timeout=GAMES_COME)
    expect(page.locator("#bot-info")).to_contain_text("by rival in cup")
    expect(control(page, "stderr")).to_have_count(0)
    expect(control(page, "test-games")).to_have_count(0)
    accessible(page)
    assert_every_control_tested(page, "a bot's page as someone else")


def test_names_the_browser_checks_before_sending(page: Page, platform_server: Platform):
    """The name fields' patterns compile in Chromium (with its v flag): a bad name is
    refused by the browser, with the rule in words, and nothing is sent."""
    base = platform_server.base
    log_in(page, base, "orga")
    sent = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    control(page, "contest-name").fill("Big_Cup")
    assert refused_by_the_browser(page, "contest-name")
    control(page, "contest-name").fill("big-cup-2")
    assert not refused_by_the_browser(page, "contest-name")
    control(page, "auth-name").evaluate("(input) => { input.value = 'a b'; }")  # hidden form
    assert refused_by_the_browser(page, "auth-name")
    page.goto(base + "/platform/c/cup")
    archive = platform_server.tmp / "named.zip"
    archive.write_bytes(bot_archive("python")[1])
    control(page, "upload-bot").fill("bad name!")
    control(page, "upload-file").set_input_files(str(archive))
    control(page, "upload").click()
    assert refused_by_the_browser(page, "upload-bot")
    assert "letters, digits, - and _" in control(page, "upload-bot").get_attribute("title")
    control(page, "upload-bot").fill("-dash-first")
    assert refused_by_the_browser(page, "upload-bot")
    control(page, "upload-bot").fill("good_name-2")
    assert not refused_by_the_browser(page, "upload-bot")
    expect(page).to_have_url(base + "/platform/c/cup")
    assert sent == []


def test_an_organiser_makes_a_contest_and_enters_house_bots(page: Page,
                                                            platform_server: Platform):
    base = platform_server.base
    log_in(page, base, "orga")
    expect(page.get_by_test_id("account")).to_contain_text("orga (organiser)")
    expect(page.locator("#new-contest")).to_be_visible()
    control(page, "contest-name").fill("orga-cup")
    control(page, "contest-title").fill("Orga's Cup")
    control(page, "contest-opens").fill("2020-01-01T12:00")
    control(page, "contest-closes").fill("2099-01-01T12:00")
    control(page, "create-contest").click()
    expect(page.get_by_test_id("notice")).to_contain_text("orga-cup is made")
    control(page, "contest-link").and_(page.get_by_text("Orga's Cup")).click()
    expect(page.locator("#contest-info")).to_contain_text("Closes ")
    form = page.get_by_test_id("house")
    expect(form).to_be_visible()
    control(page, "house-name").fill("-bad")
    control(page, "house-spec").fill("level:1")
    control(page, "enter-house").click()
    assert refused_by_the_browser(page, "house-name")
    control(page, "house-name").fill("level1")
    control(page, "enter-house").click()
    expect(page.get_by_test_id("notice")).to_contain_text("House bot level1 v1 (level:1)")
    expect(page.get_by_test_id("leaderboard")).to_contain_text("level1")
    control(page, "house-name").fill("level1")
    control(page, "house-spec").fill("no-such-player:1")
    control(page, "enter-house").click()
    expect(page.get_by_test_id("error")).to_contain_text("no-such-player")
    expect(page.get_by_test_id("notice")).to_be_empty()
    expect(control(page, "times-closes")).to_have_value("2099-01-01T12:00")
    control(page, "times-opens").fill("")
    control(page, "times-closes").fill("2098-06-01T12:00")
    control(page, "set-times").click()
    expect(page.get_by_test_id("notice")).to_have_text("The contest's times are set.")
    expect(page.locator("#contest-info")).not_to_contain_text("Opens ")
    closes = page.evaluate("new Date('2098-06-01T12:00').toLocaleString()")
    expect(page.locator("#contest-info")).to_contain_text(f"Closes {closes}.")
    accessible(page)
    assert_every_control_tested(page, "a contest's page as its organiser")
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: nothing wider
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    page.screenshot(path=str(platform_server.tmp / "organiser.png"), full_page=True)
    page.context.clear_cookies()
    log_in(page, base, "rival")  # not its organiser: no house-bot form
    page.goto(base + "/platform/c/orga-cup")
    expect(page.get_by_test_id("leaderboard")).to_contain_text("level1")
    expect(form).to_be_hidden()


def test_an_address_that_names_nothing_says_so_with_links_home(page: Page,
                                                               platform_server: Platform):
    base = platform_server.base
    answer = page.goto(base + "/platform/bot/9999")
    assert answer is not None and answer.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
    expect(page.get_by_test_id("not-found")).to_contain_text("There is no bot '9999'.")
    expect(page.locator("img")).to_have_count(0)
    accessible(page)
    assert_every_control_tested(page, "the page of an address that names nothing")
    control(page, "notfound-contests").click()
    expect(page).to_have_url(base + "/platform")
    for path in ("/platform/nope", "/nope"):
        answer = page.goto(base + path)
        assert answer is not None and answer.status == 404
        expect(page.get_by_test_id("not-found")).to_contain_text("nothing at this address")
    control(page, "notfound-home").click()
    expect(page).to_have_url(base + "/")


def test_a_bot_page_follows_a_new_build_and_a_double_click_asks_once(
        page: Page, platform_server: Platform):
    """The test-games form gains a version when its build passes, without a reload; a
    double click on its button sends one request, and its confirmation is no error."""
    base = platform_server.base
    log_in(page, base, "rival")
    page.goto(f"{base}/platform/bot/{platform_server.rival_bot}")
    version = control(page, "test-version")
    expect(version.locator("option")).not_to_have_count(0, timeout=GAMES_COME)
    name, data = bot_archive("c", strategy="first", seed=5)
    r = page.request.post(base + "/api/platform/contests/cup/bots", multipart={
        "bot": "rivalbot", "file": {"name": name, "mimeType": "application/zip",
                                    "buffer": data}})
    assert r.status == 201, r.text()
    v2 = r.json()["id"]
    expect(version.locator("option", has_text="v2")).to_have_count(1, timeout=GAMES_COME)
    version.select_option(label="v2")
    control(page, "test-opponent").select_option(label="bossbot")
    asked = []
    page.on("request", lambda req: asked.append(req.url)
            if req.method == "POST" and req.url.endswith("/test-games") else None)
    control(page, "test-games").dblclick()
    expect(page.get_by_test_id("notice")).to_have_text(re.compile("Two test games queued"))
    expect(page.get_by_test_id("error")).to_be_empty()
    expect(control(page, "test-games")).to_be_enabled()
    assert len(asked) == 1
    assert len(store_of(platform_server).games(version_id=v2, ranked=False)) == 2
    accessible(page)



def a_refresh(page: Page, path: str):
    """Wait for the live page's next refresh: its last request, to `path`, answered (and a
    moment for the page to apply it)."""
    with page.expect_response(lambda r: path in r.url, timeout=15_000):
        pass
    page.wait_for_timeout(300)


def test_a_click_held_across_the_contest_pages_refresh_still_follows_its_link(
        page: Page, platform_server: Platform):
    """The contest page refreshes itself every few seconds, in place: a link pressed before
    a refresh and released after it is followed (links rebuilt at each refresh lost the
    click: press and release fell on two different links). The starter bot's link, which
    stays where it is (a leaderboard's rows may trade places as games end)."""
    base = platform_server.base
    page.goto(base + "/platform/c/cup")
    expect(page.get_by_test_id("leaderboard")).to_contain_text("bossbot", timeout=60_000)
    starter = control(page, "starter").and_(page.get_by_text("python", exact=True))
    starter.scroll_into_view_if_needed()
    box = starter.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    a_refresh(page, "/api/platform/games?contest=")
    with page.expect_download(timeout=10_000) as download:
        page.mouse.up()
    with zipfile.ZipFile(download.value.path()) as bot:
        assert "main.py" in bot.namelist()


def test_a_bot_pages_refresh_keeps_an_open_stderr_and_a_selected_compile_log(
        page: Page, platform_server: Platform):
    """A game's stderr opened on its bot's page stays open across the page's refreshes
    (its button closes it), and text selected in a compile log stays selected."""
    base = platform_server.base
    log_in(page, base, "rival")
    page.goto(f"{base}/platform/bot/{platform_server.rival_bot}")
    games = page.get_by_test_id("bot-games")
    expect(games.locator("li").first).to_be_visible(timeout=GAMES_COME)
    log = page.locator("#versions pre").first
    expect(log).to_be_visible()
    log.evaluate("(pre) => window.getSelection().selectAllChildren(pre)")
    selected = page.evaluate("() => window.getSelection().toString()")
    assert selected
    name = games.locator('li [data-control="game"]').first.text_content()
    item = games.locator("li").filter(has=page.get_by_role("link", name=name, exact=True))
    item.locator('[data-control="stderr"]').click()  # (new games come above it meanwhile)
    shown = item.locator("pre")
    expect(shown).to_have_count(1)
    for _ in range(2):
        a_refresh(page, "/api/platform/games?bot=")
    expect(shown).to_have_count(1)
    assert page.evaluate("() => window.getSelection().toString()") == selected
    item.locator('[data-control="stderr"]').click()
    expect(shown).to_have_count(0)


# --- the browser side of the threat model (ninefold.web.security) -------------------

WATCH_CSP = """window.__violations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));"""


def csp_violations(page: Page, console: list[str]) -> list[str]:
    """What the page's Content-Security-Policy refused so far (its events and the
    console's 'Refused to ...' lines)."""
    return page.evaluate("window.__violations") + [
        line for line in console if "Refused to" in line or "Content Security Policy" in line]


def test_pages_run_under_the_content_security_policy(page: Page, platform_server: Platform):
    """Every page, the web board's and the platform's, is served with the policy (no
    inline script or style) and runs under it with nothing refused: no inline script,
    handler or style attribute anywhere; a live game's WebSocket still gets its
    updates (connect-src 'self' covers ws: to the same host)."""
    base = platform_server.base
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    page.add_init_script(WATCH_CSP)
    with httpx.Client(base_url=base, timeout=60) as client:
        made = client.post("/api/games", json={"mode": "local"}).json()
    game, token = made["game"]["id"], made["token"]
    page.goto(base + "/")  # the watcher itself sees what the policy refuses
    page.evaluate("""() => {
        const img = document.createElement("img");
        img.setAttribute("onerror", "window.ran = true");  // an inline handler
        img.src = "/static/nothing.png";
        document.body.append(img);
        document.body.insertAdjacentHTML("beforeend", '<b style="color: red">styled</b>');
    }""")
    wait_until(page, "window.__violations.length >= 2")
    assert page.evaluate("window.ran") is None
    assert {v.split()[0] for v in page.evaluate("window.__violations")} == {
        "script-src-attr", "style-src-attr"}
    log_in(page, base, "boss")
    pages = ["/", "/rules", "/analysis", "/classic", "/proof", "/arena", f"/replay/{game}",
             "/nowhere", "/platform", "/platform/account", "/platform/c/cup",
             f"/platform/bot/{platform_server.rival_bot}", "/platform-game/999999"]
    for path in pages:
        console.clear()
        answer = page.goto(base + path)
        assert answer is not None
        policy = answer.headers.get("content-security-policy", "")
        assert "script-src 'self';" in policy and "style-src 'self';" in policy, path
        page.wait_for_load_state("networkidle")
        assert csp_violations(page, console) == [], path
    console.clear()
    with page.expect_websocket() as opened:
        page.goto(f"{base}/g/{game}#t={token}")
    socket = opened.value
    expect(page.locator("[data-testid=status]")).not_to_be_empty()
    with socket.expect_event("framereceived"), \
            httpx.Client(base_url=base, timeout=60) as client:  # a move: the page hears it
        r = client.post(f"/api/games/{game}/moves", json={"move": "e5", "ply": 0},
                        headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
    assert csp_violations(page, console) == []


@pytest.fixture
def other_origin(tmp_path):
    """A second web server on another port of the same host: the same *site* as the
    platform (its SameSite=Lax cookie goes along with a post), another origin."""
    import functools
    import http.server
    import threading

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_form_from_another_origin_can_neither_log_out_nor_upload(
        page: Page, platform_server: Platform, other_origin):
    """A page of another origin on the same host auto-submits forms to the platform:
    log-out, a multipart upload (a real bot archive), and a no-cors fetch; the
    browser sends the victim's cookie with each (shown), the server refuses each
    with 403, and the victim stays logged in with no new bot."""
    import base64

    base = platform_server.base
    folder, evil = other_origin
    name, data = bot_archive("python", strategy="random", seed=9)
    (folder / "logout.html").write_text(f"""<!doctype html><title>win a prize</title>
        <form method="post" action="{base}/api/platform/logout"></form>
        <script>document.forms[0].submit()</script>""")
    (folder / "upload.html").write_text(f"""<!doctype html><title>win a prize</title>
        <form method="post" enctype="multipart/form-data"
          action="{base}/api/platform/contests/cup/bots">
          <input name="bot" value="planted"><input type="file" name="file"></form>
        <script>
          const bytes = Uint8Array.from(atob("{base64.b64encode(data).decode()}"),
                                        (c) => c.charCodeAt(0));
          const files = new DataTransfer();
          files.items.add(new File([bytes], "{name}"));
          document.forms[0].elements.file.files = files.files;
          document.forms[0].submit();
        </script>""")
    (folder / "fetch.html").write_text(f"""<!doctype html><title>win a prize</title>
        <script>window.done = fetch("{base}/api/platform/logout",
          {{method: "POST", mode: "no-cors", credentials: "include"}}).then(() => "sent")
        </script>""")
    log_in(page, base, "rival")
    before = len(store_of(platform_server).bots())
    sent: dict[str, dict[str, str]] = {}
    page.on("request", lambda r: sent.__setitem__(r.url, r.all_headers())
            if r.method == "POST" else None)
    for attack, target in (("logout", "/api/platform/logout"),
                           ("upload", "/api/platform/contests/cup/bots")):
        with page.expect_response(base + target) as answered:
            page.goto(f"{evil}/{attack}.html")
        assert answered.value.status == 403, attack
        assert "cross-site" in answered.value.json()["detail"]
        headers = sent[base + target]
        assert "ninefold_session=" in headers.get("cookie", ""), attack  # Lax let it go
        assert headers.get("origin") == evil
    page.goto(f"{evil}/fetch.html")
    assert page.evaluate("window.done") == "sent"
    page.goto(base + "/platform")  # still logged in
    expect(page.get_by_test_id("account")).to_contain_text("rival")
    assert len(store_of(platform_server).bots()) == before
    assert all(b.name != "planted" for b in store_of(platform_server).bots())


def test_sessions_and_api_tokens_are_listed_and_revoked_on_the_account_page(
        page: Page, platform_server: Platform):
    base = platform_server.base
    with httpx.Client(base_url=base, timeout=60) as client:  # a log-in elsewhere
        client.post("/api/platform/signup", json={"name": "tokens", "password": PASSWORD})
        elsewhere = {"Cookie": f"ninefold_session={client.cookies['ninefold_session']}"}
    log_in(page, base, "tokens")
    control(page, "account").click()
    expect(page).to_have_url(base + "/platform/account")
    rows = page.get_by_test_id("sessions").locator("tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("this browser")
    control(page, "new-token").click()
    shown = page.locator("#token-text")
    expect(shown).not_to_have_text("")
    token = shown.text_content()
    assert token
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text("API token")
    assert token not in page.get_by_test_id("sessions").text_content()
    bearer = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, timeout=60) as client:
        assert client.get("/api/platform/me", headers=bearer).status_code == 200
        accessible(page)
        assert_every_control_tested(page, "the account page")
        control(page, "revoke-session").first.click()  # the API token
        expect(rows).to_have_count(2)
        expect(page.get_by_test_id("notice")).to_contain_text("Revoked the API token")
        assert client.get("/api/platform/me", headers=bearer).status_code == 401
        rows.filter(has_text="a browser").locator("[data-control=revoke-session]").click()
        expect(rows).to_have_count(1)
        assert client.get("/api/platform/me", headers=elsewhere).status_code == 401
    control(page, "revoke-session").click()  # this browser: signed out here
    expect(control(page, "log-in")).to_be_visible()
    expect(page.get_by_test_id("account")).to_be_empty()
