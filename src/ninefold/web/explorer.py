"""The opening explorer on the web: the page ``/explorer`` and its API, over the explorer
index the server was started with (``ninefold serve --explorer FILE``,
`ninefold.explorer`).

- ``GET /api/explorer?moves=...&position=...&rules=...&source=...``: the position after
  `moves` (space separated) from `position` (a position string; default: the empty
  board of `rules`), an `ExplorerView`: the board, the moves played there with their
  games and results, the engine's evaluation where the index keeps it;
- ``POST /api/explorer/evaluate`` (`EvaluateRequest`): the same, the engine's
  evaluation searched now if the index does not keep it yet (then kept); the engine
  evaluates one position at a time, and a request while it is busy answers 429 with
  one line;
- ``GET /explorer``: the page (``static/explorer.html``); its address holds the query,
  so a link shows the same position.

A bad position, moves that do not fit it, a position under other rules than the
filter, or an unknown source: 400 with one line. No index: 404 with one line.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from ninefold.explorer import (
    EVAL_MS,
    SOURCES,
    Answer,
    Explorer,
    ExplorerError,
    evaluation,
    parse_board,
)
from ninefold.rules import Board
from ninefold.variants import PRESETS
from ninefold.web.errors import GameError, NotFound, TooMany
from ninefold.web.routes_pages import index_page
from ninefold.web.views import ERRORS, PositionView, position_view

MAX_EVAL_MS = 1000.0  # the longest search a move one evaluation request may ask for
EVALUATING_RETRY_S = 5.0  # what a request refused while the engine is busy is told to wait


class ExplorerMove(BaseModel):
    """A move played in the position, its games and how they ended."""

    move: str
    games: int
    x: int = Field(..., description="Games X went on to win.")
    draw: int
    o: int = Field(..., description="Games O went on to win.")
    eval_x: float | None = Field(..., description="The engine's expected score for X "
                                 "after the move (null: not evaluated, or a move its "
                                 "search hardly looked at).")
    proven: Literal["x", "o", "draw"] | None = Field(
        ..., description="The result the engine proved after the move, if it did.")


class ExplorerView(BaseModel):
    """A position of the explorer: the board and the moves played there."""

    board: PositionView
    rules: str
    source: str | None
    games: int = Field(..., description="The games that reached the position (of the "
                       "source, if one is asked).")
    moves: list[ExplorerMove]
    evaluated: bool = Field(..., description="The engine's evaluation is in the moves.")
    sources: list[str]
    presets: list[str]


class EvaluateRequest(BaseModel):
    position: str | None = None
    moves: str = Field("", max_length=400)
    rules: str | None = Field(None, max_length=80)
    source: str | None = Field(None, max_length=40)
    ms: float = Field(EVAL_MS, ge=20.0, le=MAX_EVAL_MS,
                      description="The engine's search time, in milliseconds.")


class BadQuery(GameError):
    status = 400


class ExplorerIndex:
    """The server's explorer index (or none), asked one question at a time."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = path
        self.index = Explorer(path, readonly=True) if path else None
        self.lock = threading.Lock()  # the index's connection: one question at a time
        self.evaluating = threading.Lock()  # the engine: one position at a time

    def ask(self, position: str | None, moves: str, rules: str | None, source: str | None,
            ms: float | None = None) -> tuple[Board, Answer]:
        """The board asked for and the index's answer (evaluated when `ms` is given)."""
        if self.index is None:
            raise NotFound("no explorer index on this server: start it with "
                           "ninefold serve --explorer FILE (ninefold explore index makes one)")
        try:
            board = parse_board(position, moves, rules)
            with self.lock:
                answer = self.index.query(board, source)
        except ExplorerError as exc:
            raise BadQuery(str(exc)) from None
        if ms is None or answer.evaluated or board.is_game_over() or not answer.moves:
            return board, answer
        if not self.evaluating.acquire(blocking=False):
            raise TooMany("the engine is evaluating another position: try again in a few "
                          "seconds", EVALUATING_RETRY_S)
        try:  # the search runs outside the index's lock: questions go on meanwhile
            scores = evaluation(board, answer, ms)
        finally:
            self.evaluating.release()
        with self.lock:
            self.index.keep(board, scores)
            return board, self.index.query(board, source)

    def close(self) -> None:
        if self.index is not None:
            self.index.close()


def _view(board: Board, answer: Answer, source: str | None) -> ExplorerView:
    return ExplorerView(
        board=position_view(board), rules=board.rules.name, source=source, games=answer.games,
        moves=[ExplorerMove(move=str(r.move), games=r.games, x=r.x, draw=r.draw, o=r.o,
                            eval_x=r.eval_x, proven=r.proven)  # type: ignore[arg-type]
               for r in answer.moves],
        evaluated=answer.evaluated, sources=list(SOURCES), presets=list(PRESETS))


def _index(request: Request) -> ExplorerIndex:
    index: ExplorerIndex = request.app.state.explorer
    return index


router = APIRouter(tags=["explorer"])


@router.get("/api/explorer", responses=ERRORS)
async def explore(
    request: Request,
    moves: Annotated[str, Query(max_length=400, description='Moves, e.g. "e5 e4".')] = "",
    position: Annotated[str | None, Query(max_length=200)] = None,
    rules: Annotated[str | None, Query(max_length=80)] = None,
    source: Annotated[str | None, Query(max_length=40)] = None,
) -> ExplorerView:
    """The moves played from a position in the indexed games, and how they scored."""
    board, answer = await asyncio.to_thread(_index(request).ask, position, moves,
                                            rules or None, source or None)
    return _view(board, answer, source or None)


@router.post("/api/explorer/evaluate", responses=ERRORS)
async def evaluate(request: Request, body: EvaluateRequest) -> ExplorerView:
    """The same, with the engine's evaluation of each move (searched once, then kept)."""
    board, answer = await asyncio.to_thread(_index(request).ask, body.position, body.moves,
                                            body.rules or None, body.source or None, body.ms)
    return _view(board, answer, body.source or None)


async def explorer_page(request: Request) -> HTMLResponse:
    return HTMLResponse(index_page(request.app.state.platform is not None, "explorer.html"))


def mount(app: FastAPI, path: str | Path | None) -> None:
    """Add the explorer's API and page to `app`, over the index at `path` (None: the page
    says there is none)."""
    try:
        app.state.explorer = ExplorerIndex(path)
    except ExplorerError as exc:
        raise ValueError(str(exc)) from None
    app.include_router(router)
    app.add_api_route("/explorer", explorer_page, methods=["GET"], include_in_schema=False)
