"""What one client may ask of the web board (`ninefold.web.limits.WebLimits`): new games a
minute, the computer's moves and analyses at once, a request's body, a WebSocket's size
and origin. Through FastAPI's test client (clients told apart by ``X-Forwarded-For``,
read by uvicorn's own proxy middleware, as behind a proxy), a real ``ninefold serve``
with a real WebSocket client, and Chromium on a page of another origin."""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
import websockets.sync.client as ws_client
from controls import control
from fastapi.testclient import TestClient
from playwright.sync_api import Page, expect
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from webserver import receive, start_server, stop_server
from websockets.exceptions import ConnectionClosed, InvalidStatus

from ninefold.players.level import forced_move
from ninefold.rules import Board
from ninefold.web.analysis import Analyst
from ninefold.web.app import create_app
from ninefold.web.computer import Computer, instant
from ninefold.web.limits import RateLimit, WebLimits, client_key

START = Board().position()
LONG_MS = 600_000  # an analysis this long ends only when it is stopped


def address(ip: str) -> dict[str, str]:
    """The headers of a request from client `ip` (through the proxy middleware)."""
    return {"X-Forwarded-For": ip}


@pytest.fixture(scope="module")
def computer() -> Iterator[Computer]:
    c = Computer(workers=1)
    yield c
    c.close()


def limited_client(tmp_path, computer: Computer, **limits: Any) -> TestClient:
    """A test client of an app with these `WebLimits`, each request's client address
    taken from its ``X-Forwarded-For`` (uvicorn's middleware, every address trusted)."""
    app = create_app(tmp_path / "web.sqlite", computer, limits=WebLimits(**limits))
    client = TestClient(ProxyHeadersMiddleware(app, trusted_hosts="*"))
    client.app_state = app.state
    return client


# --- new games a minute ------------------------------------------------------------------


def test_a_client_making_games_past_the_default_rate_is_refused_429(tmp_path, computer):
    """30 new games a minute by default (made here in a second or so: the margin is the
    rest of the minute); the 31st is refused with Retry-After, another client is not."""
    with limited_client(tmp_path, computer) as client:
        for _ in range(WebLimits().games_per_minute):
            r = client.post("/api/games", json={"mode": "local"}, headers=address("192.0.2.1"))
            assert r.status_code == 201, r.text
        r = client.post("/api/games", json={"mode": "local"}, headers=address("192.0.2.1"))
        assert r.status_code == 429
        wait = int(r.headers["Retry-After"])
        assert 1 <= wait <= 60
        assert r.json()["detail"] == ("too many new games: at most 30 a minute from one "
                                      f"address (try again in {wait} s)")
        r = client.post("/api/games", json={"mode": "local"}, headers=address("192.0.2.2"))
        assert r.status_code == 201, r.text


def test_the_games_rate_is_a_sliding_minute(tmp_path, computer):
    """Driven by the limit's own clock: a game's slot comes back 60 s after it was made."""
    now = [1000.0]
    with limited_client(tmp_path, computer, games_per_minute=2) as client:
        state = client.app_state
        assert state.new_games.count == 2  # the setting reaches the route's limit
        state.new_games = RateLimit(2, clock=lambda: now[0])

        def make() -> httpx.Response:
            return client.post("/api/games", json={"mode": "online"},
                               headers=address("2001:db8::1"))

        assert make().status_code == 201
        now[0] += 30
        assert make().status_code == 201
        now[0] += 20
        refused = make()
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "10"
        assert refused.json()["detail"].endswith("(try again in 10 s)")
        # the same /64 is the same client: a fresh IPv6 address does not help
        assert client.post("/api/games", json={"mode": "online"},
                           headers=address("2001:db8::2:3")).status_code == 429
        now[0] += 10  # the first game is a minute old
        assert make().status_code == 201
        assert make().status_code == 429


def test_a_client_is_its_address_or_its_ipv6_block():
    assert client_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert client_key("2001:db8:aa:bb::1") == client_key("2001:db8:aa:bb:ffff::9")
    assert client_key("2001:db8:aa:bc::1") != client_key("2001:db8:aa:bb::1")


# --- the computer's moves ----------------------------------------------------------------


