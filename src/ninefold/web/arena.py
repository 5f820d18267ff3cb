"""The arena viewer's API: the games, standings and plots of an arena results database.

When the server's database is an arena results database (``ninefold serve --db
results.sqlite``: the web games go into the same file, in their own table),
these routes show what the arena played there; otherwise they answer 404.
`ninefold.web.app` includes `router` and keeps the database's `ArenaResults`
(its plot cache) on ``app.state.arena``.

- ``GET /api/arena``: the games (`ArenaGames`), numbered from 1;
- ``GET /api/arena/standings``: the standings table and the match line
  (`ArenaStandings`), as ``ninefold report`` prints them;
- ``GET /api/arena/plots/{name}.png``: a plot of ``ninefold report`` (`PLOTS`),
  drawn again only when the games changed;
- ``GET /api/arena/{n}/replay``: game ``n``, to step through (`Replay`).
"""

from __future__ import annotations

import asyncio
import math
import tempfile
import threading
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.requests import HTTPConnection

from ninefold.arena import report
from ninefold.arena.config import RunConfig
from ninefold.arena.referee import GameResult as ArenaResult
from ninefold.arena.standings import Standings
from ninefold.arena.storage import Storage, StorageError
from ninefold.rules import Board, Move, opening_moves
from ninefold.web.errors import IllegalMove, NotFound
from ninefold.web.views import ERRORS, Replay, replay

PLOTS = ("ratings", "matrix")  # the arena plots `ninefold report` draws


# --- what goes over the wire ---------------------------------------------------------


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


# --- the database ----------------------------------------------------------------------


class ArenaResults:
    """The arena results database `db`, read only, and its plots (drawn again only
    when the games changed)."""

    def __init__(self, db: str | Path) -> None:
        self.db = db
        self._plot_lock = threading.Lock()
        self._plots: dict[tuple[int, str], bytes] = {}

    def games(self) -> list[ArenaResult]:
        """The database's arena games, in schedule order (404: not an arena database)."""
        try:
            with Storage(self.db, readonly=True) as results:
                return results.games()
        except StorageError:
            raise NotFound("this server's database holds no arena games") from None

    def run(self) -> tuple[RunConfig | None, Standings]:
        """The run's configuration (if stored) and standings (404: not an arena database)."""
        try:
            return report.load(self.db)
        except StorageError:
            raise NotFound("this server's database holds no arena games") from None

    def plot_png(self, name: str) -> bytes:
        """The plot, drawn again only when the games changed (matplotlib is not
        thread-safe: one drawing at a time)."""
        with self._plot_lock:
            _, st = self.run()
            if not st.games:
                raise NotFound("no arena games yet: nothing to plot")
            key = (len(st.games), name)
            if key not in self._plots:
                with tempfile.TemporaryDirectory() as tmp:
                    for path in report.plot(st, tmp, stem="arena"):
                        self._plots[(key[0], path.stem.removeprefix("arena-"))] = (
                            path.read_bytes())
            return self._plots[key]


def arena_results(conn: HTTPConnection) -> ArenaResults:
    """The app's arena results database (``app.state.arena``)."""
    results: ArenaResults = conn.app.state.arena
    return results


Results = Annotated[ArenaResults, Depends(arena_results)]


# --- the routes ------------------------------------------------------------------------

router = APIRouter()


@router.get("/api/arena", response_model=ArenaGames, responses=ERRORS)
async def arena_list(results: Results) -> ArenaGames:
    games = await asyncio.to_thread(results.games)
    return ArenaGames(games=[
        ArenaGame(n=i, x=g.x, o=g.o, result=g.result, termination=str(g.termination),
                  plies=len(g.moves)) for i, g in enumerate(games, start=1)])


@router.get("/api/arena/standings", response_model=ArenaStandings, responses=ERRORS)
async def arena_standings(results: Results) -> ArenaStandings:
    cfg, st = await asyncio.to_thread(results.run)
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


@router.get("/api/arena/plots/{name}.png", responses={
    200: {"content": {"image/png": {}}}, **ERRORS}, response_class=Response)
async def arena_plot(name: str, results: Results) -> Response:
    """A plot of `ninefold report`: ratings (Elo with 95% intervals) or matrix
    (pairwise scores)."""
    if name not in PLOTS:
        raise NotFound(f"no plot {name!r}: there are {', '.join(PLOTS)}")
    png = await asyncio.to_thread(results.plot_png, name)
    return Response(png, media_type="image/png",
                    headers={"Cache-Control": "no-cache"})


@router.get("/api/arena/{n}/replay", response_model=Replay, responses=ERRORS)
async def arena_replay(n: int, results: Results) -> Replay:
    games = await asyncio.to_thread(results.games)
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
