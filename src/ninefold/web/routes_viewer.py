"""The web board's routes for boards to look at, not to play on (`router`).

- ``GET /api/games/{id}/replay``: every position of a web game, to step through;
- ``GET /api/position?position=...&move=...``: a position on its own, after a
  move if one is given (the analysis board).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ninefold.rules import Board, Mark, Move
from ninefold.web.dependencies import Store
from ninefold.web.errors import IllegalMove
from ninefold.web.views import ERRORS, PositionView, Replay, position_view, replay

router = APIRouter()


@router.get("/api/games/{game_id}/replay", response_model=Replay, responses=ERRORS)
async def game_replay(game_id: str, store: Store) -> Replay:
    game = await store.call(store.get, game_id)
    board = game.board
    outcome = game.outcome()
    computer = game.computer_side()
    names = {m: ("computer, " + game.computer_name() if m is computer else "player")
             for m in Mark}
    start = Board.from_position(game.start) if game.start else Board(game.rules)
    return replay(f"Game {game.id}", names[Mark.X], names[Mark.O], start,
                  list(board.move_stack), board.ply - game.ply,
                  outcome.result() if outcome else None,
                  str(outcome.termination) if outcome else None)


PositionQuery = Annotated[str | None, Query(
    max_length=300, description="A position string (none: the start).")]
MoveQuery = Annotated[str | None, Query(max_length=8, description="A move to play first.")]


def board_after(position: str | None, move: str | None, start: Board) -> Board:
    """The board `position` names (None: `start`), after `move` if one is given;
    `IllegalMove` (422) for a position or a move that cannot be."""
    try:
        board = start if position is None else Board.from_position(position)
        if move is not None:
            board.push(Move.parse(move))
    except ValueError as exc:
        raise IllegalMove(str(exc)) from None
    return board


@router.get("/api/position", response_model=PositionView, responses=ERRORS)
async def position(position: PositionQuery = None, move: MoveQuery = None) -> PositionView:
    """A position (the analysis board), after `move` if one is given."""
    return position_view(board_after(position, move, Board()))
