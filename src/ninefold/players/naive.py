"""The simple players: `random`, uniformly random among the legal moves, and `naive`,
the classic tic-tac-toe strategy ("win if you can, else block, else random")
carried over to Ultimate Tic-Tac-Toe.

`naive` plays exactly, among the legal moves, in this order of priority:

1. a move that wins the game at once (under the board's rules: a line of
   owned boards, a fifth owned board in Tic-Tac-Ku, or the last free cell
   when the board count decides and we lead after it);
2. a move that blocks the opponent from winning the game with their next
   move in this small board: a cell where the opponent would complete a line
   in a small board whose ownership would win them the game;
3. a move that wins a small board (completes our line in a board nobody owns);
4. a move that blocks a small board: a cell where the opponent would complete
   a line in a board nobody owns;
5. otherwise any legal move.

Ties are broken uniformly at random. It looks only at the current move: it
does not notice where its move sends the opponent.

>>> from ninefold import Board, Move
>>> board = Board()
>>> for b, c in [(4, 0), (0, 4), (4, 1), (1, 4)]:
...     board.push(Move(b, c))
>>> NaivePlayer(seed=1).play(board)  # X completes the top row of the centre board
PlayResult(move=Move(board=4, cell=2), info={'reason': 'win board'})
"""

from __future__ import annotations

import random

from ninefold.players.player import Limit, Player, PlayResult
from ninefold.players.registry import register
from ninefold.rules import LINES, Board, Mark, Move


def _completes_line(board: Board, move: Move, mark: Mark) -> bool:
    """True if `mark` playing `move` would make three in a row in that small board."""
    cells = list(board.small_board(move.board))
    cells[move.cell] = mark
    return any(cells[a] is mark and cells[b] is mark and cells[c] is mark for a, b, c in LINES)


def _wins_game_with(board: Board, small: int, mark: Mark) -> bool:
    """True if owning small board `small` would win the game for `mark` at once."""
    owners = list(board.owners)
    if owners[small] is not None:
        return False
    owners[small] = mark
    if board.rules.win == "five":
        return sum(o is mark for o in owners) >= 5
    return any(owners[a] is mark and owners[b] is mark and owners[c] is mark for a, b, c in LINES)


class SimplePlayer(Player):
    """A player that looks at the position only (no search), random where it must
    choose: ready at once, and `instant`."""

    instant = True

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)


@register("naive")
class NaivePlayer(SimplePlayer):
    """Win, else block, else random; see the module's documentation for the exact order."""

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        me, them = board.turn, board.turn.other
        moves = list(board.legal_moves)
        tiers: list[list[Move]] = [[], [], [], []]
        for move in moves:
            free = board.owners[move.board] is None
            if free and _completes_line(board, move, me):
                if _wins_game_with(board, move.board, me):
                    tiers[0].append(move)
                else:
                    tiers[2].append(move)
            if free and _completes_line(board, move, them):
                if _wins_game_with(board, move.board, them):
                    tiers[1].append(move)
                else:
                    tiers[3].append(move)
        if not tiers[0] and board.rules.full_grid == "count":
            tiers[0] = [m for m in moves if _wins_on_count(board, m)]
        for reason, tier in zip(("win game", "block game", "win board", "block board"), tiers,
                                strict=True):
            if tier:
                return PlayResult(self.rng.choice(tier), {"reason": reason})
        return PlayResult(self.rng.choice(moves), {"reason": "random"})


def _wins_on_count(board: Board, move: Move) -> bool:
    after = board.copy()
    after.push(move)
    outcome = after.outcome()
    return outcome is not None and outcome.winner is board.turn


@register("random")
class RandomPlayer(SimplePlayer):
    """Uniformly random among the legal moves."""

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        return PlayResult(self.rng.choice(list(board.legal_moves)))
