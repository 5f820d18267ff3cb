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

import importlib
import importlib.util
import inspect
import os
import pkgutil
import random
import threading
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from ninefold.options import Option, OptionError, Schema, clip
from ninefold.rules import Board, Move


class GameOverError(ValueError):
    """A player was asked to move in a finished game."""


class BudgetError(ValueError):
    """A player was given no time (or no simulations) to think."""


class PlayerSpecError(OptionError):
    """A player spec string that names no player or has bad options."""


MAX_MS = 86_400_000.0  # a day: a longer time for one move is a slip of the keyboard


def check_positive(name: str, value: float | None, most: float, meaning: str) -> None:
    """Refuse an option that is not None and not in (0, most]: `BudgetError` if it
    leaves no time or work, `ValueError` if it is absurd (`meaning` says what `most` is).

    >>> check_positive("ms", 1e20, MAX_MS, "a day")
    Traceback (most recent call last):
    ...
    ValueError: ms=1e+20 is too much: at most 86400000 (a day)
    """
    if value is None:
        return
    if value <= 0:
        raise BudgetError(f"{name} must be positive, not {value!r}")
    if value > most:
        shown = value if isinstance(value, int) else f"{value:g}"
        raise ValueError(f"{name}={shown} is too much: at most {most:.0f} ({meaning})")


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, where the OS keeps one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@dataclass(frozen=True)
class Limit:
    """The clock for one move, as a referee gives it.

    `move_ms` is a fixed time for this move; `bank_ms` / `increment_ms` a time
    bank (the increment is already added to `bank_ms` when a move is asked,
    as on the bot platforms), which never holds more than `max_bank_ms` (None:
    no cap known). Players that count work rather than time read `sims` or
    `depth`. A limit with nothing set means: the player's own default.

    >>> Limit(bank_ms=10000, increment_ms=500, max_bank_ms=10000).spent(30)
    Limit(move_ms=None, bank_ms=9970, increment_ms=500, max_bank_ms=10000, sims=None, depth=None)
    """

    move_ms: float | None = None
    bank_ms: float | None = None
    increment_ms: float = 0.0
    max_bank_ms: float | None = None
    sims: int | None = None
    depth: int | None = None

    def __post_init__(self) -> None:
        for name in ("move_ms", "bank_ms", "max_bank_ms", "sims", "depth"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise BudgetError(f"{name} must be positive, not {value!r}")

    def spent(self, ms: float) -> Limit:
        """The same clock once `ms` of it are gone (never less than 1 ms left)."""
        return replace(
            self,
            move_ms=None if self.move_ms is None else max(1.0, self.move_ms - ms),
            bank_ms=None if self.bank_ms is None else max(1.0, self.bank_ms - ms),
        )


@dataclass
class PlayResult:
    """A chosen move and what the player wants to say about it (visits, value, pv...)."""

    move: Move
    info: dict[str, Any] = field(default_factory=dict)


class Player(ABC):
    """A player; subclasses implement `_choose`."""

    spec: str = "?"
    defaulted: str = ""  # the options `make_player` took from its defaults (``key=value,...``)
    ponders: bool = False  # `ponder` thinks on the opponent's time (a bot's search process)

    def new_game(self) -> None:  # noqa: B027 - optional hook, most players keep no state
        """Forget anything kept from a previous game."""

    def ponder(self, board: Board, stop: threading.Event) -> int:
        """Think about `board`, the position after this player's move, until `stop` is
        set, so that the next move starts from what was found; the work done (0: this
        player keeps nothing between moves, the default)."""
        return 0

    def play(self, board: Board, limit: Limit | None = None) -> PlayResult:
        """Choose a move for the side to move on `board` (which is not changed)."""
        if board.is_game_over():
            raise GameOverError(f"{self.spec}: the game is over, there is no move to choose")
        return self._choose(board, limit or Limit())

    @abstractmethod
    def _choose(self, board: Board, limit: Limit) -> PlayResult: ...

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


@dataclass(frozen=True)
class PlayerKind:
    """A kind of player a spec may name: its class and the options of its constructor."""

    name: str
    factory: type[Player]
    schema: Schema
    required: tuple[str, ...]  # options without a default


# name -> kind; each player class registers itself where it is defined (`register`).
# The modules are imported when a name is first asked for (`player_kind`), so that
# naming a cheap player never imports numba: a player named ``x`` is defined here
# or in the module ``ninefold.players.x``.
REGISTRY: dict[str, PlayerKind] = {}

P = TypeVar("P", bound=Player)


def register(name: str, positional: str | None = None) -> Callable[[type[P]], type[P]]:
    """Class decorator: name a player for spec strings, its options read from ``__init__``.

    Each parameter of the constructor is an option; its annotation (``int``,
    ``float``, ``str``, ``bool``, or one of them ``| None``) is the option's
    type. `positional` is the option a bare first value stands for
    (``level:7`` for ``level:level=7``). The constructor checks the values.
    """

    def decorate(cls: type[P]) -> type[P]:
        options, required = _constructor_options(cls)
        schema = Schema(f"player {name!r}", options, positional=positional)
        REGISTRY[name] = PlayerKind(name, cls, schema, required)
        return cls

    return decorate


def _constructor_options(cls: type[Player]) -> tuple[list[Option], tuple[str, ...]]:
    hints = typing.get_type_hints(cls.__init__)
    options, required = [], []
    for name, param in inspect.signature(cls.__init__).parameters.items():
        if name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        kind = hints.get(name)
        if typing.get_origin(kind) in (typing.Union, types.UnionType):
            rest = [a for a in typing.get_args(kind) if a is not type(None)]
            kind = rest[0] if len(rest) == 1 else kind
        if kind not in (int, float, str, bool):
            raise TypeError(f"{cls.__name__}: option {name!r} is annotated {kind!r}; "
                            "a spec option is int, float, str or bool (or one of them | None)")
        options.append(Option(name, kind))
        if param.default is param.empty:
            required.append(name)
    return options, tuple(required)


@register("random")
class RandomPlayer(Player):
    """Uniformly random among the legal moves."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def _choose(self, board: Board, limit: Limit) -> PlayResult:
        return PlayResult(self.rng.choice(list(board.legal_moves)))


def player_kind(name: str) -> PlayerKind | None:
    """The kind of player called `name`, importing ``ninefold.players.<name>`` if need be.

    >>> player_kind("naive").factory.__name__, player_kind("chess")
    ('NaivePlayer', None)
    """
    module = None if name in REGISTRY else _module_of(name)
    if module is not None:
        importlib.import_module(module)
    return REGISTRY.get(name)


def _module_of(name: str) -> str | None:
    """The module that would define the player `name`, if there is one (not imported)."""
    module = f"{__package__}.{name}"
    found = name.isidentifier() and importlib.util.find_spec(module) is not None
    return module if found else None


def check_name(spec: str) -> str:
    """The player name `spec` starts with, checked without importing the player's module
    when it is not imported yet (its options are checked when it is made).

    >>> check_name("mcts:threads=2")
    'mcts'
    """
    name = spec.strip().partition(":")[0].strip().lower() if isinstance(spec, str) else ""
    if name in REGISTRY or _module_of(name) is not None:
        return name
    parse_spec(spec)  # raises, naming the players there are
    return name


def load_all() -> dict[str, PlayerKind]:
    """Import every player module (numba included), so that `REGISTRY` names every player."""
    package = importlib.import_module(__package__)
    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{__package__}.{info.name}")
    return REGISTRY


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name:key=value,...`` and convert the values to the options' types.

    >>> parse_spec("mcts:ms=100,solver=off")
    ('mcts', {'ms': 100.0, 'solver': False})
    >>> parse_spec("level:7")
    ('level', {'level': 7})
    >>> parse_spec("mcts:ms=1,ms=2")
    Traceback (most recent call last):
    ...
    ninefold.players.base.PlayerSpecError: player 'mcts': 'ms' is given twice
    """
    if not isinstance(spec, str) or not spec.strip():
        raise PlayerSpecError(f"empty player spec: choose one of {_names()}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    kind = player_kind(name)
    if kind is None:
        raise PlayerSpecError(f"unknown player {clip(name)} in spec {clip(spec)}: "
                              f"choose one of {_names()}")
    try:
        options = kind.schema.parse(rest)
    except OptionError as exc:
        raise PlayerSpecError(str(exc)) from None
    for option in kind.required:
        if option not in options:
            bare = f"{name}:... or " if kind.schema.positional == option else ""
            raise PlayerSpecError(f"player {name!r} needs the option {option} "
                                  f"({bare}{name}:{option}=...)")
    return name, options


def _names() -> str:
    return ", ".join(sorted(load_all()))


def make_player(spec: str, defaults: Mapping[str, Any] | None = None) -> Player:
    """The player a spec string names; `PlayerSpecError` says what is wrong with it.

    `defaults` are options to use where the spec does not give them, for a player
    that has them (others ignore them; `Player.defaulted` says which were taken):
    ``ninefold bot`` gives the search more on a time bank so.

    >>> make_player("naive", {"nodes": 5000, "seed": 3}).defaulted
    'seed=3'
    >>> make_player("naive:seed=1", {"seed": 3}).defaulted
    ''
    """
    name, options = parse_spec(spec)
    schema = REGISTRY[name].schema.options
    taken = {key: value for key, value in (defaults or {}).items()
             if key in schema and key not in options}
    try:
        player = REGISTRY[name].factory(**options, **taken)
    except ValueError as exc:
        raise PlayerSpecError(f"player {clip(spec.strip())}: {exc}") from None
    player.spec = spec.strip()
    player.defaulted = ",".join(f"{key}={value}" for key, value in taken.items())
    return player
