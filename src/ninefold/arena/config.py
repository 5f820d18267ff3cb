"""A run's configuration, typed: who plays, how many games, which rules, openings,
time allowances and SPRT; read from the command line or a tournament TOML file.

Text is parsed here, once, into typed values (`Rules`, `Openings`, `Sprt`,
`TimeControl` in each `Seat`); storage turns them back into JSON.

>>> cfg = RunConfig(players=[Seat.builtin("random:seed=1", "a"),
...                          Seat.builtin("random:seed=2", "b")], games=4)
>>> cfg.total_games, cfg.rules.name, str(cfg.openings), cfg.first_move_ms
(4, 'standard', 'random4', 3000)
>>> check_name("a\\tb")
Traceback (most recent call last):
...
ninefold.arena.config.ArenaError: player name 'a\\tb': no tabs or control characters
"""

from __future__ import annotations

import random
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ninefold.arena.ratings import Sprt
from ninefold.arena.referee import Seat
from ninefold.options import clip
from ninefold.rules import Rules, opening_moves, random_opening

DEFAULT_FIRST_MOVE_MS = 3000  # added to a bot's first deadline (process start-up)
DEFAULT_SLACK_MS = 50  # added to every deadline (pipes, scheduling)
MAX_GAMES = 1_000_000  # per pairing: months of play even at 100 ms a move
MAX_NAME_LENGTH = 64
FORMATS = ("match", "round-robin", "gauntlet")


class ArenaError(ValueError):
    """A run that cannot start: bad configuration, a database of another run, a bot
    that fails its input test."""


def check_name(name: str) -> str:
    """`name` if it can name a player in results: printable, not blank, at most
    `MAX_NAME_LENGTH` characters, no spaces around it."""
    if not isinstance(name, str) or not name.strip():
        raise ArenaError("a player name must not be empty")
    if not name.isprintable():
        raise ArenaError(f"player name {clip(name)}: no tabs or control characters")
    if len(name) > MAX_NAME_LENGTH:
        raise ArenaError(f"player name {clip(name)} is too long: at most "
                         f"{MAX_NAME_LENGTH} characters")
    if name != name.strip():
        raise ArenaError(f"player name {clip(name)}: no spaces at either end")
    return name


@dataclass(frozen=True)
class Openings:
    """Where each round starts: `codes` cycled (``None``: the empty board), or, when
    `codes` is empty, a random-four opening drawn from the run's seed and the round.

    >>> Openings.parse("none").for_round(5, seed=1) is None
    True
    >>> Openings().for_round(3, seed=1) == Openings().for_round(3, seed=1)
    True
    """

    codes: tuple[str | None, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Openings:
        """``random4``, ``none``, or the path of a file of codes (one a line, ``#``
        comments)."""
        text = text.strip()
        if text == "random4":
            return cls()
        if text == "none":
            return cls((None,))
        path = Path(text)
        if not path.is_file():
            raise ArenaError(f"openings must be random4, none or a file of codes: {clip(text)}")
        codes: list[str | None] = []
        try:
            lines = path.read_text().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ArenaError(f"cannot read the openings file {path}: {exc}") from None
        for n, line in enumerate(lines, 1):
            code = line.split("#")[0].strip()
            if not code:
                continue
            try:
                opening_moves(code)
            except ValueError as exc:
                raise ArenaError(f"{path}:{n}: {exc}") from None
            codes.append(code)
        if not codes:
            raise ArenaError(f"no opening codes in {path}")
        return cls(tuple(codes))

    @property
    def is_random(self) -> bool:
        return not self.codes

    def for_round(self, r: int, seed: int) -> str | None:
        if self.is_random:
            return random_opening(random.Random(f"random4:{seed}:{r}"))
        return self.codes[r % len(self.codes)]

    def __str__(self) -> str:
        if self.is_random:
            return "random4"
        if self.codes == (None,):
            return "none"
        return f"{len(self.codes)} codes from a file"


@dataclass
class RunConfig:
    """Everything that decides a run's schedule and its games, checked when made."""

    players: list[Seat]
    games: int = 2  # per pairing
    format: str = "match"  # match, round-robin, gauntlet
    rules: Rules = field(default_factory=Rules)
    openings: Openings = field(default_factory=Openings)
    seed: int = 1
    first_move_ms: int = DEFAULT_FIRST_MOVE_MS
    slack_ms: int = DEFAULT_SLACK_MS
    sprt: Sprt | None = None
    name: str = ""

    def __post_init__(self) -> None:
        names = [check_name(p.name) for p in self.players]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise ArenaError(f"player names must differ: {', '.join(map(clip, twice))} "
                             "given more than once")
        if len(self.players) < 2:
            raise ArenaError("a run needs at least two players")
        if self.format not in FORMATS:
            raise ArenaError(f"unknown format {clip(self.format)}: {', '.join(FORMATS)}")
        if self.format == "match" and len(self.players) != 2:
            raise ArenaError("a match has exactly two players; use a tournament for more")
        _whole("games", self.games, 1, MAX_GAMES, " per pairing")
        _whole("seed", self.seed)
        _whole("first_move_ms", self.first_move_ms, 0)
        _whole("slack_ms", self.slack_ms, 0)
        if self.sprt is not None and self.format != "match":
            raise ArenaError("SPRT is for a match between two players")
        if self.openings != Openings((None,)) and any(
                p.protocol == "codingame" for p in self.players):
            raise ArenaError(
                "a CodinGame bot is told only the last move, so it cannot start from an "
                "opening: use --openings none"
            )

    @property
    def rounds(self) -> int:
        """Rounds per pairing: two games each (one opening, colours swapped)."""
        return (self.games + 1) // 2

    @property
    def total_games(self) -> int:
        return len(self.pairings()) * self.games

    def pairings(self) -> list[tuple[int, int]]:
        n = len(self.players)
        if self.format == "gauntlet":
            return [(0, j) for j in range(1, n)]
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    def differences(self, other: RunConfig) -> list[str]:
        """What `other` changes, except the number of games, one short phrase each.

        >>> a = RunConfig([Seat.builtin("random", "a"), Seat.builtin("naive", "b")])
        >>> from dataclasses import replace
        >>> a.differences(replace(a, seed=2, games=8))
        ['seed 1 -> 2']
        """
        diffs = []
        if [p.name for p in self.players] != [p.name for p in other.players]:
            diffs.append("players " + ", ".join(p.name for p in self.players) + " -> "
                         + ", ".join(p.name for p in other.players))
        else:
            for i, (p, q) in enumerate(zip(self.players, other.players, strict=True), 1):
                for f in fields(Seat):
                    old, new = getattr(p, f.name), getattr(q, f.name)
                    if old != new:
                        diffs.append(f"player {i} ({p.name}) {f.name} {_show(old)} -> "
                                     f"{_show(new)}")
        for f in fields(self):
            if f.name in ("players", "games"):
                continue
            old, new = getattr(self, f.name), getattr(other, f.name)
            if old != new:
                diffs.append(f"{f.name} {_show(old)} -> {_show(new)}")
        return diffs


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, Rules):
        return value.name
    return clip(value) if isinstance(value, str) else str(value)


