"""Cutting puzzles from stored games with the solver (`ninefold.proof.within`).

`make` replays every game, gathers each position once (up to the board's
eight symmetries, under each rule set), and keeps a position where

- the side to move, the attacker, has a forced win within `max_plies` plies:
  its *length* `plies` is the fewest plies within which it wins (1: a move
  that wins at once; 3: on its second move, whatever the defence; ...);
- exactly one first move wins within `plies`; other moves may still win,
  but later: the puzzle asks for the quickest win, and it has one answer;
- at each later turn of the solution the quickest win from there has one
  move too, except the last (any move that wins at once wins), so that the
  tree's move is the one answer at every turn;
- no defence ends the game at once (under ``full=count`` a reply that fills
  the grid may lose on the count: such positions are left out, so that every
  defence has an answer);
- the solution tree has at most `MAX_NODES` attacker nodes and the solver
  answered every question within its budget.

Its difficulty is a starting rating: ``1100 + 200 * (plies // 2)``, plus up
to 400 for the share of the games in which the player to move there missed
the winning move (`rating`). Its themes: the phase by the marks on the board
(opening: fewer than 20; middle: 20 to 44; end: 45 or more) and the kinds of
win its main line shows (`themes`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ninefold import kernel
from ninefold.kernel import BIG, CLOSED, FORCED, FULL, RESULT, SIDE
from ninefold.proof import dfpn
from ninefold.proof.within import Solver, Unknown, marks
from ninefold.puzzles.puzzle import Node, Puzzle
from ninefold.rules import FLAG_WIN_FIVE, Board, IllegalMoveError, Move
from ninefold.stored_games import StoredGame

MAX_NODES = 300  # attacker nodes in a solution tree, at most
OPENING_MARKS, END_MARKS = 20, 45  # the phases: opening below 20 marks, end from 45
Progress = Callable[[int, int, int], None]  # (positions searched, positions, puzzles)


class MakeError(ValueError):
    """A stored game whose moves do not fit its rules."""


@dataclass
class _Seen:
    """One position (up to symmetry) and the games that reached it."""

    board: Board
    where: dict[str, Any]
    played: list[int] = field(default_factory=list)  # key after the move played, per game


class _Rejected(Exception):
    """The position is no puzzle (ambiguous, too big a tree, or unknown to the solver)."""


# --- positions -------------------------------------------------------------------------


def _child(s: np.ndarray, action: int, flags: int) -> np.ndarray:
    child = s.copy()
    kernel.play(child, action // 9, action % 9, flags)
    return child


def where(game: StoredGame) -> dict[str, Any]:
    """Where a puzzle's game is: its file and its id there (`StoredGame.game`)."""
    return {"file": game.file, "game": game.game}


def gather(games: Iterator[StoredGame]) -> dict[tuple[str, int], _Seen]:
    """Every running position of the games (`ninefold.stored_games.read_stored`'s, finished or
    not), once per rule set up to symmetry, in the order first met, with the move each
    game played there."""
    seen: dict[tuple[str, int], _Seen] = {}
    for game in games:
        board = Board.from_position(game.start.position())
        flags = board.rules.flags
        for ply, move in enumerate(game.moves):
            if board.is_game_over():
                break
            s = kernel.from_board(board)
            key = (board.rules.name, dfpn.key(s))
            if key not in seen:
                seen[key] = _Seen(board.copy(), {**where(game), "ply": ply})
            seen[key].played.append(dfpn.key(_child(s, move.action, flags)))
            try:
                board.push(move)
            except IllegalMoveError as exc:
                raise MakeError(f"{game.file} game {game.game}: "
                                f"{exc}") from None
    return seen


def threat_boards(s: np.ndarray, side: int, flags: int) -> int:
    """The small boards where `side` (0 X, 1 O) has an empty square that wins the board,
    and winning it would win the game (a line of boards; under five boards, a fifth),
    as a 9-bit mask: where it threatens to win, were it sent there."""
    owned = int(s[BIG] | s[BIG + 1])
    mine = int(s[BIG + side])
    found = 0
    for b in range(9):
        if (int(s[CLOSED]) >> b) & 1 or (owned >> b) & 1:
            continue
        empty = FULL & ~int(s[b] | s[9 + b])
        if not int(kernel.COMPLETING[int(s[9 * side + b])]) & empty:
            continue
        if (kernel.POPCOUNT[mine] >= 4 if flags & FLAG_WIN_FIVE
                else kernel.WIN[mine | 1 << b]):
            found |= 1 << b
    return found


