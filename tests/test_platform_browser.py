"""The contest platform in a real browser: sign up, upload a bot from a fixture archive,
see its compile log and input test, and its first ranked game in the viewer.

A real ``ninefold serve --platform ... --workers 1`` process (its builder and a
match worker process), the sandbox, and Debian's chromium driven by Playwright."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx2 as httpx
import pytest
from accessibility import assert_accessible
from conftest import chromium_missing
from controls import control
from needs import require
from platform_fixtures import bot_archive
from playwright.sync_api import Page, expect
from webserver import start_server, stop_server

from ninefold.platform import sandbox

require("Debian's chromium", chromium_missing(), module=True)
require("the sandbox (bubblewrap)", sandbox.available(), module=True)

PASSWORD = "a long enough password"


@pytest.fixture(scope="module")
def platform_server(tmp_path_factory):
    """A server with a contest and one opponent bot already active in it."""
    tmp = tmp_path_factory.mktemp("platform")
    url = f"sqlite:///{tmp / 'platform.sqlite'}"
    made = subprocess.run([sys.executable, "-m", "ninefold.cli", "platform", "contest", "cup",
                           "--db", url, "--title", "The Cup", "--tc", "bank=2000,inc=100"],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    proc, base = start_server(tmp / "web.sqlite", 0, "--platform", url, "--workers", "1")
    with httpx.Client(base_url=base, timeout=60) as client:
        client.post("/api/platform/signup", json={"name": "rival", "password": PASSWORD})
        r = client.post("/api/platform/contests/cup/bots", data={"bot": "rivalbot"},
                        files={"file": bot_archive("c", strategy="random", seed=3)})
        assert r.status_code == 201, r.text
    yield base, tmp
    stop_server(proc)


def test_sign_up_upload_and_watch_the_first_ranked_game(page: Page, platform_server,
                                                        shots: Path):
    base, tmp = platform_server
    name, data = bot_archive("python", strategy="win-if-possible", seed=4)
    archive = tmp / name
    archive.write_bytes(data)
    page.goto(base + "/")  # the board's pages link the contests when the platform runs
    control(page, "nav-platform").click()
    expect(page).to_have_url(base + "/platform")
    auth = page.locator("#auth")
    expect(auth).to_be_visible()
    assert_accessible(page)
    auth.get_by_label("Name").fill("newcomer")
    auth.get_by_label("Password").fill(PASSWORD)
    auth.get_by_role("button", name="Sign up").click()
    expect(page.get_by_test_id("account")).to_contain_text("newcomer")
    page.get_by_role("link", name="The Cup").click()
    expect(page.get_by_test_id("leaderboard")).to_contain_text("rivalbot", timeout=60_000)
    form = page.get_by_test_id("upload")
    form.get_by_label("Bot name").fill("mybot")
    form.get_by_label("Archive").set_input_files(str(archive))
    form.get_by_role("button", name="Upload").click()
    expect(page.locator("#bot-title")).to_have_text("mybot")
    version = page.get_by_test_id("versions").locator(".version").first
    expect(version).to_have_attribute("data-status", "active", timeout=60_000)
    expect(version).to_contain_text("Compile log")
    expect(version).to_contain_text("compiled")
    expect(version).to_contain_text("input test passed")
    games = page.get_by_test_id("bot-games")
    expect(games.locator("li").first).to_be_visible(timeout=120_000)
    page.wait_for_function("(() => { const img = document.getElementById('bot-plot');"
                           " return img.complete && !img.src.endsWith('n=0'); })()")
    page.screenshot(path=str(shots / "web_platform_bot.png"), full_page=True)
    assert_accessible(page)
    games.locator("li a", has_text="Game").first.click()
    expect(page.get_by_test_id("status")).to_contain_text("(ply ")
    page.keyboard.press("Home")
    expect(page.get_by_test_id("status")).to_contain_text("Start (ply 0 of")
    page.keyboard.press("End")
    expect(page.locator(".cell.x").first).to_be_visible()
    page.screenshot(path=str(shots / "web_platform_game.png"))
    assert_accessible(page)
    page.goto(base + "/platform/c/cup")
    expect(page.get_by_test_id("leaderboard")).to_contain_text("mybot")
    page.screenshot(path=str(shots / "web_platform.png"), full_page=True)
    assert_accessible(page)
