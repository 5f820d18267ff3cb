"""The web board's game routes (`router`): make a game, read it, change it, watch it.

- ``POST /api/games``: a new game (`NewGame`); answers its view, the token and
  the links (an online game's invite link holds the other seat's token); a
  client may make `WebLimits.games_per_minute` a minute (``app.state.new_games``),
  then ``429`` with ``Retry-After``;
- ``GET /api/games/{id}``: the game now; ``GET /api/games/{id}/record``: its
  record (text);
- ``POST /api/games/{id}/moves``, ``/undo``, ``/resign``, ``/draw`` (offer or
  accept), ``/draw/decline``: changes, each checked by `WebGame` (a 4xx with a
  one-line ``detail`` when refused, and nothing changed);
- ``POST /api/games/{id}/join``: the invited player opened an online game (the
  host's page stops saying it waits);
- ``WS /api/games/{id}/live``: the game's view after every change.

Each request reads the game once (its board built from the one kept from its
last read: `ninefold.web.games.KeptBoards`) and a change is stored only if no
other request changed the game meanwhile (`GameStore.save`); a new game or a
change that calls for a move the computer searches is refused ``429`` while
the client has `WebLimits.computer_moves_per_client` such moves under way
(`Hub.may_think`). The routes get
the hub alone (`dependencies.Live`: it holds the store), each a dependency
fewer to solve per request.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from fastapi import APIRouter, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import PlainTextResponse, Response

from ninefold.records import write_game
from ninefold.rules import Mark, Move, random_opening
from ninefold.web.dependencies import Client, Live, Store, Token
from ninefold.web.errors import GameError, IllegalMove, Stale, TooMany
from ninefold.web.games import Mode, WebGame
from ninefold.web.hub import Hub
from ninefold.web.limits import RateLimit, retry_after
from ninefold.web.notation import read_start
from ninefold.web.time_control import CLOCKS, WebTimeControl
from ninefold.web.views import (
    ERRORS,
    Created,
    GameView,
    Links,
    MoveRequest,
    NewGame,
    PlyRequest,
    Problem,
)

router = APIRouter()
LIMITED = {**ERRORS, 429: {"model": Problem}}  # the routes a client's limits may refuse


def answer(view_json: str) -> Response:
    """A game's view, already in JSON (`Hub.view_json`: made once a version, shared by the
    answer, the pages' messages and their reads), sent as it is; the route's
    ``response_model`` documents it."""
    return Response(view_json, media_type="application/json")


async def change(hub: Hub, game_id: str, tok: str | None, act: Callable[[WebGame], None],
                 client: str = "") -> Response:
    """Load the game, let `act` change it (it raises `GameError` to refuse), store it
    if no other request changed it meanwhile and `client` may have the computer answer
    (`Hub.may_think`), and answer its view."""
    store = hub.store
    game = await store.call(store.get, game_id)
    if await hub.settle(game):  # a time ran out before this request came
        raise Stale(f"{game.flagged}'s time ran out")
    changes = game.changes
    act(game)
    hub.answer_at_once(game)
    hub.may_think(game, client)
    await store.call(store.save, game, changes)
    return answer(await hub.changed(game, tok, client))


def _clock(req: NewGame) -> WebTimeControl | None:
    """The clock a new game asks for: a preset's, its own, or none."""
    if req.clock is None:
        return None
    if isinstance(req.clock, str):
        return CLOCKS[req.clock]
    return WebTimeControl(round(req.clock.bank_s * 1000), round(req.clock.increment_s * 1000),
                 req.clock.capped)


