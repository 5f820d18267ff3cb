"""The proof player on the web board: level 11 in open-boards games where the human
plays O (its worker proves the win on its first move, then looks moves up), refused
elsewhere in one line."""

from __future__ import annotations

import time

import pytest
from controls import control
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

