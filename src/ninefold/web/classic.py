"""Classic tic-tac-toe on the web board: the page ``/classic`` and its API.

The game lives in the page and its link (``/classic#m=4,0,8&o=perfect&s=x``);
the server holds nothing. The page sends the moves so far and who plays whom,
and the answer is the game after the computer's reply (when it is the
computer's turn), drawn in all three of the chapter's views (TicTacToe,
Pick15, Magic15: see `ninefold.classic.game`). Every rule and every text comes
from `ninefold.classic`; the page only draws what it is told.

- ``POST /api/classic``: a `ClassicRequest`; answers a `ClassicView`, or a 422
  with a one-line ``detail`` when the moves are not a legal game;
- ``GET /classic``: the page (``static/classic.html``).

>>> view = answer(ClassicRequest(moves=[4], opponent="perfect", seed=1))
>>> view.moves[0], view.turn, view.views["pick15"].cells[4], view.views["pick15"].status
(4, 'x', '5', 'X to move')
"""

from __future__ import annotations

import asyncio
import random
from typing import Annotated, Any, Literal

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from ninefold.classic.game import CELL_OF_NUMBER, ClassicBoard, View, status
from ninefold.classic.players import PLAYERS, make_classic_player
from ninefold.rules import IllegalMoveError, InvalidMoveError, Mark
from ninefold.web.errors import IllegalMove
from ninefold.web.notation import maybe_side, side
from ninefold.web.routes_pages import index_page
from ninefold.web.views import Problem

Side = Literal["x", "o"]
ViewName = Literal["tictactoe", "pick15", "magic15"]
Opponent = Literal["random", "naive", "centre", "perfect", "friend"]
Cell = Annotated[int, Field(ge=0, le=8, strict=True)]

assert set(PLAYERS) == {"random", "naive", "centre", "perfect"}  # the computer opponents


# --- what goes over the wire ---------------------------------------------------------


class ClassicRequest(BaseModel):
    """A classic game so far, and who plays it."""

    moves: list[Cell] = Field(
        default_factory=list, max_length=9,
        description="The cells played, 0-8 in reading order (0 is a1, 4 the centre).")
    opponent: Opponent = Field(
        "perfect", description="A computer player, or a friend on the same device.")
    side: Side = Field("x", description="The side the page's player holds (X moves first).")
    seed: int | None = Field(
        None, ge=0, le=2**63 - 1, strict=True,
        description="Seeds the computer's choice among equal moves: the same seed and "
                    "position give the same reply.")


class ViewText(BaseModel):
    """The game as one of the chapter's views shows it."""

    title: str
    hint: str = Field(..., description="How this view names moves: a1-c3 or 1-9.")
    layout: Literal["grid", "cards"] = Field(
        ..., description="grid: the 3x3 board; cards: the numbers in a row.")
    order: list[int] = Field(..., description="The cells in the order this view shows them.")
    cells: list[str] = Field(..., description="What each cell 0-8 shows (a1, or 8).")
    status: str = Field(..., description="Who is to move, or how the game ended.")
    line: str | None = Field(None, description="The winning line in this view's words.")


class ClassicView(BaseModel):
    """A classic game after the computer's reply, in all three views."""

    moves: list[int] = Field(..., description="Every move so far (the reply included).")
    opponent: Opponent
    side: Side
    you: list[Side] = Field(..., description="The sides the page's player(s) hold.")
    computer: Side | None
    reply: int | None = Field(None, description="The cell the computer just played.")
    cells: list[Literal["x", "o", ""]]
    turn: Side | None
    legal: list[int]
    last: int | None
    result: str | None = Field(None, description="1-0, 0-1 or 1/2-1/2 once it is over.")
    winner: Side | None = None
    termination: str | None = None
    line: list[int] | None = Field(None, description="The cells of the winning line.")
    status: str = Field(..., description="The status in the TicTacToe view's words.")
    picked: dict[Side, list[int]] = Field(..., description="Each side's Pick15 numbers.")
    views: dict[ViewName, ViewText]
    undo: list[int] | None = Field(
        None, description="The moves after a take-back to the player's last move "
                          "(None: nothing to take back).")


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem} for code in (400, 413, 422)}


