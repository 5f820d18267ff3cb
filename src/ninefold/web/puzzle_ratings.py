"""The puzzles' ratings and each solver's, in the web board's database.

Two tables beside the games (`ninefold.web.store`, SQLite or PostgreSQL, the
same queries): ``puzzle_ratings`` holds a Glicko-2 rating
(`ninefold.puzzles.glicko`) for each puzzle and each solver, and
``puzzle_tries`` the first finished try of each solver at each puzzle. A
solver is a browser (``browser:`` and the random id the page keeps in its
local storage) or, when the platform runs and someone is logged in, an account
(``user:`` and its id). Only the first try at a puzzle is rated, as on
lichess: a retry, or the same puzzle again later, changes nothing.

>>> import tempfile, os
>>> from ninefold.web.store import GameStore
>>> ratings = PuzzleRatings(GameStore(os.path.join(tempfile.mkdtemp(), "web.db")))
>>> ratings.rate("browser:abc", "p1", 1500, solved=True)
True
>>> round(ratings.solver("browser:abc").rating) > 1500, ratings.rate("browser:abc", "p1", 1500,
...     solved=False)
(True, False)
"""

from __future__ import annotations

import time

from ninefold.puzzles.glicko import PUZZLE_RD, Rating, play
from ninefold.web.store import GameStore

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS puzzle_ratings (
        who TEXT PRIMARY KEY,        -- puzzle:<id>, browser:<id> or user:<id>
        rating REAL NOT NULL,
        rd REAL NOT NULL,
        vol REAL NOT NULL,
        tries INTEGER NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS puzzle_tries (
        solver TEXT NOT NULL,
        puzzle TEXT NOT NULL,
        solved INTEGER NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (solver, puzzle)
    )""",
)


class PuzzleRatings:
    """The ratings of puzzles and solvers in `store`'s database (tables made if missing)."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        db = store.backend.connection()
        for statement in SCHEMA:
            db.execute(statement)

    def _get(self, who: str) -> tuple[Rating, int] | None:
        row = self.store.backend.connection().execute(
            "SELECT rating, rd, vol, tries FROM puzzle_ratings WHERE who = ?", (who,)).fetchone()
        return None if row is None else (Rating(row[0], row[1], row[2]), int(row[3]))

    def _put(self, who: str, rating: Rating, tries: int) -> None:
        self.store.backend.connection().execute(
            "INSERT INTO puzzle_ratings (who, rating, rd, vol, tries) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (who) DO UPDATE SET rating = excluded.rating, rd = excluded.rd,"
            " vol = excluded.vol, tries = excluded.tries",
            (who, rating.rating, rating.rd, rating.vol, tries))

    def solver(self, solver: str) -> Rating:
        """A solver's rating (1500 ± 350 before a first try)."""
        found = self._get(solver)
        return Rating() if found is None else found[0]

    def tries(self, solver: str) -> int:
        found = self._get(solver)
        return 0 if found is None else found[1]

    def puzzle(self, puzzle_id: str, start: int) -> Rating:
        """A puzzle's rating (its starting rating `start` before a first try)."""
        found = self._get(f"puzzle:{puzzle_id}")
        return Rating(float(start), PUZZLE_RD) if found is None else found[0]

    def tried(self, solver: str) -> set[str]:
        """The puzzles `solver` has finished a try at."""
        rows = self.store.backend.connection().execute(
            "SELECT puzzle FROM puzzle_tries WHERE solver = ?", (solver,)).fetchall()
        return {row[0] for row in rows}

    def rate(self, solver: str, puzzle_id: str, start: int, *, solved: bool) -> bool:
        """Rate `solver`'s try at a puzzle (starting rating `start`), if it is the first
        it finished there: both ratings move. Whether it was rated."""
        first = self.store.backend.connection().execute(
            "INSERT INTO puzzle_tries (solver, puzzle, solved, at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (solver, puzzle) DO NOTHING",
            (solver, puzzle_id, int(solved), time.time())).rowcount
        if not first:
            return False
        me, theirs = self.solver(solver), self.puzzle(puzzle_id, start)
        mine, its = play(me, theirs, solved=solved)
        self._put(solver, mine, self.tries(solver) + 1)
        found = self._get(f"puzzle:{puzzle_id}")
        self._put(f"puzzle:{puzzle_id}", its, (found[1] if found else 0) + 1)
        return True
