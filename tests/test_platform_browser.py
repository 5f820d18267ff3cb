"""The contest platform in a real browser: sign up, upload a bot from a fixture archive,
see its compile log and input test, and its first ranked game in the viewer; and every
control of the platform's pages exercised for its effect: logging in and out, the
admin's new-contest form, the contest page's leaderboard, starter bots and game links,
a bot's page as its author (test games, a game's stderr) and as someone else. Each
page, in each of those states, is listed (`controls.assert_every_control_tested`: every
control named and tested) and checked by axe-core.

A real ``ninefold serve --platform ... --workers 1`` process (its builder and a
match worker process), the sandbox, and Debian's chromium driven by Playwright."""

from __future__ import annotations

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
from controls import assert_every_control_tested, control, key
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
    proc, base = start_server(tmp / "web.sqlite", 0, "--platform", url, "--workers", "1")
    bots = {}
    for who, bot, language in (("rival", "rivalbot", "c"), ("boss", "bossbot", "python")):
        with httpx.Client(base_url=base, timeout=60) as client:
            client.post("/api/platform/signup", json={"name": who, "password": PASSWORD})
            r = client.post("/api/platform/contests/cup/bots", data={"bot": bot},
                            files={"file": bot_archive(language, strategy="random", seed=3)})
            assert r.status_code == 201, r.text
            bots[who] = r.json()["bot"]
    Store(url).set_admin("boss", True)
    yield Platform(base, tmp, bots["rival"])
    stop_server(proc)


def accessible(page: Page) -> None:
    """No serious or critical axe-core violation on `page` as it is now, in the dark
    colour scheme and the light one (the page is left light)."""
    for scheme in ("dark", "light"):
        page.emulate_media(color_scheme=scheme)
        assert_accessible(page)


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
    page.wait_for_function("(() => { const img = document.getElementById('bot-plot');"
                           " return img.complete && !img.src.endsWith('n=0'); })()")
    page.screenshot(path=str(shots / "web_platform_bot.png"), full_page=True)
    accessible(page)
    control(page, "game").and_(page.get_by_text(re.compile(r"^Game"))).first.click()
    expect(page).to_have_url(re.compile(r"/platform-game/\d+(\?ply=\d+)?$"))
    expect(page.get_by_test_id("status")).to_contain_text("(ply ")
    key(page, "viewer", "Home")
    expect(page.get_by_test_id("status")).to_contain_text("Start (ply 0 of")
    key(page, "viewer", "End")
    expect(page.locator(".cell.x").first).to_be_visible()
    page.screenshot(path=str(shots / "web_platform_game.png"))
    accessible(page)
    assert_every_control_tested(page, "a platform game in the viewer")
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
    control(page, "create-contest").click()
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
    expect(page.get_by_test_id("error")).to_have_text(re.compile("Two test games queued"))
    expect(games).to_contain_text("Test game", timeout=GAMES_COME)  # the list refreshes itself
    control(page, "stderr").first.click()
    expect(games.locator("li pre").first).to_be_visible()  # the game's stderr, or (empty)


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
