"""Ratings from game results: Elo with 95 % intervals, Bradley-Terry, pentanomial, SPRT.

- `match_elo`: one player against another. Games played in pairs (same
  opening, colours swapped) are scored per pair, which removes most of the
  opening's and the first move's noise; the variance comes from the
  pentanomial distribution of pair scores (0, 1/2, 1, 3/2, 2).
- `bradley_terry`: maximum-likelihood ratings for many players (draws count
  half a win each way), with intervals from the inverse Fisher information.
- `Sprt`: the sequential probability ratio test of fishtest (normal
  approximation of the generalized SPRT on pair scores), to stop a match as
  soon as it shows ``elo >= elo1`` or ``elo <= elo0``.

>>> round(elo_from_score(0.75), 1)
190.8
>>> stats = match_elo([1.0, 1.5, 2.0, 0.5, 1.5, 2.0], paired=True)
>>> round(stats.score, 3), stats.games
(0.708, 12)
>>> sprt = Sprt(0, 10, 0.05, 0.05)
>>> sprt.bounds()
(-2.944, 2.944)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ninefold.options import Option, OptionError, Schema

Z95 = 1.959964


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_from_score(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95 % interval, from `games` games."""

    elo: float
    low: float
    high: float
    score: float
    games: int
    wins: int = 0
    draws: int = 0
    losses: int = 0
    pentanomial: tuple[int, int, int, int, int] | None = None
    los: float = 0.5  # likelihood of superiority

    @property
    def error(self) -> float:
        """Half the width of the 95 % interval (Elo)."""
        return (self.high - self.low) / 2

    @property
    def bounded(self) -> bool:
        """Whether the estimate and both ends of its interval are finite (a 100 % or
        0 % score, or too few games, leave one end open)."""
        return 0.0 < self.score < 1.0 and math.isfinite(self.low) and math.isfinite(self.high)

    def __str__(self) -> str:
        """The Elo difference in words: ``+120.4 ± 80.2``, or why it is not bounded.

        >>> str(match_elo([2.0, 2.0, 2.0], paired=True))
        'not bounded (one side scored 100%)'
        >>> str(match_elo([1.0, 1.5, 2.0], paired=True))
        '+190.8 (95% interval -67.9 to not bounded: too few games)'
        """
        if self.score >= 1.0 or self.score <= 0.0:
            return "not bounded (one side scored 100%)"
        if not self.bounded:
            low = f"{self.low:+.1f}" if math.isfinite(self.low) else "not bounded"
            high = f"{self.high:+.1f}" if math.isfinite(self.high) else "not bounded"
            return f"{self.elo:+.1f} (95% interval {low} to {high}: too few games)"
        return f"{self.elo:+.1f} ± {self.error:.1f}"


def pentanomial(pair_scores: Sequence[float]) -> tuple[int, int, int, int, int]:
    """How many pairs scored 0, 1/2, 1, 3/2 and 2."""
    counts = [0, 0, 0, 0, 0]
    for s in pair_scores:
        counts[min(4, max(0, round(s * 2)))] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def match_elo(scores: Sequence[float], paired: bool = False) -> EloEstimate:
    """Elo of a player from its scores: per game (1, 0.5, 0) or, if `paired`,
    per pair of games (0 to 2)."""
    n = len(scores)
    games = n * (2 if paired else 1)
    if n == 0:
        return EloEstimate(0.0, -math.inf, math.inf, 0.5, 0)
    per = np.asarray(scores, dtype=float) / (2.0 if paired else 1.0)
    mean = float(per.mean())
    # Shrink the variance towards the largest possible one (0.25) by one virtual
    # observation, so that a few identical scores never show an interval of zero.
    var = (n * float(per.var()) + 0.25) / (n + 1)
    se = math.sqrt(var / n)
    low = elo_from_score(mean - Z95 * se) if mean - Z95 * se > 0 else -math.inf
    high = elo_from_score(mean + Z95 * se) if mean + Z95 * se < 1 else math.inf
    los = 0.5 * (1 + math.erf((mean - 0.5) / (se * math.sqrt(2)))) if se > 0 else 0.5
    return EloEstimate(elo_from_score(mean), low, high, mean, games,
                       pentanomial=pentanomial(scores) if paired else None, los=los)


