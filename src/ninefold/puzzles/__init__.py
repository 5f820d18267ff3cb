"""Puzzles cut from real games: a position where the side to move has one quickest
forced win, the solver's whole answer to every defence, and their ratings.

Modules: `puzzle` (a puzzle, its solution tree, the JSON-lines format), `make`
(finding puzzles in stored games with `ninefold.proof.within`), `glicko` (the
ratings of puzzles and solvers). ``puzzles.jsonl`` holds the shipped puzzles.
"""
