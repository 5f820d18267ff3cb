"""The web board's server: a JSON API (OpenAPI at ``/docs``), live updates, the pages.

`create_app` assembles the FastAPI application: it keeps a `GameStore`
(SQLite, or PostgreSQL shared by several server processes: `ninefold.web.notify`
brings the changes the others store), a `Hub` (the computer's moves in worker
processes, the clocks, the pages watching) and, with a platform URL, the
competition platform on
``app.state``, and includes the routers, each in its own module, whose routes
get those through FastAPI dependencies (`ninefold.web.dependencies`).
Requests are parsed once, at the edge, into the models of
`ninefold.web.views`, and every game answer is a `GameView`; a `WebGame`
(`ninefold.web.games`) checks each change. A seat's token travels in the
``Authorization: Bearer`` header (a page keeps it in the link's fragment,
which browsers never send). Every answer carries the security headers, and a change
posted from another origin's page is refused (`ninefold.web.security`). A refused
request answers a one-line ``detail`` (`ninefold.web.errors`); a body over
`MAX_BODY_BYTES` a 413 (`ninefold.web.body_limit`). What one client may ask (new
games a minute, the computer's moves and analyses at once, a WebSocket's size and
origin) is `WebLimits` (`ninefold.web.limits`, `ninefold.web.origin`).

Routes, by module:

- `ninefold.web.routes_games`: ``POST /api/games``, ``GET /api/games/{id}``,
  ``/record``, ``POST /api/games/{id}/moves``, ``/undo``, ``/resign``,
  ``/draw``, ``WS /api/games/{id}/live``;
- `ninefold.web.routes_viewer`: ``GET /api/games/{id}/replay`` and
  ``GET /api/position?position=...&move=...`` (the analysis board);
- `ninefold.web.analysis`: ``WS /api/analysis``, ``GET /api/analysis``: a
  position's analysis, streamed as the search deepens;
- `ninefold.web.classic`: ``POST /api/classic`` and the page ``/classic``;
- `ninefold.web.review`: ``POST /api/games/{id}/review``, ``POST /api/reviews``,
  ``GET /api/reviews/{key}`` (and ``/replay``): a finished game's review, made in worker
  processes and stored;
- `ninefold.web.proof`: ``GET /api/proof`` and the page ``/proof``: X's forced win
  with open boards, replayed against an O of the viewer's choice;
- `ninefold.web.puzzles`: ``/api/puzzles...`` and the page ``/puzzles``: puzzles
  cut from real games, solved by clicking, rated by Glicko-2;
- `ninefold.web.explorer`: ``/api/explorer...`` and the page ``/explorer``: the moves
  played in each position of the indexed games, and how they scored;
- `ninefold.web.arena`: ``GET /api/arena``, ``/api/arena/standings``,
  ``/api/arena/plots/{name}.png``, ``/api/arena/{n}/replay``: the games,
  standings, plots and replays of an arena results database, when the
  server's database is one (``ninefold serve --db results.sqlite``: the web
  games go into the same file, in their own table);
- `ninefold.web.routes_platform`: ``/api/platform/...`` and the pages
  ``/platform/...`` and ``/platform-game/{id}`` (a ranked game in the viewer), with
  ``--platform URL``;
- `ninefold.web.routes_pages`: ``GET /``, ``/g/{id}``, ``/replay/{id}``,
  ``/analysis``, ``/arena``, ``/arena/{n}``, ``/platform-game/{n}``: the page
  (``static/index.html``); ``/rules``: the rules page; ``/favicon.ico``;
  ``/static/...``: the pages' files.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from ninefold.web import (
    analysis,
    classic,
    proof,
    routes_games,
    routes_pages,
    routes_viewer,
)
from ninefold.web import explorer as explorer_routes
from ninefold.web import puzzles as puzzles_routes
from ninefold.web.analysis import Analyst
from ninefold.web.arena import ArenaResults
from ninefold.web.arena import router as arena_router
from ninefold.web.body_limit import MAX_BODY_BYTES, BodyLimit
from ninefold.web.computer import Computer
from ninefold.web.errors import add_handlers
from ninefold.web.hub import Hub
from ninefold.web.limits import RateLimit, WebLimits
from ninefold.web.origin import OriginCheck
from ninefold.web.review import mount as mount_reviews
from ninefold.web.security import BrowserGuard, BrowserPolicy
from ninefold.web.store import GameStore

if TYPE_CHECKING:
    from ninefold.web.notify import Listener
    from ninefold.web.platform import Platform

__all__ = ["MAX_BODY_BYTES", "create_app"]


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Start what runs beside the requests (the computer's owed moves, the clocks, the
    platform's worker processes) and stop it all at the end."""
    hub: Hub = app.state.hub
    platform: Platform | None = app.state.platform
    listener: Listener | None = None
    if hub.store.shared:  # other processes' changes (psycopg imported only then)
        from ninefold.web.notify import Listener

        listener = await Listener.start(hub)
    await hub.resume()
    if platform is not None:
        await asyncio.to_thread(platform.start)
    try:
        yield
    finally:
        if platform is not None:
            await asyncio.to_thread(platform.close)
    if listener is not None:
        await listener.close()
    await hub.close()
    hub.computer.close()
    app.state.analyst.close()
    app.state.reviewer.close()


