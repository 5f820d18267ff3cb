"""The web board's API through FastAPI's test client (a real app, SQLite file and worker
processes for the computer): games are made and played, and hostile requests get a clear
4xx with a one-line message and change nothing."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time

import pytest
from fastapi.testclient import TestClient

from ninefold.protocols.child import ChildGone
from ninefold.records import read_games, write_game
from ninefold.rules import Board, Move
from ninefold.web.app import MAX_BODY_BYTES, create_app
from ninefold.web.computer import Computer


@pytest.fixture(scope="module")
def computer():
    c = Computer(workers=1)
    yield c
    c.close()


@pytest.fixture
def db(tmp_path):
    return tmp_path / "web.sqlite"


@pytest.fixture
def client(db, computer):
    with TestClient(create_app(db, computer)) as c:
        yield c


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new(client, **body):
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def wait_for(client, game_id, token, ply, timeout=60.0):
    """The game once it has `ply` moves (the computer answered)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        view = client.get(f"/api/games/{game_id}", headers=auth(token)).json()
        if view["ply"] >= ply and not view["thinking"]:
            return view
        time.sleep(0.05)
    raise AssertionError(f"the game did not reach move {ply}")


def test_a_game_against_the_computer_is_played_to_its_end(client):
    made = new(client, mode="computer", level=1, side="x")
    gid, token = made["game"]["id"], made["token"]
    assert made["game"]["you"] == ["x"] and made["game"]["computer"] == "o"
    assert made["links"]["play"] == f"/g/{gid}#t={token}"
    view = made["game"]
    while view["result"] is None:
        move = view["legal"][0]
        r = client.post(f"/api/games/{gid}/moves", json={"move": move, "ply": view["ply"]},
                        headers=auth(token))
        assert r.status_code == 200, r.text
        view = r.json()
        if view["result"] is None and view["turn"] != "x":
            view = wait_for(client, gid, token, view["ply"] + 1)
    assert view["termination"] and view["status"].startswith("Game over")
    record = client.get(f"/api/games/{gid}/record").text
    assert f'[Result "{view["result"]}"]' in record


def test_a_level_that_searches_nothing_answers_with_the_move(client):
    made = new(client, mode="computer", level=1, side="x")
    gid, token = made["game"]["id"], made["token"]
    r = client.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0},
                    headers=auth(token))
    view = r.json()  # the reply is in the move's answer, stored by the same write
    assert view["ply"] == 2 and view["turn"] == "x" and not view["thinking"]
    assert view["version"] == made["game"]["version"] + 1
    made = new(client, mode="computer", level=2, side="o")  # it opens the game at once
    assert made["game"]["ply"] == 1 and made["game"]["turn"] == "o"


def test_a_level_that_searches_thinks_in_a_worker(client):
    made = new(client, mode="computer", level=3, side="x")
    gid, token = made["game"]["id"], made["token"]
    r = client.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0},
                    headers=auth(token))
    assert r.json()["ply"] == 1 and r.json()["thinking"]
    view = wait_for(client, gid, token, 2)
    assert view["turn"] == "x" and view["version"] == made["game"]["version"] + 2


def test_the_computer_moves_first_when_the_human_plays_o(client):
    made = new(client, mode="computer", level=2, side="o")
    view = wait_for(client, made["game"]["id"], made["token"], 1)
    assert view["ply"] == 1 and view["turn"] == "o" and view["you"] == ["o"]


def test_undo_against_the_computer_takes_back_the_pair(client):
    made = new(client, mode="computer", level=1)
    gid, token = made["game"]["id"], made["token"]
    client.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0}, headers=auth(token))
    wait_for(client, gid, token, 2)
    r = client.post(f"/api/games/{gid}/undo", json={"ply": 2}, headers=auth(token))
    assert r.status_code == 200 and r.json()["ply"] == 0


