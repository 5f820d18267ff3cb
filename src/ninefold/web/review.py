"""Game reviews on the web board (`router`; `mount` adds it and a `Reviewer`).

A review (`ninefold.review`) analyses every position of a finished game in
worker processes; the server keeps one pool of them (`Reviewer.workers`,
started at the first review) and at most `Reviewer.max_running` reviews under
way at once (another is refused, 429 with ``Retry-After``). A finished review
is stored in the web store by its key (`ninefold.review.review_key`: the game's
start, moves and opening plies), so the same game from any source is reviewed
once and every later ask is answered at once, with the budget it was made with.

- ``POST /api/games/{id}/review``: review a finished web game (404: no such game;
  422: not finished);
- ``POST /api/reviews`` (`ReviewRequest`): review any finished game, by its start
  position and moves (an arena's, a platform's, a record's);
- ``GET /api/reviews/{key}``: how far the review has come, or the review
  (`ReviewStatus`); 404 when none is stored or under way;
- ``GET /api/reviews/{key}/replay``: the reviewed game's frames to step through
  (the page ``/review/{key}``, the link to share).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, FastAPI, Path
from pydantic import BaseModel, Field
from starlette.requests import HTTPConnection

from ninefold.review import (
    DEFAULT_MS,
    MIN_MS,
    Position,
    Review,
    evaluate,
    review,
    review_key,
    worker_pool,
)
from ninefold.rules import Board, Move
from ninefold.web.analysis import default_slots
from ninefold.web.dependencies import Store
from ninefold.web.errors import IllegalMove, NotFound, TooMany
from ninefold.web.store import GameStore
from ninefold.web.views import ERRORS, Problem, Replay, replay

MAX_MS = 2000.0  # the longest search a position a request may ask for
MAX_RUNNING = 4  # reviews under way at once, in the whole server
MAX_MOVES = 81
FINAL = ("1-0", "0-1", "1/2-1/2")
Key = Annotated[str, Path(pattern="^[0-9a-f]{32}$", description="A review's key.")]
LIMITED = {**ERRORS, 429: {"model": Problem}}


# --- what goes over the wire ---------------------------------------------------------


class ReviewRequest(BaseModel):
    """A finished game to review: where it started, its moves, how many of them an
    opening played, its result."""

    start: str = Field(..., max_length=300, description="The position before the first "
                       "move (a position string).")
    moves: list[Annotated[str, Field(max_length=4)]] = Field(..., max_length=MAX_MOVES)
    book: int = Field(0, ge=0, le=MAX_MOVES, description="How many of the first moves an "
                      "opening played (not judged).")
    result: Literal["1-0", "0-1", "1/2-1/2"] | None = Field(
        None, description="The result, for a game that ended before its board did "
        "(resigned, out of time); none: the board must be over.")
    ms: float | None = Field(None, ge=MIN_MS, le=MAX_MS, description="Search time a "
                             f"position (default {DEFAULT_MS:g}).")


class EvalPoint(BaseModel):
    x: float = Field(..., description="X's expected score here, 0-1 (a draw one half).")
    proven: Literal["x", "o", "draw"] | None = Field(..., description="Proven: who wins.")


class PlyView(BaseModel):
    ply: int
    move: str
    mover: Literal["x", "o"]
    x_before: float
    x_after: float
    loss: float = Field(..., description="What the move lost in expected score, for its "
                        "mover.")
    label: Literal["opening", "best", "good", "inaccuracy", "mistake", "blunder"]
    best: str | None = Field(..., description="The best move there, as the analysis saw it.")
    pv: list[str] = Field(..., description="Its line, the best move first.")


class Accuracy(BaseModel):
    x: float | None
    o: float | None


class ReviewView(BaseModel):
    key: str
    start: str
    moves: list[str]
    book: int
    result: str
    ms: float = Field(..., description="The search time a position it was made with.")
    player: str
    positions: list[EvalPoint] = Field(..., description="One more than the moves: the "
                                       "start, then after each move.")
    plies: list[PlyView]
    accuracy: Accuracy


class ReviewStatus(BaseModel):
    key: str
    state: Literal["running", "done", "failed"]
    done: int = Field(..., description="Positions analysed so far.")
    total: int
    detail: str | None = Field(None, description="Why it failed.")
    link: str = Field(..., description="The review's page, to share.")
    review: ReviewView | None = None


def review_view(rev: Review) -> ReviewView:
    return ReviewView(
        key=rev.key, start=rev.start, moves=rev.moves, book=rev.book, result=rev.result,
        ms=rev.ms, player=rev.player,
        positions=[EvalPoint(x=p.x, proven=p.proven) for p in rev.positions],
        plies=[PlyView(**vars(p)) for p in rev.plies],
        accuracy=Accuracy(x=rev.accuracy("x"), o=rev.accuracy("o")))


# --- the reviews under way -----------------------------------------------------------


@dataclass
class Game:
    """A game to review, parsed: its start, moves, opening plies and result."""

    start: Board
    moves: list[Move]
    book: int
    result: str

    @property
    def key(self) -> str:
        return review_key(self.start.position(), [str(m) for m in self.moves], self.book)


@dataclass
class Running:
    game: Game
    done: int = 0
    error: str | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class Reviewer:
    """Reviews in `workers` worker processes (default: as many as the analyses get; 0: in
    a thread of the server), at most `max_running` at once, `ms` a position unless a
    request says, each position analysed by `analyse` (`ninefold.review.evaluate`)."""

    def __init__(self, ms: float = DEFAULT_MS, workers: int | None = None,
                 max_running: int = MAX_RUNNING,
                 analyse: Callable[[str, float], Position] = evaluate) -> None:
        self.ms = ms
        self.workers = default_slots() if workers is None else workers
        self.max_running = max_running
        self.analyse = analyse
        self.running: dict[str, Running] = {}
        self._pool: ProcessPoolExecutor | None = None

    def pool(self) -> ProcessPoolExecutor:
        """The worker processes, started from the calling thread (the server's event
        loop, which lives as long as the server: a worker ends with the thread that
        started it)."""
        if self._pool is None:
            self._pool = worker_pool(self.workers)
            for _ in range(self.workers):  # each call starts a process while none is idle
                self._pool.submit(os.getpid)
        return self._pool

    async def start(self, store: GameStore, game: Game, ms: float | None = None) -> ReviewStatus:
        """The review of `game`: stored, under way, or begun now."""
        key = game.key
        known = await self.status(store, key)
        if known is not None and known.state != "failed":
            return known
        busy = sum(r.error is None for r in self.running.values())
        if busy >= self.max_running:
            raise TooMany(f"the server is reviewing {busy} games: try again in a minute", 60)
        run = self.running[key] = Running(game)
        pool = self.pool() if self.workers > 0 else None
        run.task = asyncio.create_task(self._run(store, run, ms or self.ms, pool))
        return _status(key, run)

    async def _run(self, store: GameStore, run: Running, ms: float,
                   pool: ProcessPoolExecutor | None) -> None:
        game = run.game

        def note(done: int, total: int) -> None:
            run.done = done  # from the review's thread: one int, read by the loop

        try:
            rev = await asyncio.to_thread(review, game.start, game.moves, ms, book=game.book,
                                          result=game.result, workers=0, pool=pool,
                                          progress=note, analyse=self.analyse)
            await store.call(store.keep_review, rev.key, ms, rev.to_json())
        except Exception as exc:  # a worker that died, a store that failed: said, kept
            run.error = f"the review failed: {exc}"
            return
        self.running.pop(game.key, None)

    async def stored(self, store: GameStore, key: str) -> Review | None:
        text = await store.call(store.stored_review, key)
        return None if text is None else Review.from_json(text)

    async def status(self, store: GameStore, key: str) -> ReviewStatus | None:
        """The review `key`: done (stored), under way or failed; None if unknown."""
        run = self.running.get(key)
        if run is not None and run.error is None:
            return _status(key, run)
        stored = await self.stored(store, key)
        if stored is not None:
            total = len(stored.positions)
            return ReviewStatus(key=key, state="done", done=total, total=total, detail=None,
                                link=link(key), review=review_view(stored))
        return None if run is None else _status(key, run)

    def close(self) -> None:
        """Stop the reviews under way and end the worker processes."""
        for run in self.running.values():
            if run.task is not None:
                run.task.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def link(key: str) -> str:
    return f"/review/{key}"


def _status(key: str, run: Running) -> ReviewStatus:
    return ReviewStatus(key=key, state="failed" if run.error else "running", done=run.done,
                        total=len(run.game.moves) + 1, detail=run.error, link=link(key))


def parse(request: ReviewRequest) -> Game:
    """The game a request names, checked: its moves fit, it is over (by its board or its
    result), its opening plies are moves it has; `IllegalMove` (422) if not."""
    try:
        start = Board.from_position(request.start)
        moves = [Move.parse(m) for m in request.moves]
    except ValueError as exc:
        raise IllegalMove(str(exc)) from None
    board = start.copy()
    for i, move in enumerate(moves):
        reason = board.why_illegal(move)
        if reason is not None:
            raise IllegalMove(f"move {i + 1} ({move}) cannot be played: {reason}")
        board.push(move)
    outcome = board.outcome()
    if outcome is None and request.result is None:
        raise IllegalMove("the game is not over: only a finished game is reviewed (give its "
                          "result if it ended by resignation or time)")
    if outcome is not None and request.result not in (None, outcome.result()):
        raise IllegalMove(f"the board's result is {outcome.result()}, not {request.result}")
    if request.book > len(moves):
        raise IllegalMove(f"book is {request.book}, more than the {len(moves)} moves")
    return Game(start, moves, request.book, outcome.result() if outcome else str(request.result))


# --- the routes ----------------------------------------------------------------------

router = APIRouter()


async def reviewer(conn: HTTPConnection) -> Reviewer:
    """The app's reviews (``app.state.reviewer``)."""
    found: Reviewer = conn.app.state.reviewer
    return found


