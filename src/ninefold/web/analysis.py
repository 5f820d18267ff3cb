"""Position analysis for the web board, streamed as the search deepens.

An `Analyst` runs analyses in worker processes of its own (each a
`ninefold.protocols.child.Child` running `serve`, ending with the server like the
computer's):
one single-threaded MCTS search per analysis, and at most `Analyst.slots`
analyses at once in the whole server (default `default_slots`: the CPUs less
one, at most `MAX_SLOTS`, so the computer's moves keep a core). A request
beyond that waits its turn, first come first served, and is told so. A client
(`ninefold.web.limits.client_key`) may have `Analyst.per_client` analyses
waiting or running at once, and at most `Analyst.max_waiting` wait in all: a
request past either is refused (`Busy`), and runs nothing.

One analysis is one search that goes on (`MCTSPlayer.search`, from a fresh
tree, by the player `Analyst.player`, default `PLAYER`: level 10's search with
the network, `analysis_spec`; any MCTS spec will do), each snapshot naming that
player (``player``): the worker sends a snapshot
after the first slice (`FIRST_SLICE_MS`), then at gaps growing from
`FIRST_GAP_S` to `MAX_GAP_S`, and a last one (``done``) when the time is up or
the root is proven. A thread reads the worker's pipe meanwhile (`child.Parent`),
so a stop is obeyed within a slice of the search (about a millisecond), however
long it is.

Routes (`router`; `mount` adds them and the analyst to an app):

- ``WS /api/analysis``: send ``{"position": "...", "ms": 3000}`` (``ms``
  optional, at most `MAX_MS`, the default); the answer is a stream of
  ``{"type": "analysis", ...}`` (`Snapshot`), the last with ``done: true``;
  ``{"type": "waiting", "ahead": n}`` while queued behind ``n`` other
  requests; ``{"type": "error", "detail": "..."}`` for a bad message or one
  refused (`Busy`; the socket stays open). Every message sent stops the analysis before it, and
  so does closing the socket; ``{"stop": true}`` only stops.
- ``GET /api/analysis?position=...&ms=...``: the last snapshot, as JSON
  (refused: ``429``, or ``503`` when the server's queue is full, with
  ``Retry-After``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import APIRouter, FastAPI, HTTPException, Query, Request, WebSocket
from pydantic import BaseModel, Field

from ninefold.players.level import analysis_spec
from ninefold.players.player import Limit
from ninefold.protocols.child import Child, ChildGone, Parent
from ninefold.rules import Board
from ninefold.system import usable_cpus
from ninefold.web.limits import WebLimits, client_key, retry_after
from ninefold.web.notation import side

MAX_MS = 10_000.0  # the longest analysis a request gets (and the default)
MIN_MS = 50.0  # a shorter one is made this long
MAX_SLOTS = 2  # analyses at once, at most (each holds a CPU)
TOP_MOVES = 8  # moves in a snapshot
PV_PLIES = 12  # the longest line shown for a move
FIRST_SLICE_MS = 100.0  # the first search, before the first snapshot
FIRST_GAP_S, GAP_GROWTH, MAX_GAP_S = 0.2, 1.5, 2.0  # between snapshots: 0.2, 0.3, ... 2 s
PLAYER = analysis_spec(threads=1)  # a worker's player (one thread; its tree the default
# 2,000,000 nodes, two buffers of about 48 MB)
WORKER = "ninefold.web.analysis:serve"  # a worker's function
CLOSE_WAIT_S = 3.0  # a worker not ended this long after its pipe closed is killed
STOP_WAIT_S = 30.0  # a worker that does not end its search this long after a stop is killed
# (long: a worker just started may still be loading, or on a first run compiling, the search)
MAX_MESSAGE_CHARS = 2000
MAX_POSITION_CHARS = 200
PER_CLIENT = WebLimits().analyses_per_client  # analyses waiting or running, per client
MAX_WAITING = WebLimits().analyses_waiting  # analyses waiting, in all

Proven = Literal["win", "loss", "draw"]


def default_slots() -> int:
    """The CPUs this process may use less one (for the computer's moves), 1 to `MAX_SLOTS`."""
    return max(1, min(MAX_SLOTS, usable_cpus() - 1))


# --- what goes over the wire ---------------------------------------------------------


class MoveLine(BaseModel):
    move: str
    visits: int
    score: float = Field(..., description="Expected score of the side to move after this "
                         "move, 0-1 (a draw counts one half).")
    proven: Proven | None = Field(..., description="Solved exactly, for the side to move.")
    pv: list[str] = Field(..., description="The line the search expects, this move first.")


class Snapshot(BaseModel):
    """What the search thinks of a position so far."""

    type: Literal["analysis"] = "analysis"
    position: str = Field(..., description="The position analysed (as the server writes it).")
    player: str = Field(..., description="The player that searches, as a spec (e.g. "
                        f"{PLAYER!r}).")
    turn: Literal["x", "o"]
    ms: float = Field(..., description="Time searched so far.")
    sims: int = Field(..., description="Simulations run so far.")
    done: bool = Field(..., description="The last snapshot of this analysis.")
    x: float = Field(..., description="Expected score of X, 0-1; x + o == 1.")
    o: float
    proven: Proven | None = Field(..., description="The position solved, for the side to move.")
    moves: list[MoveLine] = Field(..., description=f"Best first, at most {TOP_MOVES}: only "
                                  "moves with a score, proven or searched enough (a move the "
                                  "search hardly tried is left out).")


class Detail(BaseModel):
    detail: str


class AnalysisError(ValueError):
    """A request that cannot be analysed, or an analysis that failed; one line."""

    def __init__(self, text: str) -> None:
        super().__init__(" ".join(text.split()))


class Busy(AnalysisError):
    """An analysis refused for now: the client has its share under way (`status` 429)
    or the server's queue is full (503); `retry_after` seconds is a fair wait."""

    def __init__(self, text: str, status: int, retry_after: float) -> None:
        super().__init__(text)
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True)
class Job:
    board: Board
    ms: float


