"""Bot protocols: AI Games, Riddles.io and CodinGame, each from both ends.

`connect` gives the referee's end for an external bot; `runner` gives the bot's
end, running a ninefold player on stdin/stdout (``ninefold bot``).

One module per job:

- `clock`: `TimeControl` (what a bot is given) and `Clock` (one game's count);
- `process`: an external bot's process, started under `supervisor` so that
  none of its processes outlives its game;
- `connection`: the referee's end, `Bot`, `BotConnection`, `BotFault`;
- `runner`: the bot's end, `BotRunner`;
- `fields`: the field and macroboard codec AI Games and Riddles share;
- `aigames`, `riddles`, `codingame`: one module per protocol, both ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ninefold.players.player import Player
from ninefold.protocols.aigames import AIGamesConnection, AIGamesRunner
from ninefold.protocols.clock import PROTOCOLS, Clock, TimeControl
from ninefold.protocols.codingame import CodinGameConnection, CodinGameRunner
from ninefold.protocols.connection import Bot, BotConnection, BotFault
from ninefold.protocols.process import BotCommand, BotProcess, BotStartError
from ninefold.protocols.riddles import RiddlesConnection, RiddlesRunner
from ninefold.protocols.runner import BotRunner

_CONNECTIONS: dict[str, type[BotConnection]] = {
    kind.protocol: kind for kind in (AIGamesConnection, RiddlesConnection, CodinGameConnection)}
_RUNNERS: dict[str, type[BotRunner]] = {
    kind.protocol: kind for kind in (AIGamesRunner, RiddlesRunner, CodinGameRunner)}


def check_protocol(name: str) -> str:
    """`name` as a known protocol name; ValueError naming the choices otherwise."""
    name = name.strip().lower()
    if name not in PROTOCOLS:
        raise ValueError(f"unknown protocol {name!r}: choose one of {', '.join(PROTOCOLS)}")
    return name


def connect(cmd: BotCommand, name: str | None = None,
            log_path: str | Path | None = None) -> BotConnection:
    """The referee's end of an external bot (not started yet)."""
    return _CONNECTIONS[check_protocol(cmd.protocol)](cmd, name=name, log_path=log_path)


def runner(protocol: str, player: Player, **kw: Any) -> BotRunner:
    """ninefold's `player` as a bot speaking `protocol` (stdin/stdout by default)."""
    return _RUNNERS[check_protocol(protocol)](player, **kw)


__all__ = [
    "PROTOCOLS",
    "AIGamesConnection",
    "AIGamesRunner",
    "Bot",
    "BotCommand",
    "BotConnection",
    "BotFault",
    "BotProcess",
    "BotRunner",
    "BotStartError",
    "Clock",
    "CodinGameConnection",
    "CodinGameRunner",
    "RiddlesConnection",
    "RiddlesRunner",
    "TimeControl",
    "check_protocol",
    "connect",
    "runner",
]
