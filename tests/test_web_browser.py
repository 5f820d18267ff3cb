"""The web board in a real browser: Playwright drives Debian's chromium against a real
``ninefold serve`` process (its SQLite file in a temporary folder).

The tests take screenshots of the main screens; with ``NINEFOLD_SHOTS=docs/images`` they
go to ``docs/images/`` (the docs show them), else to a temporary folder."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from accessibility import assert_accessible
from conftest import chromium_missing
from controls import control, wait_until
from needs import require
from playwright.sync_api import Browser, BrowserContext, Page, expect
from webserver import start_server, stop_server

from ninefold.records import Game
from ninefold.rules import Board

require("Debian's chromium", chromium_missing(), module=True)


def status(page: Page) -> str:
    return page.get_by_test_id("status").inner_text()


def new_game(page: Page, server: str, mode: str = "computer", level: str = "1",
             side: str = "x", clock: str = "") -> None:
    page.goto(server + "/")
    page.check(f"input[name=mode][value={mode}]")
    if mode == "computer":
        page.select_option("select[name=level]", level)
    if clock:
        page.select_option("select[name=clock]", clock)
    page.check(f"input[name=side][value={side}]")
    page.click("button[type=submit]")
    expect(page.get_by_test_id("status")).to_contain_text("to move")


def test_a_whole_game_against_level_1(page: Page, server: str, shots: Path):
    new_game(page, server)
    expect(page.locator(".small.allowed")).to_have_count(9)  # play anywhere, said in words
    assert "play anywhere" in status(page)
    page.screenshot(path=str(shots / "web_start.png"))
    for _ in range(81):
        wait_until(page,
            "document.querySelector('.cell.legal') || "
            "document.querySelector('[data-testid=status]').innerText.startsWith('Game over')")
        if status(page).startswith("Game over"):
            break
        before = page.locator(".cell.x, .cell.o").count()
        page.locator(".cell.legal").first.click()
        wait_until(page, f"document.querySelectorAll('.cell.x, .cell.o').length > {before}")
    assert status(page).startswith("Game over")
    assert page.locator(".cell.last").count() == 1
    assert page.get_by_test_id("moves").locator("li").count() >= 9
    page.screenshot(path=str(shots / "web_game_over.png"))


def test_a_reload_restores_the_game_and_the_seat(page: Page, server: str):
    new_game(page, server, level="2")
    page.locator(".cell[data-board='4'][data-cell='4']").click()  # e5
    expect(page.locator(".cell.o")).to_have_count(1)  # the computer answered
    moves = page.get_by_test_id("moves").inner_text()
    page.reload()
    expect(page.locator(".cell.o")).to_have_count(1)
    expect(page.locator(".cell[data-board='4'][data-cell='4']")).to_have_text("X")
    assert page.get_by_test_id("moves").inner_text() == moves
    expect(page.locator(".cell.legal").first).to_be_visible()  # still our seat: we can move


def test_keyboard_play_with_arrows_and_enter(page: Page, server: str):
    new_game(page, server, mode="local")
    page.keyboard.press("ArrowRight")  # from e5 to f5
    page.keyboard.press("Enter")
    expect(page.locator(".cell[data-square='f5']")).to_have_text("X")
    expect(page.get_by_test_id("status")).to_contain_text("O to move")


def test_an_online_game_by_link_with_a_spectator(browser: Browser, server: str,
                                                  shots: Path):
    contexts = [browser.new_context() for _ in range(3)]
    alice, bob, carol = (c.new_page() for c in contexts)
    try:
        new_game(alice, server, mode="online", clock="blitz")
        invite = alice.get_by_test_id("invite").input_value()
        watch = alice.get_by_test_id("watch").input_value()
        assert "#t=" in invite and "#t=" not in watch
        bob.goto(invite)
        carol.goto(watch)
        expect(carol.get_by_test_id("status")).to_contain_text("You are watching")
        expect(bob.get_by_test_id("status")).to_contain_text("Waiting for the other side")
        alice.locator(".cell[data-square='e5']").click()
        expect(bob.locator(".cell[data-square='e5']")).to_have_text("X")  # live, no reload
        expect(carol.locator(".cell[data-square='e5']")).to_have_text("X")
        assert carol.locator(".cell.legal").count() == 0
        carol.locator(".cell[data-square='e4']").click(force=True)  # a spectator's: nothing
        bob.locator(".cell[data-square='e4']").click()
        expect(alice.locator(".cell[data-square='e4']")).to_have_text("O")
        expect(carol.locator(".cell[data-square='e4']")).to_have_text("O")
        time.sleep(0.3)
        assert carol.get_by_test_id("moves").inner_text().split() == ["e5", "e4"]
        # each side's first move was free; now X's clock runs, for everyone
        for page in (alice, bob, carol):
            expect(page.locator(".clock.running")).to_have_attribute("data-side", "x")
            expect(page.get_by_test_id("clock-o")).to_have_text("O 3:00")
        for page in (alice, bob, carol):  # both seats and a spectator: axe-core is content
            assert_accessible(page)
        first = alice.get_by_test_id("clock-x").inner_text()
        expect(alice.get_by_test_id("clock-x")).not_to_have_text(first)  # it counts down
        alice.screenshot(path=str(shots / "web_online.png"))
    finally:
        for c in contexts:
            c.close()


def test_the_server_survives_a_kill_and_every_game_is_still_there(tmp_path, browser: Browser):
    db = tmp_path / "games.sqlite"
    proc, url = start_server(db)
    context = browser.new_context()
    page = context.new_page()
    try:
        new_game(page, url, mode="local")
        page.locator(".cell[data-square='e5']").click()
        expect(page.locator(".cell[data-square='e5']")).to_have_text("X")
        game_url = page.url
        proc.kill()  # kill -9
        proc.wait()
        proc, url2 = start_server(db)
        page.goto(game_url.replace(url, url2))
        expect(page.locator(".cell[data-square='e5']")).to_have_text("X")
        page.locator(".cell[data-square='e4']").click()
        expect(page.locator(".cell[data-square='e4']")).to_have_text("O")
    finally:
        context.close()
        stop_server(proc)
        assert os.path.exists(db)


@pytest.fixture(scope="module")
def arena_server(tmp_path_factory):
    """A server on an arena results database, made by a real `ninefold match` whose bot
    names hold HTML."""
    db = tmp_path_factory.mktemp("arena") / "results.sqlite"
    done = subprocess.run([sys.executable, "-m", "ninefold.cli", "match", "--bot1", "random",
                           "--bot2", "naive", "--name1", "<img src=x onerror=alert(1)>",
                           "--name2", "<b>naive</b>", "-n", "2", "--db", str(db), "--quiet"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    proc, url = start_server(db)
    yield url
    stop_server(proc)


def test_the_replay_hotkeys_step_through_a_stored_arena_game(page: Page, arena_server: str,
                                                             shots: Path):
    page.goto(arena_server + "/arena")
    table = page.get_by_test_id("arena-games")
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(table).to_contain_text("<img src=x onerror=alert(1)>")  # shown as text
    assert table.locator("img, b").count() == 0
    control(page, "arena-game").first.click()
    expect(page.get_by_test_id("status")).to_contain_text("(ply ")
    n = int(re.search(r"of (\d+)", status(page)).group(1))
    assert f"(ply {n} of {n})" in status(page)  # a finished game opens at its end
    # the status numbers moves as the move list does: X's and O's move make one
    moves = page.locator("#moves li")
    last = moves.nth(moves.count() - 1).locator("button").last.inner_text()
    assert f"After {moves.count()}{'.' if n % 2 else '…'} {last} (ply {n} of {n})" in status(page)
    page.keyboard.press("Home")
    expect(page.get_by_test_id("status")).to_contain_text(f"Start (ply 0 of {n})")
    expect(page.locator(".cell.x, .cell.o")).to_have_count(0)
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("status")).to_contain_text(f"(ply 1 of {n})")
    expect(page.locator(".cell.x")).to_have_count(1)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("status")).to_contain_text("After 1. ")
    page.keyboard.press("End")
    expect(page.get_by_test_id("status")).to_contain_text(f"(ply {n} of {n})")
    page.locator("#moves button.move").nth(4).click()  # the move list is clickable
    expect(page.get_by_test_id("status")).to_contain_text("After 3. ")
    expect(page.get_by_test_id("status")).to_contain_text(f"(ply 5 of {n})")
    link = page.get_by_test_id("permalink").input_value()
    assert link.endswith("?ply=5")
    page.keyboard.press(" ")  # autoplay
    expect(page.get_by_test_id("status")).to_contain_text(f"(ply 7 of {n})", timeout=5000)
    page.keyboard.press(" ")
    page.screenshot(path=str(shots / "web_replay.png"))
    assert_accessible(page)
    page.goto(link)  # a position's permanent link
    expect(page.get_by_test_id("status")).to_contain_text(f"(ply 5 of {n})")


def test_the_arena_page_shows_the_standings_and_the_plots(page: Page, arena_server: str,
                                                           shots: Path):
    page.goto(arena_server + "/arena")
    table = page.get_by_test_id("standings")
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(table).to_contain_text("<b>naive</b>")  # a name is text
    expect(page.get_by_test_id("match-line")).to_contain_text("of 2 games")
    images = page.locator("#plots img")
    expect(images).to_have_count(2)
    wait_until(page, "[...document.querySelectorAll('#plots img')]"
                     ".every((i) => i.complete && i.naturalWidth > 100)", timeout=30000)
    page.screenshot(path=str(shots / "web_arena.png"), full_page=True)
    assert_accessible(page)


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_the_analysis_board_tries_moves_and_analyses(page: Page, server: str, shots: Path):
    page.goto(server + "/analysis")
    expect(page.get_by_test_id("status")).to_contain_text("X to move")
    page.locator(".cell[data-square='e5']").click()
    expect(page.locator(".cell[data-square='e5']")).to_have_text("X")
    assert "position=" in page.url
    position = page.get_by_test_id("position").input_value()
    assert position.split()[2] == "o"
    lines = page.get_by_test_id("analysis-lines").locator("li")
    expect(lines.first).to_be_visible(timeout=30000)
    expect(page.get_by_test_id("analysis-info")).not_to_contain_text("searching",
                                                                    timeout=30000)
    page.screenshot(path=str(shots / "web_analysis.png"))
    best = control(page, "line-move").first.inner_text()  # the search is done: it stays
    control(page, "line-move").first.click()  # a line's move is played on the board
    expect(page.locator(f".cell[data-square='{best}']")).to_have_text("O")
    page.go_back()  # a move back is the browser's back
    # each back loads its position: wait for it before the next (a second back while the
    # first is loading races it, and Playwright loses the page)
    expect(page.locator(f".cell[data-square='{best}']")).to_have_text("")
    page.go_back()
    expect(page.locator(".cell[data-square='e5']")).to_have_text("")
    page.goto(server + "/analysis?position=" + position.replace(" ", "%20"))
    page.get_by_role("link", name="with a friend").click()
    expect(page.get_by_test_id("start")).to_have_value(position)
    page.click("button[type=submit]")
    expect(page.get_by_test_id("status")).to_contain_text("O to move")
    expect(page.locator(".cell[data-square='e5']")).to_have_text("X")


def test_a_pasted_record_opens_the_game(page: Page, server: str):
    page.goto(server + "/")
    page.check("input[name=mode][value=local]")
    page.get_by_test_id("start").fill('[Rules "standard"]\n\n1. e5 e4 2. e2 *')
    page.click("button[type=submit]")
    expect(page.get_by_test_id("status")).to_contain_text("O to move")
    assert page.get_by_test_id("moves").inner_text().split() == ["e5", "e4", "e2"]
    page.goto(server + "/")
    page.get_by_test_id("start").fill("<img src=x onerror=alert(1)>")
    page.click("button[type=submit]")
    expect(page.get_by_test_id("setup-error")).to_contain_text("not a game record")


def test_a_phone_in_dark_mode_gets_one_column(browser: Browser, server: str, shots: Path):
    context = browser.new_context(viewport={"width": 390, "height": 844},
                                  device_scale_factor=2, color_scheme="dark",
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        new_game(page, server, mode="local")
        page.locator(".cell[data-square='e5']").tap()
        page.locator(".cell[data-square='e4']").tap()
        expect(page.locator(".cell.x, .cell.o")).to_have_count(2)
        board = page.locator("#board").bounding_box()
        side = page.locator("aside.side").bounding_box()
        assert board and side and side["y"] >= board["y"] + board["height"]  # one column
        assert board["width"] <= 390
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(22, 23, 26)"  # the dark scheme
        page.screenshot(path=str(shots / "web_phone_dark.png"), full_page=True)
    finally:
        context.close()


# --- what a newcomer tried (issue 36): each defect found, and its fix -----------------------


def finished_position() -> str:
    """The position at the end of a game of first legal moves (O wins it)."""
    board = Board()
    while board.outcome() is None:
        board.push(next(iter(board.legal_moves)))
    return board.position()


def pages(browser: Browser, n: int) -> tuple[list[BrowserContext], list[Page]]:
    contexts = [browser.new_context() for _ in range(n)]
    return contexts, [c.new_page() for c in contexts]


def test_resign_says_who_won_to_each_side_and_to_a_spectator(browser: Browser, server: str):
    contexts, (alice, bob, carol) = pages(browser, 3)
    try:
        new_game(alice, server, mode="online")
        bob.goto(control(alice, "invite").input_value())
        carol.goto(control(alice, "watch").input_value())
        expect(carol.get_by_test_id("status")).to_contain_text("You are watching")
        alice.once("dialog", lambda dialog: dialog.accept())
        control(alice, "resign").click()
        expect(alice.get_by_test_id("status")).to_contain_text("Game over: X resigned, 0-1")
        expect(alice.get_by_test_id("verdict")).to_have_text("You lost")
        expect(bob.get_by_test_id("verdict")).to_have_text("You won")
        expect(carol.get_by_test_id("verdict")).to_have_text("O won")
        expect(alice.get_by_test_id("error")).to_have_text("")
        expect(alice.get_by_role("button", name="Resign")).to_be_hidden()
    finally:
        for c in contexts:
            c.close()


def test_a_draw_offer_is_accepted_by_the_other_side(browser: Browser, server: str):
    contexts, (alice, bob) = pages(browser, 2)
    try:
        new_game(alice, server, mode="online")
        bob.goto(alice.get_by_test_id("invite").input_value())
        control(alice, "draw").click()
        expect(alice.get_by_test_id("status")).to_contain_text("You offered a draw")
        expect(alice.get_by_test_id("error")).to_have_text("")
        expect(control(bob, "draw")).to_have_text("Accept draw")
        control(bob, "draw").click()
        for page in (alice, bob):
            expect(page.get_by_test_id("status")).to_contain_text("draw agreed")
            expect(page.get_by_test_id("verdict")).to_have_text("Draw")
    finally:
        for c in contexts:
            c.close()


def test_the_end_of_a_game_on_one_device_names_the_winner(page: Page, server: str):
    new_game(page, server, mode="local")
    page.locator(".cell[data-square='e5']").click()
    expect(page.get_by_test_id("status")).to_contain_text("O to move")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Resign").click()  # O, to move, resigns
    expect(page.get_by_test_id("verdict")).to_have_text("X won")  # one device: both sides


def test_the_end_of_a_game_against_the_computer_says_you_lost(page: Page, server: str):
    new_game(page, server, mode="computer")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Resign").click()
    expect(page.get_by_test_id("verdict")).to_have_text("You lost")


def test_the_host_keeps_the_invite_link_after_a_reload(page: Page, server: str):
    new_game(page, server, mode="online")
    invite = page.get_by_test_id("invite").input_value()
    page.reload()
    expect(page.get_by_test_id("invite")).to_have_value(invite)
    expect(page.get_by_test_id("invite")).to_be_visible()


def test_boards_are_numbered_1_to_9_for_everyone_and_nothing_claims_a_highlight(
        browser: Browser, server: str):
    contexts, (alice, bob, carol) = pages(browser, 3)
    try:
        new_game(alice, server, mode="online")
        bob.goto(alice.get_by_test_id("invite").input_value())
        carol.goto(alice.get_by_test_id("watch").input_value())
        alice.locator(".cell[data-square='e5']").click()  # O must play in the centre board
        for page in (alice, bob, carol):
            expect(page.get_by_test_id("status")).to_contain_text("play in board 5 (d4-f6)")
            assert "highlighted" not in status(page)
        expect(bob.locator(".small.allowed")).to_have_attribute("aria-label", "Board 5")
        assert bob.locator(".cell.legal").first.get_attribute("aria-label").startswith(
            "d4, board 5: empty")
    finally:
        for c in contexts:
            c.close()


def test_the_board_is_groups_of_buttons_to_a_screen_reader(page: Page, server: str):
    new_game(page, server, mode="local")
    board = page.get_by_role("group", name="Ultimate Tic-Tac-Toe board")
    centre = board.get_by_role("group", name="Board 5", exact=True)
    expect(centre.get_by_role("button")).to_have_count(9)
    centre.get_by_role("button", name="e5, board 5: empty, playable").click()
    expect(page.locator(".cell[data-square='e5']")).to_have_text("X")
    assert page.locator("[role=grid], [role=rowgroup], [role=gridcell]").count() == 0


@pytest.mark.parametrize("address", ["/g/" + "a" * 5000, "/g/%3Cscript%3E", "/g/abc%2F..",
                                     "/replay/nope!", "/arena/x"])
def test_an_address_that_names_no_game_says_so_in_a_short_line(page: Page, server: str,
                                                                address: str):
    page.goto(server + address)
    expect(page.get_by_test_id("notice")).to_contain_text("no game at this address")
    assert len(page.get_by_test_id("notice").inner_text()) < 200
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1100  # the viewport's: nothing pushes the page wider
    expect(page.locator("#setup")).to_be_visible()


def test_an_unknown_game_says_so(page: Page, server: str):
    page.goto(server + "/g/abcdefgh")
    expect(page.get_by_test_id("notice")).to_have_text(
        "No game 'abcdefgh' here: check the link, or start a new game below.")


def test_the_game_record_downloads_as_a_file(page: Page, server: str):
    new_game(page, server, mode="local")
    page.locator(".cell[data-square='e5']").click()
    expect(page.locator(".cell[data-square='e5']")).to_have_text("X")
    with page.expect_download() as info:
        control(page, "record").click()
    download = info.value
    assert re.fullmatch(r"ninefold-[A-Za-z0-9_-]+\.txt", download.suggested_filename)
    assert "1. e5" in Path(download.path()).read_text()
    assert "/g/" in page.url  # the page stayed


def test_enter_on_a_square_that_cannot_be_played_says_why(page: Page, server: str):
    new_game(page, server, mode="local")
    page.keyboard.press("Enter")  # e5
    expect(page.locator(".cell[data-square='e5']")).to_have_text("X")
    expect(page.locator(".cell.cursor")).to_have_attribute("data-square", "e4")  # playable
    page.keyboard.press("ArrowDown")  # back to e5
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("error")).to_have_text("e5 is taken (X).")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")  # b5, in board 4
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("error")).to_have_text("b5 is not in board 5: O plays in board 5.")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")  # d4, playable: the note goes
    page.keyboard.press("Enter")
    expect(page.locator(".cell[data-square='d4']")).to_have_text("O")
    expect(page.get_by_test_id("error")).to_have_text("")


def test_a_spectator_who_presses_a_square_is_told_why_nothing_happens(browser: Browser,
                                                                      server: str):
    contexts, (alice, carol) = pages(browser, 2)
    try:
        new_game(alice, server, mode="online")
        carol.goto(alice.get_by_test_id("watch").input_value())
        expect(carol.get_by_test_id("status")).to_contain_text("You are watching")
        carol.locator(".cell[data-square='e5']").click(force=True)  # aria-disabled
        expect(carol.get_by_test_id("error")).to_have_text("You are watching: you cannot move.")
        expect(carol.locator(".cell[data-square='e5']")).to_have_text("")
    finally:
        for c in contexts:
            c.close()


def test_no_page_asks_for_what_is_not_there(page: Page, server: str):
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400
            else None)
    page.on("console", lambda m: failed.append(m.text) if m.type == "error" else None)
    for address in ("/", "/rules", "/classic", "/analysis"):
        page.goto(server + address)
        page.wait_for_load_state("networkidle")
    new_game(page, server, mode="local")
    page.wait_for_load_state("networkidle")
    expect(page.get_by_role("link", name="Contests")).to_be_hidden()  # no platform here
    assert failed == []
    icon = page.request.get(server + "/favicon.ico")
    assert icon.ok and icon.headers["content-type"].startswith("image/svg+xml")


def test_the_arena_without_arena_games_says_how_to_get_some(page: Page, server: str):
    page.goto(server + "/arena")
    expect(page.get_by_test_id("arena-empty")).to_be_visible()
    expect(page.get_by_test_id("arena-empty")).to_contain_text("ninefold match")
    expect(page.get_by_test_id("standings")).to_be_hidden()
    expect(page.get_by_test_id("arena-games")).to_be_hidden()
    assert page.locator("#arena .error").count() == 0


def test_a_finished_position_shows_its_result_not_fifty_fifty(page: Page, server: str):
    position = finished_position()
    page.goto(server + "/analysis?position=" + quote(position))
    expect(page.get_by_test_id("status")).to_contain_text("Game over: 0-1")
    expect(page.locator(".evalbar-text")).to_have_text("O won")
    expect(page.get_by_test_id("analysis-info")).to_contain_text("nothing to analyse")


def test_back_on_the_analysis_board_keeps_the_last_move(page: Page, server: str):
    page.goto(server + "/analysis")
    expect(page.get_by_test_id("status")).to_contain_text("X to move")
    page.locator(".cell[data-square='e5']").click()
    expect(page.locator("#who")).to_have_text("After e5.")
    page.locator(".cell[data-square='e4']").click()
    expect(page.locator("#who")).to_have_text("After e4.")
    page.go_back()
    expect(page.locator("#who")).to_have_text("After e5.")
    expect(page.locator(".cell.last")).to_have_attribute("data-square", "e5")
    expect(page.locator(".cell[data-square='e4']")).to_have_text("")


def test_the_rules_page_explains_the_game_with_a_picture_and_every_page_links_it(
        page: Page, server: str, shots: Path):
    for address in ("/", "/analysis", "/arena", "/classic", "/replay/abcdefgh", "/rules"):
        page.goto(server + address)
        page.get_by_role("navigation", name="Site").get_by_role("link", name="Rules").click()
        expect(page).to_have_url(server + "/rules")
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "How to play Ultimate Tic-Tac-Toe")
    expect(page.locator("main")).to_contain_text("Where you play sends the other player")
    picture = page.get_by_test_id("rules-picture")
    wait_until(page, "(() => { const i = document.querySelector("
                     "'[data-testid=rules-picture]'); return i.complete && "
                     "i.naturalWidth > 100; })()")
    assert "board 9" in (picture.get_attribute("alt") or "").replace("\n", " ").replace(
        "bottom-right board", "board 9")
    page.screenshot(path=str(shots / "web_rules.png"), full_page=True)
    page.get_by_role("link", name="Start a game").click()
    expect(page.locator("#setup")).to_be_visible()


# --- the game page under a stranger's hands (issue 61) --------------------------------------

# A game of random moves one move before X's f6 wins it by boards 1, 5 and 9, 13 moves long
LINE_WIN = ("1. i8 i6 2. g8 c5 3. g5 c4 4. i3 g7 5. a3 a7 6. a1 c2 7. i4 g1 8. b1 d1 "
            "9. a2 c6 10. h8 e5 11. f4 h2 12. f5 i5 13. h4 e2 *")


def from_start(page: Page, server: str, start: str) -> None:
    """A game on one device going on from `start` (a record)."""
    page.goto(server + "/")
    control(page, "mode-local").check()
    control(page, "start").fill(start)
    control(page, "start-game").click()
    expect(page.get_by_test_id("status")).to_contain_text("to move")


def phone(browser: Browser, dark: bool = False) -> BrowserContext:
    return browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                               has_touch=True, color_scheme="dark" if dark else "light")


def test_a_draw_offer_stands_through_the_offerers_move_and_may_be_declined(
        browser: Browser, server: str):
    contexts, (alice, bob, carol) = pages(browser, 3)
    try:
        new_game(alice, server, mode="online")
        bob.goto(control(alice, "invite").input_value())
        carol.goto(control(alice, "watch").input_value())
        expect(control(bob, "decline-draw")).to_be_hidden()
        control(alice, "draw").click()  # on X's own turn
        expect(alice.get_by_test_id("status")).to_contain_text("You offered a draw")
        expect(control(alice, "draw")).to_have_text("Draw offered")
        expect(control(alice, "draw")).to_be_disabled()
        expect(bob.get_by_test_id("status")).to_contain_text("Your opponent offers a draw")
        expect(carol.get_by_test_id("status")).to_contain_text("X offers a draw")
        alice.locator(".cell[data-square='e5']").click()
        expect(bob.locator(".cell[data-square='e5']")).to_have_text("X")
        expect(bob.get_by_test_id("status")).to_contain_text("Your opponent offers a draw")
        expect(control(bob, "draw")).to_have_text("Accept draw")
        control(bob, "decline-draw").click()
        for page in (alice, bob, carol):
            expect(page.get_by_test_id("status")).not_to_contain_text("draw")
        expect(control(alice, "draw")).to_be_enabled()
        expect(control(alice, "draw")).to_have_text("Offer draw")
        expect(control(bob, "decline-draw")).to_be_hidden()
        control(bob, "draw").click()  # O offers on its own turn, X moves instead
        expect(alice.get_by_test_id("status")).to_contain_text("Your opponent offers a draw")
        bob.locator(".cell[data-square='e4']").click()
        expect(alice.locator(".cell[data-square='e4']")).to_have_text("O")
        expect(alice.get_by_test_id("status")).to_contain_text("Your opponent offers a draw")
        alice.locator(".cell[data-square='e3']").click()  # X moved: O's offer lapsed
        expect(bob.locator(".cell[data-square='e3']")).to_have_text("X")
        for page in (alice, bob, carol):
            expect(page.get_by_test_id("status")).not_to_contain_text("draw")
    finally:
        for c in contexts:
            c.close()


def test_undo_looks_disabled_and_waits_for_a_move_of_yours(page: Page, server: str):
    new_game(page, server, side="o")  # level 1 opens at once
    expect(page.locator(".cell.x")).to_have_count(1)
    opening = page.get_by_test_id("moves").inner_text()
    undo = control(page, "undo")
    expect(undo).to_be_disabled()
    assert float(undo.evaluate("el => getComputedStyle(el).opacity")) < 0.6
    undo.click(force=True)  # nothing: the computer's opening is not yours to take back
    time.sleep(0.3)
    assert page.get_by_test_id("moves").inner_text() == opening
    page.locator(".cell.legal").first.click()
    expect(page.locator(".cell.x")).to_have_count(2)
    expect(undo).to_be_enabled()
    assert float(undo.evaluate("el => getComputedStyle(el).opacity")) == 1
    undo.click()
    expect(page.locator(".cell.x, .cell.o")).to_have_count(1)
    assert page.get_by_test_id("moves").inner_text() == opening  # the same opening stays
    expect(undo).to_be_disabled()


# Where each move number's left edge is: an outside list marker's ("10. " set before the
# item, in its font) or a number drawn inside the item.
NUMBER_LEFTS = """() => [...document.querySelectorAll('#moves li')].map((li, i) => {
  const style = getComputedStyle(li);
  const left = li.getBoundingClientRect().left;
  if (style.listStyleType !== 'none' && style.listStylePosition === 'outside') {
    const probe = document.createElement('span');
    probe.style.font = style.font;
    probe.style.whiteSpace = 'pre';
    probe.textContent = `${i + 1}. `;
    document.body.appendChild(probe);
    const width = probe.getBoundingClientRect().width;
    probe.remove();
    return left - width;
  }
  return getComputedStyle(li, '::before').content.includes('counter') ? left : -999;
})"""


def long_record(plies: int = 44) -> str:
    """A record of `plies` random moves (seed 0), the game not over."""
    chance, board = random.Random(0), Board()
    while board.ply < plies:
        board.push(chance.choice(list(board.legal_moves)))
    assert board.outcome() is None
    return str(Game.from_board(board))


@pytest.mark.parametrize("dark", [False, True])
def test_move_numbers_past_9_stay_on_a_phone_screen(browser: Browser, server: str,
                                                    shots: Path, dark: bool):
    context = phone(browser, dark)
    page = context.new_page()
    try:
        from_start(page, server, long_record())  # 22 numbers: 1-11 in the first column
        expect(page.get_by_test_id("moves").locator("li")).to_have_count(22)
        lefts = page.evaluate(NUMBER_LEFTS)
        assert len(lefts) == 22 and min(lefts) >= 0, lefts
        page.screenshot(path=str(shots / f"web_phone_moves{'_dark' if dark else ''}.png"),
                        full_page=True)
    finally:
        context.close()


def test_a_spectators_old_message_goes_when_the_game_moves_on(browser: Browser, server: str):
    contexts, (alice, bob, carol) = pages(browser, 3)
    try:
        new_game(alice, server, mode="online")
        bob.goto(control(alice, "invite").input_value())
        carol.goto(control(alice, "watch").input_value())
        carol.locator(".cell[data-square='e5']").click(force=True)
        expect(carol.get_by_test_id("error")).to_have_text("You are watching: you cannot move.")
        control(alice, "draw").click()
        control(bob, "draw").click()
        expect(carol.get_by_test_id("status")).to_contain_text("draw agreed")
        expect(carol.get_by_test_id("error")).to_have_text("")
        expect(carol.get_by_test_id("status")).not_to_contain_text("watching")
    finally:
        for c in contexts:
            c.close()


def test_the_boards_of_the_winning_line_are_marked(page: Page, server: str, shots: Path):
    from_start(page, server, LINE_WIN)
    expect(page.locator(".small.line")).to_have_count(0)
    page.locator(".cell[data-square='f6']").click()
    expect(page.get_by_test_id("verdict")).to_have_text("X won")
    expect(page.locator(".small.line")).to_have_count(3)
    assert [el.get_attribute("data-board") for el in page.locator(".small.line").all()] == [
        "0", "4", "8"]
    board = page.get_by_role("group", name="Ultimate Tic-Tac-Toe board")
    expect(board.get_by_role("group", name="Board 5, in the winning line")).to_be_visible()
    page.screenshot(path=str(shots / "web_winning_line.png"))
    control(page, "replay-link").click()  # the replay marks it at the end, not before
    expect(page.locator(".small.line")).to_have_count(3)
    control(page, "back").click()
    expect(page.locator(".small.line")).to_have_count(0)


def test_a_host_who_opens_their_own_invite_keeps_their_seat(browser: Browser, server: str):
    contexts, (alice, bob) = pages(browser, 2)
    try:
        new_game(alice, server, mode="online")
        invite = control(alice, "invite").input_value()
        alice.goto(invite)
        expect(alice.get_by_test_id("notice")).to_contain_text("your own game's invite link")
        expect(alice.locator("#who")).to_have_text("You play X.")
        expect(control(alice, "invite")).to_have_value(invite)  # still the host's page
        alice.reload()
        expect(alice.locator("#who")).to_have_text("You play X.")
        bob.goto(invite)  # the invite still holds O's seat for the friend
        expect(bob.locator("#who")).to_have_text("You play O.")
        alice.locator(".cell[data-square='e5']").click()
        bob.locator(".cell[data-square='e4']").click()
        expect(alice.locator(".cell[data-square='e4']")).to_have_text("O")
    finally:
        for c in contexts:
            c.close()


def test_the_game_page_has_one_h1_naming_the_game(page: Page, server: str):
    new_game(page, server)
    expect(page.locator("h1:visible")).to_have_count(1)
    expect(page.get_by_role("heading", level=1)).to_have_text("Game against the computer")
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text("Game against the computer")


def test_an_unknown_games_message_is_at_the_top_of_a_phone_screen(browser: Browser,
                                                                   server: str):
    context = phone(browser)
    page = context.new_page()
    try:
        page.goto(server + "/g/doesnotexist")
        notice = page.get_by_test_id("notice")
        expect(notice).to_contain_text("No game 'doesnotexist' here: check the link")
        box = notice.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844 / 2  # seen at once
        assert page.evaluate("window.scrollY") == 0
    finally:
        context.close()


def test_the_host_reads_waiting_for_the_opponent_until_they_join(browser: Browser,
                                                                 server: str):
    contexts, (alice, bob, carol) = pages(browser, 3)
    try:
        new_game(alice, server, mode="online")
        expect(alice.get_by_test_id("status")).to_contain_text(
            "Waiting for your opponent to open the invite link.")
        alice.locator(".cell[data-square='e5']").click()  # one waiting note, not two
        expect(alice.get_by_test_id("status")).to_contain_text("O to move")
        expect(alice.get_by_test_id("status")).to_contain_text("open the invite link.")
        expect(alice.get_by_test_id("status")).not_to_contain_text("the other side")
        carol.goto(control(alice, "watch").input_value())
        expect(carol.get_by_test_id("status")).to_contain_text("Waiting for O's player to join")
        bob.goto(control(alice, "invite").input_value())
        expect(bob.locator("#who")).to_have_text("You play O.")
        for page in (alice, bob, carol):  # live, no reload
            expect(page.get_by_test_id("status")).not_to_contain_text("join")
            expect(page.get_by_test_id("status")).not_to_contain_text("invite")
        alice.reload()
        expect(alice.get_by_test_id("status")).not_to_contain_text("invite link")
    finally:
        for c in contexts:
            c.close()


def test_the_copy_buttons_copy_the_links(browser: Browser, server: str):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        new_game(page, server, mode="online")
        control(page, "copy-invite").click()
        expect(control(page, "copy-invite")).to_have_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()") == control(
            page, "invite").input_value()
        control(page, "copy-watch").click()
        assert page.evaluate("navigator.clipboard.readText()") == control(
            page, "watch").input_value()
    finally:
        context.close()


def test_without_the_clipboard_copy_selects_the_link(browser: Browser, server: str):
    context = browser.new_context()
    context.add_init_script("navigator.clipboard.writeText = () => Promise.reject("
                            "new DOMException('denied', 'NotAllowedError'));")
    page = context.new_page()
    try:
        new_game(page, server, mode="online")
        control(page, "copy-invite").click()
        selected = page.evaluate("(() => { const f = document.activeElement; return [f.id, "
                                 "f.value.slice(f.selectionStart, f.selectionEnd)]; })()")
        assert selected == ["invite", control(page, "invite").input_value()]
    finally:
        context.close()


def test_the_game_page_names_its_rules_opening_and_clock(page: Page, server: str):
    new_game(page, server, mode="online", clock="blitz")
    expect(page.get_by_test_id("game-rules")).to_have_text("Rules: Standard · clock 3 min + 2 s")
    page.goto(server + "/")
    control(page, "mode-local").check()
    control(page, "rules").select_option("open-boards")
    control(page, "opening").fill("53271")
    control(page, "start-game").click()
    expect(page.get_by_test_id("game-rules")).to_have_text(
        "Rules: Open boards (play on in won boards) · opening 53271")


def test_the_computer_thinking_shows_its_time(page: Page, server: str, shots: Path):
    new_game(page, server, level="10", side="o")  # it opens, about 2 s a move
    thinking = page.get_by_test_id("thinking")
    expect(thinking).to_be_visible(timeout=30_000)
    expect(thinking).to_have_text(re.compile(r"^Computer thinking… \d+\.\d s$"))
    first = thinking.inner_text()
    expect(thinking).not_to_have_text(first)  # it counts
    page.screenshot(path=str(shots / "web_thinking.png"))
    expect(page.locator(".cell.x")).to_have_count(1, timeout=60_000)
    expect(thinking).to_be_hidden()
