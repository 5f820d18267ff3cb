"""Puzzles on the web: the page ``/puzzles`` and its API.

The page shows a puzzle of the shipped file (`ninefold.puzzles.puzzle.load`), or of
the file ``ninefold serve --puzzles FILE`` names, read on the first request (a
file that cannot be read answers 503 with its one line); the solver
clicks the attacker's moves and the server answers each from the puzzle's
solution tree, with the defender's reply that lasts longest. A try is
stateless: the page sends every move it has played so far.

- ``GET /api/puzzles?theme=...&solver=...``: the next puzzle for this solver
  (one of the ten whose ratings are nearest its own, not tried yet if any
  is left; of one theme if asked), a `PuzzleView`;
- ``GET /api/puzzles/{id}?solver=...``: one puzzle (404: one line);
- ``POST /api/puzzles/{id}/try`` (`TryRequest`): the moves so far; a `TryView`:
  going on (with the defender's reply), solved, or failed (a move that is not
  the solution's, or not legal here: the line says which); the solution's
  line once the try has ended. The first finished try of a solver at a puzzle
  rates both (`ninefold.web.puzzle_ratings`);
- ``POST /api/puzzles/{id}/hint`` (`TryRequest`): the board to play in and the
  square; a hint ends the rated try as failed (a retry is never rated);
- ``GET /puzzles``, ``/puzzles/{id}``: the page (``static/puzzles.html``).

A solver is the browser (the page's random id, kept in its local storage) or,
when the server runs the platform and the request carries a logged-in session,
the account.
"""

from __future__ import annotations

import asyncio
import random
from functools import cache
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from ninefold.puzzles.puzzle import THEMES, InvalidPuzzleError, Node, Puzzle, load
from ninefold.rules import PRESETS, Board, InvalidMoveError, Move
from ninefold.web.errors import IllegalMove, NotFound, Unavailable
from ninefold.web.notation import side
from ninefold.web.puzzle_ratings import PuzzleRatings
from ninefold.web.routes_pages import index_page
from ninefold.web.views import ERRORS, PositionView, position_view

State = Literal["going", "solved", "failed"]
NEAREST = 10  # the next puzzle is one of this many nearest the solver's rating
SOLVER_ID = r"^[A-Za-z0-9_-]{8,64}$"


@cache
def shipped() -> dict[str, Puzzle]:
    """The shipped puzzles by id (read once a process)."""
    return {p.id: p for p in load()}


def served(request: Request) -> dict[str, Puzzle]:
    """The puzzles this server shows by id: its ``--puzzles`` file's, or the shipped ones;
    `Unavailable` (503, one line) for a file that cannot be read or is damaged."""
    state = request.app.state
    if state.puzzle_set is None:
        try:
            state.puzzle_set = (shipped() if state.puzzle_file is None
                                else {p.id: p for p in load(state.puzzle_file)})
        except InvalidPuzzleError as exc:
            raise Unavailable(f"the puzzles cannot be read: {exc}") from None
    puzzles: dict[str, Puzzle] = state.puzzle_set
    return puzzles


class RatingView(BaseModel):
    rating: int
    rd: int = Field(..., description="The rating's deviation: how unsure it still is.")
    tries: int = Field(0, description="Rated tries (a solver's).")


class PuzzleView(BaseModel):
    """A puzzle to solve: its position and what is known of it (not its solution)."""

    id: str
    rules: str = Field(..., description="The rule set (docs/guide/rules.md).")
    board: PositionView
    attacker: Literal["x", "o"]
    plies: int = Field(..., description="The attacker wins within this many plies.")
    themes: list[str]
    rating: RatingView
    solver: RatingView
    source: str = Field(..., description="The game it comes from.")


class TryRequest(BaseModel):
    solver: str = Field(..., pattern=SOLVER_ID, description="The browser's solver id.")
    moves: list[str] = Field(default_factory=list, max_length=8,
                             description="The attacker's moves so far, in order.")


