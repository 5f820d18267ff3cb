"""The web board's server: a JSON API (OpenAPI at ``/docs``), live updates, one page.

`create_app` builds the FastAPI application on a `GameStore` (SQLite) and a
`Computer` (worker processes for the computer's moves). Requests are parsed
once, at the edge, into the types of `ninefold.web.games`; every answer is a
`GameView`. A seat's token travels in the ``Authorization: Bearer`` header
(a page keeps it in the link's fragment, which browsers never send).

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
- ``GET /api/arena``, ``GET /api/arena/{n}/replay``: the games of an arena
  results database, when the server's database is one (``ninefold serve --db
  results.sqlite``: the web games go into the same file, in their own table);
- ``GET /``, ``/g/{id}``, ``/replay/{id}``, ``/arena``, ``/arena/{n}``: the page
  (``static/``).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Discriminator, Field, Tag

from ninefold.arena import report
from ninefold.arena.config import RunConfig
from ninefold.arena.referee import GameResult as ArenaResult
from ninefold.arena.standings import Standings
from ninefold.arena.storage import Storage, StorageError
from ninefold.records import Game, write_game
from ninefold.rules import Board, Mark, Move, Outcome, opening_moves, random_opening
from ninefold.web import analysis, classic
from ninefold.web.computer import Computer
from ninefold.web.games import (
    CLOCKS,
    Clock,
    GameError,
    IllegalMove,
    Mode,
    NotFound,
    Stale,
    WebGame,
    read_start,
    side,
)
from ninefold.web.store import GameStore

STATIC = Path(__file__).resolve().parent / "static"
PLOTS = ("ratings", "matrix")  # the arena plots `ninefold report` draws
MAX_BODY_BYTES = 16 * 1024  # a request body larger than this is refused (413)
NAME_CHARS = 40


# --- what goes over the wire ---------------------------------------------------------


class ClockSpec(BaseModel):
    bank_s: float = Field(..., ge=1, le=3 * 3600, description="Each side's time at the start.")
    increment_s: float = Field(0, ge=0, le=60, description="Added after each of its moves.")
    capped: bool = Field(False, description="The bank never grows past its start.")


def _clock_kind(value: Any) -> str:
    return "preset" if isinstance(value, str) else "own"


ClockChoice = Annotated[  # a preset's name or a clock of your own (errors say which)
    Annotated[Literal["competition", "blitz", "rapid"], Tag("preset")]
    | Annotated[ClockSpec, Tag("own")], Discriminator(_clock_kind)]


class NewGame(BaseModel):
    """A new game."""

    mode: Literal["computer", "local", "online"] = "computer"
    level: int | None = Field(None, ge=1, le=10, description="The computer's level, 1-10.")
    side: Literal["x", "o", "random"] = Field(
        "x", description="Your side against the computer, or as the online game's creator.")
    rules: str = Field("standard", max_length=100,
                       description="A rules preset or options, e.g. open-boards.")
    opening: str | None = Field(
        None, max_length=20, description="None, 'random', or a random-four code like 53271.")
    start: str | None = Field(
        None, max_length=8000, description="A position string or a game record to go on from"
        " (its rules and opening are the game's).")
    clock: ClockChoice | None = Field(
        None, description="An online game's clock: a preset (competition: 10 s + 500 ms,"
        " the bank capped at 10 s; blitz: 3 min + 2 s; rapid: 10 min + 5 s) or your own.")


class MoveRequest(BaseModel):
    move: str = Field(..., max_length=8, description="A square, like e5.")
    ply: int = Field(..., ge=0, le=81, description="The move count you saw (replay guard).")


class PlyRequest(BaseModel):
    ply: int = Field(..., ge=0, le=81, description="The move count you saw (replay guard).")


class SmallBoard(BaseModel):
    cells: list[Literal["x", "o", ""]]
    owner: Literal["x", "o", "draw", ""] = Field(
        ..., description="Who won this small board; draw when it is full with no winner.")
    allowed: bool = Field(..., description="The side to move may play here.")


class ClockView(BaseModel):
    bank_ms: int
    increment_ms: int
    capped: bool
    x_ms: float = Field(..., description="X's time left now, in ms.")
    o_ms: float
    running: Literal["x", "o"] | None = Field(..., description="Whose time runs now.")


class GameView(BaseModel):
    """A game as everyone sees it, plus which sides the asking token holds."""

    id: str
    version: int = Field(..., description="Grows with every change: the newest view wins.")
    mode: Literal["computer", "local", "online"]
    rules: str
    opening: str | None
    level: int | None
    position: str
    start: str | None = Field(..., description="The position the game went on from, if any.")
    moves: list[str] = Field(..., description="The moves after the opening, in notation.")
    opening_moves: list[str]
    ply: int
    turn: Literal["x", "o"] | None
    anywhere: bool = Field(..., description="The side to move may play in any open board.")
    boards: list[SmallBoard]
    legal: list[str]
    last: str | None
    status: str
    result: str | None
    winner: Literal["x", "o"] | None
    termination: str | None
    computer: Literal["x", "o"] | None
    thinking: bool
    draw_offer: Literal["x", "o"] | None
    clock: ClockView | None
    you: list[Literal["x", "o"]] = Field(..., description="The sides your token holds.")


class Frame(BaseModel):
    """The board after some moves of a replay."""

    boards: list[SmallBoard]
    last: str | None
    status: str
    position: str


class PositionView(BaseModel):
    """A position on its own (the analysis board): what it is and what may be played."""

    position: str
    boards: list[SmallBoard]
    turn: Literal["x", "o"] | None
    legal: list[str]
    last: str | None = Field(..., description="The move that led here, if one was asked.")
    status: str
    result: str | None


class Replay(BaseModel):
    """A whole game to step through: `frames[i]` is the board after `moves[:i]`."""

    title: str
    x: str
    o: str
    rules: str
    opening_plies: int = Field(..., description="How many of the moves the opening played.")
    moves: list[str]
    frames: list[Frame]
    result: str | None
    termination: str | None
    reason: str = ""


class ArenaGame(BaseModel):
    n: int = Field(..., description="The game's number in the database (from 1).")
    x: str
    o: str
    result: str
    termination: str
    plies: int


class ArenaGames(BaseModel):
    games: list[ArenaGame]


class StandingsRow(BaseModel):
    rank: int
    player: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float | None = Field(..., description="The share of points (0-1).")
    elo: float = Field(..., description="Bradley-Terry Elo, mean 0.")
    err: float | None = Field(..., description="Half the 95% interval (null: unbounded).")


class ArenaStandings(BaseModel):
    title: str = Field(..., description="The run's format and name, or 'games'.")
    games: int
    rows: list[StandingsRow]
    match: str | None = Field(..., description="The match line, for two players.")
    plots: list[str] = Field(..., description="Plot names: /api/arena/plots/{name}.png.")


class Links(BaseModel):
    play: str
    invite: str | None = None
    watch: str


class Created(BaseModel):
    game: GameView
    token: str
    links: Links


class Problem(BaseModel):
    detail: str


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem} for code in (400, 403, 404, 409, 413, 422)}


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

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        too_big = JSONResponse({"detail": f"the body is over {self.limit} bytes"}, 413)
        if length is not None and (not length.isdigit() or int(length) > self.limit):
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
            if size > self.limit:
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


def game_view(game: WebGame, token: str | None = None, thinking: bool = False) -> GameView:
    board = game.board()
    outcome = game.outcome(board)
    over = outcome is not None
    return GameView(
        id=game.id, version=game.changes, mode=game.mode.value, rules=game.rules.name,
        opening=game.opening, level=game.level, position=board.position(), start=game.start,
        moves=[str(m) for m in game.moves],
        opening_moves=[str(m) for m in board.move_stack[:board.ply - game.ply]],
        ply=game.ply, turn=None if over else side(board.turn),
        anywhere=not over and board.target is None,
        boards=small_boards(board, set() if over else set(board.open_boards())),
        legal=[] if over else [str(m) for m in board.legal_moves], last=_last(board),
        status=_status(game, board, outcome), result=outcome.result() if outcome else None,
        winner=_side(outcome.winner if outcome else None),
        termination=str(outcome.termination) if outcome else None,
        computer=_side(game.computer_side()), thinking=thinking,
        draw_offer=_side(game.draw_offer), clock=_clock(game),
        you=[side(m) for m in game.seat_of(token)],
    )


def _clock(game: WebGame) -> ClockView | None:
    if game.clock is None:
        return None
    left = game.time_left(time.time())
    running = None if game.running_since is None else side(game.board().turn)
    return ClockView(bank_ms=game.clock.bank_ms, increment_ms=game.clock.increment_ms,
                     capped=game.clock.capped, x_ms=max(0.0, left["x"]),
                     o_ms=max(0.0, left["o"]), running=running)


def small_boards(board: Board, allowed: set[int]) -> list[SmallBoard]:
    return [SmallBoard(cells=["" if c is None else side(c) for c in board.small_board(b)],
                       owner=_owner(board, b), allowed=b in allowed) for b in range(9)]


def replay(title: str, x: str, o: str, board: Board, moves: list[Move], opening_plies: int,
           result: str | None, termination: str | None, reason: str = "") -> Replay:
    """The frames of a game from `board` (its start, changed here): the board before the
    first move and after each one."""
    frames = []
    for i in range(len(moves) + 1):
        frames.append(Frame(boards=small_boards(board, set(board.open_boards())),
                            last=_last(board), status=board.status(),
                            position=board.position()))
        if i < len(moves):
            board.push(moves[i])
    return Replay(title=title, x=x, o=o, rules=board.rules.name, opening_plies=opening_plies,
                  moves=[str(m) for m in moves], frames=frames, result=result,
                  termination=termination, reason=reason)


def _side(mark: Mark | None) -> Literal["x", "o"] | None:
    return None if mark is None else side(mark)


def _last(board: Board) -> str | None:
    return str(board.move_stack[-1]) if board.move_stack else None


def _owner(board: Board, b: int) -> Literal["x", "o", "draw", ""]:
    owner = board.owners[b]
    if owner is not None:
        return side(owner)
    return "draw" if board.is_full(b) else ""


def _status(game: WebGame, board: Board, outcome: Outcome | None) -> str:
    if outcome is not None:
        if game.resigned is not None:
            return f"Game over: {game.resigned} resigned, {outcome.result()}"
        if game.agreed_draw:
            return "Game over: draw agreed, 1/2-1/2"
        if game.flagged is not None:
            return f"Game over: {game.flagged}'s time ran out, {outcome.result()}"
        return board.status()
    where = ("play anywhere (any open board)" if board.target is None
             else f"play in the highlighted board ({board.target})")
    return f"{board.turn} to move: {where}"


# --- the application --------------------------------------------------------------------


def seat_token(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The seat token of ``Authorization: Bearer TOKEN`` (None: a spectator)."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


Token = Annotated[str | None, Depends(seat_token)]


def create_app(db: str | Path = "ninefold-web.sqlite", computer: Computer | None = None,
               ) -> FastAPI:
    """The web board's application, its games in the SQLite file `db`."""
    store = GameStore(db)
    hub = Hub(store, computer or Computer())

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hub.resume()
        yield
        await hub.close()
        hub.computer.close()
        app.state.analyst.close()

    app = FastAPI(title="ninefold", version="0.1.0", lifespan=lifespan,
                  description="Ultimate Tic-Tac-Toe: play the computer or a friend by link.")
    app.state.hub = hub
    analysis.mount(app)  # WS and GET /api/analysis; app.state.analyst
    app.add_middleware(BodyLimit, limit=MAX_BODY_BYTES)

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
                     Clock(round(req.clock.bank_s * 1000), round(req.clock.increment_s * 1000),
                           req.clock.capped))
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
        outcome = board.outcome()
        return PositionView(
            position=board.position(), boards=small_boards(board, set(board.open_boards())),
            turn=None if outcome else side(board.turn),
            legal=[] if outcome else [str(m) for m in board.legal_moves], last=_last(board),
            status=board.status(), result=outcome.result() if outcome else None)

    def arena_games() -> list[ArenaResult]:
        try:
            with Storage(db, readonly=True) as results:
                return results.games()
        except StorageError:
            raise NotFound("this server's database holds no arena games") from None

    @app.get("/api/arena", response_model=ArenaGames, responses=ERRORS)
    async def arena_list() -> ArenaGames:
        games = await asyncio.to_thread(arena_games)
        return ArenaGames(games=[
            ArenaGame(n=i, x=g.x, o=g.o, result=g.result, termination=str(g.termination),
                      plies=len(g.moves)) for i, g in enumerate(games, start=1)])

    @app.get("/api/arena/standings", response_model=ArenaStandings, responses=ERRORS)
    async def arena_standings() -> ArenaStandings:
        cfg, st = await asyncio.to_thread(arena_run)
        rows = [StandingsRow(rank=r.rank, player=r.name, games=r.played, wins=r.wdl[0],
                             draws=r.wdl[1], losses=r.wdl[2], score=r.score, elo=r.elo,
                             err=r.err if math.isfinite(r.err) else None)
                for r in report.standings_rows(st)]
        return ArenaStandings(
            title=(cfg.format if cfg.name in ("", cfg.format) else f"{cfg.format} {cfg.name}")
            if cfg else "games",
            games=len(st.games),
            rows=rows, match=report.head_to_head_text(st) if len(st.names) == 2 else None,
            plots=list(PLOTS) if st.games else [])

    @app.get("/api/arena/plots/{name}.png", responses={
        200: {"content": {"image/png": {}}}, **ERRORS}, response_class=Response)
    async def arena_plot(name: str) -> Response:
        """A plot of `ninefold report`: ratings (Elo with 95% intervals) or matrix
        (pairwise scores)."""
        if name not in PLOTS:
            raise NotFound(f"no plot {name!r}: there are {', '.join(PLOTS)}")
        png = await asyncio.to_thread(plot_png, name)
        return Response(png, media_type="image/png",
                        headers={"Cache-Control": "no-cache"})

    def arena_run() -> tuple[RunConfig | None, Standings]:
        try:
            return report.load(db)
        except StorageError:
            raise NotFound("this server's database holds no arena games") from None

    def plot_png(name: str) -> bytes:
        """The plot, drawn again only when the games changed (matplotlib is not
        thread-safe: one drawing at a time)."""
        with plot_lock:
            _, st = arena_run()
            if not st.games:
                raise NotFound("no arena games yet: nothing to plot")
            key = (len(st.games), name)
            if key not in plot_cache:
                with tempfile.TemporaryDirectory() as tmp:
                    for path in report.plot(st, tmp, stem="arena"):
                        plot_cache[(key[0], path.stem.removeprefix("arena-"))] = (
                            path.read_bytes())
            return plot_cache[key]

    plot_lock = threading.Lock()
    plot_cache: dict[tuple[int, str], bytes] = {}

    @app.get("/api/arena/{n}/replay", response_model=Replay, responses=ERRORS)
    async def arena_replay(n: int) -> Replay:
        games = await asyncio.to_thread(arena_games)
        if not 1 <= n <= len(games):
            raise NotFound(f"no arena game {n} here (there are {len(games)})")
        g = games[n - 1]
        try:
            moves = [Move.parse(m) for m in g.moves]
            opening = len(opening_moves(g.opening)) if g.opening else 0
            return replay(f"Arena game {n}", g.x, g.o, Board(g.rules), moves, opening, g.result,
                          str(g.termination), g.reason)
        except ValueError as exc:
            raise IllegalMove(f"arena game {n} cannot be replayed: {exc}") from None

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
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    classic.mount(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