def bradley_terry(names: Sequence[str], results: Sequence[tuple[str, str, float]],
                  prior_draws: float = 0.5) -> dict[str, tuple[float, float]]:
    """Maximum-likelihood Elo ratings (mean 0) and 95 % half-widths.

    `results` are (a, b, score of a) per game. `prior_draws` virtual draws
    between every two players who met keep perfect scores finite.
    """
    from scipy.optimize import minimize

    idx = {name: i for i, name in enumerate(names)}
    n = len(names)
    wins = np.zeros((n, n))  # wins[i, j]: points i scored against j
    for a, b, s in results:
        i, j = idx[a], idx[b]
        wins[i, j] += s
        wins[j, i] += 1.0 - s
    met = (wins + wins.T) > 0
    wins = wins + prior_draws * 0.5 * met
    k = math.log(10) / 400.0

    def nll(r: np.ndarray) -> float:
        d = k * (r[:, None] - r[None, :])
        return float(np.sum(wins * np.logaddexp(0.0, -d)))

    def grad(r: np.ndarray) -> np.ndarray:
        d = k * (r[:, None] - r[None, :])
        p = 1.0 / (1.0 + np.exp(-d))
        games = wins + wins.T
        g: np.ndarray = -(wins - games * p).sum(axis=1) * k
        return g

    if n == 0:
        return {}
    res = minimize(nll, np.zeros(n), jac=grad, method="L-BFGS-B")
    r = res.x - res.x.mean()
    d = k * (r[:, None] - r[None, :])
    p = 1.0 / (1.0 + np.exp(-d))
    games = wins + wins.T
    w = games * p * (1 - p) * k * k
    hess = -w
    np.fill_diagonal(hess, w.sum(axis=1))
    cov = np.linalg.pinv(hess)  # the pseudo-inverse keeps the mean-zero constraint
    err = Z95 * np.sqrt(np.clip(np.diag(cov), 0, None))
    return {name: (float(r[i]), float(err[i])) for name, i in idx.items()}


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """``elo0=0,elo1=10,alpha=0.05,beta=0.05`` (any subset; the rest as above).

        >>> Sprt.parse("elo1=5")
        Sprt(elo0=0.0, elo1=5.0, alpha=0.05, beta=0.05)
        >>> Sprt.parse("elo0=1,elo0=2")
        Traceback (most recent call last):
        ...
        ninefold.options.OptionError: SPRT: 'elo0' is given twice
        """
        sprt = cls(**_SPRT_SCHEMA.parse(text))
        if not sprt.elo1 > sprt.elo0:
            raise OptionError(f"SPRT: elo0={sprt.elo0:g} must be below elo1={sprt.elo1:g}")
        return sprt

    def bounds(self) -> tuple[float, float]:
        return (round(math.log(self.beta / (1 - self.alpha)), 3),
                round(math.log((1 - self.beta) / self.alpha), 3))

    def llr(self, scores: Sequence[float], paired: bool = False) -> float:
        """The log-likelihood ratio after these scores (per game or per pair)."""
        n = len(scores)
        if n < 2:
            return 0.0
        per = np.asarray(scores, dtype=float) / (2.0 if paired else 1.0)
        mean = float(per.mean())
        var = max(float(per.var()), 1e-3)
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)

    def decision(self, scores: Sequence[float], paired: bool = False) -> str | None:
        """``"H1"`` (elo >= elo1 accepted), ``"H0"`` or None (go on)."""
        low, high = self.bounds()
        llr = self.llr(scores, paired)
        if llr >= high:
            return "H1"
        if llr <= low:
            return "H0"
        return None

    def __str__(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"


_SPRT_SCHEMA = Schema("SPRT", [
    Option("elo0", float), Option("elo1", float),
    Option("alpha", float, low=1e-9, high=0.5), Option("beta", float, low=1e-9, high=0.5),
])
