"""The proof player on the web board: level 11 in open-boards games where the human
plays O (its worker proves the win on its first move, then looks moves up), refused
elsewhere in one line."""

from __future__ import annotations

import time

import pytest
from controls import control, key
from fastapi.testclient import TestClient
from playwright.sync_api import Page, expect

from ninefold.web.app import create_app
from ninefold.web.computer import Computer
from ninefold.web.games import PROOF_LEVEL


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    computer = Computer(workers=1)
    with TestClient(create_app(tmp_path_factory.mktemp("web") / "web.sqlite", computer)) as c:
        yield c
    computer.close()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def wait_for(client: TestClient, game_id: str, token: str, ply: int) -> dict:
    """The game once the computer answered (its first move proves the win: generous)."""
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
    # its worker proves the win first (seconds, more on a loaded machine)
    expect(page.locator(".cell[data-square='e5']")).to_have_text("X", timeout=180_000)


PROVED = 240_000  # ms: the server proves the win on the page's first request (seconds of CPU)


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