# --- the game ----------------------------------------------------------------------------



def _view_text(board: ClassicBoard, view: View) -> ViewText:
    line = board.winning_line()
    cards = view is View.PICK15
    return ViewText(
        title=view.title, hint=view.hint, layout="cards" if cards else "grid",
        order=[CELL_OF_NUMBER[n] for n in range(1, 10)] if cards else list(range(9)),
        cells=[view.text(c) for c in range(9)], status=status(board, view),
        line=None if line is None else view.describe_line(line))


def _take_back(board: ClassicBoard, computer: Mark | None) -> list[int] | None:
    """The moves left after taking back to the player's last move: one move with a
    friend; against the computer, its reply too (None if the player has no move yet)."""
    if computer is None:
        return board.move_stack[:-1] if board.move_stack else None
    human = computer.other
    first = 0 if human is Mark.X else 1  # the player's moves are every other one from here
    if len(board.move_stack) <= first:
        return None
    back = board.copy()
    back.pop()
    if back.move_stack and back.turn is computer:
        back.pop()  # the computer's reply and the player's move before it
    return back.move_stack


def answer(req: ClassicRequest) -> ClassicView:
    """The game of `req` after the computer's reply; `IllegalMove` if the moves are not
    a legal game."""
    board = ClassicBoard()
    for n, cell in enumerate(req.moves, start=1):
        try:
            board.push(cell)
        except (IllegalMoveError, InvalidMoveError) as exc:
            raise IllegalMove(f"move {n} of the list: {exc}") from None
    human = Mark.X if req.side == "x" else Mark.O
    computer = None if req.opponent == "friend" else human.other
    reply = None
    if computer is not None and not board.is_game_over() and board.turn is computer:
        seed = None if req.seed is None else f"{req.seed}/{board.move_stack}"
        reply = make_classic_player(req.opponent, random.Random(seed)).choose(board)
        board.push(reply)
    outcome = board.outcome()
    line = board.winning_line()
    return ClassicView(
        moves=list(board.move_stack), opponent=req.opponent, side=req.side,
        you=[side(m) for m in (Mark.X, Mark.O) if m is not computer],
        computer=maybe_side(computer), reply=reply,
        cells=["" if c is None else side(c) for c in board.cells],
        turn=None if outcome else side(board.turn), legal=board.legal_moves,
        last=board.move_stack[-1] if board.move_stack else None,
        result=outcome.result() if outcome else None,
        winner=maybe_side(outcome.winner) if outcome else None,
        termination=str(outcome.termination) if outcome else None,
        line=None if line is None else list(line), status=status(board, View.TICTACTOE),
        picked={side(m): list(board.numbers(m)) for m in (Mark.X, Mark.O)},
        views={view.value: _view_text(board, view) for view in View},
        undo=_take_back(board, computer))


# --- the routes ----------------------------------------------------------------------------

router = APIRouter()


@router.post("/api/classic", response_model=ClassicView, responses=ERRORS)
async def classic_game(req: ClassicRequest) -> ClassicView:
    """Check a classic game's moves, let the computer reply if it is its turn, and
    answer the game in every view."""
    # the perfect player's first search fills its memo (a tenth of a second): off the loop
    return await asyncio.to_thread(answer, req)


async def classic_page(request: Request) -> HTMLResponse:
    return HTMLResponse(index_page(request.app.state.platform is not None, "classic.html"))


def mount(app: FastAPI) -> None:
    """Add the classic game's API and its page to `app`."""
    app.include_router(router)
    app.add_api_route("/classic", classic_page, methods=["GET"], include_in_schema=False)