class GatedComputer(Computer):
    """The real computer, each move it searches held until the test opens `gate`."""

    def __init__(self) -> None:
        super().__init__(workers=1)
        self.gate = threading.Event()

    async def move(self, level: int, board: Board, client: str = ""):
        while not instant(level) and forced_move(board) is None and not self.gate.is_set():
            await asyncio.sleep(0.01)  # (no thread waits: a cancel ends it at once)
        return await super().move(level, board, client)


def wait_moved(client: TestClient, game_id: str, ply: int) -> dict:
    end = time.monotonic() + 60
    while time.monotonic() < end:
        view = client.get(f"/api/games/{game_id}").json()
        if view["ply"] >= ply and not view["thinking"]:
            return view
        time.sleep(0.05)
    raise AssertionError(f"game {game_id} did not reach ply {ply}")


def test_a_client_may_have_so_many_computer_moves_under_way(tmp_path):
    """With 2 moves under way (searches held back), a client's next game that calls for
    one, and its move that calls for one, are refused 429 and change nothing; another
    client is not refused; once the computer has moved, the client may go on."""
    gated = GatedComputer()
    try:
        app = create_app(tmp_path / "web.sqlite", gated,
                         limits=WebLimits(computer_moves_per_client=2))
        with TestClient(ProxyHeadersMiddleware(app, trusted_hosts="*")) as client:
            me, other = address("198.51.100.1"), address("198.51.100.2")
            opened = [client.post("/api/games", json={"mode": "computer", "level": 5,
                                                      "side": "o"}, headers=me)
                      for _ in range(2)]  # the computer (X) owes the first move of each
            assert [r.status_code for r in opened] == [201, 201]
            assert all(r.json()["game"]["thinking"] for r in opened)
            mine = client.post("/api/games", json={"mode": "computer", "level": 5,
                                                   "side": "x"}, headers=me)
            assert mine.status_code == 201  # the human moves first: nothing owed yet
            game, token = mine.json()["game"]["id"], mine.json()["token"]
            third = client.post("/api/games", json={"mode": "computer", "level": 5,
                                                    "side": "o"}, headers=me)
            assert third.status_code == 429, third.text
            assert third.json()["detail"] == ("the computer is still thinking in 2 of your "
                                              "games: try again once it has moved")
            assert third.headers["Retry-After"] == "2"
            move = client.post(f"/api/games/{game}/moves", json={"move": "e5", "ply": 0},
                               headers={**me, "Authorization": f"Bearer {token}"})
            assert move.status_code == 429
            assert client.get(f"/api/games/{game}").json()["ply"] == 0  # nothing changed
            # a level that searches nothing owes no search: never refused
            quick = client.post("/api/games", json={"mode": "computer", "level": 1,
                                                    "side": "o"}, headers=me)
            assert quick.status_code == 201 and quick.json()["game"]["ply"] == 1
            assert client.post("/api/games", json={"mode": "computer", "level": 5,
                                                   "side": "o"},
                               headers=other).status_code == 201
            gated.gate.set()
            for r in opened:
                wait_moved(client, r.json()["game"]["id"], 1)
            move = client.post(f"/api/games/{game}/moves", json={"move": "e5", "ply": 0},
                               headers={**me, "Authorization": f"Bearer {token}"})
            assert move.status_code == 200, move.text
            assert wait_moved(client, game, 2)["ply"] == 2
    finally:
        gated.gate.set()
        gated.close()


