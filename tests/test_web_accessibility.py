"""Accessibility checked by a tool: axe-core (`accessibility.assert_accessible`) finds no
serious or critical violation on any page of the web board, in the light and the dark
colour scheme. The pages with arena games and online seats are checked where their
tests open them (test_web_browser.py); the contest platform's pages in each state its
tests visit (signed out and in, an admin, a contest open and closed, a bot's page as its
author and as someone else, a game in the viewer), in both schemes, by
test_platform_browser.py."""

from __future__ import annotations

import pytest
from accessibility import assert_accessible, serious_violations
from conftest import chromium_missing
from needs import require
from playwright.sync_api import Browser, Page, expect

require("Debian's chromium", chromium_missing(), module=True)

STATIC_PAGES = ["/", "/rules", "/analysis", "/arena", "/classic", "/g/no-such-game",
                "/classic#m=4,0", "/classic#m=4,0&v=pick15", "/classic#m=4,0&v=magic15",
                "/proof", "/puzzles", "/explorer"]
PROVED = 240_000  # ms: /proof's first request proves X's win in the server (seconds of CPU)


@pytest.fixture(params=["light", "dark"])
def scheme_page(browser: Browser, request):
    context = browser.new_context(viewport={"width": 1100, "height": 800},
                                  color_scheme=request.param)
    yield context.new_page()
    context.close()


def test_the_checker_finds_a_serious_violation(page: Page, server: str):
    page.goto(server + "/rules")
    page.evaluate("document.querySelector('main').append(Object.assign("
                  "document.createElement('img'), { src: '/static/favicon.svg' }))")
    assert any(v.startswith("image-alt") for v in serious_violations(page))


@pytest.mark.parametrize("address", STATIC_PAGES)
def test_every_page_passes_axe(scheme_page: Page, server: str, address: str):
    scheme_page.goto(server + address)
    scheme_page.wait_for_load_state("networkidle", timeout=PROVED)
    assert_accessible(scheme_page)


def test_a_game_its_end_and_its_replay_pass_axe(scheme_page: Page, server: str):
    page = scheme_page
    page.goto(server + "/")
    page.check("input[name=mode][value=local]")
    page.click("button[type=submit]")
    page.locator(".cell[data-square='e5']").click()
    expect(page.locator(".cell[data-square='e5']")).to_have_text("X")
    assert_accessible(page)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Resign").click()
    expect(page.get_by_test_id("verdict")).to_have_text("X won")
    assert_accessible(page)
    page.get_by_role("link", name="Replay").click()
    expect(page.locator("#moves button.move")).to_have_count(1)
    assert_accessible(page)
    page.get_by_role("button", name="First position").click()
    page.get_by_role("link", name="Analyse").click()
    expect(page.locator(".evalbar")).to_be_visible()
    assert_accessible(page)