def test_a_game_survives_a_restart(db, computer):
    with TestClient(create_app(db, computer)) as c:
        made = new(c, mode="local", opening="53271")
        gid, token = made["game"]["id"], made["token"]
        c.post(f"/api/games/{gid}/moves", json={"move": made["game"]["legal"][0], "ply": 0},
               headers=auth(token))
    with TestClient(create_app(db, computer)) as c:
        view = c.get(f"/api/games/{gid}", headers=auth(token)).json()
    assert view["ply"] == 1 and view["opening_moves"] == ["f4", "h1", "d3", "a7"]
    assert view["you"] == ["x", "o"]


def online(client):
    made = new(client, mode="online", side="x")
    invite = made["links"]["invite"].split("#t=")[1]
    return made["game"]["id"], made["token"], invite


def test_an_online_game_lets_each_seat_move_only_for_itself(client):
    gid, x, o = online(client)
    assert client.get(f"/api/games/{gid}", headers=auth(o)).json()["you"] == ["o"]
    assert client.get(f"/api/games/{gid}").json()["you"] == []  # a spectator
    r = client.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0}, headers=auth(o))
    assert r.status_code == 403 and "X's move" in r.json()["detail"]
    assert client.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0},
                       headers=auth(x)).status_code == 200
    r = client.post(f"/api/games/{gid}/moves", json={"move": "e4", "ply": 1}, headers=auth(o))
    assert r.status_code == 200 and r.json()["ply"] == 2


def test_draw_offer_and_acceptance_end_an_online_game(client):
    gid, x, o = online(client)
    assert client.post(f"/api/games/{gid}/draw", headers=auth(x)).json()["draw_offer"] == "x"
    view = client.post(f"/api/games/{gid}/draw", headers=auth(o)).json()
    assert view["result"] == "1/2-1/2"


# A game of random moves one move before X's f6 wins it by boards 1, 5 and 9
LINE_WIN = ("1. i8 i6 2. g8 c5 3. g5 c4 4. i3 g7 5. a3 a7 6. a1 c2 7. i4 g1 8. b1 d1 "
            "9. a2 c6 10. h8 e5 11. f4 h2 12. f5 i5 13. h4 e2 *")
LINE_WIN_LAST = "f6"


def test_a_draw_offer_outlasts_the_offerers_move_and_lapses_at_the_opponents(client):
    gid, x, o = online(client)
    client.post(f"/api/games/{gid}/draw", headers=auth(x))  # X offers on its own turn
    view = client.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0},
                       headers=auth(x)).json()
    assert view["draw_offer"] == "x"  # it stands through X's move
    view = client.post(f"/api/games/{gid}/moves", json={"move": "e4", "ply": 1},
                       headers=auth(o)).json()
    assert view["draw_offer"] is None  # O moved instead of accepting: it lapsed


def test_a_draw_offer_can_be_declined_by_the_other_side_only(client):
    gid, x, o = online(client)
    r = client.post(f"/api/games/{gid}/draw/decline", headers=auth(o))
    assert r.status_code == 409 and "no draw offer" in r.json()["detail"]
    client.post(f"/api/games/{gid}/draw", headers=auth(x))
    r = client.post(f"/api/games/{gid}/draw/decline", headers=auth(x))  # its own: no
    assert r.status_code == 409
    assert client.post(f"/api/games/{gid}/draw/decline").status_code == 403  # a spectator
    view = client.post(f"/api/games/{gid}/draw/decline", headers=auth(o)).json()
    assert view["draw_offer"] is None and view["result"] is None


def test_the_host_waits_until_the_invited_player_joins(client):
    gid, x, o = online(client)
    assert client.get(f"/api/games/{gid}", headers=auth(x)).json()["waiting"] == "o"
    before = client.get(f"/api/games/{gid}").json()["version"]
    assert client.post(f"/api/games/{gid}/join", headers=auth(x)).json()["waiting"] == "o"
    assert client.post(f"/api/games/{gid}/join").json()["waiting"] == "o"  # a spectator
    assert client.get(f"/api/games/{gid}").json()["version"] == before  # nothing stored
    with client.websocket_connect(f"/api/games/{gid}/live") as ws:
        assert ws.receive_json()["waiting"] == "o"
        view = client.post(f"/api/games/{gid}/join", headers=auth(o)).json()
        assert view["waiting"] is None and view["you"] == ["o"]
        assert ws.receive_json()["waiting"] is None  # the host's page hears it
    assert new(client, mode="local")["game"]["waiting"] is None