class TryView(BaseModel):
    """Where a try stands after the attacker's last move."""

    state: State
    message: str
    board: PositionView = Field(..., description="After the defender's reply, if any.")
    reply: str | None = Field(..., description="The defender's reply to the last move.")
    line: list[str] | None = Field(..., description="The solution, once the try has ended.")
    rated: bool = Field(..., description="This answer rated the try (its first end).")
    rating: RatingView
    solver: RatingView


class HintView(BaseModel):
    board: int = Field(..., ge=1, le=9, description="The small board to play in, 1-9.")
    square: str
    rating: RatingView
    solver: RatingView


def _ratings(request: Request) -> PuzzleRatings:
    ratings: PuzzleRatings = request.app.state.puzzle_ratings
    return ratings


def _puzzle(request: Request, puzzle_id: str) -> Puzzle:
    found = served(request).get(puzzle_id)
    if found is None:
        raise NotFound(f"no puzzle {puzzle_id[:40]!r} here")
    return found


async def _who(request: Request, solver: str) -> str:
    """The rated solver: the logged-in account when the platform runs, else the browser."""
    platform = request.app.state.platform
    if platform is not None:
        from ninefold.web.routes_platform import session_token

        token = session_token(request)
        if token:
            user = await asyncio.to_thread(platform.accounts.user_for, token)
            if user is not None:
                return f"user:{user.id}"
    return f"browser:{solver}"


def _view(rating: float, rd: float, tries: int = 0) -> RatingView:
    return RatingView(rating=round(rating), rd=round(rd), tries=tries)


def ratings_of(ratings: PuzzleRatings, puzzle: Puzzle, who: str) -> tuple[RatingView, RatingView]:
    """(the puzzle's rating, the solver's) now."""
    it, me = ratings.puzzle(puzzle.id, puzzle.rating), ratings.solver(who)
    return _view(it.rating, it.rd), _view(me.rating, me.rd, ratings.tries(who))


def puzzle_view(puzzle: Puzzle, ratings: PuzzleRatings, who: str) -> PuzzleView:
    board = puzzle.board()
    it, me = ratings_of(ratings, puzzle, who)
    where = puzzle.source
    return PuzzleView(
        id=puzzle.id, rules=board.rules.name, board=position_view(board),
        attacker=side(board.turn),
        plies=puzzle.plies, themes=list(puzzle.themes), rating=it, solver=me,
        source=f"{where.get('file', '?')}, game {where.get('game', '?')}, after "
               f"{where.get('ply', '?')} moves")


def _moves(texts: list[str]) -> list[Move]:
    try:
        return [Move.parse(t) for t in texts]
    except InvalidMoveError as exc:
        raise IllegalMove(str(exc)) from None


def walk(puzzle: Puzzle, moves: list[Move]
         ) -> tuple[State, str, Board, Move | None, Node | None]:
    """Play the attacker's `moves` against the longest defence: (state, message, the board
    after, the last reply, the node to play next); `IllegalMove` for moves after the end."""
    board = puzzle.board()
    node = puzzle.tree
    reply = None
    for i, move in enumerate(moves):
        why = board.why_illegal(move)
        if why is not None:
            return "failed", f"{move} is not legal here: {why}", board, reply, node
        wins = False
        if move != node.move and not node.replies:  # the last move: any win at once wins
            after = board.copy()
            after.push(move)
            outcome = after.outcome()
            wins = outcome is not None and outcome.winner is board.turn
        if move != node.move and not wins:
            return "failed", f"{move} is not the move: it lets the win slip", board, reply, node
        board.push(move)
        if board.is_game_over():
            if i + 1 < len(moves):
                raise IllegalMove(f"the puzzle ended after move {i + 1}: no move "
                                  f"{moves[i + 1]} to play")
            return "solved", f"Solved: {move} wins the game", board, None, None
        reply = node.longest_reply()
        board.push(reply)
        node = node.replies[reply]
    return "going", "Your move", board, reply, node


router = APIRouter()
SolverQuery = Annotated[str, Query(pattern=SOLVER_ID, description="The browser's solver id.")]
ThemeQuery = Annotated[str | None, Query(
    max_length=40, description=f"Only puzzles of this theme: {', '.join(THEMES)}.")]


RulesQuery = Annotated[str | None, Query(
    max_length=40, description=f"Only puzzles under these rules: {', '.join(PRESETS)}.")]