def create_app(db: str | Path = "ninefold-web.sqlite", computer: Computer | None = None,
               platform_url: str | None = None, workers: int = 0,
               limits: WebLimits | None = None,
               explorer: str | Path | None = None,
               puzzles: str | Path | None = None) -> FastAPI:
    """The web board's application, its games in the SQLite file `db` (or the
    PostgreSQL database at the URL `db`); with
    `platform_url`, the competition platform too (`ninefold.web.platform`), its
    uploads built and games played by `workers` worker processes; with `explorer`, the
    opening explorer over that index (`ninefold.web.explorer`); with `puzzles`, the
    puzzles of that file instead of the shipped ones (`ninefold.web.puzzles`)."""
    app = FastAPI(title="ninefold", version="0.1.0", lifespan=lifespan,
                  description="Ultimate Tic-Tac-Toe: play the computer or a friend by link.")
    app.state.limits = limits = limits or WebLimits()  # what one client may ask
    app.state.store = store = GameStore(db)
    app.state.hub = Hub(store, computer or Computer(), limits.computer_moves_per_client)
    app.state.new_games = RateLimit(limits.games_per_minute)  # per client, a minute
    app.state.arena = ArenaResults(db)
    app.state.platform = None
    uploads = None  # the platform's upload route: a larger body, streamed
    if platform_url:  # its modules (and the platform extra's packages) only then
        from ninefold.web.platform import MAX_UPLOAD_BYTES, Platform
        from ninefold.web.routes_platform import UPLOAD_PATH

        app.state.platform = Platform.open(platform_url, workers)
        uploads = (UPLOAD_PATH, MAX_UPLOAD_BYTES + 65536)
    add_handlers(app)
    app.add_middleware(OriginCheck, allowed=limits.allowed_origins)  # WebSockets only
    app.add_middleware(BodyLimit, limit=limits.max_body_bytes, uploads=uploads)
    # outermost: headers on every answer, other sites' posts 403 (the origins allowed to open
    # the sockets may post too; "*" opens the sockets to any page, never the posts)
    trusted = tuple(o for o in limits.allowed_origins if o != "*")
    app.add_middleware(BrowserGuard, policy=BrowserPolicy(trusted_origins=trusted))
    app.include_router(routes_games.router)  # first: the routes asked most, matched first
    analysis.mount(app, Analyst(per_client=limits.analyses_per_client,
                                max_waiting=limits.analyses_waiting))  # app.state.analyst
    if platform_url:
        from ninefold.web.routes_platform import pages as platform_pages
        from ninefold.web.routes_platform import router as platform_router

        app.include_router(platform_router)
        app.include_router(platform_pages)
    app.include_router(routes_viewer.router)
    app.include_router(arena_router)
    app.include_router(routes_pages.router)
    classic.mount(app)
    proof.mount(app)
    mount_reviews(app)  # app.state.reviewer: game reviews in worker processes
    puzzles_routes.mount(app, None if puzzles is None else Path(puzzles))
    explorer_routes.mount(app, explorer)
    app.mount("/static", StaticFiles(directory=routes_pages.STATIC), name="static")
    return app
