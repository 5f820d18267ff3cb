"""The review on the web board's pages: the game page's Review link, the replay's Review
button, progress, the graph (a click goes to the ply), the labels, the shared link; axe
in both colour schemes; a phone's width."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from accessibility import assert_accessible
from conftest import chromium_missing
from controls import control, wait_until
from needs import require
from playwright.sync_api import Browser, Page, expect
from reviewgames import blunder_game

require("Debian's chromium", chromium_missing(), module=True)

PLIES = 4
DONE = "!document.querySelector('[data-review=done]').hidden"
REVIEW_MS = 600_000  # the first review starts the server's workers (seconds, more on a
# loaded machine, and the search's first compile after a change)


def post(url: str, body: dict, token: str | None = None) -> dict:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


@pytest.fixture(scope="module")
def finished(server: str) -> tuple[str, list[str], str]:
    """A finished local game on the server: the blunder game's last moves from the
    position before them; its id, moves and the blunder's move."""
    board, _, missed = blunder_game()
    moves = [str(m) for m in board.move_stack[-PLIES:]]
    for _ in range(PLIES):
        board.pop()
    made = post(server + "/api/games", {"mode": "local", "start": board.position()})
    game_id = made["game"]["id"]
    for ply, move in enumerate(moves):
        post(f"{server}/api/games/{game_id}/moves", {"move": move, "ply": ply}, made["token"])
    return game_id, moves, str(missed)


def test_the_game_page_review_link_shows_the_review_and_the_graph_jumps(
        page: Page, server: str, finished):
    game_id, _, missed = finished
    page.goto(f"{server}/g/{game_id}")
    control(page, "review-link").click()
    expect(page).to_have_url(re.compile(rf"/replay/{game_id}\?review=1"))
    wait_until(page, DONE, REVIEW_MS)
    blunder = page.locator("#moves button.move").nth(PLIES - 2)
    expect(blunder).to_have_class("move label-blunder")
    expect(blunder).to_have_attribute("aria-label", f"{missed}, blunder")
    expect(page.get_by_test_id("review-accuracy")).to_contain_text("Accuracy: X ")
    graph = control(page, "review-graph")
    box = graph.bounding_box()
    graph.click(position={"x": 2, "y": box["height"] / 2})
    expect(page.get_by_test_id("status")).to_contain_text("Start")
    expect(page.get_by_test_id("review-note")).to_contain_text("The start")
    step = box["width"] / PLIES
    graph.click(position={"x": step * (PLIES - 1), "y": box["height"] / 2})  # after ply 3
    expect(page.get_by_test_id("status")).to_contain_text(f"ply {PLIES - 1} of {PLIES}")
    expect(page.get_by_test_id("review-note")).to_contain_text(f"{missed} by ")
    expect(page.get_by_test_id("review-note")).to_contain_text("a blunder")
    expect(page.get_by_test_id("review-note")).to_contain_text("Better: ")


def test_the_replay_review_button_and_the_shared_link(page: Page, server: str, finished):
    game_id, moves, missed = finished
    page.goto(f"{server}/replay/{game_id}")
    expect(page.get_by_test_id("review-note")).to_be_hidden()
    control(page, "review-start").click()
    wait_until(page, DONE, REVIEW_MS)  # stored: at once, unless this test runs alone
    link = control(page, "review-share").input_value()
    assert link.startswith(f"{server}/review/")
    page.goto(link)
    wait_until(page, DONE, 30_000)
    expect(page.locator("#moves button.move")).to_have_count(len(moves))
    expect(page.locator("#moves button.move.label-blunder").first).to_contain_text(missed)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_review_passes_axe_and_fits_a_phone(browser: Browser, server: str, finished,
                                                scheme: str, tmp_path):
    game_id, _, _ = finished
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    page = context.new_page()
    page.goto(f"{server}/replay/{game_id}?review=1&ply={PLIES - 1}")
    wait_until(page, DONE, REVIEW_MS)
    assert_accessible(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px phone"
    page.get_by_test_id("review-graph").scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / f"review-{scheme}.png"), full_page=True)
    context.close()


def test_an_unknown_review_link_says_so(page: Page, server: str):
    page.goto(f"{server}/review/{'0' * 32}")
    expect(page.get_by_test_id("notice")).to_contain_text("No review")