def check_position(position: str) -> Board:
    try:
        board = Board.from_position(position)
    except ValueError as exc:
        raise AnalysisError(str(exc)) from None
    if board.is_game_over():
        raise AnalysisError("the game is over: there is nothing to analyze")
    return board


def check_ms(ms: object, max_ms: float) -> float:
    """`ms` (None: `max_ms`) within `MIN_MS`..`max_ms`; a number above 0 or AnalysisError."""
    if ms is None:
        return max_ms
    if isinstance(ms, bool) or not isinstance(ms, int | float):
        raise AnalysisError(f"ms must be a number of milliseconds, not {json.dumps(ms)[:40]}")
    value = float(max(-1, min(ms, 10**12)))
    if not math.isfinite(value) or value <= 0:
        raise AnalysisError(f"ms must be a number of milliseconds above 0, not {ms}")
    return min(max(value, MIN_MS), max_ms)


def read_message(text: str, max_ms: float) -> Job | None:
    """The analysis a WebSocket message asks for; None for ``{"stop": true}``."""
    if len(text) > MAX_MESSAGE_CHARS:
        raise AnalysisError(f"the message is over {MAX_MESSAGE_CHARS} characters")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AnalysisError(f"the message is not valid JSON ({exc.msg} at character "
                            f"{exc.pos})") from None
    except (ValueError, RecursionError):
        raise AnalysisError("the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise AnalysisError('the message must be a JSON object: {"position": "...", "ms": 3000}')
    if data.get("stop") is True and "position" not in data:
        return None
    position = data.get("position")
    if position is None:
        raise AnalysisError("the message has no position")
    if not isinstance(position, str):
        raise AnalysisError("position must be a string (a position like the game's)")
    if len(position) > MAX_POSITION_CHARS:
        raise AnalysisError(f"position is over {MAX_POSITION_CHARS} characters")
    return Job(check_position(position), check_ms(data.get("ms"), max_ms))


# --- in a worker process -------------------------------------------------------------


def serve(parent: Parent) -> None:
    """A worker's life: ``("player", spec)`` says which MCTS player analyses (made at
    the first analysis), then analyses one after another, ``("analyze", ident, board,
    ms)``, until the server's end closes. Any message stops the analysis under way (the
    server sends ``("stop", ident)``); each analysis ends with ``("end", ident, error or
    None, simulations)``."""
    from ninefold.players.analysis import analysis_player  # the worker's own imports: numba
    from ninefold.players.mcts import MCTSPlayer

    spec: str = PLAYER
    player: MCTSPlayer | None = None
    for message in parent:
        if message[0] == "player":
            spec, player = message[1], None
        elif message[0] == "analyze":  # not a stop for an analysis that has ended
            _, ident, board, ms = message
            error, sims = None, 0
            try:
                if player is None:
                    player = analysis_player(spec)
                sims = _search(parent, player, ident, board, ms)
            except Exception as exc:
                error = f"the analysis failed: {exc}"
            parent.send(("end", ident, error, sims))


def _gaps(ms: float) -> Iterator[float]:
    """Seconds between snapshots: the first slice, then gaps growing to `MAX_GAP_S`."""
    yield min(FIRST_SLICE_MS, ms) / 1000
    gap = FIRST_GAP_S
    while True:
        yield gap
        gap = min(gap * GAP_GROWTH, MAX_GAP_S)


def _search(parent: Parent, player: Any, ident: int, board: Board, ms: float) -> int:
    """One analysis (`MCTSPlayer.search`, stopped by the next message), its snapshots
    sent, the last (``done``) unless it was stopped; the simulations it ran."""
    player.new_game()  # a fresh tree
    sims = 0
    for snap in player.search(board, Limit(move_ms=ms), parent.halt(), _gaps(ms)):
        sims = snap.sims
        if snap.done and parent.spoke:
            break
        parent.send(("snapshot", ident, _snapshot(player, board, snap)))
    return sims


def _snapshot(player: Any, board: Board, snap: Any) -> dict[str, Any]:
    """A search's `Snapshot` as the web sends it (`Snapshot` here)."""
    from ninefold.players.analysis import shown_moves  # in the worker: numba is loaded

    stats = shown_moves(snap.ranked, TOP_MOVES)
    moves = [{"move": str(stat.move), "visits": stat.visits,
              "score": round(stat.value, 4), "proven": stat.proven,
              "pv": [str(m) for m in player.line(stat.move, PV_PLIES)]} for stat in stats]
    value: float = snap.value if snap.proven is not None or not stats else round(stats[0].value, 4)
    mover = side(board.turn)
    x = value if mover == "x" else 1.0 - value
    return {"type": "analysis", "position": board.position(), "player": player.spec,
            "turn": mover, "ms": round(1000 * snap.seconds, 1), "sims": snap.sims,
            "done": snap.done, "x": round(x, 4), "o": round(1.0 - x, 4), "proven": snap.proven,
            "moves": moves}


# --- in the server -------------------------------------------------------------------


class _Worker:
    """One worker process (a `Child` running `serve`, started when first needed) and
    what it said of its work: searching, and its simulations in all."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.child = Child(WORKER)
        self.searching = False
        self.searched = 0  # simulations of the analyses ended
        self.current = 0  # and of the one under way, as its last snapshot says

    def start(self) -> None:
        if not self.child.running:
            self.child.start()
            self.child.send(("player", self.spec))

    def begin(self, ident: int, job: Job) -> None:
        self.child.send(("analyze", ident, job.board, job.ms))
        self.searching, self.current = True, 0

    def ended(self, sims: int) -> None:
        self.searching, self.current = False, 0
        self.searched += sims

    def kill(self) -> None:
        self.child.kill()
        self.searching, self.current = False, 0

    def close(self) -> None:
        """End the process: its pipe closes, then what does not end within a few seconds
        is killed."""
        self.child.close(CLOSE_WAIT_S)
        self.searching, self.current = False, 0


@dataclass
class _Waiter:
    slot: asyncio.Future[_Worker]
    moved: asyncio.Event


class Analyst:
    """Analyses in worker processes: at most `slots` at once, each at most `max_ms`, by
    the MCTS player `player` (a spec; ``mcts:net=default`` searches with the network);
    at most `per_client` waiting or running for one client, and `max_waiting` waiting
    in all (0: no limit)."""

    def __init__(self, slots: int | None = None, max_ms: float = MAX_MS,
                 player: str = PLAYER, per_client: int = PER_CLIENT,
                 max_waiting: int = MAX_WAITING) -> None:
        self.slots = slots or default_slots()
        self.max_ms = max_ms
        self.player = player
        self.per_client = per_client
        self.max_waiting = max_waiting
        self._clients: Counter[str] = Counter()  # analyses waiting or running, per client
        self._workers = [_Worker(player) for _ in range(self.slots)]
        self._free: deque[_Worker] = deque(self._workers)
        self._queue: deque[_Waiter] = deque()
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()  # stops and streams left running

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold a task the server no longer awaits until it ends."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def workers(self) -> list[tuple[int | None, bool, int]]:
        """(pid, searching, simulations in all) of each worker, as the workers say."""
        return [(w.child.pid, w.searching, w.searched + w.current) for w in self._workers]

    def job(self, position: str, ms: object = None) -> Job:
        return Job(check_position(position), check_ms(ms, self.max_ms))

    async def run(self, job: Job, snapshot: Callable[[dict[str, Any]], Awaitable[None]],
                  waiting: Callable[[int], Awaitable[None]] | None = None,
                  client: str = "") -> None:
        """Analyse `job` for `client`, passing each snapshot (a `Snapshot`'s JSON) to
        `snapshot`, the last with ``done``; `waiting(ahead)` when it has to wait for a
        worker, and each time the queue ahead of it shrinks. Cancelling it stops the
        search. `Busy` (nothing run) when `client` has `per_client` analyses under way
        or `max_waiting` wait already and this one would too."""
        self._admit(client)
        self._clients[client] += 1
        try:
            await self._run(job, snapshot, waiting)
        finally:
            self._clients[client] -= 1
            if not self._clients[client]:
                del self._clients[client]

    def _admit(self, client: str) -> None:
        if 0 < self.per_client <= self._clients[client]:
            raise Busy(f"you have {self._clients[client]} analyses under way already: "
                       "wait for one to end, or stop it", 429, self.max_ms / 1000)
        if 0 < self.max_waiting <= len(self._queue) and not (self._free and not self._queue):
            raise Busy(f"the server has {len(self._queue)} analyses waiting: try again in a "
                       "few seconds", 503, self.max_ms / 1000)

    async def _run(self, job: Job, snapshot: Callable[[dict[str, Any]], Awaitable[None]],
                   waiting: Callable[[int], Awaitable[None]] | None) -> None:
        worker = await self._acquire(waiting)
        ident = next(self._ids)
        ended = False
        try:
            try:
                worker.start()
                worker.begin(ident, job)
                while True:
                    message = await worker.child.receive_async()
                    if message[1] != ident:
                        continue
                    if message[0] == "end":
                        ended = True
                        _, _, error, sims = message
                        worker.ended(sims)
                        if error:
                            raise AnalysisError(error)
                        return
                    worker.current = message[2]["sims"]
                    await snapshot(Snapshot.model_validate(message[2]).model_dump(mode="json"))
            except (OSError, ChildGone):
                ended = True
                worker.kill()
                raise AnalysisError("the analysis stopped: its worker process ended") from None
        finally:
            if ended:
                self._release(worker)
            else:  # cancelled, or the snapshot could not be passed on: stop the search
                stop = asyncio.ensure_future(self._stop(worker, ident))
                self.keep(stop)
                await asyncio.shield(stop)

    async def _stop(self, worker: _Worker, ident: int) -> None:
        """Stop the search `ident`, wait for the worker to say it ended, free the worker."""
        try:
            worker.child.send(("stop", ident))
            async with asyncio.timeout(STOP_WAIT_S):
                while (message := await worker.child.receive_async())[:2] != ("end", ident):
                    pass
            worker.ended(message[3])
        except (ChildGone, TimeoutError):
            worker.kill()
        finally:
            self._release(worker)

    async def _acquire(self, waiting: Callable[[int], Awaitable[None]] | None) -> _Worker:
        if self._free and not self._queue:
            return self._free.popleft()
        me = _Waiter(asyncio.get_running_loop().create_future(), asyncio.Event())
        self._queue.append(me)
        told = -1
        try:
            while True:
                if me.slot.done():
                    return me.slot.result()
                ahead = self._queue.index(me)
                if ahead != told:
                    told = ahead
                    if waiting is not None:
                        await waiting(ahead)
                    continue
                me.moved.clear()
                await me.moved.wait()
        except BaseException:
            if me in self._queue:
                self._queue.remove(me)
                self._moved()
            elif me.slot.done() and not me.slot.cancelled():
                self._release(me.slot.result())
            raise

    def _release(self, worker: _Worker) -> None:
        while self._queue:
            waiter = self._queue.popleft()
            if not waiter.slot.done():
                waiter.slot.set_result(worker)
                waiter.moved.set()
                self._moved()
                return
        self._free.append(worker)

    def _moved(self) -> None:
        for waiter in self._queue:
            waiter.moved.set()

    def close(self) -> None:
        """End the worker processes (a later analysis starts them again)."""
        for worker in self._workers:
            worker.close()


# --- the routes ----------------------------------------------------------------------

router = APIRouter()


@router.get("/api/analysis", response_model=Snapshot,
            responses={code: {"model": Detail} for code in (422, 429, 503)})
async def analyse_once(
    request: Request,
    position: Annotated[str, Query(max_length=MAX_POSITION_CHARS,
                                   description="A position string, as a game's view has it.")],
    ms: Annotated[float | None, Query(gt=0, allow_inf_nan=False, description=(
        f"Search time, at most {MAX_MS:g} ms (the default); longer is cut."))] = None,
) -> Snapshot:
    """Analyse a position and answer the last snapshot (waits its turn for a worker)."""
    analyst: Analyst = request.app.state.analyst
    try:
        job = analyst.job(position, ms)
    except AnalysisError as exc:
        raise HTTPException(422, str(exc)) from None
    last: list[dict[str, Any]] = []

    async def note(data: dict[str, Any]) -> None:
        last[:] = [data]

    client = client_key(request.client.host if request.client else None)
    task = asyncio.ensure_future(analyst.run(job, note, client=client))
    try:
        while not task.done():  # a client gone meanwhile stops the search
            await asyncio.wait({task}, timeout=0.5)
            if not task.done() and await request.is_disconnected():
                task.cancel()
        await task
    except Busy as exc:
        raise HTTPException(exc.status, str(exc),
                            headers={"Retry-After": retry_after(exc.retry_after)}) from None
    except AnalysisError as exc:
        raise HTTPException(422, str(exc)) from None
    except asyncio.CancelledError:
        if _cancelled() or not task.cancelled():
            raise
        raise HTTPException(499, "the client went away") from None
    finally:
        if not task.done():
            task.cancel()
            analyst.keep(task)
    return Snapshot.model_validate(last[-1])


@router.websocket("/api/analysis")
async def analyse_live(ws: WebSocket) -> None:
    """Analyses on request, streamed (see the module's docstring for the messages)."""
    analyst: Analyst = ws.app.state.analyst
    await ws.accept()
    running: asyncio.Task[None] | None = None

    async def stop() -> None:
        nonlocal running
        task, running = running, None
        if task is not None and not task.done():
            task.cancel()
            analyst.keep(task)  # it ends once the worker has stopped
            try:
                await task
            except asyncio.CancelledError:
                if _cancelled():
                    raise

    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            await stop()
            try:
                text = message.get("text")
                if text is None:
                    raise AnalysisError("send the request as a text message (JSON)")
                job = read_message(text, analyst.max_ms)
            except AnalysisError as exc:
                await ws.send_json({"type": "error", "detail": str(exc)})
                continue
            if job is not None:
                client = client_key(ws.client.host if ws.client else None)
                running = asyncio.create_task(_stream(ws, analyst, job, client))
    finally:
        await stop()


async def _stream(ws: WebSocket, analyst: Analyst, job: Job, client: str) -> None:
    async def waiting(ahead: int) -> None:
        await ws.send_json({"type": "waiting", "ahead": ahead})

    try:
        await analyst.run(job, ws.send_json, waiting, client)
    except AnalysisError as exc:
        with contextlib.suppress(Exception):
            await ws.send_json({"type": "error", "detail": str(exc)})
    except Exception:  # the socket closed under the analysis: it has been stopped
        return


def _cancelled() -> bool:
    """This task itself is being cancelled (not only a task it awaited)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def mount(app: FastAPI, analyst: Analyst | None = None) -> Analyst:
    """Add the analysis routes to `app`, with `analyst` (default: a new one) on
    ``app.state.analyst``; the app's shutdown should call ``app.state.analyst.close()``."""
    app.include_router(router)
    chosen = analyst or Analyst()
    app.state.analyst = chosen
    return chosen


__all__ = ["MAX_MS", "AnalysisError", "Analyst", "Busy", "Job", "Snapshot", "mount", "router"]
