"""Glicko-2 ratings of puzzles and of the people who solve them.

Each try at a puzzle is a game between the solver and the puzzle: solved is
a win for the solver, failed a win for the puzzle, and both ratings move, as
on lichess. Each game is its own rating period (Glickman's Glicko-2, with the
2012 volatility step), computed by the `glicko2` package (Kirkman's
pyglicko2 as kept by Nordlund: the paper's worked example is its test). A
solver starts at 1500 with a deviation of 350; a puzzle at its starting
rating (`ninefold.puzzles.make.rating`) with a deviation of 250.

>>> solver, puzzle = Rating(), Rating(1500, 250)
>>> after, puzzle_after = play(solver, puzzle, solved=True)
>>> after.rating > 1500 > puzzle_after.rating, after.rd < 350
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from glicko2 import Player  # type: ignore[import-untyped]

PUZZLE_RD = 250.0  # a new puzzle's deviation: its starting rating is an estimate


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating: the rating, its deviation and the volatility."""

    rating: float = 1500.0
    rd: float = 350.0
    vol: float = 0.06


def _after(me: Rating, other: Rating, score: float) -> Rating:
    player = Player(me.rating, me.rd, me.vol)
    player.update_player([other.rating], [other.rd], [score])
    return Rating(player.getRating(), player.getRd(), player.vol)


def play(solver: Rating, puzzle: Rating, *, solved: bool) -> tuple[Rating, Rating]:
    """The solver's and the puzzle's ratings after one try (each against the other's
    rating before it)."""
    score = 1.0 if solved else 0.0
    return _after(solver, puzzle, score), _after(puzzle, solver, 1.0 - score)
