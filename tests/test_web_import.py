"""Positions and records in and out of the web board: a pasted position string or game
record starts a game there, its record and replay say where it began, and the analysis
board answers any position (and the position after a move)."""

from __future__ import annotations

import pytest
from webserver import app_client

from ninefold.records import read_games
from ninefold.rules import Board

POSITION = "standard 9/9/9/9/4x4/9/9/9/9 o 4 ........."
RECORD = '[Rules "standard"]\n[Opening "53271"]\n[X "<b>me</b>"]\n\n{} *\n'


client = pytest.fixture(scope="module", name="client")(app_client)


def new(client, **body):
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def test_a_position_string_starts_a_game_there(client):
    made = new(client, mode="local", start=POSITION)
    game, token = made["game"], made["token"]
    assert game["position"] == POSITION and game["start"] == POSITION and game["moves"] == []
    r = client.post(f"/api/games/{game['id']}/moves", json={"move": "e4", "ply": 0},
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    record = client.get(f"/api/games/{game['id']}/record").text
    (back,) = read_games(record)
    assert back.tags["Position"] == POSITION and [str(m) for m in back.moves] == ["e4"]
    replay = client.get(f"/api/games/{game['id']}/replay").json()
    assert replay["frames"][0]["position"] == POSITION
    assert replay["frames"][1]["position"] == r.json()["position"]


def test_a_record_starts_a_game_after_its_moves_and_keeps_its_opening(client):
    opening = Board(opening="53271")
    moves = [str(m) for m in opening.move_stack]
    body = " ".join(moves) + " " + str(next(iter(opening.legal_moves)))
    made = new(client, mode="local", start=RECORD.format(body))
    game = made["game"]
    assert game["opening"] == "53271" and game["opening_moves"] == moves
    assert len(game["moves"]) == 1


def test_against_the_computer_from_a_position_it_moves_when_it_is_its_turn(client):
    made = new(client, mode="computer", level=3, side="x", start=POSITION)
    assert made["game"]["computer"] == "o" and made["game"]["thinking"]
    made = new(client, mode="computer", level=1, side="x", start=POSITION)  # at once
    assert made["game"]["computer"] == "o" and made["game"]["turn"] == "x"


@pytest.mark.parametrize("start, words", [
    ("hello", "not a game record or a position"),
    ("standard 9/9/9/9/4x4/9/9/9/9 o 7 .........", "not a position"),
    ("[Rules \"standard\"]\n1. e5 e5 *", "not a game record or a position"),
    ("[Rules \"standard\"]\n1. e5 *\n\n[Rules \"standard\"]\n1. e5 *", "paste one game"),
    ("finished", "over"),
    ("<script>alert(1)</script>", "not a game record or a position"),
])
def test_bad_starts_are_refused_with_one_line(client, start, words):
    if start == "finished":
        board = Board()
        while not board.is_game_over():
            board.push(next(iter(board.legal_moves)))
        start = board.position()
    r = client.post("/api/games", json={"mode": "local", "start": start})
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert words in detail and "\n" not in detail


def test_the_analysis_board_answers_a_position_and_the_one_after_a_move(client):
    assert client.get("/api/position").json()["position"] == Board().position()
    r = client.get("/api/position", params={"position": POSITION})
    assert r.status_code == 200
    view = r.json()
    assert view["turn"] == "o" and view["last"] is None and len(view["legal"]) == 8
    r = client.get("/api/position", params={"position": POSITION, "move": "e4"})
    after = r.json()
    assert after["last"] == "e4" and after["turn"] == "x"
    assert Board.from_position(after["position"]).target == 1


@pytest.mark.parametrize("params", [
    {"position": "nonsense"}, {"position": POSITION, "move": "a1"},
    {"position": POSITION, "move": "z9"}, {"position": "x" * 301}, {"move": "e5e5"},
])
def test_the_analysis_board_refuses_bad_positions_and_moves(client, params):
    r = client.get("/api/position", params=params)
    assert r.status_code == 422 and "\n" not in r.json()["detail"], r.text
