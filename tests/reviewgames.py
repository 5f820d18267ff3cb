"""Games for the review's tests: a real game with a known blunder, found by random play."""

from __future__ import annotations

import random

from ninefold.rules import Board, Move


def winning_moves(board: Board) -> list[Move]:
    """The moves that win the game at once for the side to move."""
    found = []
    for move in list(board.legal_moves):
        board.push(move)
        outcome = board.outcome()
        board.pop()
        if outcome is not None and outcome.winner is board.turn:
            found.append(move)
    return found


def blunder_game(seed: int = 0) -> tuple[Board, list[Move], Move]:
    """A finished game (random moves, seeded) whose next-to-last move missed a win in one:
    the mover had the winning moves returned, played the move returned instead, which let
    the other side win at once, and it did (the last move). The board after it all."""
    rng = random.Random(seed)
    while True:
        board = Board()
        while not board.is_game_over():
            wins = winning_moves(board)
            if wins:
                for move in list(board.legal_moves):
                    if move in wins:
                        continue
                    board.push(move)
                    replies = [] if board.is_game_over() else winning_moves(board)
                    if replies:
                        board.push(replies[0])
                        return board, wins, move
                    board.pop()
                break  # every other move is safe here: play another game
            board.push(rng.choice(list(board.legal_moves)))


def short_blunder_record(plies: int = 4) -> str:
    """`blunder_game`'s last `plies` moves as a game record from the position before them
    (a ``Position`` tag): a short finished game whose next-to-last move is a blunder."""
    from ninefold.records import Game

    board, _, _ = blunder_game()
    moves = board.move_stack[-plies:]
    start = board.copy()
    for _ in range(plies):
        start.pop()
    short = Board.from_position(start.position())
    for move in moves:
        short.push(move)
    return str(Game.from_board(short, X="random", O="random")) + "\n"