@router.get("/api/puzzles", response_model=PuzzleView, responses=ERRORS)
async def next_puzzle(request: Request, solver: SolverQuery, theme: ThemeQuery = None,
                      rules: RulesQuery = None,
                      after: str | None = Query(None, max_length=40,
                                                description="The puzzle just seen.")
                      ) -> PuzzleView:
    """The next puzzle for this solver: near its rating, not tried yet if one is left."""
    if theme is not None and theme not in THEMES:
        raise IllegalMove(f"no theme {theme!r}: the themes are {', '.join(THEMES)}")
    if rules is not None and rules not in PRESETS:
        raise IllegalMove(f"no rules {rules!r} here: choose one of {', '.join(PRESETS)}")
    ratings, who = _ratings(request), await _who(request, solver)
    pool = [p for p in served(request).values() if (theme is None or theme in p.themes)
            and (rules is None or p.position.split()[0] == rules) and p.id != after]
    if not pool:
        raise NotFound(f"no puzzle {'of the theme ' + repr(theme) if theme else ''}"
                       f"{' under ' + rules if rules else ''} here")
    tried = ratings.tried(who)
    fresh = [p for p in pool if p.id not in tried] or pool
    mine = ratings.solver(who).rating
    fresh.sort(key=lambda p: abs(ratings.puzzle(p.id, p.rating).rating - mine))
    return puzzle_view(random.choice(fresh[:NEAREST]), ratings, who)


@router.get("/api/puzzles/{puzzle_id}", response_model=PuzzleView, responses=ERRORS)
async def one_puzzle(request: Request, puzzle_id: str, solver: SolverQuery) -> PuzzleView:
    """One puzzle by its id."""
    return puzzle_view(_puzzle(request, puzzle_id), _ratings(request), await _who(request, solver))


@router.post("/api/puzzles/{puzzle_id}/try", response_model=TryView, responses=ERRORS)
async def try_moves(request: Request, puzzle_id: str, body: TryRequest) -> TryView:
    """The attacker's moves so far, answered from the solution tree."""
    puzzle = _puzzle(request, puzzle_id)
    ratings, who = _ratings(request), await _who(request, body.solver)
    state, message, board, reply, _ = walk(puzzle, _moves(body.moves))
    rated = state != "going" and ratings.rate(who, puzzle.id, puzzle.rating,
                                              solved=state == "solved")
    it, me = ratings_of(ratings, puzzle, who)
    return TryView(state=state, message=message, board=position_view(board),
                   reply=None if reply is None or state != "going" else str(reply),
                   line=None if state == "going" else [str(m) for m in puzzle.line],
                   rated=rated, rating=it, solver=me)


@router.post("/api/puzzles/{puzzle_id}/hint", response_model=HintView, responses=ERRORS)
async def hint(request: Request, puzzle_id: str, body: TryRequest) -> HintView:
    """The next move's board and square; the try, if not rated yet, is rated failed."""
    puzzle = _puzzle(request, puzzle_id)
    state, _, _, _, node = walk(puzzle, _moves(body.moves))
    if state != "going" or node is None:
        raise IllegalMove("the try has ended: no hint to give")
    ratings, who = _ratings(request), await _who(request, body.solver)
    ratings.rate(who, puzzle.id, puzzle.rating, solved=False)
    it, me = ratings_of(ratings, puzzle, who)
    return HintView(board=node.move.board + 1, square=str(node.move), rating=it, solver=me)


async def puzzles_page(request: Request) -> HTMLResponse:
    return HTMLResponse(index_page(request.app.state.platform is not None, "puzzles.html"))


def mount(app: FastAPI, puzzles: Path | None = None) -> None:
    """Add the puzzles' API (over the file `puzzles`, or the shipped one), their ratings
    (in the games' database) and the page to `app`."""
    app.state.puzzle_file, app.state.puzzle_set = puzzles, None
    app.state.puzzle_ratings = PuzzleRatings(app.state.store)
    app.include_router(router)
    for path in ("/puzzles", "/puzzles/{rest:path}"):
        app.add_api_route(path, puzzles_page, methods=["GET"], include_in_schema=False)

