"""The web board under load: many games against the computer at once on one server
process, and a ``kill -9`` of the server in the middle of them.

    .venv/bin/python benchmarks/web_load.py                      # 50 games, a kill mid-run
    .venv/bin/python benchmarks/web_load.py --games 100 --level 2 --kill-after 0

It starts ``ninefold serve`` as a real process on a fresh SQLite file and plays
`--games` games against level `--level` at once, each as a page does: it
creates the game, listens to the game's WebSocket (one socket a game, kept
open, opened again only when the server went away), and plays its first legal
move whenever it is its turn. Once the players have made `--kill-after` moves
in all (by default 10 a game: every game is under way) it kills the server
with SIGKILL and starts it again on the same file and port; every client
reconnects and goes on. At the end every game is read back and must be
finished and whole.

It prints the latency of the players' move requests, of the computer's answers
(from the move's answer to the socket's message with the computer's move), of
the two together (what a player waits from sending a move to seeing the reply),
and of plain reads (``GET /api/games/ID``: the reference, in the same run),
as median, 90th and 99th percentile and worst, and the ratio of each median
to the reads'; then the CPU time each side spent per request (HTTP requests
and socket openings): the server process's (all its threads, from
``/proc/PID/stat``; less noisy than the latencies on a busy machine), its
computer workers' per computer move, and this client's (the 50 clients share
the machine's cores with the server: a client that costs as much as the
server would measure itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import typer
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

app = typer.Typer(add_completion=False)
ANSWER_WAIT_S = 120  # a computer's answer later than this is a failure, not a hang


@dataclass
class Latencies:
    moves: list[float] = field(default_factory=list)
    answers: list[float] = field(default_factory=list)
    turns: list[float] = field(default_factory=list)  # a move sent to the computer's reply
    reads: list[float] = field(default_factory=list)
    retries: int = 0
    with_move: int = 0  # the computer's replies that came in the move's own answer
    requests: int = 0  # HTTP requests and socket openings answered


class Server:
    """``ninefold serve`` on `db`, restartable on the same port."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = 0
        self.proc: subprocess.Popen[str] | None = None
        self.cpu_done = [0.0, 0.0]  # the server's and its workers' CPU s, in processes gone
        self.cpu_from = [0.0, 0.0]  # the same, in the process now, when counting began

    def cpu(self) -> list[float]:
        """CPU seconds the server process (all its threads) and its computer workers
        spent since `count_from`, in every server process started meanwhile."""
        now = self._cpu_now()
        return [d + n - f for d, n, f in zip(self.cpu_done, now, self.cpu_from, strict=True)]

    def count_from(self) -> None:
        """Count CPU time from now on."""
        self.cpu_done, self.cpu_from = [0.0, 0.0], self._cpu_now()

    def _cpu_now(self) -> list[float]:
        if self.proc is None or self.proc.poll() is not None:
            return [0.0, 0.0]
        kids = []  # a worker's parent is the thread that started it: look in each
        for task in Path(f"/proc/{self.proc.pid}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                kids += task.read_text().split()
        return [proc_cpu(self.proc.pid), sum(proc_cpu(int(k)) for k in kids)]

    def start(self) -> str:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ninefold.cli", "serve", "--port", str(self.port),
             "--db", str(self.db), "--games-per-minute", "0",  # one client plays them all
             "--computer-moves-per-client", "0"], stderr=subprocess.PIPE, text=True)
        assert self.proc.stderr is not None
        line = self.proc.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not found:
            raise SystemExit(f"the server did not start: {line.strip()}")
        self.port = int(found.group(1))
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.cpu_done = self.cpu()
            self.cpu_from = [0.0, 0.0]
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def proc_cpu(pid: int) -> float:
    """User and system CPU seconds of process `pid` (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Client:
    """One game's HTTP/1.1 connection, kept alive, and as cheap as a client can be: the
    clients share the machine's cores with the server (a general client such as httpx
    spent as much CPU a request as the server itself). A request is tried again while
    the server is down (the kill), for up to 60 s."""

    def __init__(self, base: str, lat: Latencies) -> None:
        self.host, port = base.removeprefix("http://").split(":")
        self.port, self.lat = int(port), lat
        self.token = ""
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None

    async def request(self, method: str, path: str, body: dict | None = None,
                      ) -> tuple[int, dict]:
        """The status and the JSON of `method` `path` with `body`."""
        end = time.monotonic() + 60
        while True:
            try:
                async with asyncio.timeout(60):
                    answer = await self._once(method, path, body)
                self.lat.requests += 1
                return answer
            except (OSError, asyncio.IncompleteReadError, TimeoutError):
                self.close()
                if time.monotonic() > end:
                    raise
                self.lat.retries += 1
                await asyncio.sleep(0.2)

    async def _once(self, method: str, path: str, body: dict | None) -> tuple[int, dict]:
        if self.streams is None:
            self.streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.streams
        data = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
                f"Content-Length: {len(data)}\r\nContent-Type: application/json\r\n"
                + (f"Authorization: Bearer {self.token}\r\n" if self.token else "") + "\r\n")
        writer.write(head.encode() + data)
        status = int((await reader.readuntil(b"\r\n")).split()[1])
        length = 0
        for line in (await reader.readuntil(b"\r\n\r\n")).split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return status, json.loads(await reader.readexactly(length))


async def play_one(base: str, level: int, lat: Latencies, started: asyncio.Event,
                   think_ms: float = 0.0) -> str:
    """One game against the computer, as a page plays it; returns its id. With
    `think_ms`, the player thinks about that long (0.5 to 1.5 times) before each move."""
    rng = random.Random(id(started))
    async with Client(base, lat) as client:
        status, made = await client.request(
            "POST", "/api/games", {"mode": "computer", "level": level, "side": "x"})
        if status != 201:
            raise RuntimeError(f"a new game: {status} {made}")
        gid, client.token = made["game"]["id"], made["token"]
        started.set()
        view = made["game"]
        async with Watch(base, gid, lat) as watch:
            while view["result"] is None:
                sent = None
                if view["turn"] == "x" and not view["thinking"]:
                    if think_ms:
                        await asyncio.sleep(rng.uniform(0.5, 1.5) * think_ms / 1000)
                    t0 = sent = time.monotonic()
                    status, answer = await client.request(
                        "POST", f"/api/games/{gid}/moves",
                        {"move": view["legal"][0], "ply": view["ply"]})
                    if status == 409:  # the server restarted between: read it again
                        view = (await client.request("GET", f"/api/games/{gid}"))[1]
                        continue
                    if status != 200:
                        raise RuntimeError(f"game {gid}: a move: {status} {answer}")
                    lat.moves.append(1000 * (time.monotonic() - t0))
                    view = answer
                if view["result"] is None and (view["turn"] != "x" or view["thinking"]):
                    t0 = time.monotonic()
                    try:
                        view = await watch.until(view["ply"] + 1)
                    except TimeoutError:
                        raise RuntimeError(f"game {gid}: move {view['ply'] + 1} never came "
                                           f"({ANSWER_WAIT_S} s)") from None
                    lat.answers.append(1000 * (time.monotonic() - t0))
                    if sent is not None:
                        lat.turns.append(1000 * (time.monotonic() - sent))
                elif sent is not None and view["result"] is None:  # the reply came with it
                    lat.with_move += 1
                    lat.turns.append(lat.moves[-1])
                t0 = time.monotonic()
                status, _ = await client.request("GET", f"/api/games/{gid}")
                if status != 200:
                    raise RuntimeError(f"game {gid}: a read: {status}")
                lat.reads.append(1000 * (time.monotonic() - t0))
        return gid


class Watch:
    """A game's socket, kept open and read as a page reads it (every message, the newest
    view kept), and opened again if the server went away."""

    def __init__(self, base: str, gid: str, lat: Latencies) -> None:
        self.url = base.replace("http", "ws", 1) + f"/api/games/{gid}/live"
        self.gid, self.lat = gid, lat
        self.latest: dict | None = None
        self.news = asyncio.Event()
        self.reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Watch:
        self.reader = asyncio.create_task(self._read())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader

    async def _read(self) -> None:
        while True:
            try:
                async with connect(self.url, open_timeout=10) as ws:
                    self.lat.requests += 1
                    async for message in ws:
                        self.latest = json.loads(message)
                        self.news.set()
            except (TimeoutError, OSError, WebSocketException):
                self.lat.retries += 1
                await asyncio.sleep(0.2)

    async def until(self, ply: int) -> dict:
        """The game once the computer has moved (its view at `ply` or later, not thinking)
        or the game ended."""
        async with asyncio.timeout(ANSWER_WAIT_S):
            while True:
                view = self.latest
                if view is not None and (
                        (view["ply"] >= ply and not view["thinking"]) or view["result"]):
                    return view
                self.news.clear()
                await self.news.wait()


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def line(name: str, xs: list[float], ref: float) -> str:
    med = statistics.median(xs) if xs else float("nan")
    return (f"{name:<22} {len(xs):>6} {med:>8.1f} {pct(xs, 0.9):>8.1f} {pct(xs, 0.99):>8.1f} "
            f"{max(xs, default=float('nan')):>8.1f} {med / ref:>8.2f}x")


async def run(games: int, level: int, kill_after: int, server: Server, base: str,
              think_ms: float = 0.0) -> int:
    lat = Latencies()
    started = [asyncio.Event() for _ in range(games)]
    t0, client_cpu = time.monotonic(), time.process_time()
    server.count_from()
    tasks = [asyncio.create_task(play_one(base, level, lat, s, think_ms)) for s in started]
    killed = ""
    if kill_after > 0:
        await asyncio.gather(*(s.wait() for s in started))
        while len(lat.moves) < kill_after and not all(t.done() for t in tasks):
            await asyncio.sleep(0.005)
        going = sum(not t.done() for t in tasks)
        server.kill()
        t_kill = time.monotonic()
        server.start()
        killed = (f"server killed (SIGKILL) after {len(lat.moves)} moves, "
                  f"{t_kill - t0:.1f} s, with {going} games going; restarted in "
                  f"{time.monotonic() - t_kill:.1f} s")
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    wall = time.monotonic() - t0
    (server_cpu, workers_cpu), client_cpu = server.cpu(), time.process_time() - client_cpu
    requests = lat.requests
    ids = [o for o in outcomes if isinstance(o, str)]
    bad = [str(o) for o in outcomes if not isinstance(o, str)]
    async with Client(base, lat) as client:
        for gid in ids:
            view = (await client.request("GET", f"/api/games/{gid}"))[1]
            if view.get("result") is None or len(view["moves"]) < 9:
                bad.append(gid)
    ref = statistics.median(lat.reads) if lat.reads else float("nan")
    print(f"{games} games against level {level} on one server process: "
          f"{games - len(bad)} finished and whole after the run, in {wall:.1f} s")
    if killed:
        print(killed + f"; requests tried again meanwhile: {lat.retries}")
    print(f"{'latency, ms':<22} {'count':>6} {'median':>8} {'p90':>8} {'p99':>8} {'worst':>8} "
          f"{'/ read':>9}")
    print(line("player's move (POST)", lat.moves, ref))
    if lat.answers:  # none where every reply came with the move's answer
        print(line("computer's answer", lat.answers, ref))
    print(line("move sent to reply seen", lat.turns, ref))
    print(line("read (GET, reference)", lat.reads, ref))
    if lat.with_move:
        print(f"the computer's reply came with the move's answer {lat.with_move} times "
              f"(a level that searches nothing answers at once)")
    per = 1000 / max(1, requests)
    print(f"CPU time per request ({requests} requests and socket openings): server "
          f"{server_cpu * per:.2f} ms, client {client_cpu * per:.2f} ms; the computer's "
          f"workers {1000 * workers_cpu / max(1, len(lat.answers)):.2f} ms a move")
    if bad:
        print(f"NOT finished or not whole: {', '.join(bad)}")
    return 1 if bad else 0


@app.command()
def main(
    games: int = typer.Option(50, min=1, max=1000, help="Games played at once."),
    level: int = typer.Option(1, min=1, max=10, help="The computer's level."),
    kill_after: int = typer.Option(None, min=0, help="Kill -9 the server once the players "
                                   "have made this many moves in all, and restart it (0: no "
                                   "kill; default: 10 a game)."),
    think_ms: float = typer.Option(0.0, min=0.0, help="Each player thinks this long (0.5 to "
                                   "1.5 times) before each move, as people do (0: at once, "
                                   "a closed loop that keeps the server saturated)."),
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "load.sqlite")
        base = server.start()
        try:
            moves = 10 * games if kill_after is None else kill_after
            status = asyncio.run(run(games, level, moves, server, base, think_ms))
        finally:
            server.stop()
    raise typer.Exit(status)


if __name__ == "__main__":
    app()
