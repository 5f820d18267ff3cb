"""One grammar for every ``key=value,key=value`` string ninefold reads.

Rules (``codingame,boards=open``), player specs (``mcts:ms=100,threads=2``),
time controls (``bank=10000,inc=500``) and SPRT settings
(``elo0=0,elo1=10``) all use it: a `Schema` names the keys, their types and
their allowed values, and `Schema.parse` turns the text into a dict of typed
values once, at the edge, or raises `OptionError` saying what is wrong.

>>> schema = Schema("time control", [Option("bank", int, low=1), Option("inc", int, low=0)])
>>> schema.parse("bank=10000, inc=500")
{'bank': 10000, 'inc': 500}
>>> schema.parse("bank=1,bank=2")
Traceback (most recent call last):
...
ninefold.options.OptionError: time control: 'bank' is given twice
>>> schema.parse("inc=-5")
Traceback (most recent call last):
...
ninefold.options.OptionError: time control: inc=-5 must be at least 0
>>> schema.parse("speed=3")
Traceback (most recent call last):
...
ninefold.options.OptionError: time control: no option 'speed' (options: bank, inc)

This module imports nothing else of ninefold: every floor may use it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

MAX_ECHO = 60  # characters of a user's text quoted back in an error message


class OptionError(ValueError):
    """An option string that cannot be read, with the reason."""


def clip(text: object, limit: int = MAX_ECHO) -> str:
    """`text` as ``repr`` for an error message, cut to about `limit` characters.

    >>> clip("x" * 100, 10)
    "'xxxxxxxxxx'… (100 characters)"
    """
    s = str(text)
    if len(s) <= limit:
        return repr(s)
    return f"{s[:limit]!r}… ({len(s)} characters)"


TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class Option:
    """One key: its type (``int``, ``float``, ``str`` or ``bool``), and optionally
    the values allowed (`choices`) or a range (`low`, `high`, inclusive)."""

    name: str
    kind: type = str
    choices: tuple[str, ...] | None = None
    low: float | None = None
    high: float | None = None

    def convert(self, text: str) -> Any:
        """The value `text` names, checked; `OptionError` if it is not one."""
        value = text.strip()
        shown = f"{self.name}={value if len(value) <= MAX_ECHO else clip(value)}"
        if self.kind is bool:
            if value.lower() in TRUE:
                return True
            if value.lower() in FALSE:
                return False
            raise OptionError(f"{shown}: use true or false")
        if self.kind in (int, float):
            try:
                number = int(value) if self.kind is int else float(value)
            except ValueError:
                kind = "a whole number" if self.kind is int else "a number"
                raise OptionError(f"{shown} is not {kind}") from None
            if isinstance(number, float) and not math.isfinite(number):
                raise OptionError(f"{shown} is not a finite number")
            if self.low is not None and number < self.low:
                raise OptionError(f"{shown} must be at least {self.low:g}")
            if self.high is not None and number > self.high:
                raise OptionError(f"{shown} must be at most {self.high:g}")
            return number
        if not value:
            raise OptionError(f"{self.name}= needs a value")
        if self.choices is not None:
            value = value.lower()
            if value not in self.choices:
                raise OptionError(f"{shown}: choose one of {', '.join(self.choices)}")
        return value


def split_pairs(text: str, what: str) -> list[tuple[str, str | None]]:
    """``a=1, b , c=2`` as ``[("a", "1"), ("b", None), ("c", "2")]``; keys lower-cased.

    Empty parts (``a=1,,b=2``) are refused, as are empty keys.
    """
    parts = text.split(",")
    if len(parts) == 1 and not parts[0].strip():
        return []
    pairs: list[tuple[str, str | None]] = []
    for part in parts:
        key, eq, value = part.partition("=")
        key = key.strip().lower()
        if not key:
            raise OptionError(f"{what}: an empty option in {clip(text)}")
        pairs.append((key, value if eq else None))
    return pairs


class Schema:
    """The keys one kind of option string may have.

    `positional` names the option a bare value stands for when it comes first
    (``level:7`` is ``level:level=7``).
    """

    def __init__(self, what: str, options: Iterable[Option], positional: str | None = None):
        self.what = what
        self.options = {o.name: o for o in options}
        self.positional = positional

    def __contains__(self, name: object) -> bool:
        return name in self.options

    def parse(self, text: str) -> dict[str, Any]:
        """The typed values of `text`; `OptionError` names the first problem."""
        return self.parse_pairs(split_pairs(text, self.what))

    def parse_pairs(self, pairs: Iterable[tuple[str, str | None]]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for i, (key, value) in enumerate(pairs):
            if value is None and i == 0 and self.positional is not None:
                key, value = self.positional, key
            option = self.options.get(key)
            if option is None:
                known = ", ".join(self.options) or "none"
                raise OptionError(f"{self.what}: no option {clip(key)} (options: {known})")
            if value is None:
                raise OptionError(f"{self.what}: {key} needs a value ({key}=...)")
            if key in values:
                raise OptionError(f"{self.what}: {key!r} is given twice")
            try:
                values[key] = option.convert(value)
            except OptionError as exc:
                raise OptionError(f"{self.what}: {exc}") from None
        return values