def test_undo_waits_for_a_move_of_yours_when_the_computer_opened(client):
    made = new(client, mode="computer", level=1, side="o")  # level 1 answers at once
    gid, token = made["game"]["id"], made["token"]
    assert made["game"]["ply"] == 1 and made["game"]["undoable"] is False
    r = client.post(f"/api/games/{gid}/undo", json={"ply": 1}, headers=auth(token))
    assert r.status_code == 409 and "no move of yours" in r.json()["detail"]
    view = client.get(f"/api/games/{gid}", headers=auth(token)).json()
    assert view["ply"] == 1 and view["moves"] == made["game"]["moves"]  # the same opening
    view = client.post(f"/api/games/{gid}/moves", json={"move": view["legal"][0], "ply": 1},
                       headers=auth(token)).json()
    assert view["ply"] == 3 and view["undoable"] is True
    view = client.post(f"/api/games/{gid}/undo", json={"ply": 3}, headers=auth(token)).json()
    assert view["ply"] == 1 and view["undoable"] is False


def test_a_game_won_by_a_line_names_its_boards(client):
    made = new(client, mode="local", start=LINE_WIN)
    gid, token = made["game"]["id"], made["token"]
    view = made["game"]
    assert view["line"] == []
    view = client.post(f"/api/games/{gid}/moves", headers=auth(token),
                       json={"move": LINE_WIN_LAST, "ply": view["ply"]}).json()
    assert view["winner"] == "x" and view["termination"] == "line"
    assert view["line"] == [0, 4, 8]
    frames = client.get(f"/api/games/{gid}/replay").json()["frames"]
    assert frames[-1]["line"] == [0, 4, 8] and frames[-2]["line"] == []
    resigned = new(client, mode="local")
    view = client.post(f"/api/games/{resigned['game']['id']}/resign",
                       headers=auth(resigned["token"])).json()
    assert view["result"] is not None and view["line"] == []


def test_the_record_names_the_players_date_and_clock_and_reads_back(client):
    made = new(client, mode="online", clock="blitz")
    gid, x = made["game"]["id"], made["token"]
    client.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0}, headers=auth(x))
    text = client.get(f"/api/games/{gid}/record").text
    (game,) = read_games(text)
    tags = game.tags
    assert tags["X"] == tags["O"] == "Anonymous" and tags["TimeControl"] == "180+2"
    assert re.fullmatch(r"\d{4}\.\d{2}\.\d{2}", tags["Date"])
    assert re.fullmatch(r"\d{2}:\d{2}:\d{2}", tags["UTCTime"])
    assert write_game(game) == text  # read and written back, the same text
    assert [str(m) for m in game.moves] == ["e5"]
    again = new(client, mode="local", start=text)  # and it goes on as a pasted start
    assert again["game"]["moves"] == ["e5"]
    made = new(client, mode="computer", level=2, side="o")
    (game,) = read_games(client.get(f"/api/games/{made['game']['id']}/record").text)
    assert (game.tags["X"], game.tags["O"], game.tags["TimeControl"]) == (
        "level:2", "Anonymous", "-")


def test_resigning_ends_the_game(client):
    gid, x, o = online(client)
    view = client.post(f"/api/games/{gid}/resign", headers=auth(o)).json()
    assert view["result"] == "1-0" and view["winner"] == "x"
    r = client.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0}, headers=auth(x))
    assert r.status_code == 409 and "over" in r.json()["detail"]


