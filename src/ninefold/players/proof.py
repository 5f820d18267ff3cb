"""`proof`: X with open boards from the empty board, a player that never fails.

With open boards the first player has a forced win (docs/theorem.md):
`ninefold.proof.search.prove` finds it under the ``refill`` guide, X's move
for every position X can face by ply 43. The first move of a process proves
it (about a second of search and ten of reading the strategy off the table:
`strategy` says so on stderr) and keeps it; every move after is a lookup.
Asked to play O, under other rules, or from a position its strategy does not
reach (a game that did not start empty, or where X strayed), it refuses
(`CannotPlay`) and names the players that can play there.

`phase` names the part of the strategy a position is in, as docs/theorem.md
numbers them; `longest_defence` is O's reply that holds out longest against it
(the web board's ``/proof`` replays the win with it).

    $ ninefold play --opponent proof --rules open-boards --first computer   # you lose

>>> from ninefold import Board
>>> ProofPlayer().play(Board("standard"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ninefold.players.proof.CannotPlay: proof plays X with open-boards rules only, not standard: ...
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, NamedTuple

from ninefold.players.player import Limit, Player, PlayResult
from ninefold.players.registry import register
from ninefold.proof.certificate import plies_to_win
from ninefold.rules import Board, Mark, Move, Rules

if TYPE_CHECKING:  # the search imports numba: only when the strategy is first needed
    from ninefold.proof.search import Strategy

RULES = Rules.parse("open-boards")
MAX_PLIES = 43  # the paper's bound, which the refill strategy meets
TABLE_BITS = 20  # 32 MB of table: as fast as the default's 512 MB here, a third of the memory
OTHERS = "level:10 or mcts:net=default"  # the players that play anywhere
CENTRE = 4


class CannotPlay(ValueError):
    """The proof player was asked to move where its strategy does not reach."""


@functools.cache  # once a process: the strategy does not change
def strategy() -> Strategy:
    """X's winning strategy with open boards from the empty board, proved on first use."""
    from ninefold.proof.search import prove

    print("proof: proving X's forced win with open boards (once a process, some seconds)",
          file=sys.stderr, flush=True)
    return prove(Board(RULES), "refill", max_plies=MAX_PLIES, table_bits=TABLE_BITS)


@functools.cache  # once a process, after `strategy` (as long again: every line is played)
def plies_left() -> dict[str, int]:
    """Plies to X's win from each position of `strategy` against O's longest defence."""
    won = strategy()
    return plies_to_win(Board.from_position(won.root), won.moves)


def longest_defence(board: Board) -> tuple[Move, int]:
    """O's reply on `board` (O to move, after a move of the strategy) after which X's win
    comes last, and the plies to it from `board`; `CannotPlay` where a reply of O's leads
    off the strategy (it was not X's move)."""
    left = plies_left()
    best: tuple[Move, int] | None = None
    for reply in board.legal_moves:
        after = board.copy()
        after.push(reply)
        plies = left.get(after.position())
        if plies is None:
            raise CannotPlay(f"proof's strategy does not reach {board.position()}: X's last "
                             "move there is not its own")
        if best is None or plies + 1 > best[1]:
            best = (reply, plies + 1)
    if best is None:
        raise CannotPlay("the game is over: O has no reply")
    return best


class Phase(NamedTuple):
    """A part of the strategy: its number (1-4, docs/theorem.md) and its name."""

    number: int
    name: str


def phase(board: Board) -> Phase:
    """The phase of the strategy `board` is in, read from the position: the opening
    while the centre board has room, then X's move to square k of board k (k the outer
    board whose centre X does not hold), O's refilling of board k while it has room,
    and the harvest.

    >>> phase(Board(RULES)).name
    'the opening: X sends O back to the centre board until O has filled it'
    """
    cells = board.cells
    if any(cells[9 * CENTRE + c] is None for c in range(9)):
        return Phase(1, "the opening: X sends O back to the centre board until O has filled it")
    k = next((b for b in range(9) if b != CENTRE and cells[9 * b + CENTRE] is not Mark.X),
             None)
    if k is not None and all(cells[9 * k + c] is None for c in range(9)):
        return Phase(2, f"X takes square {k + 1} of board {k + 1}, the board whose centre "
                        "X lacks")
    if k is not None and any(cells[9 * k + c] is None for c in range(9)):
        return Phase(3, f"O refills board {k + 1}: X sends O back to it after every move")
    return Phase(4, "the harvest: X wins each board it is sent to with one move")


@register("proof")
class ProofPlayer(Player):
    """X's proved winning strategy with open boards; refuses (`CannotPlay`) elsewhere."""

    instant = False  # its first move proves the strategy

    def __init__(self) -> None:  # no options: a spec names it bare, ``proof``
        super().__init__()

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        if board.rules != RULES:
            raise CannotPlay(f"proof plays X with open-boards rules only, not "
                             f"{board.rules.name}: play {OTHERS} there")
        if board.turn is not Mark.X:
            raise CannotPlay(f"proof plays X only (it has a forced win as X): play {OTHERS} "
                             "as O")
        move = strategy().moves.get(board.position())
        if move is None:
            raise CannotPlay(f"proof's strategy does not reach {board.position()} (it plays "
                             f"from the empty board on): play {OTHERS} there")
        return PlayResult(move, {"phase": phase(board).number})
