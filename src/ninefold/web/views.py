"""The JSON the web board's API speaks: its models, parsed once at the edge, and the
functions that turn a game or a board into them.

A request body becomes one of the request models (`NewGame`, `MoveRequest`,
`PlyRequest`) before any route runs, so a route never sees a malformed one;
every answer is one of the view models, built here from a `WebGame` or a
`Board`:

- `game_view`: a game as everyone sees it (`GameView`), plus the sides the
  asking token holds;
- `position_view`: a position on its own, for the analysis board (`PositionView`);
- `replay`: a whole game to step through, a `Frame` per position (`Replay`);
- `small_boards`: the nine small boards, as every view draws them;
- `winning_line`: the boards of the line that won, which the pages mark;
- `board_status`: the status line's words (boards numbered 1-9, as the pages do).

A refused request answers a `Problem` (a one-line ``detail``); `ERRORS` lists
the statuses a route may answer, for the OpenAPI schema.
"""

from __future__ import annotations

import functools
import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Discriminator, Field, Tag

from ninefold.moves import board_span
from ninefold.rules import LINES, Board, Mark, Move, Outcome, Termination
from ninefold.web.games import WebGame
from ninefold.web.notation import maybe_side, side

# --- requests ------------------------------------------------------------------------


class ClockSpec(BaseModel):
    bank_s: float = Field(..., ge=1, le=3 * 3600, description="Each side's time at the start.")
    increment_s: float = Field(0, ge=0, le=60, description="Added after each of its moves.")
    capped: bool = Field(False, description="The bank never grows past its start.")


def _clock_kind(value: Any) -> str:
    return "preset" if isinstance(value, str) else "own"


ClockChoice = Annotated[  # a preset's name or a clock of your own (errors say which)
    Annotated[Literal["competition", "blitz", "rapid"], Tag("preset")]
    | Annotated[ClockSpec, Tag("own")], Discriminator(_clock_kind)]


class NewGame(BaseModel):
    """A new game."""

    mode: Literal["computer", "local", "online"] = "computer"
    level: int | None = Field(
        None, ge=1, le=11, description="The computer's level, 1-10; 11 is the proof player,"
        " X's proved forced win, in open-boards games from the empty board where you play O.")
    side: Literal["x", "o", "random"] = Field(
        "x", description="Your side against the computer, or as the online game's creator.")
    rules: str = Field("standard", max_length=100,
                       description="A rules preset or options, e.g. open-boards.")
    opening: str | None = Field(
        None, max_length=20, description="None, 'random', or a random-four code like 53271.")
    start: str | None = Field(
        None, max_length=8000, description="A position string or a game record to go on from"
        " (its rules and opening are the game's).")
    clock: ClockChoice | None = Field(
        None, description="An online game's clock: a preset (competition: 10 s + 500 ms,"
        " the bank capped at 10 s; blitz: 3 min + 2 s; rapid: 10 min + 5 s) or your own.")


class MoveRequest(BaseModel):
    move: str = Field(..., max_length=8, description="A square, like e5.")
    ply: int = Field(..., ge=0, le=81, description="The move count you saw (replay guard).")


class PlyRequest(BaseModel):
    ply: int = Field(..., ge=0, le=81, description="The move count you saw (replay guard).")



# --- answers -------------------------------------------------------------------------


class SmallBoard(BaseModel):
    cells: list[Literal["x", "o", ""]]
    owner: Literal["x", "o", "draw", ""] = Field(
        ..., description="Who won this small board; draw when it is full with no winner.")
    allowed: bool = Field(..., description="The side to move may play here.")


class ClockView(BaseModel):
    bank_ms: int
    increment_ms: int
    capped: bool
    x_ms: float = Field(..., description="X's time left now, in ms.")
    o_ms: float
    running: Literal["x", "o"] | None = Field(..., description="Whose time runs now.")