@pytest.mark.parametrize(("body", "headers", "status", "words"), [
    ('{"move": "e5", "ply": ', {}, 422, "not valid JSON (at character"),  # malformed
    ('{"move": "e5"}', {}, 422, "ply"),
    ('{"move": "z9", "ply": 0}', {}, 422, "cannot read move"),
    ('{"move": "e5", "ply": 3}', {}, 409, "at move 0"),  # a replayed or stale request
    ('{"move": "e5", "ply": 0}', {"Authorization": "Bearer nope"}, 403, "token"),
    ('{"move": "e5", "ply": 0}', {"Authorization": ""}, 403, "token"),
    ('{"move": "' + "x" * MAX_BODY_BYTES + '", "ply": 0}', {}, 413, "bytes"),
])
def test_hostile_moves_get_a_clear_4xx_and_change_nothing(client, body, headers, status,
                                                          words):
    gid, x, _ = online(client)
    sent = {"Content-Type": "application/json", **auth(x), **headers}
    r = client.post(f"/api/games/{gid}/moves", content=body, headers=sent)
    assert r.status_code == status, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and words in detail, detail
    assert client.get(f"/api/games/{gid}").json()["ply"] == 0


def test_a_replayed_move_request_lands_once(client):
    gid, x, _ = online(client)
    body = {"move": "e5", "ply": 0}
    assert client.post(f"/api/games/{gid}/moves", json=body, headers=auth(x)).status_code == 200
    assert client.post(f"/api/games/{gid}/moves", json=body, headers=auth(x)).status_code == 409
    assert client.get(f"/api/games/{gid}").json()["moves"] == ["e5"]


def test_illegal_moves_are_refused(client):
    gid, x, o = online(client)
    client.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0}, headers=auth(x))
    r = client.post(f"/api/games/{gid}/moves", json={"move": "a1", "ply": 1}, headers=auth(o))
    assert r.status_code == 422 and "illegal move a1" in r.json()["detail"]
    assert client.get(f"/api/games/{gid}").json()["moves"] == ["e5"]


@pytest.mark.parametrize(("body", "words"), [
    ({"mode": "computer", "level": 11}, "level"),
    ({"mode": "chess"}, "mode"),
    ({"rules": "boards=square"}, "boards"),
    ({"opening": "00000"}, "opening"),
    ({"mode": "local", "level": 3}, "level"),
])
def test_bad_new_games_are_refused(client, body, words):
    r = client.post("/api/games", json=body)
    assert r.status_code == 422, r.text
    assert words in r.json()["detail"].lower()


def test_unknown_games_are_404(client):
    for r in (client.get("/api/games/nope"), client.get("/api/games/nope/record"),
              client.post("/api/games/nope/moves", json={"move": "e5", "ply": 0})):
        assert r.status_code == 404 and "no game" in r.json()["detail"]


def test_a_server_without_arena_games_says_so(client):
    for path in ("/api/arena", "/api/arena/standings", "/api/arena/plots/ratings.png",
                 "/api/arena/1/replay"):
        r = client.get(path)
        assert r.status_code == 404 and "no arena games" in r.json()["detail"], path
    r = client.get("/api/arena/plots/pie.png")
    assert r.status_code == 404 and r.json()["detail"] == (
        "no plot 'pie': there are ratings, matrix")


def test_the_live_socket_sends_the_game_after_each_change(client):
    gid, x, _ = online(client)
    with client.websocket_connect(f"/api/games/{gid}/live") as ws:
        assert ws.receive_json()["ply"] == 0
        client.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0}, headers=auth(x))
        seen = ws.receive_json()
        assert seen["ply"] == 1 and seen["last"] == "e5" and seen["you"] == []