def _whole(what: str, value: Any, low: int | None = None, high: int | None = None,
           unit: str = "") -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArenaError(f"{what} = {_show(value)} must be a whole number")
    if low is not None and value < low:
        raise ArenaError(f"{what} = {value} must be at least {low}")
    if high is not None and value > high:
        raise ArenaError(f"{what} = {value} is too many: at most {high:,}{unit}")


# --- tournament files -------------------------------------------------------------------

_TOP_KEYS: dict[str, type] = {
    "name": str, "format": str, "games": int, "rules": str, "openings": str, "seed": int,
    "first_move_ms": int, "slack_ms": int, "sprt": str, "player": list,
}
_PLAYER_KEYS: dict[str, type] = {
    "name": str, "spec": str, "command": str, "protocol": str, "cwd": str,
    "memory_mb": int, "cpu_s": int, "tc": str,
}
_KIND = {str: "a string in quotes", int: "a whole number", list: "a list"}


def _checked(table: dict[str, Any], keys: dict[str, type], where: str) -> dict[str, Any]:
    """`table` if every key is known and every value of its type; else `ArenaError`."""
    for key, value in table.items():
        kind = keys.get(key)
        if kind is None:
            raise ArenaError(f"{where}unknown key {clip(key)} (keys: {', '.join(keys)})")
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ArenaError(f"{where}{key} = {_toml_value(value)} must be {_KIND[kind]}")
    return table


def _toml_value(value: Any) -> str:
    text = clip(value) if isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:60] + "…"


def _toml_seat(p: Any, base: Path, where: str) -> Seat:
    if not isinstance(p, dict):
        raise ArenaError(f"{where}must be a [[player]] table")
    p = _checked(p, _PLAYER_KEYS, where)
    if ("spec" in p) == ("command" in p):
        raise ArenaError(f"{where}give either spec (a built-in player) or command "
                         "(an external bot), not both" if "spec" in p else
                         f"{where}give spec (a built-in player) or command (an external bot)")
    if "spec" in p:
        extra = sorted(set(p) & {"protocol", "cwd", "memory_mb", "cpu_s"})
        if extra:
            raise ArenaError(f"{where}{', '.join(extra)} apply to a command, not to a spec")
    elif "protocol" not in p:
        raise ArenaError(f"{where}a command needs protocol = \"aigames\", \"riddles\" or "
                         "\"codingame\"")
    cwd = p.get("cwd")
    if cwd and not Path(cwd).is_absolute():
        cwd = str((base / cwd).resolve())
    try:
        return Seat.parse(p.get("spec") or p["command"], p.get("protocol"), name=p.get("name"),
                          cwd=cwd, tc=p.get("tc"), memory_mb=p.get("memory_mb"),
                          cpu_s=p.get("cpu_s"))
    except ValueError as exc:
        raise ArenaError(f"{where}{exc}") from None


def load_toml(path: str | Path, games: int | None = None) -> RunConfig:
    """A tournament file: top-level options and one ``[[player]]`` table per player
    (``spec`` for a built-in player, or ``command`` + ``protocol`` [+ ``cwd``,
    ``memory_mb``, ``cpu_s``], and optionally ``name`` and ``tc``); `games`
    replaces the file's number of games. Every key and value is checked."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise ArenaError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        hint = " (a key given twice?)" if "overwrite" in str(exc).lower() else ""
        raise ArenaError(f"{path} is not valid TOML: {exc}{hint}") from None
    data = _checked(data, _TOP_KEYS, f"{path}: ")
    players = [_toml_seat(p, path.parent, f"{path}: player {i}: ")
               for i, p in enumerate(data.pop("player", []), 1)]
    try:
        if "rules" in data:
            data["rules"] = Rules.parse(data["rules"])
        if "sprt" in data:
            data["sprt"] = Sprt.parse(data["sprt"])
        if "openings" in data:
            text = data["openings"]
            relative = text not in ("random4", "none") and not Path(text).is_absolute()
            data["openings"] = Openings.parse(str(path.parent / text) if relative else text)
        data.setdefault("format", "round-robin")
        if games is not None:
            data["games"] = games
        return RunConfig(players=players, **data)
    except ValueError as exc:
        raise ArenaError(f"{path}: {exc}") from None

