"""`level:1` .. `level:10`: players for people, weakest to strongest.

Each level is another player's spec (`LADDER`); the strength of each was
measured with `benchmarks/ladder.py` (table in docs/players.md): every level
beats the one below it by at least 100 Elo. The searching levels count
simulations, not time, so a level is equally strong on a fast or a slow
computer; only level 10, the search with the network, thinks for as long
as the clock allows, up to 2 s a move.

>>> from ninefold import Board
>>> make_level(1).play(Board()).move in Board().legal_moves
True
"""

from __future__ import annotations

from ninefold.players.player import Limit, Player, PlayResult
from ninefold.players.registry import make_player, parse_spec, player_kind, register
from ninefold.rules import Board

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

    def new_game(self) -> None:
        self.inner.new_game()

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        result = self.inner.play(board, limit)
        result.info.setdefault("level", self.level)
        return result


def make_level(level: int) -> LevelPlayer:
    return LevelPlayer(level)