def test_the_computers_workers_take_waiting_moves_client_by_client():
    """One worker, client a's three moves asked before client b's one: b's is searched
    second (a was served last), not fourth."""
    computer = Computer(workers=1)
    order: list[str] = []

    async def ask() -> None:
        tasks = []
        for name, client in [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b")]:
            task = asyncio.ensure_future(computer.move(3, Board(), client))
            task.add_done_callback(lambda _, name=name: order.append(name))
            tasks.append(task)
        await asyncio.gather(*tasks)

    try:
        asyncio.run(ask())
    finally:
        computer.close()
    assert order == ["a1", "b1", "a2", "a3"]


# --- analyses ----------------------------------------------------------------------------


def test_a_client_may_have_two_analyses_under_way_and_the_queue_is_bounded(tmp_path,
                                                                          computer):
    """One slot, 2 analyses per client, 2 waiting in all: a client's third is refused
    (the socket says why and stays open; GET answers 429), another client's waits, and
    once two wait a third client is refused (503) until one is done."""
    with limited_client(tmp_path, computer) as client:
        state = client.app_state
        assert state.analyst.per_client == 2 and state.analyst.max_waiting == 32
        state.analyst = Analyst(slots=1, max_ms=LONG_MS, per_client=2, max_waiting=2)
        a, b, c = address("203.0.113.1"), address("203.0.113.2"), address("203.0.113.3")
        request = {"position": START, "ms": LONG_MS}
        with client.websocket_connect("/api/analysis", headers=a) as first, \
                client.websocket_connect("/api/analysis", headers=a) as second, \
                client.websocket_connect("/api/analysis", headers=a) as third, \
                client.websocket_connect("/api/analysis", headers=b) as theirs, \
                client.websocket_connect("/api/analysis", headers=c) as late:
            first.send_json(request)
            assert receive(first)["type"] == "analysis"  # it holds the one slot
            second.send_json(request)
            assert receive(second) == {"type": "waiting", "ahead": 0}
            third.send_json(request)
            refused = receive(third)
            assert refused == {"type": "error", "detail": "you have 2 analyses under way "
                               "already: wait for one to end, or stop it"}
            r = client.get("/api/analysis", params={"position": START, "ms": 100}, headers=a)
            assert r.status_code == 429 and r.json()["detail"] == refused["detail"]
            assert int(r.headers["Retry-After"]) >= 1
            theirs.send_json(request)  # another client: it waits its turn
            assert receive(theirs) == {"type": "waiting", "ahead": 1}
            late.send_json(request)  # two wait: the server's queue is full
            assert receive(late)["detail"] == ("the server has 2 analyses waiting: try again "
                                               "in a few seconds")
            r = client.get("/api/analysis", params={"position": START, "ms": 100}, headers=c)
            assert r.status_code == 503 and "Retry-After" in r.headers
            first.send_json({"stop": True})  # a's first ends: its second runs
            while (message := receive(second))["type"] == "waiting":
                pass
            assert message["type"] == "analysis"
            third.send_json(request)  # the refused socket is still open: now a's turn
            assert receive(third) == {"type": "waiting", "ahead": 1}
            for ws in (second, third, theirs):
                ws.send_json({"stop": True})


# --- request bodies ----------------------------------------------------------------------


def test_a_body_over_the_setting_is_refused_413_on_every_game_route(tmp_path, computer):
    with limited_client(tmp_path, computer, max_body_bytes=1000) as client:
        made = client.post("/api/games", json={"mode": "local"})
        game = made.json()["game"]["id"]
        padded = json.dumps({"move": "e5", "ply": 0, "pad": "x" * 1000})
        for path in ["/api/games", f"/api/games/{game}/moves", f"/api/games/{game}/undo",
                     f"/api/games/{game}/resign", f"/api/games/{game}/draw",
                     f"/api/games/{game}/join", "/api/classic"]:
            r = client.post(path, content=padded, headers={"Content-Type": "application/json"})
            assert r.status_code == 413, (path, r.text)
            assert r.json()["detail"] == "the body is over 1000 bytes"
        small = client.post(f"/api/games/{game}/moves", json={"move": "e5", "ply": 0},
                            headers={"Authorization": f"Bearer {made.json()['token']}"})
        assert small.status_code == 200


# --- a real server: WebSocket origin and size, the command's options ------------------------

FRIEND = "http://friend.example"


@pytest.fixture(scope="module")
def limited_server(tmp_path_factory) -> Iterator[str]:
    """``ninefold serve`` with 2 new games a minute per client and one other origin
    allowed."""
    proc, url = start_server(tmp_path_factory.mktemp("limits") / "games.sqlite", 0,
                             "--games-per-minute", "2", "--allow-origin", FRIEND)
    yield url
    stop_server(proc)


def new_online_game(base: str, ip: str) -> dict:
    r = httpx.post(base + "/api/games", json={"mode": "online"}, headers=address(ip))
    assert r.status_code == 201, r.text
    return r.json()


def test_serve_games_per_minute_refuses_the_third_game_of_a_client(limited_server):
    for _ in range(2):
        new_online_game(limited_server, "192.0.2.50")
    r = httpx.post(limited_server + "/api/games", json={"mode": "online"},
                   headers=address("192.0.2.50"))
    assert r.status_code == 429 and 1 <= int(r.headers["Retry-After"]) <= 60
    assert "at most 2 a minute" in r.json()["detail"]
    new_online_game(limited_server, "192.0.2.51")  # another client (behind the proxy)


def live_url(base: str, game_id: str) -> str:
    return base.replace("http://", "ws://") + f"/api/games/{game_id}/live"


def test_a_websocket_from_another_origin_is_refused(limited_server):
    game = new_online_game(limited_server, "192.0.2.60")["game"]["id"]
    for url in [live_url(limited_server, game), limited_server.replace("http", "ws") +
                "/api/analysis"]:
        with pytest.raises(InvalidStatus) as refused:
            ws_client.connect(url, origin="http://evil.example", open_timeout=30)
        assert refused.value.response.status_code == 403
        assert b"another origin" in refused.value.response.body
        with pytest.raises(InvalidStatus):  # a port of its own is another origin
            ws_client.connect(url, origin=limited_server.rsplit(":", 1)[0] + ":1",
                              open_timeout=30)
    for origin in [None, limited_server, FRIEND]:  # a script; the server's own; allowed
        with ws_client.connect(live_url(limited_server, game), origin=origin,
                               open_timeout=30) as ws:
            assert json.loads(ws.recv(timeout=30))["id"] == game


def test_a_websocket_message_over_64_kib_closes_the_socket_with_1009(limited_server):
    made = new_online_game(limited_server, "192.0.2.61")
    game, token = made["game"]["id"], made["token"]
    with ws_client.connect(live_url(limited_server, game), open_timeout=30,
                           max_size=None) as ws:
        ws.recv(timeout=30)
        ws.send("x" * 60_000)  # under the limit: ignored, the socket stays open
        r = httpx.post(limited_server + f"/api/games/{game}/moves",
                       json={"move": "e5", "ply": 0}, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200
        assert json.loads(ws.recv(timeout=30))["ply"] == 1
        ws.send("x" * 1_000_000)
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


# --- in Chromium: a page of another origin ------------------------------------------------

OPEN_SOCKET = """(url) => new Promise((done) => {
  const ws = new WebSocket(url);
  ws.onopen = () => { ws.close(); done("open"); };
  ws.onclose = (e) => done(`closed ${e.code}`);
})"""


@pytest.fixture(scope="module")
def other_origin() -> Iterator[str]:
    """A page server on another loopback port: another origin than the game server's."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>another site</title><p>another site</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_page_of_another_origin_cannot_open_the_live_socket(page: Page, limited_server,
                                                              other_origin):
    game = new_online_game(limited_server, "192.0.2.62")["game"]["id"]
    url = live_url(limited_server, game)
    page.goto(other_origin + "/")
    assert page.evaluate(OPEN_SOCKET, url) == "closed 1006"  # the handshake was refused
    page.goto(limited_server + f"/g/{game}")  # the game's own page: the same script opens
    assert page.evaluate(OPEN_SOCKET, url) == "open"


def test_the_start_page_says_in_one_line_when_a_client_made_too_many_games(
        page: Page, limited_server, shots):
    """The page's own client (127.0.0.1) makes its 2 games of the minute, then a third is
    refused: the page stays on the form and says why."""
    for expected in ["to move", "to move", "too many new games"]:
        page.goto(limited_server + "/")
        page.check("input[name=mode][value=local]")
        control(page, "start-game").click()
        if expected == "to move":
            expect(page.get_by_test_id("status")).to_contain_text("to move")
    refusal = page.get_by_role("alert")
    expect(refusal).to_contain_text("too many new games: at most 2 a minute from one address")
    expect(control(page, "start-game")).to_be_visible()  # the form, to try again later
    page.screenshot(path=shots / "web_limits_refused.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=shots / "web_limits_refused_phone_dark.png", full_page=True)


def test_the_test_suites_shared_server_lets_a_test_file_make_all_its_games(server):
    """The browser tests share one server a file and, run quickly, make more than 30
    games a minute from one address: the shared server (conftest's `server`) has no
    games rate (the limit itself is tested above, on servers of its own)."""
    for _ in range(WebLimits().games_per_minute + 5):
        r = httpx.post(server + "/api/games", json={"mode": "local"})
        assert r.status_code == 201, r.text
