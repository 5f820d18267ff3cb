"""The web board's game reviews: the API, the store, bad input (`ninefold.web.review`)."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient
from reviewgames import blunder_game

from ninefold.review import evaluate
from ninefold.web.app import create_app
from ninefold.web.computer import Computer
from ninefold.web.review import Reviewer

PLIES = 4  # the blunder game's last moves, played from the position before them


@pytest.fixture(scope="module")
def computer():
    c = Computer(workers=1)
    yield c
    c.close()


class Counted:
    """`evaluate` (the real analysis, in this process), counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, position: str, ms: float):
        self.calls += 1
        return evaluate(position, ms)


def serve(db, computer, analyse) -> TestClient:
    app = create_app(db, computer)
    app.state.reviewer = Reviewer(ms=30, workers=0, analyse=analyse)
    return TestClient(app)


def short_game(client) -> tuple[str, list[str]]:
    """A finished local game: the blunder game's last `PLIES` moves from the position
    before them; its id and moves."""
    board, _, _ = blunder_game()
    moves = [str(m) for m in board.move_stack[-PLIES:]]
    for _ in range(PLIES):
        board.pop()
    made = client.post("/api/games", json={"mode": "local", "start": board.position()}).json()
    token = made["token"]
    for ply, move in enumerate(moves):
        r = client.post(f"/api/games/{made['game']['id']}/moves", json={"move": move, "ply": ply},
                        headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
    assert r.json()["result"] is not None
    return made["game"]["id"], moves


def finished(client, key: str, timeout: float = 600) -> dict:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        status = client.get(f"/api/reviews/{key}").json()
        if status["state"] != "running":
            return status
        time.sleep(0.05)
    raise AssertionError("the review did not end")


def test_a_review_is_made_once_and_stored(tmp_path, computer):
    db = tmp_path / "web.sqlite"
    counted = Counted()
    with serve(db, computer, counted) as client:
        game_id, moves = short_game(client)
        first = client.post(f"/api/games/{game_id}/review")
        assert first.status_code == 200, first.text
        key = first.json()["key"]
        assert first.json()["link"] == f"/review/{key}"
        status = finished(client, key)
        assert status["state"] == "done", status
        rev = status["review"]
        assert [p["move"] for p in rev["plies"]] == moves
        assert rev["plies"][-2]["label"] == "blunder" and rev["ms"] == 30
        assert rev["accuracy"]["x"] is not None and rev["result"] == "0-1"
        assert counted.calls == PLIES + 1
        again = client.post(f"/api/games/{game_id}/review").json()
        assert again["state"] == "done" and again["review"] == rev
        # the same game given by its moves (as an arena's or a record's) is the same review
        same = client.post("/api/reviews", json={"start": rev["start"], "moves": moves}).json()
        assert same["key"] == key and same["state"] == "done"
        replay = client.get(f"/api/reviews/{key}/replay").json()
        assert replay["moves"] == moves and len(replay["frames"]) == PLIES + 1
    assert counted.calls == PLIES + 1
    with serve(db, computer, counted) as client:  # a new server on the same store
        assert client.get(f"/api/reviews/{key}").json()["state"] == "done"
        assert client.post(f"/api/games/{game_id}/review").json()["review"] == rev
    assert counted.calls == PLIES + 1


def test_bad_reviews_are_one_line(tmp_path, computer):
    with serve(tmp_path / "web.sqlite", computer, Counted()) as client:
        r = client.post("/api/games/nosuchid/review")
        assert r.status_code == 404 and r.json()["detail"] == "no game 'nosuchid' here"
        made = client.post("/api/games", json={"mode": "local"}).json()
        r = client.post(f"/api/games/{made['game']['id']}/review")
        assert r.status_code == 422
        assert r.json()["detail"].startswith("the game is not over")
        start = made["game"]["position"]
        r = client.post("/api/reviews", json={"start": start, "moves": ["e5", "e4"]})
        assert r.status_code == 422 and "not over" in r.json()["detail"]
        r = client.post("/api/reviews", json={"start": start, "moves": ["e5", "e5"],
                                              "result": "1-0"})
        assert r.status_code == 422 and "move 2 (e5) cannot be played" in r.json()["detail"]
        r = client.post("/api/reviews", json={"start": "chess", "moves": [], "result": "1-0"})
        assert r.status_code == 422 and "\n" not in r.json()["detail"]
        r = client.get("/api/reviews/" + "0" * 32)
        assert r.status_code == 404 and r.json()["detail"].startswith("no review")
        assert client.get("/api/reviews/nothex").status_code == 422


def test_a_resigned_game_and_a_game_given_by_its_moves_are_reviewed(tmp_path, computer):
    counted = Counted()
    with serve(tmp_path / "web.sqlite", computer, counted) as client:
        made = client.post("/api/games", json={"mode": "local"}).json()
        game_id, token = made["game"]["id"], made["token"]
        client.post(f"/api/games/{game_id}/moves", json={"move": "e5", "ply": 0},
                    headers={"Authorization": f"Bearer {token}"})
        client.post(f"/api/games/{game_id}/resign", json={},
                    headers={"Authorization": f"Bearer {token}"})
        status = finished(client, client.post(f"/api/games/{game_id}/review").json()["key"])
        assert status["state"] == "done" and status["review"]["moves"] == ["e5"]
        assert status["review"]["result"] in ("1-0", "0-1")
        # an arena's game, say, ended by its referee: its moves and its result
        asked = client.post("/api/reviews", json={
            "start": made["game"]["position"], "moves": ["e5", "e4", "d2"], "book": 1,
            "result": "1/2-1/2"})
        assert asked.status_code == 200, asked.text
        rev = finished(client, asked.json()["key"])["review"]
        assert rev["plies"][0]["label"] == "opening" != rev["plies"][1]["label"]
        assert rev["result"] == "1/2-1/2" and len(rev["positions"]) == 4
    assert counted.calls == 2 + 4
