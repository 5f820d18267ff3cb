"""The web board's server: a JSON API (OpenAPI at ``/docs``), live updates, the pages.

`create_app` builds the FastAPI application on a `GameStore` (SQLite) and a
`Computer` (worker processes for the computer's moves). Requests are parsed
once, at the edge, into the models of `ninefold.web.views`, and every game
answer is a `GameView`; a `WebGame` (`ninefold.web.games`) checks each change.
A seat's token travels in the ``Authorization: Bearer`` header (a page keeps
it in the link's fragment, which browsers never send). This module holds the
game routes, the live updates (`Hub`), the pages and the error answers; the
other routes come from the modules named beside them.

Routes:

- ``POST /api/games``: a new game (`NewGame`); answers its view, the token and
  the links (an online game's invite link holds the other seat's token);
- ``GET /api/games/{id}``: the game now; ``GET /api/games/{id}/record``: its
  record (text);
- ``POST /api/games/{id}/moves``, ``/undo``, ``/resign``, ``/draw``: changes,
  each checked by `WebGame` (a 4xx with a one-line ``detail`` when refused,
  and nothing changed);
- ``WS /api/games/{id}/live``: the game's view after every change;
- ``GET /api/games/{id}/replay``: every position of a game, to step through;
- ``GET /api/position?position=...&move=...``: a position on its own, after a
  move if one is given (the analysis board);
- ``WS /api/analysis``, ``GET /api/analysis``: a position's analysis, streamed
  as the search deepens (`ninefold.web.analysis`);
- ``POST /api/classic``: classic tic-tac-toe's computer reply
  (`ninefold.web.classic`);
- ``GET /api/arena``, ``/api/arena/standings``, ``/api/arena/plots/{name}.png``,
  ``/api/arena/{n}/replay``: the games, standings, plots and replays of an
  arena results database, when the server's database is one (``ninefold serve
  --db results.sqlite``: the web games go into the same file, in their own
  table) (`ninefold.web.arena`);
- ``GET /``, ``/g/{id}``, ``/replay/{id}``, ``/analysis``, ``/arena``,
  ``/arena/{n}``: the page (``static/index.html``); ``GET /classic``: the
  classic game's page (`ninefold.web.classic`); ``/static/...``: their files.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles

from ninefold.records import Game, write_game
from ninefold.rules import Board, Mark, Move, random_opening
from ninefold.web import analysis, arena, classic, platform
from ninefold.web.computer import Computer
from ninefold.web.games import (
    CLOCKS,
    GameError,
    IllegalMove,
    Mode,
    Stale,
    WebGame,
    WebTimeControl,
    read_start,
)
from ninefold.web.store import GameStore
from ninefold.web.views import (
    ERRORS,
    Created,
    GameView,
    Links,
    MoveRequest,
    NewGame,
    PlyRequest,
    PositionView,
    Replay,
    game_view,
    position_view,
    replay,
)

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY_BYTES = 16 * 1024  # a request body larger than this is refused (413)
NAME_CHARS = 40


# --- the live part: computer moves and subscribers -----------------------------------


class Hub:
    """What runs beside the requests: the computer's pending moves (one task a game)
    and the pages watching each game."""

    def __init__(self, store: GameStore, computer: Computer) -> None:
        self.store = store
        self.computer = computer
        self.thinking: dict[str, asyncio.Task[None]] = {}
        self.timers: dict[str, asyncio.Task[None]] = {}  # a running clock's flag fall
        self.watchers: dict[str, set[WebSocket]] = {}

    def view(self, game: WebGame, token: str | None = None) -> GameView:
        return game_view(game, token, thinking=game.id in self.thinking)

    async def changed(self, game: WebGame) -> None:
        """After a change is stored: let the computer move if it is its turn, and tell
        every page watching."""
        if game.computer_to_move() and game.id not in self.thinking:
            self.thinking[game.id] = asyncio.create_task(self._computer_moves(game.id))
        self._watch_clock(game)
        await self.broadcast(game)

    def _watch_clock(self, game: WebGame) -> None:
        """Be there when the side to move's time runs out (even if no one asks)."""
        timer = self.timers.pop(game.id, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
        deadline = game.deadline()
        if deadline is not None:
            self.timers[game.id] = asyncio.create_task(self._flag_falls(game.id, deadline))

    async def _flag_falls(self, game_id: str, deadline: float) -> None:
        await asyncio.sleep(max(0.0, deadline - time.time()))
        game = await asyncio.to_thread(self.store.get, game_id)
        changes = game.changes
        with contextlib.suppress(GameError):  # a move came first: it set a new timer
            if game.settle(time.time()):
                await asyncio.to_thread(self.store.save, game, changes)
                await self.changed(game)

    async def broadcast(self, game: WebGame) -> None:
        data = self.view(game).model_dump(mode="json")
        for ws in list(self.watchers.get(game.id, ())):
            try:
                await ws.send_json(data)
            except Exception:  # a page gone: forget it
                self.watchers.get(game.id, set()).discard(ws)

    async def _computer_moves(self, game_id: str) -> None:
        try:
            game = await asyncio.to_thread(self.store.get, game_id)
            if not game.computer_to_move() or game.level is None:
                return
            changes = game.changes
            move = await self.computer.move(game.level, game.board())
            game = await asyncio.to_thread(self.store.get, game_id)
            if game.changes != changes:  # an undo meanwhile: this move is for another position
                return
            game.computer_plays(move)
            await asyncio.to_thread(self.store.save, game, changes)
        except GameError:
            return
        finally:
            self.thinking.pop(game_id, None)
        await self.changed(game)

    async def resume(self) -> None:
        """At start-up: the computer moves in the games where it owes one."""
        for game_id in await asyncio.to_thread(self.store.unfinished_computer_games):
            game = await asyncio.to_thread(self.store.get, game_id)
            if game.computer_to_move():
                await self.changed(game)
        for game_id in await asyncio.to_thread(self.store.running_clocks):
            self._watch_clock(await asyncio.to_thread(self.store.get, game_id))

    async def close(self) -> None:
        for task in [*self.thinking.values(), *self.timers.values()]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


class BodyLimit:
    """ASGI middleware: a request body over `limit` bytes, announced or sent, is
    answered 413 before any route reads it."""

    def __init__(self, app: Any, limit: int, uploads: tuple[str, int] | None = None) -> None:
        self.app = app
        self.limit = limit
        self.uploads = uploads  # (path prefix, limit): a larger limit for file uploads

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        limit = self.limit
        if self.uploads and scope.get("path", "").startswith(self.uploads[0]):
            limit = self.uploads[1]
        too_big = JSONResponse({"detail": f"the body is over {limit} bytes"}, 413)
        if length is not None and (not length.isdigit() or int(length) > limit):
            await too_big(scope, receive, send)
            return
        body, size, more = [], 0, True
        while more:  # read it all first (it is small), counting
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body.append(message.get("body", b""))
            size += len(body[-1])
            more = message.get("more_body", False)
            if size > limit:
                await too_big(scope, receive, send)
                return
        whole = b"".join(body)
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": whole, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


# --- the application --------------------------------------------------------------------


def seat_token(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The seat token of ``Authorization: Bearer TOKEN`` (None: a spectator)."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


Token = Annotated[str | None, Depends(seat_token)]


def create_app(db: str | Path = "ninefold-web.sqlite", computer: Computer | None = None,
               platform_url: str | None = None, workers: int = 0) -> FastAPI:
    """The web board's application, its games in the SQLite file `db`; with
    `platform_url`, the competition platform too (`ninefold.web.platform`), its
    ranked games played by `workers` match workers."""
    store = GameStore(db)
    hub = Hub(store, computer or Computer())
    platform_life: Callable[[], AsyncIterator[None]] | None = None

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hub.resume()
        async with contextlib.AsyncExitStack() as stack:
            if platform_life is not None:
                await stack.enter_async_context(contextlib.asynccontextmanager(platform_life)())
            yield
        await hub.close()
        hub.computer.close()
        app.state.analyst.close()

    app = FastAPI(title="ninefold", version="0.1.0", lifespan=lifespan,
                  description="Ultimate Tic-Tac-Toe: play the computer or a friend by link.")
    app.state.hub = hub
    analysis.mount(app)  # WS and GET /api/analysis; app.state.analyst
    app.add_middleware(BodyLimit, limit=MAX_BODY_BYTES,
                       uploads=("/api/platform/contests/", platform.MAX_UPLOAD_BYTES + 65536))
    if platform_url:
        platform_life = platform.mount(app, platform_url, workers)

    @app.exception_handler(GameError)
    async def game_error(request: Request, exc: GameError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, exc.status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        if first.get("type") == "json_invalid":  # its place is a character, not a field
            at = first.get("loc", ("body", "?"))[-1]
            return JSONResponse({"detail": f"the body is not valid JSON (at character {at})"},
                                422)
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        text = first.get("msg", "invalid request")
        return JSONResponse({"detail": f"{where}: {text}" if where else text}, 422)

    async def load(game_id: str) -> WebGame:
        return await asyncio.to_thread(store.get, game_id)

    async def save(game: WebGame, changes: int) -> None:
        await asyncio.to_thread(store.save, game, changes)
        await hub.changed(game)

    @app.post("/api/games", response_model=Created, status_code=201, responses=ERRORS)
    async def new_game(req: NewGame) -> Created:
        mode = Mode(req.mode)
        side = req.side if req.side != "random" else random.choice(["x", "o"])
        opening = req.opening.strip() if req.opening else None
        if opening == "random":
            opening = random_opening()
        level = 1 if mode is Mode.COMPUTER and req.level is None else req.level
        try:
            start = read_start(req.start) if req.start and req.start.strip() else None
            clock = (CLOCKS[req.clock] if isinstance(req.clock, str) else
                     None if req.clock is None else
                     WebTimeControl(round(req.clock.bank_s * 1000),
                                    round(req.clock.increment_s * 1000), req.clock.capped))
            game, tokens = WebGame.new(store.new_id(), mode, req.rules, opening or None,
                                       Mark.X if side == "x" else Mark.O, level, time.time(),
                                       clock, start)
        except ValueError as exc:
            raise IllegalMove(str(exc)) from None
        await asyncio.to_thread(store.add, game)
        await hub.changed(game)
        mine = tokens["x"] if side == "x" else tokens["o"]
        links = Links(play=f"/g/{game.id}#t={mine}", watch=f"/g/{game.id}")
        if mode is Mode.ONLINE:
            other = tokens["o"] if side == "x" else tokens["x"]
            links.invite = f"/g/{game.id}#t={other}"
        return Created(game=hub.view(game, mine), token=mine, links=links)

    @app.get("/api/games/{game_id}", response_model=GameView, responses=ERRORS)
    async def get_game(game_id: str, tok: Token) -> GameView:
        return hub.view(await load(game_id), tok)

    @app.get("/api/games/{game_id}/record", response_class=PlainTextResponse,
             responses=ERRORS)
    async def get_record(game_id: str) -> str:
        game = await load(game_id)
        record = Game.from_board(game.board(), Event=f"ninefold web game {game.id}")
        outcome = game.outcome()
        if outcome is not None and game.board().outcome() is None:
            record.tags["Result"] = outcome.result()
            record.tags["Termination"] = str(outcome.termination)
        return write_game(record)

    async def change(game_id: str, tok: str | None, act: Callable[[WebGame], None],
                     ) -> GameView:
        """Load the game, let `act` change it (it raises `GameError` to refuse), store it
        if no other request changed it meanwhile, and answer its view."""
        game = await load(game_id)
        changes = game.changes
        if game.settle(time.time()):  # a time ran out before this request came
            await save(game, changes)
            raise Stale(f"{game.flagged}'s time ran out")
        act(game)
        await save(game, changes)
        return hub.view(game, tok)

    @app.post("/api/games/{game_id}/moves", response_model=GameView, responses=ERRORS)
    async def play(game_id: str, req: MoveRequest, tok: Token) -> GameView:
        def move(game: WebGame) -> None:
            try:
                square = Move.parse(req.move)
            except ValueError as exc:
                raise IllegalMove(str(exc)) from None
            game.play(square, tok, req.ply, time.time())

        return await change(game_id, tok, move)

    @app.post("/api/games/{game_id}/undo", response_model=GameView, responses=ERRORS)
    async def undo(game_id: str, req: PlyRequest, tok: Token) -> GameView:
        def take_back(game: WebGame) -> None:
            game.undo(tok, req.ply)
            task = hub.thinking.pop(game.id, None)
            if task is not None:  # the computer's search is for a position now gone
                task.cancel()

        return await change(game_id, tok, take_back)

    @app.post("/api/games/{game_id}/resign", response_model=GameView, responses=ERRORS)
    async def resign(game_id: str, tok: Token) -> GameView:
        return await change(game_id, tok, lambda game: game.resign(tok, time.time()))

    @app.post("/api/games/{game_id}/draw", response_model=GameView, responses=ERRORS)
    async def draw(game_id: str, tok: Token) -> GameView:
        return await change(game_id, tok, lambda game: game.offer_draw(tok, time.time()))

    @app.get("/api/games/{game_id}/replay", response_model=Replay, responses=ERRORS)
    async def game_replay(game_id: str) -> Replay:
        game = await load(game_id)
        board = game.board()
        outcome = game.outcome()
        computer = game.computer_side()
        names = {m: ("computer, level " + str(game.level) if m is computer else "player")
                 for m in Mark}
        start = Board.from_position(game.start) if game.start else Board(game.rules)
        return replay(f"Game {game.id}", names[Mark.X], names[Mark.O], start,
                      list(board.move_stack), board.ply - game.ply,
                      outcome.result() if outcome else None,
                      str(outcome.termination) if outcome else None)

    @app.get("/api/position", response_model=PositionView, responses=ERRORS)
    async def position(
        position: Annotated[str | None, Query(
            max_length=300, description="A position string (none: the start).")] = None,
        move: Annotated[str | None, Query(max_length=8, description="A move to play first.")]
        = None,
    ) -> PositionView:
        """A position (the analysis board), after `move` if one is given."""
        try:
            board = Board() if position is None else Board.from_position(position)
            if move is not None:
                board.push(Move.parse(move))
        except ValueError as exc:
            raise IllegalMove(str(exc)) from None
        return position_view(board)

    app.include_router(arena.router(db))  # /api/arena...: here, as before, in the route order

    @app.websocket("/api/games/{game_id}/live")
    async def live(ws: WebSocket, game_id: str) -> None:
        try:
            await load(game_id)
        except GameError:
            await ws.close(code=4404, reason="no such game")
            return
        await ws.accept()
        hub.watchers.setdefault(game_id, set()).add(ws)
        try:
            # read the game only now that every later change is sent here too: a change
            # between a read before and the watching would never reach this page
            game = await load(game_id)
            await ws.send_json(hub.view(game).model_dump(mode="json"))
            while True:
                await ws.receive_text()  # nothing is read: the page only listens
        except WebSocketDisconnect:
            pass
        finally:
            hub.watchers.get(game_id, set()).discard(ws)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/g/{game_id}", include_in_schema=False)
    @app.get("/replay/{game_id}", include_in_schema=False)
    @app.get("/analysis", include_in_schema=False)
    @app.get("/arena", include_in_schema=False)
    @app.get("/arena/{n}", include_in_schema=False)
    @app.get("/platform-game/{n}", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    classic.mount(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
