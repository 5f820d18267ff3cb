"""`level:1` .. `level:10`: players for people, weakest to strongest.

Each level is another player's spec (`LADDER`); the strength of each was
measured with `benchmarks/ladder.py` (table in docs/research/strength.md): every level
beats the one below it by at least 100 Elo. The searching levels count
simulations, not time, so a level is equally strong on a fast or a slow
computer; only level 10, the search with the network, thinks for as long
as the clock allows, up to 2 s a move, less when its search proves the result
(it plays a proven win at once). Every level plays a forced move (the only
legal one, `forced_move`) at once, without asking its player. The analyses
(`analysis_spec`) search as level 10 does.

>>> from ninefold import Board
>>> make_level(1).play(Board()).move in Board().legal_moves
True
"""

from __future__ import annotations

import functools

from ninefold.options import split_pairs
from ninefold.players.player import Limit, Player, PlayResult
from ninefold.players.registry import make_player, parse_spec, player_kind, register
from ninefold.rules import Board, Move

LADDER: dict[int, str] = {
    1: "random",
    2: "naive",
    3: "alphabeta:depth=2",
    4: "mcts:sims=700",
    5: "mcts:sims=1600",
    6: "mcts:sims=3000",
    7: "mcts:sims=6500",
    8: "mcts:sims=16000",
    9: "mcts:sims=42000",
    10: "mcts:net=default,ms=2000",
}
STRONGEST = max(LADDER)
ANALYSIS_DRAW = 0.5  # what a draw is worth to an analysis: half a win, as its scores say


def analysis_spec(threads: int = 1) -> str:
    """The player that analyses positions (the web's analysis, ``ninefold analyze``, the
    terminal game's hints): the strongest level's search, on `threads` threads, for as
    long as the analysis is given (the level's own time a move left out), a draw worth
    `ANALYSIS_DRAW` to it (level 10 plays on for the win with the network's ``draw=0.3``,
    which would score the side to move low in drawn lines, and unlike a proven draw).

    >>> analysis_spec(), analysis_spec(threads=2)
    ('mcts:net=default,draw=0.5,threads=1', 'mcts:net=default,draw=0.5,threads=2')
    """
    name, _, options = LADDER[STRONGEST].partition(":")
    kept = [key if value is None else f"{key}={value}" for key, value
            in split_pairs(options, name) if key not in ("ms", "draw", "threads")]
    return f"{name}:" + ",".join([*kept, f"draw={ANALYSIS_DRAW:g}", f"threads={threads}"])


@register("level", positional="level")
class LevelPlayer(Player):
    """The player that level `level` names in `LADDER` (with `seed` if it takes one)."""

    def __init__(self, level: int, seed: int | None = None) -> None:
        if level not in LADDER:
            raise ValueError(f"level must be 1-10, not {level!r}")
        self.level = level
        spec = LADDER[level]
        name, _ = parse_spec(spec)
        kind = player_kind(name)
        if seed is not None and kind is not None and "seed" in kind.schema:
            spec += ("," if ":" in spec else ":") + f"seed={seed}"
        self.inner = make_player(spec)
        self.instant = self.inner.instant

    def new_game(self) -> None:
        self.inner.new_game()

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        forced = forced_move(board)
        if forced is not None:
            return PlayResult(forced, {"forced": True, "sims": 0, "level": self.level})
        result = self.inner.play(board, limit)
        result.info.setdefault("level", self.level)
        return result


def forced_move(board: Board) -> Move | None:
    """The side to move's only legal move, or None when it has a choice (or none).

    >>> forced_move(Board()) is None
    True
    """
    moves = iter(board.legal_moves)
    first = next(moves, None)
    return first if next(moves, None) is None else None


@functools.cache  # asked at every computer move; the ladder is fixed
def is_instant(level: int) -> bool:
    """Whether level `level` plays without a search (`Player.instant`), known without
    making the player.

    >>> [level for level in LADDER if is_instant(level)]
    [1, 2]
    """
    kind = player_kind(parse_spec(LADDER[level])[0])
    return kind is not None and kind.factory.instant


def make_level(level: int) -> LevelPlayer:
    return LevelPlayer(level)
