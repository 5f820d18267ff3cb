"""Analysis on the web board (`ninefold.web.analysis`) through FastAPI's test client: a
real app and a real worker process. One analysis at a time (slots=1) for the whole module,
with a long time limit, so that only a stop can explain a search that ends early."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import sys
import time
from urllib.parse import quote

import pytest
from controls import control
from fastapi.testclient import TestClient
from playwright.sync_api import Page, expect
from webserver import receive

from ninefold.players import LADDER, parse_spec
from ninefold.players.analysis import MIN_VISITS
from ninefold.rules import Board, Move
from ninefold.web.analysis import MAX_MS, MIN_MS, PLAYER, AnalysisError, Analyst, check_ms
from ninefold.web.app import create_app
from ninefold.web.computer import Computer
from ninefold.web.notation import side

START = Board().position()
AFTER_E5 = "standard 9/9/9/9/4x4/9/9/9/9 o 4 ........."
# O to move; c9 wins the game at once (checked in the test that uses it)
O_WINS = ("standard 2oo2o1x/1ox2oxoo/o1o3xo1/3x2xxx/3xoo1x1/ooooxxo1o/oxxx1ox1x/xoxx1o1x1/"
          "ox1x2x2 o - o..o.x.xx")
LONG_MS = 600_000  # ten minutes: a search this long that ends was stopped


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(tmp_path_factory.mktemp("analysis") / "web.sqlite", Computer(workers=1))
    # the lifespan closes this one; one client asks for every analysis here, so no cap
    # on a client's (test_web_limits.py tests it)
    app.state.analyst = Analyst(slots=1, max_ms=LONG_MS, per_client=0)
    with TestClient(app) as c:
        yield c


def analyst(client) -> Analyst:
    return client.app.state.analyst


def until_done(ws) -> list[dict]:
    """Every message up to and including the analysis marked done."""
    messages = [receive(ws)]
    while not (messages[-1]["type"] == "analysis" and messages[-1]["done"]):
        assert messages[-1]["type"] in ("analysis", "waiting"), messages[-1]
        messages.append(receive(ws))
    return messages


def check_sane(snapshot: dict) -> None:
    board = Board.from_position(snapshot["position"])
    assert snapshot["type"] == "analysis" and snapshot["player"] == PLAYER
    assert snapshot["turn"] == side(board.turn)
    assert abs(snapshot["x"] + snapshot["o"] - 1) < 1e-6 and 0 <= snapshot["x"] <= 1
    # an early snapshot may have no move searched enough to score yet; the last has some
    assert len(snapshot["moves"]) <= 8 and (snapshot["moves"] or not snapshot["done"])
    legal = {str(m) for m in board.legal_moves}
    for move in snapshot["moves"]:
        assert move["move"] in legal and move["pv"][0] == move["move"]
        assert 0 <= move["score"] <= 1
        assert move["proven"] is not None or move["visits"] >= MIN_VISITS  # no made-up score
        line = board.copy()
        for step in move["pv"]:  # the line is playable
            line.push(Move.parse(step))


def wait_idle(client, timeout: float = 30.0) -> tuple[int, bool, int]:
    end = time.monotonic() + timeout
    while (state := analyst(client).workers()[0])[1] and time.monotonic() < end:
        time.sleep(0.02)
    return state


def test_the_stream_deepens_then_ends(client):
    with client.websocket_connect("/api/analysis") as ws:
        ws.send_json({"position": START, "ms": 1500})
        messages = until_done(ws)
    assert all(m["type"] == "analysis" and m["position"] == START for m in messages)
    assert len(messages) >= 3
    sims = [m["sims"] for m in messages]
    assert sims == sorted(sims) and sims[0] < sims[-1]
    assert [m["done"] for m in messages] == [False] * (len(messages) - 1) + [True]
    for m in messages:
        check_sane(m)
    last = messages[-1]
    assert last["proven"] is None and last["turn"] == "x"
    visits = [m["visits"] for m in last["moves"]]
    assert visits == sorted(visits, reverse=True)  # best first (nothing proven here)


def test_a_winning_move_comes_first_and_is_proven(client):
    board = Board.from_position(O_WINS)
    board.push(Move.parse("c9"))
    assert board.outcome() is not None and str(board.outcome().winner) == "O"
    with client.websocket_connect("/api/analysis") as ws:
        ws.send_json({"position": O_WINS, "ms": 500})
        last = until_done(ws)[-1]
    check_sane(last)
    best = last["moves"][0]
    assert best["move"] == "c9" and best["proven"] == "win" and best["score"] == 1.0
    assert last["proven"] == "win" and last["o"] == 1.0 and last["x"] == 0.0


# O to move in board 4 (a4-c6); a4, c4 and b5 each let X win at once
O_HAS_LOSING_MOVES = ("standard xxooxox1o/1xoxxoxx1/ox3x2x/1o3oox1/4ox1xx/1ooo1o1o1/xo1o1x1oo/"
                      "x4oxx1/ox1x1xxoo o 3 x.x.o....")


def test_no_move_is_scored_that_the_search_did_not_look_at(client):
    """O wins at once with c9: the search proves it in one simulation and looks at no
    other move, so the snapshot lists c9 alone, not seven moves at a made-up 50%."""
    with client.websocket_connect("/api/analysis") as ws:
        ws.send_json({"position": O_WINS, "ms": 500})
        last = until_done(ws)[-1]
    assert last["sims"] == 1 and last["proven"] == "win"
    assert [(m["move"], m["proven"], m["score"]) for m in last["moves"]] == [("c9", "win", 1.0)]


def test_a_move_into_a_proven_loss_shows_the_loss(client):
    """Every move shown is proven or searched at least `MIN_VISITS` times; a move that
    lets the other side win at once is shown as a loss, however few its visits."""
    board = Board.from_position(O_HAS_LOSING_MOVES)
    losing = set()
    for move in board.legal_moves:
        after = board.copy()
        after.push(move)
        if any(_wins(after, reply) for reply in after.legal_moves):
            losing.add(str(move))
    assert losing == {"a4", "c4", "b5"}
    with client.websocket_connect("/api/analysis") as ws:
        ws.send_json({"position": O_HAS_LOSING_MOVES, "ms": 300})
        last = until_done(ws)[-1]
    check_sane(last)
    shown = {m["move"]: m for m in last["moves"]}
    assert all(m["proven"] is not None or m["visits"] >= MIN_VISITS for m in shown.values())
    assert losing <= set(shown)
    for move in losing:
        assert shown[move]["proven"] == "loss" and shown[move]["score"] == 0.0
    assert {m["move"] for m in last["moves"][-len(losing):]} == losing  # the losses last


def _wins(board: Board, reply: Move) -> bool:
    after = board.copy()
    after.push(reply)
    outcome = after.outcome()
    return outcome is not None and outcome.winner is not None


def test_a_new_position_supersedes_the_running_one(client):
    with client.websocket_connect("/api/analysis") as ws:
        ws.send_json({"position": START, "ms": LONG_MS})
        first = receive(ws)
        assert first["position"] == START and not first["done"]
        ws.send_json({"position": AFTER_E5, "ms": 300})
        messages = until_done(ws)
    positions = [m["position"] for m in messages]
    switched = positions.index(AFTER_E5)
    assert set(positions[switched:]) == {AFTER_E5}  # nothing for the old one after
    assert not any(m["done"] for m in messages[:switched])
    assert messages[-1]["turn"] == "o"
    assert all(m["move"][0] in "def" and m["move"][1] in "456" for m in messages[-1]["moves"])
    assert not wait_idle(client)[1]


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_closing_the_socket_stops_the_search(client):
    with client.websocket_connect("/api/analysis") as ws:
        ws.send_json({"position": START, "ms": LONG_MS})
        receive(ws)
        receive(ws)
        pid, searching, _ = analyst(client).workers()[0]
        assert searching and pid is not None
    # the worker itself says its search has returned (it was not killed: same process)
    pid_after, searching, sims = wait_idle(client)
    assert not searching and pid_after == pid
    os.kill(pid, 0)  # alive, waiting for work
    cpu = cpu_seconds(pid)
    time.sleep(0.5)
    assert analyst(client).workers()[0][2] == sims  # not one simulation more
    assert cpu_seconds(pid) - cpu < 0.2  # and no CPU burning (a search would use ~0.5 s)


def finished_position() -> str:
    rng = random.Random(7)
    board = Board()
    while not board.is_game_over():
        board.push(rng.choice(list(board.legal_moves)))
    return board.position()


def test_hostile_messages_get_an_error_and_the_socket_stays_usable(client):
    hostile = [
        "not json",
        "[1, 2]",
        "{}",
        '{"position": 5}',
        '{"position": null}',
        json.dumps({"position": "standard 9/9"}),
        json.dumps({"position": "standard 9/9/9/9/9/9/9/9/9 o - ........."}),  # O first
        json.dumps({"position": finished_position()}),
        json.dumps({"position": START, "ms": "fast"}),
        json.dumps({"position": START, "ms": True}),
        json.dumps({"position": START, "ms": -5}),
        json.dumps({"position": START, "ms": 0}),
        '{"position": "' + START + '", "ms": NaN}',
        json.dumps({"position": "x" * 5000}),
        json.dumps({"position": "standard " + "9/" * 300}),
        "[" * 900 + "]" * 900,
        '{"position": "' + START + '"',
    ]
    with client.websocket_connect("/api/analysis") as ws:
        for text in hostile:
            ws.send_text(text)
            answer = receive(ws)
            assert answer["type"] == "error", (text, answer)
            detail = answer["detail"]
            assert detail and "\n" not in detail and len(detail) < 300, (text, detail)
        ws.send_bytes(json.dumps({"position": START}).encode())
        assert receive(ws)["type"] == "error"
        ws.send_json({"stop": True})  # stops nothing, answers nothing
        ws.send_json({"position": START, "ms": 300})
        messages = until_done(ws)
    assert messages[-1]["done"] and messages[-1]["position"] == START


def test_the_get_route_answers_the_last_snapshot(client):
    r = client.get("/api/analysis", params={"position": AFTER_E5, "ms": 300})
    assert r.status_code == 200, r.text
    body = r.json()
    check_sane(body)
    assert body["done"] and body["position"] == AFTER_E5 and body["sims"] > 0
    schema = client.get("/openapi.json").json()
    get = schema["paths"]["/api/analysis"]["get"]
    assert get["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/Snapshot")
    for params, wanted in [
        ({"position": "standard 9/9"}, "5 fields"),
        ({"position": finished_position()}, "game is over"),
        ({"position": START, "ms": "soon"}, "ms"),
        ({"position": START, "ms": -1}, "ms"),
        ({"position": START, "ms": "inf"}, "ms"),
        ({}, "position"),
    ]:
        r = client.get("/api/analysis", params=params)
        assert r.status_code == 422, (params, r.text)
        detail = r.json()["detail"]
        assert isinstance(detail, str) and "\n" not in detail and wanted in detail, detail


def test_times_are_capped():
    assert check_ms(None, MAX_MS) == MAX_MS
    assert check_ms(10**400, MAX_MS) == MAX_MS
    assert check_ms(1e300, MAX_MS) == MAX_MS
    assert check_ms(1, MAX_MS) == MIN_MS
    assert check_ms(2500, MAX_MS) == 2500
    for bad in ("5", True, -(10**400), float("nan"), [1]):
        with pytest.raises(AnalysisError):
            check_ms(bad, MAX_MS)


def test_beyond_the_bound_requests_wait_their_turn(client):
    assert analyst(client).slots == 1
    with (client.websocket_connect("/api/analysis") as a,
          client.websocket_connect("/api/analysis") as b,
          client.websocket_connect("/api/analysis") as c):
        a.send_json({"position": START, "ms": 1500})
        assert receive(a)["type"] == "analysis"
        b.send_json({"position": AFTER_E5, "ms": 300})
        assert receive(b) == {"type": "waiting", "ahead": 0}
        c.send_json({"position": O_WINS, "ms": 300})
        assert receive(c) == {"type": "waiting", "ahead": 1}
        assert until_done(a)[-1]["position"] == START
        served_b = until_done(b)
        assert {m["type"] for m in served_b} == {"analysis"}
        assert served_b[-1]["position"] == AFTER_E5
        served_c = until_done(c)
        assert served_c[0] == {"type": "waiting", "ahead": 0}  # b went ahead
        assert served_c[-1]["position"] == O_WINS
    assert len(analyst(client).workers()) == 1


def test_the_analysis_searches_as_level_10_does():
    """The default player is level 10's search (the network), on one thread, a draw
    worth half a win (what the scores say)."""
    name, options = parse_spec(PLAYER)
    level_name, level = parse_spec(LADDER[10])
    assert name == level_name and options["net"] == level["net"] == "default"
    assert options["threads"] == 1 and options["draw"] == 0.5 and "ms" not in options


def test_the_analysis_runs_the_player_it_is_given():
    """`Analyst(player=...)`: the pure search as readily as the network's, each snapshot
    naming it; a spec that is no MCTS player fails the analysis with a message."""

    async def analyse(analyst: Analyst) -> list[dict]:
        seen: list[dict] = []

        async def note(data: dict) -> None:
            seen.append(data)

        try:
            await analyst.run(analyst.job(AFTER_E5, 300), note)
        finally:
            analyst.close()
        return seen

    seen = asyncio.run(analyse(Analyst(slots=1, player="mcts:threads=1")))
    assert seen[-1]["done"] and seen[-1]["sims"] > 0 and seen[-1]["moves"]
    assert {s["player"] for s in seen} == {"mcts:threads=1"}
    with pytest.raises(AnalysisError, match="not an MCTS player"):
        asyncio.run(analyse(Analyst(slots=1, player="random")))


# O to move in board 7, whose one empty square is f7: a forced move.
FORCED_F7 = ("standard 1xx1o1x1o/3xo2o1/1oo1x2x1/2o1x1o2/4o4/1o2xx1x1/x2oo3x/3xxo2x/ox1xooox1 "
             "o 7 .........")


def test_the_computer_plays_a_forced_move_at_once_without_a_worker():
    """Level 10 (and the proof player) answer a forced move on the event loop: no worker
    is started, no search is run (level 10 would otherwise search for two seconds)."""
    board = Board.from_position(FORCED_F7)
    assert [str(m) for m in board.legal_moves] == ["f7"]
    computer = Computer(workers=1)
    try:
        for level in (10, 5):
            assert str(asyncio.run(computer.move(level, board))) == "f7"
        assert computer._children[0].pid is None, "no worker was started"
    finally:
        computer.close()


# --- in the browser: the panel and the replay's analysis ------------------------------


def test_the_panel_lists_only_moves_with_a_score(page: Page, server: str):
    """The analysis board on O_WINS: the proof after one simulation shows c9 as a win,
    and no other move at 50%; "1 simulation", not "1 simulations"."""
    page.goto(f"{server}/analysis?position={quote(O_WINS)}")
    info = page.get_by_test_id("analysis-info")
    expect(info).to_contain_text("proven win for O", timeout=120_000)  # a first compile
    expect(info).to_contain_text("1 simulation in")
    expect(info).not_to_contain_text("simulations")
    lines = page.get_by_test_id("analysis-lines").locator("li")
    expect(lines).to_have_count(1)
    expect(lines.first).to_have_text(re.compile(r"^\s*win\s*c9\s*$"))


def local_game(page: Page, server: str, start: str, moves: list[str]) -> str:
    """A game on one device from `start`, `moves` played; its id."""
    created = page.request.post(f"{server}/api/games",
                                data={"mode": "local", "start": start}).json()
    game_id, token = created["game"]["id"], created["token"]
    for ply, move in enumerate(moves):
        answer = page.request.post(f"{server}/api/games/{game_id}/moves",
                                   data={"move": move, "ply": ply},
                                   headers={"Authorization": f"Bearer {token}"})
        assert answer.ok, answer.text()
    return game_id


def test_a_line_move_on_a_replay_shows_that_move_not_the_games(page: Page, server: str):
    """A replay at a position where the game went another way than the line: clicking
    the line's move opens the analysis board after that move (Back comes back to the
    replay there); where the line's move is the game's own, the replay steps to it."""
    game_id = local_game(page, server, O_WINS, ["e1"])  # O missed c9, the win
    page.goto(f"{server}/replay/{game_id}?ply=0")
    expect(page.get_by_test_id("status")).to_contain_text("(ply 0 of 1)")
    control(page, "analyse").click()
    expect(control(page, "line-move")).to_have_text(["c9"], timeout=60_000)
    control(page, "line-move").click()
    expect(page).to_have_url(re.compile(r"/analysis\?position=.*&move=c9$"))
    expect(page.locator(".cell[data-square='c9']")).to_have_text("O")
    expect(page.locator(".cell[data-square='e1']")).to_have_text("")
    expect(page.get_by_test_id("status")).to_contain_text("Game over: 0-1")
    page.go_back()
    expect(page.get_by_test_id("status")).to_contain_text("(ply 0 of 1)")
    game_id = local_game(page, server, O_WINS, ["c9"])  # O took it: the line is the game's
    page.goto(f"{server}/replay/{game_id}?ply=0")
    control(page, "analyse").click()
    expect(control(page, "line-move")).to_have_text(["c9"], timeout=60_000)
    control(page, "line-move").click()
    expect(page.get_by_test_id("status")).to_contain_text("(ply 1 of 1)")
    assert f"/replay/{game_id}" in page.url


def line_move(page: Page, first: str, move: str):
    """The button of `move` in the analysis line that starts with `first`."""
    line = page.get_by_test_id("analysis-lines").locator("li").filter(
        has=page.locator("button.first", has_text=re.compile(f"^{first}$")))
    return line.locator('[data-control="line-move"]', has_text=re.compile(f"^{move}$"))


def test_a_click_on_a_line_held_across_a_snapshot_still_plays_it(page: Page, server: str):
    """The lines are updated in place: a click pressed before a new snapshot and released
    after it plays the move under the pointer (the buttons rebuilt at each snapshot lost
    it: press and release fell on two different buttons)."""
    page.goto(f"{server}/analysis?position={quote(START)}")
    info = page.get_by_test_id("analysis-info")
    expect(info).to_contain_text("(searching…)", timeout=400_000)  # (a first compile)
    button = page.get_by_test_id("analysis-lines").locator('[data-control="line-move"]').nth(1)
    box = button.bounding_box()
    assert box is not None
    before = info.text_content()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    expect(info).not_to_have_text(before or "")  # a snapshot came while the button was held
    page.mouse.up()
    expect(page.locator(".cell", has_text="X")).to_have_count(1)
    expect(page.locator(".cell", has_text="O")).to_have_count(1)


def test_a_later_move_of_a_line_shows_the_line_up_to_it(page: Page, server: str):
    """Every move of a line is a button: on the analysis board it plays the line up to it
    (Back takes the moves back one by one); on a replay it steps the replay where the line
    is the game's, else opens the analysis board there."""
    page.goto(f"{server}/analysis?position={quote(O_HAS_LOSING_MOVES)}")
    expect(page.get_by_test_id("analysis-info")).to_contain_text(  # (a first compile)
        "simulations", timeout=400_000)
    line_move(page, "a4", "e3").click()  # a4 loses to e3 at once
    expect(page.get_by_test_id("status")).to_contain_text("Game over: 1-0")
    expect(page.locator(".cell[data-square='a4']")).to_have_text("O")
    expect(page.locator(".cell[data-square='e3']")).to_have_text("X")
    page.go_back()
    expect(page.locator(".cell[data-square='e3']")).to_have_text("")
    expect(page.locator(".cell[data-square='a4']")).to_have_text("O")
    game_id = local_game(page, server, O_HAS_LOSING_MOVES, ["a4", "e3"])  # the line itself
    page.goto(f"{server}/replay/{game_id}?ply=0")
    control(page, "analyse").click()
    line_move(page, "a4", "e3").click()
    expect(page.get_by_test_id("status")).to_contain_text("(ply 2 of 2)")
    assert f"/replay/{game_id}" in page.url
    game_id = local_game(page, server, O_HAS_LOSING_MOVES, ["a6"])  # another way
    page.goto(f"{server}/replay/{game_id}?ply=0")
    control(page, "analyse").click()
    line_move(page, "a4", "e3").click()
    expect(page).to_have_url(re.compile(r"/analysis\?position=.*&move=e3$"))
    expect(page.get_by_test_id("status")).to_contain_text("Game over: 1-0")
    expect(page.locator(".cell[data-square='a4']")).to_have_text("O")
    expect(page.locator(".cell[data-square='a6']")).to_have_text("")
