"""Every button, link, field and key binding of the web board's pages is exercised by a
test that checks its effect (`controls.controls_with_tests`); the last test lists the controls the
pages show in the browser and fails naming any without a test. The controls reached
here are those no other module's test reaches (see `controls`); the contest platform's
pages (its contests, a contest, a bot, a game in the viewer) are listed and their
controls exercised in test_platform_browser.py, on a server with the platform."""

from __future__ import annotations

import re

import pytest
from conftest import chromium_missing
from controls import assert_every_control_tested, control, key
from needs import require
from playwright.sync_api import Page, expect

require("Debian's chromium", chromium_missing(), module=True)

# controls a page makes only from data this module's server has none of: an arena
# game's link (test_web_browser.py's arena tests) and a line's first move (its slow
# analysis test)
DYNAMIC = frozenset({"arena-game", "line-move"})


def local_game(page: Page, server: str, moves: tuple[str, ...] = ()) -> None:
    page.goto(server + "/")
    control(page, "mode-local").check()
    control(page, "start-game").click()
    expect(page.get_by_test_id("status")).to_contain_text("X to move")
    for sq in moves:
        page.locator(f".cell[data-square='{sq}']").click()
        expect(page.locator(f".cell[data-square='{sq}']")).not_to_have_text("")


def test_the_site_links_lead_where_they_say(page: Page, server: str):
    def lands_on(path: str) -> None:
        expect(page).to_have_url(re.compile(re.escape(server + path) + r"(#.*)?$"))
        page.goto(server + "/rules")

    page.goto(server + "/rules")
    control(page, "nav-new").click()
    lands_on("/")
    control(page, "nav-rules").click()
    lands_on("/rules")
    control(page, "nav-analysis").click()
    lands_on("/analysis")
    control(page, "nav-arena").click()
    lands_on("/arena")
    control(page, "nav-classic").click()
    lands_on("/classic")
    control(page, "brand").click()
    lands_on("/")
    page.goto(server + "/")
    control(page, "setup-rules").click()
    expect(page).to_have_url(server + "/rules")
    control(page, "rules-start").click()
    expect(control(page, "start-game")).to_be_visible()


def test_the_form_starts_the_game_it_describes(page: Page, server: str):
    page.goto(server + "/")
    control(page, "mode-computer").check()
    control(page, "level").select_option("2")
    control(page, "side-o").check()
    control(page, "start-game").click()
    expect(page.locator("#who")).to_have_text("You play O against level 2.")
    expect(page.locator(".cell.x")).to_have_count(1)  # the computer moved first
    page.goto(server + "/")
    control(page, "mode-local").check()
    control(page, "rules").select_option("open-boards")
    control(page, "opening").fill("53271")
    control(page, "start-game").click()
    expect(page.get_by_test_id("moves")).to_have_text(re.compile(r"f4 h1\s*d3 a7"))
    assert control(page, "position").input_value().startswith("open-boards ")
    page.goto(server + "/")
    control(page, "mode-online").check()
    control(page, "clock").select_option("rapid")
    control(page, "side-x").check()
    control(page, "start-game").click()
    expect(page.get_by_test_id("clock-x")).to_have_text("X 10:00")
    page.goto(server + "/")
    control(page, "mode-local").check()
    control(page, "side-random").check()
    control(page, "start").fill("1. e5 e4 *")
    control(page, "start-game").click()
    expect(page.get_by_test_id("moves")).to_have_text("e5 e4")


def test_undo_takes_back_the_move_and_again_opens_the_form(page: Page, server: str):
    page.goto(server + "/")
    control(page, "level").select_option("1")
    control(page, "start-game").click()
    control(page, "cell").and_(page.locator("[data-square='e5']")).click()
    expect(page.locator(".cell.o")).to_have_count(1)  # the computer answered
    control(page, "undo").click()
    expect(page.locator(".cell.x, .cell.o")).to_have_count(0)
    expect(control(page, "undo")).to_be_disabled()
    control(page, "again").click()
    expect(control(page, "start-game")).to_be_visible()


def test_the_board_keys_move_the_cursor_and_play(page: Page, server: str):
    local_game(page, server)
    cursor = page.locator(".cell.cursor")
    key(page, "board", "ArrowUp")
    expect(cursor).to_have_attribute("data-square", "e4")
    key(page, "board", "ArrowDown")
    expect(cursor).to_have_attribute("data-square", "e5")
    key(page, "board", "ArrowLeft")
    expect(cursor).to_have_attribute("data-square", "d5")
    key(page, "board", "ArrowRight")
    expect(cursor).to_have_attribute("data-square", "e5")
    key(page, "board", "Enter")
    expect(page.locator(".cell[data-square='e5']")).to_have_text("X")
    # the page sends one move at a time (a double click sends one): wait for the answer
    expect(page.get_by_test_id("status")).to_contain_text("O to move")
    expect(cursor).to_have_attribute("data-square", "e4")  # off the taken e5, in board 5
    key(page, "board", "Space")
    expect(page.locator(".cell[data-square='e4']")).to_have_text("O")


