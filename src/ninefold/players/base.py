"""What every player is: a `Player` takes a `Board` and a `Limit` and returns a `PlayResult`.

Players are named by short spec strings, ``name`` or ``name:key=value,...``
(for example ``random``, ``mcts:ms=100``, ``level:7``); `make_player` builds
one. A player may keep state between moves of one game (an MCTS keeps its
tree); `new_game` clears it.

>>> from ninefold import Board
>>> player = make_player("random:seed=7")
>>> result = player.play(Board(), Limit(move_ms=10))
>>> result.move in Board().legal_moves
True
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ninefold.rules import Board, Move


class GameOverError(ValueError):
    """A player was asked to move in a finished game."""


class BudgetError(ValueError):
    """A player was given no time (or no simulations) to think."""


class PlayerSpecError(ValueError):
    """A player spec string that names no player or has bad options."""


@dataclass(frozen=True)
class Limit:
    """The clock for one move, as a referee gives it.

    `move_ms` is a fixed time for this move; `bank_ms` / `increment_ms` a time
    bank (the increment is already added to `bank_ms` when a move is asked,
    as on the bot platforms). Players that count work rather than time read
    `sims` or `depth`. A limit with nothing set means: the player's own default.
    """

    move_ms: float | None = None
    bank_ms: float | None = None
    increment_ms: float = 0.0
    sims: int | None = None
    depth: int | None = None

    def __post_init__(self) -> None:
        for name in ("move_ms", "bank_ms", "sims", "depth"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise BudgetError(f"{name} must be positive, not {value!r}")


@dataclass
class PlayResult:
    """A chosen move and what the player wants to say about it (visits, value, pv...)."""

    move: Move
    info: dict[str, Any] = field(default_factory=dict)


class Player(ABC):
    """A player; subclasses implement `_choose`."""

    spec: str = "?"

    def new_game(self) -> None:  # noqa: B027 - optional hook, most players keep no state
        """Forget anything kept from a previous game."""

    def play(self, board: Board, limit: Limit | None = None) -> PlayResult:
        """Choose a move for the side to move on `board` (which is not changed)."""
        if board.is_game_over():
            raise GameOverError(f"{self.spec}: the game is over, there is no move to choose")
        return self._choose(board, limit or Limit())

    @abstractmethod
    def _choose(self, board: Board, limit: Limit) -> PlayResult: ...

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


class RandomPlayer(Player):
    """Uniformly random among the legal moves."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        return PlayResult(self.rng.choice(list(board.legal_moves)))


# name -> (factory, {option: type}); players register themselves in ninefold.players
REGISTRY: dict[str, tuple[Callable[..., Player], dict[str, type]]] = {
    "random": (RandomPlayer, {"seed": int}),
}


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name:key=value,...`` and convert the values to the option types."""
    if not isinstance(spec, str) or not spec.strip():
        raise PlayerSpecError("empty player spec: try random, naive, alphabeta, mcts or level:N")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in REGISTRY:
        raise PlayerSpecError(
            f"unknown player {name!r} in spec {spec!r}: choose one of {', '.join(sorted(REGISTRY))}"
        )
    _, types = REGISTRY[name]
    options: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq and "level" in types and not options:
            key, value = "level", key  # level:7 is short for level:level=7
        if key not in types:
            known = ", ".join(types) or "none"
            raise PlayerSpecError(f"player {name!r} has no option {key!r} (options: {known})")
        try:
            options[key] = _convert(types[key], value.strip())
        except ValueError:
            raise PlayerSpecError(
                f"option {key}={value!r} of {name!r} is not a valid {types[key].__name__}"
            ) from None
    return name, options


def _convert(kind: type, text: str) -> Any:
    if kind is bool:
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(text)
    return kind(text)


def make_player(spec: str) -> Player:
    """The player a spec string names."""
    name, options = parse_spec(spec)
    factory, _ = REGISTRY[name]
    try:
        player = factory(**options)
    except (TypeError, ValueError) as exc:
        raise PlayerSpecError(f"cannot make player {spec!r}: {exc}") from None
    player.spec = spec.strip()
    return player