def test_a_watched_game_is_viewed_once_a_version(client):
    made = new(client, mode="local")
    gid, token = made["game"]["id"], made["token"]
    hub = client.app.state.hub
    with client.websocket_connect(f"/api/games/{gid}/live") as ws:
        assert ws.receive_json()["ply"] == 0
        client.post(f"/api/games/{gid}/moves", json={"move": "e5", "ply": 0}, headers=auth(token))
        seen = ws.receive_json()
        kept = hub.views[gid]
        mine = client.get(f"/api/games/{gid}", headers=auth(token)).json()
        theirs = client.get(f"/api/games/{gid}").json()
        assert hub.views[gid] is kept  # the reads built no view of their own
        assert theirs == seen and mine == {**seen, "you": ["x", "o"]}
    end = time.monotonic() + 10  # the page gone, the server forgets the game's view
    while gid in hub.views and time.monotonic() < end:
        time.sleep(0.01)
    assert gid not in hub.views and gid not in hub.watchers


def test_after_a_restart_the_computer_plays_the_move_it_owed(db, computer):
    from ninefold.rules import Mark
    from ninefold.web.games import Mode, WebGame
    from ninefold.web.store import GameStore

    store = GameStore(db)  # a game stored while the server was down, the computer to move
    game, tokens = WebGame.new(store.new_id(), Mode.COMPUTER, human=Mark.O, level=1)
    store.add(game)
    store.close()
    with TestClient(create_app(db, computer)) as c:
        view = wait_for(c, game.id, tokens["o"], 1)
    assert view["ply"] == 1 and view["turn"] == "o"


def test_a_game_replays_frame_by_frame(client):
    made = new(client, mode="local", opening="53271")
    gid, token = made["game"]["id"], made["token"]
    client.post(f"/api/games/{gid}/moves", json={"move": made["game"]["legal"][0], "ply": 0},
                headers=auth(token))
    film = client.get(f"/api/games/{gid}/replay").json()
    assert film["opening_plies"] == 4 and len(film["moves"]) == 5
    assert len(film["frames"]) == 6 and film["frames"][0]["last"] is None
    assert film["frames"][5]["last"] == film["moves"][4]
    assert client.get("/api/arena").status_code == 404  # not an arena database


def test_the_games_database_opens_while_another_process_writes_it(tmp_path):
    """A new database is switched to WAL even while another connection holds the write
    lock (SQLite does not wait for it there by itself)."""
    import sqlite3
    import threading

    from ninefold.web.games import Mode, WebGame
    from ninefold.web.store import GameStore

    path = tmp_path / "web.sqlite"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")
    releaser = threading.Timer(0.5, writer.rollback)
    releaser.start()
    try:
        store = GameStore(path)
    finally:
        releaser.join()
        writer.close()
    game, _ = WebGame.new(store.new_id(), Mode.COMPUTER, level=1)
    store.add(game)
    assert store.get(game.id) == game
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_the_levels_that_search_nothing_play_without_a_worker():
    """Levels 1 and 2 answer on the event loop: a worker would cost more than the move."""
    computer = Computer(workers=1)
    try:
        for level in (1, 2):
            move = asyncio.run(computer.move(level, Board()))
            assert move in Board().legal_moves
        assert computer._children[0].pid is None, "no worker was started"
    finally:
        computer.close()


def test_a_search_taken_back_leaves_its_worker_for_the_next_move():
    """The answer to a cancelled move is read and dropped: the next move gets its own."""
    computer = Computer(workers=1)
    board = Board()
    board.push(Move(4, 4))

    async def cancelled_then_another() -> Move:
        first = asyncio.ensure_future(computer.move(3, Board()))
        await asyncio.sleep(0.05)
        first.cancel()
        return await computer.move(3, board)

    try:
        assert asyncio.run(cancelled_then_another()) in board.legal_moves
    finally:
        computer.close()


def test_a_worker_that_dies_mid_move_fails_that_move_and_the_next_starts_another():
    computer = Computer(workers=1)

    async def killed_then_another() -> Move:
        first = asyncio.ensure_future(computer.move(3, Board()))
        while computer._children[0].pid is None:
            await asyncio.sleep(0.01)
        os.kill(computer._children[0].pid, signal.SIGKILL)
        with pytest.raises(ChildGone):
            await first
        return await computer.move(3, Board())

    try:
        assert asyncio.run(killed_then_another()) in Board().legal_moves
    finally:
        computer.close()
