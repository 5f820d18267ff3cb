"""Several ``ninefold serve`` processes on one real PostgreSQL database: a game with a
seat on each, a computer game played on one and watched on the other (each page
sees every move live, over its own process's WebSocket), a flag fall timed on both
and written once, ``--processes N`` on one port, and the claim that lets one process
search a computer move.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
from webserver import start_server, stop_server
from websockets.sync.client import ClientConnection, connect

from ninefold.web.postgres import Postgres
from ninefold.web.store import ADDED, SCHEMA

pytest_plugins = ["pgserver"]

WAIT_S = 60.0  # the first computer move loads the search


@pytest.fixture(scope="module")
def db(pg_server: Any) -> str:
    return str(pg_server.create_database())


@pytest.fixture(scope="module")
def two_servers(db: str) -> Iterator[tuple[str, str]]:
    """Two server processes on the database `db`: their base URLs."""
    a, url_a = start_server(db)
    try:
        b, url_b = start_server(db)
        try:
            yield url_a, url_b
        finally:
            stop_server(b)
    finally:
        stop_server(a)


def watch(base: str, game_id: str) -> ClientConnection:
    return connect(f"ws{base.removeprefix('http')}/api/games/{game_id}/live")


def view_at(ws: ClientConnection, ply: int) -> dict[str, Any]:
    """The first view the page gets with `ply` moves played (earlier ones skipped)."""
    end = time.monotonic() + WAIT_S
    while True:
        view: dict[str, Any] = json.loads(ws.recv(timeout=max(0.1, end - time.monotonic())))
        if view["ply"] == ply:
            return view
        assert view["ply"] < ply, view


def after_version(ws: ClientConnection, version: int) -> dict[str, Any]:
    """The first view the page gets of a version after `version`: a page may be sent a
    version twice (by its own process, and as the other process's change reaches it)."""
    end = time.monotonic() + WAIT_S
    while True:
        view: dict[str, Any] = json.loads(ws.recv(timeout=max(0.1, end - time.monotonic())))
        if view["version"] != version:
            return view


def play(base: str, game_id: str, token: str, view: dict[str, Any]) -> dict[str, Any]:
    """The first legal move, posted for the side to move."""
    done = httpx.post(f"{base}/api/games/{game_id}/moves",
                      json={"move": view["legal"][0], "ply": view["ply"]},
                      headers={"Authorization": f"Bearer {token}"})
    assert done.status_code == 200, done.text
    answer: dict[str, Any] = done.json()
    return answer


def test_an_online_game_with_a_seat_on_each_process(two_servers: tuple[str, str]) -> None:
    a, b = two_servers
    made = httpx.post(f"{a}/api/games", json={"mode": "online", "side": "x"}).json()
    gid, x = made["game"]["id"], made["token"]
    o = made["links"]["invite"].split("#t=")[1]
    assert httpx.get(f"{b}/api/games/{gid}",
                     headers={"Authorization": f"Bearer {o}"}).json()["you"] == ["o"]
    with watch(a, gid) as page_x, watch(b, gid) as page_o:
        view = view_at(page_x, 0)
        assert view_at(page_o, 0)["moves"] == []
        for ply in range(6):  # X's moves on a, O's on b
            base, token = (a, x) if ply % 2 == 0 else (b, o)
            view = play(base, gid, token, view)
            assert view_at(page_x, ply + 1) == view_at(page_o, ply + 1) == {**view, "you": []}
        resigned = httpx.post(f"{b}/api/games/{gid}/resign",
                              headers={"Authorization": f"Bearer {o}"}).json()
        assert resigned["result"] == "1-0"
        assert view_at(page_x, 6)["result"] == "1-0"


def test_a_flag_falls_once_with_pages_on_both_processes(
        two_servers: tuple[str, str]) -> None:
    a, b = two_servers
    made = httpx.post(f"{a}/api/games", json={
        "mode": "online", "side": "x",
        "clock": {"bank_s": 1, "increment_s": 0, "capped": False}}).json()
    gid, x = made["game"]["id"], made["token"]
    o = made["links"]["invite"].split("#t=")[1]
    with watch(a, gid) as page_x, watch(b, gid) as page_o:
        view = play(a, gid, x, view_at(page_x, 0))
        view = play(b, gid, o, view)  # X's time runs from now, timed on both processes
        for page in (page_x, page_o):
            view_at(page, 2)
            flagged = after_version(page, view["version"])
            assert (flagged["result"], flagged["termination"]) == ("0-1", "time-forfeit")
            assert flagged["version"] == view["version"] + 1  # written once
    time.sleep(0.3)
    assert httpx.get(f"{b}/api/games/{gid}").json()["version"] == view["version"] + 1


def test_a_computer_game_on_one_process_watched_on_the_other(
        two_servers: tuple[str, str]) -> None:
    a, b = two_servers
    made = httpx.post(f"{a}/api/games",
                      json={"mode": "computer", "level": 3, "side": "x"}).json()
    gid, token = made["game"]["id"], made["token"]
    with watch(b, gid) as watcher:
        view = view_at(watcher, 0)
        play(a, gid, token, view)
        mine = view_at(watcher, 1)
        assert mine["thinking"]  # the computer thinks on a (a level that searches)
        answered = view_at(watcher, 2)
        assert answered["turn"] == "x" and not answered["thinking"]
    time.sleep(0.5)  # no second answer from the other process
    assert httpx.get(f"{b}/api/games/{gid}").json()["moves"] == answered["moves"]


def test_processes_share_one_port(db: str) -> None:
    proc, base = start_server(db, 0, "--processes", "2")
    try:
        made = httpx.post(f"{base}/api/games", json={"mode": "local"}, timeout=WAIT_S).json()
        gid, token = made["game"]["id"], made["token"]
        with watch(base, gid) as page:
            view = view_at(page, 0)
            for ply in range(4):  # each request to whichever process the port gives it
                view = play(base, gid, token, view)
                assert view_at(page, ply + 1)["moves"] == view["moves"]
    finally:
        stop_server(proc)


def test_several_processes_need_postgresql(tmp_path: Any) -> None:
    done = subprocess.run([sys.executable, "-m", "ninefold.cli", "serve", "--processes", "2",
                           "--db", str(tmp_path / "g.sqlite")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("error: --processes 2 needs the games in PostgreSQL")
    assert len(done.stderr.strip().splitlines()) == 1


def test_one_process_at_a_time_holds_a_computer_move(db: str) -> None:
    one, other = Postgres(db, SCHEMA, ADDED), Postgres(db, SCHEMA, ADDED)

    async def race() -> list[str]:
        order: list[str] = []

        async def hold(store: Postgres, name: str) -> None:
            async with store.claim("g1"):
                order.append(f"{name} in")
                await asyncio.sleep(0.3)
                order.append(f"{name} out")

        first = asyncio.create_task(hold(one, "one"))
        await asyncio.sleep(0.1)
        await asyncio.gather(first, hold(other, "other"))
        return order

    try:
        order = asyncio.run(race())
        # one holds the claim, then the other; which first is the machine's load's choice
        # (`one` starts 0.1 s ahead, but its claim may take longer than that)
        first, second = order[0].split()[0], order[2].split()[0]
        assert {first, second} == {"one", "other"}
        assert order == [f"{first} in", f"{first} out", f"{second} in", f"{second} out"]
    finally:
        one.close()
        other.close()
