"""The proof player on the web board: level 11 in open-boards games where the human
plays O (its worker reads the shipped strategy on its first move, then looks moves up),
refused elsewhere in one line; ``/proof`` replays the win, says so while the strategy is
prepared, shows a refusal, and keeps its step buttons under the board on a phone."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from controls import control, key
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, Route, expect
from webserver import app_client

from ninefold.players import proof
from ninefold.proof import stored
from ninefold.web.app import create_app
from ninefold.web.computer import Computer
from ninefold.web.games import PROOF_LEVEL

client = pytest.fixture(scope="module", name="client")(app_client)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def wait_for(client: TestClient, game_id: str, token: str, ply: int) -> dict:
    """The game once the computer answered (generous: a loaded machine)."""
    end = time.monotonic() + 240
    while time.monotonic() < end:
        view = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
        if view["ply"] >= ply and not view["thinking"]:
            return view
        time.sleep(0.1)
    raise AssertionError(f"the game did not reach move {ply}")


def test_a_game_against_proof_ends_in_xs_win(client: TestClient):
    r = client.post("/api/games", json={"mode": "computer", "level": PROOF_LEVEL, "side": "o",
                                        "rules": "open-boards"})
    assert r.status_code == 201, r.text
    made = r.json()
    gid, token = made["game"]["id"], made["token"]
    assert made["game"]["computer"] == "x" and made["game"]["level"] == PROOF_LEVEL
    view = wait_for(client, gid, token, 1)
    assert view["moves"] == ["e5"]
    while view["result"] is None:
        r = client.post(f"/api/games/{gid}/moves", json={"move": view["legal"][-1],
                                                         "ply": view["ply"]},
                        headers=auth(token))
        assert r.status_code == 200, r.text
        view = wait_for(client, gid, token, view["ply"] + 2)
    assert view["winner"] == "x" and view["ply"] <= 43
    replay = client.get(f"/api/games/{gid}/replay").json()
    assert replay["x"] == "computer, proof"


@pytest.mark.parametrize("body", [
    {"rules": "standard", "side": "o"},
    {"rules": "open-boards", "side": "x"},
    {"rules": "open-boards", "side": "o", "opening": "53271"},
    {"rules": "open-boards", "side": "o", "start": "1. e5 d4"},
])
def test_proof_is_refused_elsewhere_in_one_line(client: TestClient, body: dict):
    r = client.post("/api/games", json={"mode": "computer", "level": PROOF_LEVEL, **body})
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert "proof" in detail and "open-boards" in detail and "\n" not in detail


def test_the_form_offers_proof_for_open_boards_as_o_only(page: Page, server: str):
    page.goto(server + "/")
    proof = page.locator("select[name=level] option[value='11']")
    expect(proof).to_be_disabled()
    control(page, "rules").select_option("open-boards")
    expect(proof).to_be_disabled()  # you play X: the computer cannot be proof
    control(page, "side-o").check()
    expect(proof).to_be_enabled()
    control(page, "level").select_option("11")
    control(page, "rules").select_option("standard")
    expect(proof).to_be_disabled()
    expect(control(page, "level")).to_have_value("10")
    control(page, "rules").select_option("open-boards")
    control(page, "level").select_option("11")
    control(page, "start-game").click()
    expect(page.locator("#who")).to_have_text("You play O against proof, which never loses.")
    # its worker reads the strategy first (a fraction of a second, more on a loaded machine)
    expect(page.locator(".cell[data-square='e5']")).to_have_text("X", timeout=180_000)


PROVED = 60_000  # ms: the server reads the stored win on the page's first request


def open_proof(page: Page, server: str) -> None:
    page.goto(server + "/proof")
    expect(page.get_by_test_id("status")).to_contain_text("Ply 0:", timeout=PROVED)


def test_the_rules_page_links_to_the_proof(page: Page, server: str):
    page.goto(server + "/rules")
    control(page, "rules-proof").click()
    expect(page).to_have_url(server + "/proof")


def test_the_proof_page_steps_through_the_longest_defence(page: Page, server: str):
    open_proof(page, server)
    status, phase = page.get_by_test_id("status"), page.get_by_test_id("phase")
    expect(status).to_contain_text("X plays e5. X wins within 43 more plies.")
    expect(phase).to_contain_text("Phase 1 of 4: the opening")
    control(page, "proof-last").click()
    expect(status).to_contain_text("Ply 43: Game over", timeout=60_000)
    expect(status).to_contain_text("X")
    expect(phase).to_contain_text("Phase 4 of 4: the harvest")
    control(page, "proof-first").click()
    expect(status).to_contain_text("Ply 0:")
    control(page, "proof-forward").click()
    expect(status).to_contain_text("Ply 1: O to move")
    expect(page.locator(".cell[data-square='e5']")).to_have_text("X")
    control(page, "proof-back").click()
    expect(status).to_contain_text("Ply 0:")
    key(page, "viewer", "End")
    expect(status).to_contain_text("Ply 43:")
    key(page, "viewer", "Home")
    expect(status).to_contain_text("Ply 0:")
    key(page, "viewer", "ArrowRight")
    expect(status).to_contain_text("Ply 1:")
    key(page, "viewer", "ArrowLeft")
    expect(status).to_contain_text("Ply 0:")
    for _ in range(16):  # the opening's 16 plies: X to play ply 17, square k of board k
        key(page, "viewer", "ArrowRight")
    expect(status).to_contain_text("Ply 16: X to move")
    expect(phase).to_contain_text("Phase 2 of 4")


def test_the_proof_page_wins_against_random_and_your_moves(page: Page, server: str):
    open_proof(page, server)
    status = page.get_by_test_id("status")
    control(page, "proof-o-random").check()
    control(page, "proof-last").click()
    expect(status).to_contain_text("Game over: 1-0 (X wins", timeout=60_000)
    control(page, "proof-first").click()
    control(page, "proof-o-you").check()
    control(page, "proof-forward").click()  # X's e5: the line after the start was random O's
    expect(status).to_contain_text("Ply 1: O to move")
    expect(status).to_contain_text("Click a highlighted square for O.")
    control(page, "proof-forward").click()  # O waits for a click
    expect(status).to_contain_text("Ply 1:")
    legal = control(page, "proof-cell").and_(page.locator(".legal"))
    expect(legal).to_have_count(8)
    legal.first.click()
    expect(status).to_contain_text("Ply 2: X to move")
    control(page, "proof-o-longest").check()
    control(page, "proof-last").click()
    expect(status).to_contain_text("Game over: 1-0 (X wins", timeout=60_000)


def test_the_proof_api_refuses_positions_off_the_strategy_in_one_line(client: TestClient):
    first = client.get("/api/proof")
    assert first.status_code == 200, first.text
    assert first.json()["x_move"] == "e5" and first.json()["plies_left"] == 43
    after = client.get("/api/proof", params={"position": first.json()["board"]["position"],
                                             "move": "e5"}).json()
    assert after["longest"] in after["board"]["legal"] and after["phase"] == 1
    for params in ({"position": "standard 9/9/9/9/9/9/9/9/9 x - ........."},
                   {"position": "open-boards 9/9/9/9/9/9/9/9/9 x - .........", "move": "a1"},
                   {"move": "j10"}, {"position": "nonsense"}):
        r = client.get("/api/proof", params=params)
        assert r.status_code == 422, r.text
        assert "\n" not in r.json()["detail"], r.json()


def test_the_proof_api_answers_503_with_the_stage_until_the_strategy_is_read(
        client: TestClient, monkeypatch):
    """A request that finds the strategy not ready within a second is told what is being
    done (503), and the strategy is prepared meanwhile; once read, the answer is the step."""
    release = threading.Event()
    read = stored.load

    def held(path: Path) -> stored.Stored:  # reading the file waits for the test
        release.wait(60)
        return read(path)

    monkeypatch.setattr(stored, "load", held)
    monkeypatch.setattr(proof, "_made", [])
    first = client.get("/api/proof")
    assert first.status_code == 503, first.text
    assert first.json()["detail"] == ("X's forced win is being prepared: reading the stored "
                                      "strategy")
    assert not proof.ready()
    release.set()
    end = time.monotonic() + 60
    while (answer := client.get("/api/proof")).status_code == 503 and time.monotonic() < end:
        time.sleep(0.05)
    assert answer.status_code == 200 and answer.json()["x_move"] == "e5", answer.text


def fulfil(route: Route, status: int, detail: str) -> None:
    route.fulfill(status=status, content_type="application/json",
                  body=json.dumps({"detail": detail}))


def test_the_proof_page_shows_the_preparation_and_then_the_win(page: Page, server: str):
    asked: list[str] = []

    def preparing_twice(route: Route) -> None:
        asked.append(route.request.url)
        if len(asked) <= 2:
            fulfil(route, 503, "X's forced win is being prepared: 1 of 2, proving it")
        else:
            route.continue_()

    page.route("**/api/proof*", preparing_twice)
    page.goto(server + "/proof")
    status = page.get_by_test_id("status")
    expect(status).to_have_text("X's forced win is being prepared: 1 of 2, proving it…")
    expect(status).to_contain_text("X plays e5. X wins within 43 more plies.", timeout=PROVED)
    assert len(asked) == 3


def test_a_refusal_is_shown_and_stepping_raises_no_error(page: Page, server: str):
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    open_proof(page, server)
    status = page.get_by_test_id("status")
    for name, ply in (("proof-forward", 1), ("proof-back", 0), ("proof-last", 43),
                      ("proof-first", 0)):
        control(page, name).click()
        expect(status).to_contain_text(f"Ply {ply}:", timeout=60_000)
    expect(page.get_by_test_id("error")).to_be_empty()
    page.route("**/api/proof?*move=*", lambda route: fulfil(
        route, 422, "X's strategy does not reach this position"))
    control(page, "proof-o-random").check()  # the line after the start is asked afresh
    control(page, "proof-forward").click()
    expect(page.get_by_test_id("error")).to_have_text("X's strategy does not reach this "
                                                      "position")
    expect(status).to_contain_text("Ply 0:")
    page.unroute("**/api/proof?*move=*")
    control(page, "proof-forward").click()
    expect(status).to_contain_text("Ply 1:")
    expect(page.get_by_test_id("error")).to_be_empty()
    refused = "Failed to load resource: the server responded with a status of 422"
    assert [e for e in errors if not e.startswith(refused)] == []  # the browser logs the 422


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_the_step_buttons_sit_right_under_the_board(browser: Browser, server: str,
                                                              shots: Path, scheme: str):
    context = browser.new_context(viewport={"width": 390, "height": 844},
                                  device_scale_factor=2, color_scheme=scheme,
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        open_proof(page, server)
        board = page.locator("#board").bounding_box()
        forward = control(page, "proof-forward")
        button = forward.bounding_box()
        assert board and button and board["width"] <= 390
        below = button["y"] - (board["y"] + board["height"])
        assert 0 <= below <= 40, (board, button)
        assert button["y"] + button["height"] <= 844  # on the first screen
        forward.tap()
        expect(page.get_by_test_id("status")).to_contain_text("Ply 1:")
        page.screenshot(path=str(shots / f"web_proof_phone_{scheme}.png"))
    finally:
        context.close()


def test_proof_and_classic_link_the_contests_when_the_platform_runs(tmp_path, page: Page,
                                                                    server: str):
    for address in ("/proof", "/classic"):
        page.goto(server + address)  # no platform on this server: the link is hidden
        expect(control(page, "nav-platform")).to_be_hidden()
        expect(control(page, "nav-arena")).to_be_visible()
    computer = Computer(workers=1)
    app = create_app(tmp_path / "web.sqlite", computer,
                     platform_url=f"sqlite:///{tmp_path / 'platform.sqlite'}")
    try:
        with TestClient(app) as client:
            for address in ("/proof", "/classic"):
                html = client.get(address).text
                assert '<a href="/platform" id="nav-platform" data-control="nav-platform">' \
                       'Contests</a>' in html, address
    finally:
        computer.close()
