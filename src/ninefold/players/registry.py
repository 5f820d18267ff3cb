"""Players by name: the spec strings ``name`` or ``name:key=value,...`` and the players they make.

Each player class registers itself where it is defined (`register`), its
options read from its constructor; `make_player` builds the player a spec
names (for example ``random``, ``mcts:ms=100``, ``level:7``).

>>> from ninefold import Board
>>> player = make_player("random:seed=7")
>>> player.spec, player.play(Board()).move in Board().legal_moves
('random:seed=7', True)
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ninefold.options import Option, OptionError, Schema, clip
from ninefold.players.player import Player


class PlayerSpecError(OptionError):
    """A player spec string that names no player or has bad options."""


@dataclass(frozen=True)
class PlayerKind:
    """A kind of player a spec may name: its class and the options of its constructor."""

    name: str
    factory: type[Player]
    schema: Schema
    required: tuple[str, ...]  # options without a default


# name -> kind; each player class registers itself where it is defined (`register`).
# The modules are imported when a name is first asked for (`player_kind`), so that
# naming a cheap player never imports numba: a player named ``x`` is defined in the
# module ``ninefold.players.x``, or in the one `HOMES` names.
REGISTRY: dict[str, PlayerKind] = {}
HOMES = {"random": "naive"}  # players defined in a module named otherwise

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
    module = f"{__package__}.{HOMES.get(name, name)}"
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
    ninefold.players.registry.PlayerSpecError: player 'mcts': 'ms' is given twice
    """
    if not isinstance(spec, str) or not spec.strip():
        raise PlayerSpecError(f"empty player spec: choose one of {_names()}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    kind = player_kind(name)
    if kind is None:
        where = "" if spec.strip().lower() == name else f" in spec {clip(spec)}"
        raise PlayerSpecError(f"unknown player {clip(name)}{where}: choose one of {_names()}")
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
