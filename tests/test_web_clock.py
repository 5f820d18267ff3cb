"""Clocks of online games: the time a side spends comes off its bank, the increment
goes on (capped for the competition's preset), and a time that runs out ends the game
when it runs out, with no request needed, also after a server restart."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from ninefold.rules import Mark, Move
from ninefold.web.app import create_app
from ninefold.web.computer import Computer
from ninefold.web.errors import Stale
from ninefold.web.games import Mode, WebGame
from ninefold.web.time_control import CLOCKS, WebTimeControl


def online(clock: WebTimeControl) -> tuple[WebGame, dict[str, str]]:
    return WebGame.new("g", Mode.ONLINE, clock=clock)


def test_time_comes_off_the_mover_and_the_increment_goes_on():
    game, tok = online(WebTimeControl(60_000, 1_000))
    game.play(Move.parse("e5"), tok["x"], 0, now=100.0)  # each side's first move is free
    game.play(Move.parse("e4"), tok["o"], 1, now=130.0)
    assert game.left_ms == {"x": 60_000, "o": 60_000} and game.running_since == 130.0
    game.play(Move.parse("e2"), tok["x"], 2, now=132.5)  # X spent 2.5 s, gains 1 s
    assert game.left_ms == {"x": 58_500, "o": 60_000}
    assert game.time_left(133.0) == {"x": 58_500, "o": 59_500}  # O's time runs


def test_the_competition_preset_caps_the_bank():
    game, tok = online(CLOCKS["competition"])
    for ply, (sq, t) in enumerate([("e5", 0.0), ("e4", 0.0), ("e2", 0.1), ("d4", 0.2)]):
        game.play(Move.parse(sq), tok["x" if ply % 2 == 0 else "o"], ply, now=t)
    assert game.left_ms["x"] == 10_000  # 9.9 s + 0.5 s, capped at the bank


def test_a_time_that_ran_out_ends_the_game_and_no_move_lands():
    game, tok = online(WebTimeControl(1_000, 0))
    game.play(Move.parse("e5"), tok["x"], 0, now=0.0)
    game.play(Move.parse("e4"), tok["o"], 1, now=0.0)
    assert not game.settle(0.9) and game.outcome() is None
    assert game.settle(1.0)
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is Mark.O
    assert str(outcome.termination) == "time-forfeit" and game.deadline() is None
    with pytest.raises(Stale):
        game.play(Move.parse("e2"), tok["x"], 2, now=1.1)


def test_resigning_stops_the_clock_where_it_is():
    game, tok = online(WebTimeControl(5_000, 0))
    game.play(Move.parse("e5"), tok["x"], 0, now=0.0)
    game.play(Move.parse("e4"), tok["o"], 1, now=0.0)
    game.resign(tok["x"], now=2.0)
    assert game.left_ms == {"x": 3_000, "o": 5_000} and game.deadline() is None


@pytest.mark.parametrize("mode", [Mode.LOCAL, Mode.COMPUTER])
def test_only_online_games_have_clocks(mode):
    with pytest.raises(ValueError, match="only an online game has a clock"):
        WebGame.new("g", mode, level=1 if mode is Mode.COMPUTER else None,
                    clock=CLOCKS["blitz"])


# --- through the server ---------------------------------------------------------------


@pytest.fixture(scope="module")
def computer():
    c = Computer(workers=1)
    yield c
    c.close()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def start(client) -> tuple[str, str, str]:
    """An online game with a 1 s bank whose X clock runs (each side moved once)."""
    r = client.post("/api/games", json={"mode": "online", "side": "x",
                                        "clock": {"bank_s": 1, "increment_s": 0}})
    assert r.status_code == 201, r.text
    made = r.json()
    gid, x = made["game"]["id"], made["token"]
    o = made["links"]["invite"].split("#t=")[1]
    assert made["game"]["clock"] == {"bank_ms": 1000, "increment_ms": 0, "capped": False,
                                     "x_ms": 1000, "o_ms": 1000, "running": None}
    for ply, (sq, tok) in enumerate([("e5", x), ("e4", o)]):
        r = client.post(f"/api/games/{gid}/moves", json={"move": sq, "ply": ply},
                        headers=auth(tok))
        assert r.status_code == 200, r.text
    assert r.json()["clock"]["running"] == "x"
    return gid, x, o


def wait_result(client, gid: str, timeout: float = 10.0) -> dict:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        view = client.get(f"/api/games/{gid}").json()
        if view["result"] is not None:
            return view
        time.sleep(0.05)
    raise AssertionError("the game did not end")


def test_the_flag_falls_with_no_request_and_watchers_are_told(tmp_path, computer):
    with TestClient(create_app(tmp_path / "w.sqlite", computer)) as client:
        gid, x, _ = start(client)
        with client.websocket_connect(f"/api/games/{gid}/live") as ws:
            ws.receive_json()  # the game as it is
            told = ws.receive_json()  # the next change: X's time ran out
        assert told["result"] == "0-1" and told["termination"] == "time-forfeit"
        assert told["clock"]["x_ms"] == 0 and told["clock"]["running"] is None
        r = client.post(f"/api/games/{gid}/moves", json={"move": "e2", "ply": 2},
                        headers=auth(x))
        assert r.status_code == 409 and "over" in r.json()["detail"]


def test_a_time_that_ran_out_while_the_server_was_down_ends_the_game(tmp_path, computer):
    db = tmp_path / "w.sqlite"
    with TestClient(create_app(db, computer)) as client:
        gid, _, _ = start(client)
    time.sleep(1.1)  # the server is down when X's time runs out
    with TestClient(create_app(db, computer)) as client:
        view = wait_result(client, gid)
    assert view["winner"] == "o" and view["termination"] == "time-forfeit"


@pytest.mark.parametrize("clock, words", [
    ({"bank_s": 0.5}, "greater than or equal to 1"),
    ({"bank_s": 10, "increment_s": 61}, "less than or equal to 60"),
    ("bullet", "clock.preset: Input should be"),
])
def test_bad_clocks_are_refused(tmp_path, computer, clock, words):
    with TestClient(create_app(tmp_path / "w.sqlite", computer)) as client:
        r = client.post("/api/games", json={"mode": "online", "clock": clock})
        assert r.status_code == 422 and words in r.json()["detail"], r.text
        r = client.post("/api/games", json={"mode": "local", "clock": "blitz"})
        assert r.status_code == 422
        assert r.json()["detail"] == "only an online game has a clock"


def test_a_database_from_before_clocks_gains_their_columns(tmp_path):
    import sqlite3

    from ninefold.web.store import GameStore

    db = tmp_path / "old.sqlite"
    with sqlite3.connect(db) as old:  # the table as the first web board made it
        old.execute("CREATE TABLE web_games (id TEXT PRIMARY KEY, created REAL NOT NULL,"
                    " mode TEXT NOT NULL, rules TEXT NOT NULL, opening TEXT, moves TEXT NOT NULL,"
                    " ply INTEGER NOT NULL, seats TEXT NOT NULL, level INTEGER, resigned TEXT,"
                    " draw_offer TEXT, agreed_draw INTEGER NOT NULL DEFAULT 0,"
                    " changes INTEGER NOT NULL DEFAULT 0)")
        old.execute("INSERT INTO web_games (id, created, mode, rules, moves, ply, seats)"
                    " VALUES ('old', 0, 'local', 'standard', 'e5', 1, ?)",
                    ('{"x": "h", "o": "h"}',))
    store = GameStore(db)
    game = store.get("old")
    assert [str(m) for m in game.moves] == ["e5"] and game.clock is None
    new, _ = WebGame.new(store.new_id(), Mode.ONLINE, clock=CLOCKS["rapid"])
    store.add(new)
    assert store.get(new.id).clock == CLOCKS["rapid"]


def test_the_api_offers_the_presets_there_are():
    import typing

    from ninefold.web.views import ClockChoice

    preset = typing.get_args(typing.get_args(typing.get_args(ClockChoice)[0])[0])[0]
    assert set(typing.get_args(preset)) == set(CLOCKS)