def test_the_cursor_moves_to_the_board_the_move_sends_you_to(page: Page, server: str):
    local_game(page, server)
    for name in ("ArrowLeft", "ArrowLeft", "ArrowUp", "ArrowUp"):
        key(page, "board", name)
    expect(page.locator(".cell.cursor")).to_have_attribute("data-square", "c3")
    key(page, "board", "Enter")  # X's c3 sends O to board 9 (g7-i9)
    expect(page.get_by_test_id("status")).to_contain_text("O to move: play in board 9")
    expect(page.locator(".cell.cursor")).to_have_attribute("data-square", "g7")  # its nearest
    expect(page.locator(".cell:focus")).to_have_attribute("data-square", "g7")
    key(page, "board", "Enter")
    expect(page.locator(".cell[data-square='g7']")).to_have_text("O")
    expect(page.locator(".cell.cursor")).to_have_attribute("data-square", "c2")  # board 1


def test_the_position_its_analysis_and_the_play_from_here_links(page: Page, server: str):
    local_game(page, server, ("e5",))
    position = control(page, "position").input_value()
    assert position.split()[2] == "o"
    control(page, "analyse").click()
    expect(page).to_have_url(re.compile(r"/analysis\?position="))
    expect(control(page, "position")).to_have_value(position)
    control(page, "from-here-friend").click()
    expect(control(page, "start")).to_have_value(position)
    expect(control(page, "mode-local")).to_be_checked()
    page.go_back()
    control(page, "from-here-computer").click()
    expect(control(page, "start")).to_have_value(position)
    expect(control(page, "mode-computer")).to_be_checked()


def test_the_replay_buttons_keys_move_list_and_link(page: Page, server: str):
    local_game(page, server, ("e5", "e4", "e2"))
    control(page, "replay-link").click()
    status = page.get_by_test_id("status")
    expect(status).to_contain_text("(ply 3 of 3)")
    control(page, "first").click()
    expect(status).to_contain_text("Start (ply 0 of 3)")
    control(page, "forward").click()
    expect(status).to_contain_text("After 1. e5 (ply 1 of 3)")
    control(page, "last").click()
    expect(status).to_contain_text("After 2. e2 (ply 3 of 3)")
    control(page, "back").click()
    expect(status).to_contain_text("After 1… e4 (ply 2 of 3)")
    control(page, "move").first.click()
    expect(status).to_contain_text("(ply 1 of 3)")
    expect(control(page, "permalink")).to_have_value(re.compile(r"\?ply=1$"))
    control(page, "auto").click()
    expect(status).to_contain_text("(ply 3 of 3)", timeout=5000)  # played on to the end
    expect(control(page, "auto")).to_have_text("▶ Play")
    key(page, "viewer", "Home")
    expect(status).to_contain_text("(ply 0 of 3)")
    key(page, "viewer", "ArrowRight")
    expect(status).to_contain_text("(ply 1 of 3)")
    key(page, "viewer", "End")
    expect(status).to_contain_text("(ply 3 of 3)")
    key(page, "viewer", "ArrowLeft")
    expect(status).to_contain_text("(ply 2 of 3)")
    key(page, "viewer", "Space")
    expect(status).to_contain_text("(ply 3 of 3)", timeout=5000)
    page.goto(control(page, "permalink").input_value())
    expect(status).to_contain_text("(ply 3 of 3)")


@pytest.mark.parametrize("address", ["/", "/rules", "/classic", "/replay", "/proof",
                                     "/puzzles"])
def test_every_control_and_key_of_every_page_has_a_test(page: Page, server: str,
                                                         address: str):
    if address == "/replay":  # the replay's move list is made from its game
        local_game(page, server, ("e5",))
        control(page, "replay-link").click()
        expect(control(page, "move")).to_have_count(1)
    elif address == "/proof":  # its controls are there while the server proves the win
        page.goto(server + address)
        expect(page.locator("#board .cell")).to_have_count(81)
    else:
        page.goto(server + address)
        page.wait_for_load_state("networkidle")
    assert_every_control_tested(page, address, DYNAMIC if address == "/" else frozenset())
