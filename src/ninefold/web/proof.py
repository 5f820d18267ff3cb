"""X's forced win with open boards, replayed: the page ``/proof`` and its API.

The page steps through a game in which X plays the proved strategy
(`ninefold.players.proof`) and O is the viewer's choice: the longest defence,
random moves, or the viewer's own clicks. The line lives in the page; the
server answers, for one position, what the strategy says there:

- ``GET /api/proof?position=...&move=...``: the position (the empty
  open-boards board if none is given), after `move` if one is given, as a
  `ProofStep`: the board, the strategy's phase (1-4, docs/guide/proof.md), X's
  move or O's longest defence, and the plies to X's win; a 422 with a
  one-line ``detail`` for a position the strategy does not reach; a 503
  whose ``detail`` says what is being done while the strategy is prepared
  (the page asks again a second later);
- ``GET /proof``: the page (``static/proof.html``).

The strategy is read once in the server's process, on the first request, in a
thread (`ninefold.players.proof.strategy`: a tenth of a second from the shipped
file; a first run compiles its reader, and a missing file means proving it
again, a minute or two): a request that finds it not ready within a second is
answered 503 with the stage reached, and every answer after is a lookup.
"""

from __future__ import annotations

import asyncio
import time

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from ninefold.players import proof
from ninefold.players.proof import RULES, CannotPlay, longest_defence, phase, strategy
from ninefold.rules import Board, X
from ninefold.web.errors import GameError, IllegalMove
from ninefold.web.routes_pages import index_page
from ninefold.web.routes_viewer import MoveQuery, PositionQuery, board_after
from ninefold.web.views import ERRORS, PositionView, position_view

WAIT = 1.0  # s: how long a request waits for the strategy before it answers 503


class Preparing(GameError):
    """The strategy is not ready yet: the message says what is being done."""

    status = 503


class ProofStep(BaseModel):
    """A position of X's forced win, and what the strategy does there."""

    board: PositionView
    ply: int = Field(..., description="Marks on the board.")
    phase: int = Field(..., ge=1, le=4, description="The strategy's phase (docs/guide/proof.md).")
    phase_name: str
    x_move: str | None = Field(..., description="X's move here (X to move).")
    longest: str | None = Field(
        ..., description="O's reply that holds out longest (O to move).")
    plies_left: int = Field(
        ..., description="Plies to X's win from here against the longest defence.")


def step(board: Board) -> ProofStep:
    """What the strategy does at `board`; `IllegalMove` where it does not reach.

    >>> step(Board("standard"))
    Traceback (most recent call last):
    ...
    ninefold.web.errors.IllegalMove: the proof plays open-boards games, not standard
    """
    if board.rules != RULES:
        raise IllegalMove(f"the proof plays open-boards games, not {board.rules.name}")
    outcome = board.outcome()
    x_move = longest = None
    if outcome is not None:
        if outcome.winner is not X:
            raise IllegalMove(f"X's strategy never ends a game so ({outcome.result()})")
        left = 0
    else:
        won = strategy()
        if board.turn is X:
            move, plies = won.move(board), won.plies_left(board)
            if move is None or plies is None:
                raise IllegalMove(f"X's strategy does not reach {board.position()}")
            x_move, left = str(move), plies
        else:
            try:
                reply, left = longest_defence(board)
            except CannotPlay as exc:
                raise IllegalMove(str(exc)) from None
            longest = str(reply)
    now = phase(board)
    marks = sum(cell is not None for cell in board.cells)
    return ProofStep(board=position_view(board), ply=marks, phase=now.number,
                     phase_name=now.name, x_move=x_move, longest=longest, plies_left=left)


async def until_ready(wait: float = WAIT) -> None:
    """Return once the strategy is ready; `Preparing`, with the stage reached, if it is
    not within `wait` seconds."""
    if proof.ready():
        return
    proof.prepare()
    end = time.monotonic() + wait
    while not proof.ready():
        if time.monotonic() >= end:
            raise Preparing(f"X's forced win is being prepared: {proof.preparing() or 'starting'}")
        await asyncio.sleep(0.05)


router = APIRouter()


@router.get("/api/proof", response_model=ProofStep,
            responses=ERRORS | {503: ERRORS[422]})
async def proof_step(position: PositionQuery = None, move: MoveQuery = None) -> ProofStep:
    """A position of X's forced win with open boards (none: the empty board), after `move`
    if one is given; 503 while the strategy is being prepared, saying how far it is."""
    board = board_after(position, move, Board(RULES))
    await until_ready()
    return step(board)


async def proof_page(request: Request) -> HTMLResponse:
    return HTMLResponse(index_page(request.app.state.platform is not None, "proof.html"))


def mount(app: FastAPI) -> None:
    """Add the proof's API and its page to `app`."""
    app.include_router(router)
    app.add_api_route("/proof", proof_page, methods=["GET"], include_in_schema=False)