Reviews = Annotated[Reviewer, Depends(reviewer)]


@router.post("/api/games/{game_id}/review", response_model=ReviewStatus, responses=LIMITED)
async def review_web_game(game_id: str, store: Store, reviews: Reviews) -> ReviewStatus:
    """Review a finished web game (or answer its review, stored or under way)."""
    game = await store.call(store.get, game_id)
    outcome = game.outcome()
    if outcome is None:
        raise IllegalMove("the game is not over: only a finished game is reviewed")
    board = game.board
    start = Board.from_position(game.start) if game.start else Board(game.rules)
    return await reviews.start(
        store, Game(start, list(board.move_stack), board.ply - game.ply, outcome.result()))


@router.post("/api/reviews", response_model=ReviewStatus, responses=LIMITED)
async def review_any_game(request: ReviewRequest, store: Store,
                          reviews: Reviews) -> ReviewStatus:
    """Review a finished game given by its start and moves (or answer its review)."""
    return await reviews.start(store, parse(request), request.ms)


@router.get("/api/reviews/{key}", response_model=ReviewStatus, responses=ERRORS)
async def review_status(key: Key, store: Store, reviews: Reviews) -> ReviewStatus:
    """How far a review has come, or the review when it is done."""
    found = await reviews.status(store, key)
    if found is None:
        raise NotFound(f"no review {key!r} here: ask for one with POST /api/reviews")
    return found


@router.get("/api/reviews/{key}/replay", response_model=Replay, responses=ERRORS)
async def review_replay(key: Key, store: Store, reviews: Reviews) -> Replay:
    """The reviewed game's frames, to step through beside its review."""
    run = reviews.running.get(key)
    if run is not None:
        game = run.game
    else:
        stored = await reviews.stored(store, key)
        if stored is None:
            raise NotFound(f"no review {key!r} here")
        game = Game(Board.from_position(stored.start), [Move.parse(m) for m in stored.moves],
                    stored.book, stored.result)
    return replay("Reviewed game", "X", "O", game.start.copy(), game.moves, game.book,
                  game.result, None)


def mount(app: FastAPI, chosen: Reviewer | None = None) -> Reviewer:
    """Add the review routes to `app`, with `chosen` (default: a new `Reviewer`) on
    ``app.state.reviewer``; the app's shutdown should call its ``close()``."""
    chosen = chosen or Reviewer()
    app.state.reviewer = chosen
    app.include_router(router)
    return chosen


__all__ = ["ReviewRequest", "ReviewStatus", "ReviewView", "Reviewer", "mount", "parse", "router"]