@router.post("/api/games", response_model=Created, status_code=201, responses=LIMITED)
async def new_game(req: NewGame, hub: Live, client: Client, request: Request) -> Created:
    store = hub.store
    mode = Mode(req.mode)
    side = req.side if req.side != "random" else random.choice(["x", "o"])
    opening = req.opening.strip() if req.opening else None
    if opening == "random":
        opening = random_opening()
    level = 1 if mode is Mode.COMPUTER and req.level is None else req.level
    try:
        start = read_start(req.start) if req.start and req.start.strip() else None
        game, tokens = WebGame.new(store.new_id(), mode, req.rules, opening or None,
                                   Mark.X if side == "x" else Mark.O, level, time.time(),
                                   _clock(req), start)
    except ValueError as exc:
        raise IllegalMove(str(exc)) from None
    mine = tokens["x"] if side == "x" else tokens["o"]
    hub.answer_at_once(game)
    hub.may_think(game, client)
    rate: RateLimit = request.app.state.new_games
    if (wait := rate.take(client)) > 0:
        raise TooMany(f"too many new games: at most {rate.count} a minute from one "
                      f"address (try again in {retry_after(wait)} s)", wait)
    await store.call(store.add, game)
    await hub.changed(game, client=client)
    view = hub.view(game, mine)
    links = Links(play=f"/g/{game.id}#t={mine}", watch=f"/g/{game.id}")
    if mode is Mode.ONLINE:
        other = tokens["o"] if side == "x" else tokens["x"]
        links.invite = f"/g/{game.id}#t={other}"
    return Created(game=view, token=mine, links=links)


@router.get("/api/games/{game_id}", response_model=GameView, responses=ERRORS)
async def get_game(game_id: str, tok: Token, hub: Live) -> Response:
    return answer(hub.view_json(await hub.read(game_id), tok))


@router.get("/api/games/{game_id}/record", response_class=PlainTextResponse,
            responses=ERRORS)
async def get_record(game_id: str, store: Store) -> str:
    game = await store.call(store.get, game_id)
    return write_game(game.record())


@router.post("/api/games/{game_id}/moves", response_model=GameView, responses=LIMITED)
async def play(game_id: str, req: MoveRequest, tok: Token, hub: Live, client: Client,
               ) -> Response:
    def move(game: WebGame) -> None:
        try:
            square = Move.parse(req.move)
        except ValueError as exc:
            raise IllegalMove(str(exc)) from None
        game.play(square, tok, req.ply, time.time())

    return await change(hub, game_id, tok, move, client)


@router.post("/api/games/{game_id}/undo", response_model=GameView, responses=ERRORS)
async def undo(game_id: str, req: PlyRequest, tok: Token, hub: Live) -> Response:
    def take_back(game: WebGame) -> None:
        game.undo(tok, req.ply)
        hub.stop_thinking(game.id)  # its search is for a position now gone

    return await change(hub, game_id, tok, take_back)


@router.post("/api/games/{game_id}/resign", response_model=GameView, responses=ERRORS)
async def resign(game_id: str, tok: Token, hub: Live) -> Response:
    return await change(hub, game_id, tok,
                        lambda game: game.resign(tok, time.time()))


@router.post("/api/games/{game_id}/draw", response_model=GameView, responses=ERRORS)
async def draw(game_id: str, tok: Token, hub: Live) -> Response:
    return await change(hub, game_id, tok,
                        lambda game: game.offer_draw(tok, time.time()))


@router.post("/api/games/{game_id}/draw/decline", response_model=GameView,
             responses=ERRORS)
async def decline_draw(game_id: str, tok: Token, hub: Live) -> Response:
    return await change(hub, game_id, tok, lambda game: game.decline_draw(tok))


@router.post("/api/games/{game_id}/join", response_model=GameView, responses=ERRORS)
async def join(game_id: str, tok: Token, hub: Live) -> Response:
    """The invited player opened the game: the host stops waiting (stored and sent to
    the pages watching only if that is news)."""
    store = hub.store
    game = await hub.read(game_id)
    changes = game.changes
    if game.join(tok):
        await store.call(store.save, game, changes)
        return answer(await hub.changed(game, tok))
    return answer(hub.view_json(game, tok))


@router.websocket("/api/games/{game_id}/live")
async def live(ws: WebSocket, game_id: str, hub: Live) -> None:
    store = hub.store
    try:
        await store.call(store.get, game_id)
    except GameError:
        await ws.close(code=4404, reason="no such game")
        return
    await ws.accept()
    hub.watch(game_id, ws)
    try:
        # read the game only now that every later change is sent here too: a change
        # between a read before and the watching would never reach this page
        game = await hub.read(game_id)
        await ws.send_text(hub.view_json(game))
        while True:
            await ws.receive_text()  # nothing is read: the page only listens
    except WebSocketDisconnect:
        pass
    finally:
        hub.unwatch(game_id, ws)
