"""X's forced win with open boards, replayed: the page ``/proof`` and its API.

The page steps through a game in which X plays the proved strategy
(`ninefold.players.proof`) and O is the viewer's choice: the longest defence,
random moves, or the viewer's own clicks. The line lives in the page; the
server answers, for one position, what the strategy says there:

- ``GET /api/proof?position=...&move=...``: the position (the empty
  open-boards board if none is given), after `move` if one is given, as a
  `ProofStep`: the board, the strategy's phase (1-4, docs/theorem.md), X's
  move or O's longest defence, and the plies to X's win; a 422 with a
  one-line ``detail`` for a position the strategy does not reach;
- ``GET /proof``: the page (``static/proof.html``).

The strategy is proved and its lines measured once in the server's process,
on the first request (some seconds, in a thread: `ninefold.players.proof`
keeps them), and every answer after is a lookup.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field

from ninefold.players.proof import RULES, CannotPlay, longest_defence, phase, plies_left, strategy
from ninefold.rules import Board, X
from ninefold.web.errors import IllegalMove
from ninefold.web.routes_viewer import MoveQuery, PositionQuery, board_after
from ninefold.web.views import ERRORS, PositionView, position_view

STATIC = Path(__file__).resolve().parent / "static"
_PROVING = threading.Lock()  # one request proves the strategy; the others wait for it


class ProofStep(BaseModel):
    """A position of X's forced win, and what the strategy does there."""

    board: PositionView
    ply: int = Field(..., description="Marks on the board.")
    phase: int = Field(..., ge=1, le=4, description="The strategy's phase (docs/theorem.md).")
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
        with _PROVING:
            moves, plies = strategy().moves, plies_left()
        if board.turn is X:
            move = moves.get(board.position())
            if move is None:
                raise IllegalMove(f"X's strategy does not reach {board.position()}")
            x_move, left = str(move), plies[board.position()]
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


router = APIRouter()


@router.get("/api/proof", response_model=ProofStep, responses=ERRORS)
async def proof_step(position: PositionQuery = None, move: MoveQuery = None) -> ProofStep:
    """A position of X's forced win with open boards (none: the empty board), after `move`
    if one is given."""
    board = board_after(position, move, Board(RULES))
    # the first request proves the strategy (seconds of CPU): off the event loop
    return await asyncio.to_thread(step, board)


async def proof_page() -> FileResponse:
    return FileResponse(STATIC / "proof.html")


def mount(app: FastAPI) -> None:
    """Add the proof's API and its page to `app`."""
    app.include_router(router)
    app.add_api_route("/proof", proof_page, methods=["GET"], include_in_schema=False)