def themes(board: Board, line: tuple[Move, ...], plies: int) -> tuple[str, ...]:
    """The phase (by the marks on the board) and the kinds of win of the main line:
    ``win-at-once`` (one ply), ``send-to-full`` (one of the attacker's moves sends the
    defender to a closed board: a free move, and still a loss), ``two-threats`` (after one
    of the attacker's moves it threatens to win the game in two boards or more)."""
    s = kernel.from_board(board)
    n = marks(s)
    found = ["opening" if n < OPENING_MARKS else "end" if n >= END_MARKS else "middle"]
    if plies == 1:
        found.append("win-at-once")
    attacker = int(s[SIDE])
    free = two = False
    for i, move in enumerate(line):
        kernel.play(s, move.board, move.cell, board.rules.flags)
        if i % 2 or s[RESULT] >= 0:
            continue
        free = free or bool(s[FORCED] < 0)
        two = two or int(kernel.POPCOUNT[threat_boards(s, attacker, board.rules.flags)]) >= 2
    if free:
        found.append("send-to-full")
    if two:
        found.append("two-threats")
    return tuple(found)


def rating(plies: int, seen: int, missed: int) -> int:
    """A puzzle's starting rating: longer wins and wins missed in play rate higher.

    >>> rating(1, 2, 0), rating(5, 4, 2), rating(9, 1, 1)
    (1100, 1700, 2300)
    """
    return 1100 + 200 * (plies // 2) + round(400 * missed / max(1, seen))


class Maker:
    """Finds puzzles with one `Solver` per rule set."""

    def __init__(self, max_plies: int, budget: int) -> None:
        self.max_plies = max_plies
        self.budget = budget
        self.solvers: dict[int, Solver] = {}

    def solver(self, flags: int) -> Solver:
        if flags not in self.solvers:
            self.solvers[flags] = Solver(flags, budget=self.budget, table_bits=16)
        return self.solvers[flags]

    def tree(self, s: np.ndarray, plies: int, flags: int, count: list[int]) -> Node:
        """The attacker's node at `s` (its quickest win `plies`): the one move winning that
        soon (after the first move, any that wins at once on the last ply), and a node for
        every reply."""
        solver = self.solver(flags)
        count[0] += 1
        if count[0] > MAX_NODES:
            raise _Rejected("too big a tree")
        moves = solver.winning_moves(s, plies)
        if not moves or (len(moves) > 1 and (plies > 1 or count[0] == 1)):
            raise _Rejected("two moves win as soon")
        after = _child(s, moves[0], flags)
        replies: dict[Move, Node] = {}
        if after[RESULT] < 0:
            for reply in kernel.legal_actions(after):
                t = _child(after, int(reply), flags)
                if t[RESULT] >= 0:  # full=count: a reply that fills the grid, lost on count
                    raise _Rejected("a defence ends the game")
                soonest = solver.soonest(t, plies - 2)
                if soonest is None:
                    raise AssertionError("a reply escapes a proved win")
                replies[Move.from_action(int(reply))] = self.tree(t, soonest, flags, count)
        return Node(Move.from_action(moves[0]), replies)

    def puzzle(self, found: _Seen) -> Puzzle | None:
        """The puzzle at a gathered position, or None if it is none."""
        board = found.board
        flags = board.rules.flags
        s = kernel.from_board(board)
        try:
            plies = self.solver(flags).soonest(s, self.max_plies)
            if plies is None:
                return None
            tree = self.tree(s, plies, flags, [0])
        except (Unknown, _Rejected):
            return None
        line = main_line(tree)
        win_key = dfpn.key(_child(s, tree.move.action, flags))
        missed = sum(k != win_key for k in found.played)
        position = board.position()
        return Puzzle(hashlib.sha256(position.encode()).hexdigest()[:10], position, plies,
                      line, tree, rating(plies, len(found.played), missed),
                      themes(board, line, plies), len(found.played), missed, found.where)


def main_line(tree: Node) -> tuple[Move, ...]:
    """The solution's main line: at each defender turn the reply that lasts longest."""
    line = [tree.move]
    node = tree
    while node.replies:
        reply = node.longest_reply()
        node = node.replies[reply]
        line += [reply, node.move]
    return tuple(line)


def make(games: Iterator[StoredGame], *, max_plies: int = 9, budget: int = 200_000,
         progress: Progress | None = None, every: int = 500) -> list[Puzzle]:
    """The puzzles of the games (see the module's docstring), in the order met.
    `progress` hears every `every` positions."""
    seen = gather(games)
    maker = Maker(max_plies, budget)
    puzzles = []
    for i, found in enumerate(seen.values(), 1):
        puzzle = maker.puzzle(found)
        if puzzle is not None:
            puzzles.append(puzzle)
        if progress is not None and (i % every == 0 or i == len(seen)):
            progress(i, len(seen), len(puzzles))
    return puzzles
