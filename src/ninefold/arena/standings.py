"""Scores and ratings of a run's players, from its finished games.

>>> from ninefold.arena.referee import GameKey, GameResult
>>> from ninefold.rules import Mark, Outcome, Rules, Termination
>>> def game(x, o, winner, r, c):
...     return GameResult(x, o, Rules(), None, [], [], Outcome(winner, Termination.LINE), "",
...                       key=GameKey("a", "b", r, c))
>>> st = Standings.of(["a", "b"], [game("a", "b", Mark.X, 0, 0), game("b", "a", None, 0, 1)])
>>> st.points, st.wdl["a"]
({'a': 1.5, 'b': 0.5}, [1, 1, 0])
>>> st.pair_scores("a", "b")
([1.5], True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ninefold.arena.ratings import EloEstimate, bradley_terry, match_elo
from ninefold.arena.referee import GameResult
from ninefold.rules import Mark, Termination


def score(game: GameResult, player: str) -> float:
    """What `player` scored in `game`: 1 for a win, 0.5 for a draw, 0 for a loss."""
    return game.outcome.score(Mark.X if game.x == player else Mark.O)


@dataclass
class Standings:
    """Scores and ratings of the players of a run, from its games."""

    names: list[str]
    games: list[GameResult]
    points: dict[str, float] = field(default_factory=dict)
    played: dict[str, int] = field(default_factory=dict)
    wdl: dict[str, list[int]] = field(default_factory=dict)
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)
    terminations: dict[Termination, int] = field(default_factory=dict)

    @classmethod
    def of(cls, names: list[str], games: list[GameResult]) -> Standings:
        st = cls(list(names), list(games))
        for n in names:
            st.points[n], st.played[n], st.wdl[n] = 0.0, 0, [0, 0, 0]
        results = []
        for g in games:
            for name in (g.x, g.o):
                s = score(g, name)
                st.points[name] = st.points.get(name, 0.0) + s
                st.played[name] = st.played.get(name, 0) + 1
                st.wdl.setdefault(name, [0, 0, 0])[0 if s == 1 else 1 if s == 0.5 else 2] += 1
            results.append((g.x, g.o, score(g, g.x)))
            st.terminations[g.termination] = st.terminations.get(g.termination, 0) + 1
        if games:
            st.ratings = bradley_terry(st.names, results)
        return st

    def pair_scores(self, a: str, b: str) -> tuple[list[float], bool]:
        """a's scores against b: per pair of games (one round of the schedule) when
        they come in pairs, else per game."""
        by_round: dict[tuple[str, str, int], list[float]] = {}
        singles = []
        for g in self.games:
            if {g.x, g.o} != {a, b}:
                continue
            s = score(g, a)
            singles.append(s)
            if g.key is not None:
                by_round.setdefault((g.key.a, g.key.b, g.key.round), []).append(s)
        pairs = [sum(v) for v in by_round.values() if len(v) == 2]
        if pairs and len(pairs) * 2 >= len(singles) - 1:
            return pairs, True
        return singles, False

    def matrix(self) -> list[list[float | None]]:
        """Score fraction of row player against column player (None: never met)."""
        n = len(self.names)
        idx = {name: i for i, name in enumerate(self.names)}
        pts = [[0.0] * n for _ in range(n)]
        cnt = [[0] * n for _ in range(n)]
        for g in self.games:
            i, j = idx[g.x], idx[g.o]
            pts[i][j] += score(g, g.x)
            pts[j][i] += score(g, g.o)
            cnt[i][j] += 1
            cnt[j][i] += 1
        return [[pts[i][j] / cnt[i][j] if cnt[i][j] else None for j in range(n)]
                for i in range(n)]

    def head_to_head(self) -> EloEstimate:
        """The Elo estimate of the first player against the second (pairs when possible)."""
        scores, paired = self.pair_scores(self.names[0], self.names[1])
        return match_elo(scores, paired)


# How each way a game can end reads in a summary ("3 won on a line").
_ENDINGS = {
    Termination.LINE: "won on a line",
    Termination.FIVE_BOARDS: "won with five boards",
    Termination.BOARD_COUNT: "won on the board count",
    Termination.NO_MOVES: "drawn (no moves left)",
    Termination.TIME_FORFEIT: "lost on time",
    Termination.ILLEGAL_MOVE: "lost by an illegal move",
    Termination.BOT_FAILURE: "lost by a bot failure",
    Termination.RESIGNATION: "resigned",
    Termination.ADJUDICATION: "adjudicated",
}


def endings_text(terminations: dict[Termination, int]) -> str:
    """How the games ended, in words, most frequent first.

    >>> endings_text({Termination.NO_MOVES: 1, Termination.LINE: 3})
    '3 won on a line, 1 drawn (no moves left)'
    >>> endings_text({})
    'no games yet'
    """
    if not terminations:
        return "no games yet"
    order = sorted(terminations.items(), key=lambda kv: -kv[1])
    return ", ".join(f"{n} {_ENDINGS.get(t, str(t))}" for t, n in order)