class GameView(BaseModel):
    """A game as everyone sees it, plus which sides the asking token holds."""

    id: str
    version: int = Field(..., description="Grows with every change: the newest view wins.")
    mode: Literal["computer", "local", "online"]
    rules: str
    opening: str | None
    level: int | None
    position: str
    start: str | None = Field(..., description="The position the game went on from, if any.")
    moves: list[str] = Field(..., description="The moves after the opening, in notation.")
    opening_moves: list[str]
    ply: int
    turn: Literal["x", "o"] | None
    anywhere: bool = Field(..., description="The side to move may play in any open board.")
    boards: list[SmallBoard]
    legal: list[str]
    last: str | None
    status: str
    result: str | None
    winner: Literal["x", "o"] | None
    termination: str | None
    computer: Literal["x", "o"] | None
    thinking: bool
    draw_offer: Literal["x", "o"] | None = Field(
        ..., description="The side whose draw offer stands: until the other side accepts,"
        " declines or moves.")
    undoable: bool = Field(..., description="A seat may take back a move now (/undo).")
    line: list[int] = Field(
        ..., description="The small boards (0-8) of the line that won the game, if one did.")
    waiting: Literal["x", "o"] | None = Field(
        ..., description="An online game's seat whose invite link no one has opened yet.")
    clock: ClockView | None
    you: list[Literal["x", "o"]] = Field(..., description="The sides your token holds.")


class Frame(BaseModel):
    """The board after some moves of a replay."""

    boards: list[SmallBoard]
    line: list[int] = Field(
        ..., description="The small boards (0-8) of the line that won the game here, if one did.")
    last: str | None
    status: str
    position: str


class PositionView(BaseModel):
    """A position on its own (the analysis board): what it is and what may be played."""

    position: str
    boards: list[SmallBoard]
    turn: Literal["x", "o"] | None
    legal: list[str]
    last: str | None = Field(..., description="The move that led here, if one was asked.")
    status: str
    result: str | None


class Replay(BaseModel):
    """A whole game to step through: `frames[i]` is the board after `moves[:i]`."""

    title: str
    x: str
    o: str
    rules: str
    opening_plies: int = Field(..., description="How many of the moves the opening played.")
    moves: list[str]
    frames: list[Frame]
    result: str | None
    termination: str | None
    reason: str = ""


class Links(BaseModel):
    play: str
    invite: str | None = None
    watch: str


class Created(BaseModel):
    game: GameView
    token: str
    links: Links


class Problem(BaseModel):
    detail: str


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Problem} for code in (400, 403, 404, 409, 413, 422)}



# --- from games and boards to answers -------------------------------------------------

_CELL: dict[Mark | None, Literal["x", "o", ""]] = {None: "", Mark.X: "x", Mark.O: "o"}
_NAMES = [str(Move.from_action(a)) for a in range(81)]  # each square's name, by action


def game_view(game: WebGame, token: str | None = None, thinking: bool = False) -> GameView:
    """`game` as everyone sees it, with the sides `token` holds (`thinking`: the computer
    is searching its move)."""
    board = game.board
    outcome = game.outcome()
    over = outcome is not None
    return GameView(
        id=game.id, version=game.changes, mode=game.mode.value, rules=game.rules.name,
        opening=game.opening, level=game.level, position=board.position(), start=game.start,
        moves=[_NAMES[m.action] for m in game.moves],
        opening_moves=[_NAMES[m.action] for m in board.move_stack[:board.ply - game.ply]],
        ply=game.ply, turn=None if over else side(board.turn),
        anywhere=not over and board.target is None,
        boards=small_boards(board, set() if over else set(board.open_boards())),
        legal=[] if over else [_NAMES[m.action] for m in board.legal_moves],
        last=_last(board), status=_status(game, board, outcome),
        result=outcome.result() if outcome else None,
        winner=maybe_side(outcome.winner if outcome else None),
        termination=str(outcome.termination) if outcome else None,
        computer=maybe_side(game.computer_side()), thinking=thinking,
        draw_offer=maybe_side(game.draw_offer), undoable=game.can_undo(),
        line=winning_line(board), waiting=maybe_side(game.invited), clock=_clock(game),
        you=[side(m) for m in game.seat_of(token)],
    )


def _clock(game: WebGame) -> ClockView | None:
    if game.clock is None:
        return None
    left = game.time_left(time.time())
    running = None if game.running_since is None else side(game.board.turn)
    return ClockView(bank_ms=game.clock.bank_ms, increment_ms=game.clock.increment_ms,
                     capped=game.clock.capped, x_ms=max(0.0, left["x"]),
                     o_ms=max(0.0, left["o"]), running=running)


