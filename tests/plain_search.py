"""The reference for the puzzles' solver: wins within N plies by plain AND/OR search over
the reference `Board` (no kernel, no solver), for tests/test_puzzles.py and
benchmarks/puzzle_solver.py.

>>> from ninefold.rules import Board, Mark
>>> board_wins(Board(), Mark.X, 1)
False
"""

from __future__ import annotations

from ninefold.rules import Board, Mark


def board_wins(board: Board, attacker: Mark, plies: int,
               seen: dict[tuple[object, ...], bool] | None = None) -> bool:
    """Whether `attacker` wins from `board` within `plies` plies. With `seen`, the
    positions answered are remembered there; without, every move is tried every time."""
    outcome = board.outcome()
    if outcome is not None:
        return outcome.winner is attacker
    if plies <= 0 or (plies == 1 and board.turn is not attacker):
        return False
    if seen is None:
        return _search(board, attacker, plies, None)
    key = (tuple(board.cells), board.target, board.turn, plies)
    if key not in seen:
        seen[key] = _search(board, attacker, plies, seen)
    return seen[key]


def _search(board: Board, attacker: Mark, plies: int,
            seen: dict[tuple[object, ...], bool] | None) -> bool:
    for move in list(board.legal_moves):
        board.push(move)
        try:
            result = board_wins(board, attacker, plies - 1, seen)
        finally:
            board.pop()
        if board.turn is attacker and result:
            return True
        if board.turn is not attacker and not result:
            return False
    return board.turn is not attacker


def board_winning_moves(board: Board, plies: int) -> list[int]:
    """The actions of the side to move that win within `plies` plies (plain search)."""
    found = []
    for move in list(board.legal_moves):
        board.push(move)
        if board_wins(board, board.turn.other, plies - 1):
            found.append(move.action)
        board.pop()
    return found