def position_view(board: Board) -> PositionView:
    """`board` on its own: what it is and what may be played (the analysis board)."""
    outcome = board.outcome()
    return PositionView(
        position=board.position(), boards=small_boards(board, set(board.open_boards())),
        turn=None if outcome else side(board.turn),
        legal=[] if outcome else [str(m) for m in board.legal_moves], last=_last(board),
        status=board_status(board), result=outcome.result() if outcome else None)


def small_boards(board: Board, allowed: set[int]) -> list[SmallBoard]:
    """The nine small boards of `board`; the side to move may play in those in `allowed`.

    >>> boards = small_boards(Board(), {4})
    >>> boards[4].cells == [""] * 9, boards[4].owner, boards[4].allowed, boards[0].allowed
    (True, '', True, False)
    """
    cells = board.cells
    return [_small_board(tuple(cells[9 * b:9 * b + 9]), board.owners[b], b in allowed)
            for b in range(9)]


@functools.lru_cache(maxsize=1 << 14)
def _small_board(cells: tuple[Mark | None, ...], owner: Mark | None, allowed: bool,
                 ) -> SmallBoard:
    """One small board's view, made once for each content it has had (of the nine in a
    view, a move changes one or two): the views that hold it do not change it."""
    shown = [_CELL[c] for c in cells]  # typed right by construction: not validated
    return SmallBoard.model_construct(
        cells=shown, owner=side(owner) if owner is not None else "" if None in cells else "draw",
        allowed=allowed)


def replay(title: str, x: str, o: str, board: Board, moves: list[Move], opening_plies: int,
           result: str | None, termination: str | None, reason: str = "") -> Replay:
    """The frames of a game from `board` (its start, changed here): the board before the
    first move and after each one."""
    frames = []
    for i in range(len(moves) + 1):
        frames.append(Frame(boards=small_boards(board, set(board.open_boards())),
                            line=winning_line(board), last=_last(board), status=board_status(board),
                            position=board.position()))
        if i < len(moves):
            board.push(moves[i])
    return Replay(title=title, x=x, o=o, rules=board.rules.name, opening_plies=opening_plies,
                  moves=[str(m) for m in moves], frames=frames, result=result,
                  termination=termination, reason=reason)



def winning_line(board: Board) -> list[int]:
    """The small boards (0-8) of the line of won boards that won the game on `board`, or []
    if it did not end by a line (the boards of every line, should the last move have made
    two).

    >>> board = Board()
    >>> for move in ("i8 i6 g8 c5 g5 c4 i3 g7 a3 a7 a1 c2 i4 g1 b1 d1 a2 c6 h8 e5 f4 h2 "
    ...              "f5 i5 h4 e2").split():
    ...     _ = board.push_text(move)
    >>> winning_line(board)
    []
    >>> _ = board.push_text("f6")  # X's third board of the diagonal
    >>> winning_line(board)
    [0, 4, 8]
    """
    outcome = board.outcome()
    if outcome is None or outcome.termination is not Termination.LINE:
        return []
    owners = board.owners
    return sorted({b for line in LINES if all(owners[i] is outcome.winner for i in line)
                   for b in line})


def _last(board: Board) -> str | None:
    return str(board.move_stack[-1]) if board.move_stack else None


def _status(game: WebGame, board: Board, outcome: Outcome | None) -> str:
    if outcome is not None:
        if game.resigned is not None:
            return f"Game over: {game.resigned} resigned, {outcome.result()}"
        if game.agreed_draw:
            return "Game over: draw agreed, 1/2-1/2"
        if game.flagged is not None:
            return f"Game over: {game.flagged}'s time ran out, {outcome.result()}"
    return board_status(board)


def board_status(board: Board) -> str:
    """One line for the web board: who moves where, the small boards numbered 1-9 as
    the pages number them (the same words for a player, a spectator and a replay),
    or how the game ended.

    >>> board_status(Board())
    'X to move: play anywhere (any open board)'
    >>> board = Board()
    >>> board.push(Move.parse("e5"))
    >>> board_status(board)
    'O to move: play in board 5 (d4-f6)'
    """
    if board.outcome() is not None:
        return board.status()
    if board.target is None:
        return f"{board.turn} to move: play anywhere (any open board)"
    return f"{board.turn} to move: play in board {board.target + 1} ({board_span(board.target)})"
