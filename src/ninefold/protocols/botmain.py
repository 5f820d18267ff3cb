"""``ninefold bot``, the lean way: answer a platform's first request before numba loads.

The ``ninefold`` command sends ``bot`` here before it imports the command
line's libraries (typer, rich) or the searches (numpy, numba): this module
imports only the rules, the protocols' runners and the pure-Python fallback,
and the search loads in the background (`ninefold.protocols.engine`).
`OPTIONS` is the one list of the command's options: the Typer command shows
the same ones, and prints ``ninefold bot --help`` (`dispatch` leaves a request
for help to it: help is no bot's first request, so it may load typer).

>>> print(parser().format_usage().strip())
usage: ninefold bot --protocol PROTOCOL [--player PLAYER] [--rules RULES]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NamedTuple, NoReturn

from ninefold import timing
from ninefold.players import check_name, strongest_spec
from ninefold.protocols import check_protocol, runner
from ninefold.protocols.clock import PROTOCOLS, TimeControl
from ninefold.protocols.engine import Engine
from ninefold.rules import PRESETS, Rules
from ninefold.system import memory_limit_mb

HELP = """Play as a bot on stdin/stdout in a platform's protocol.

The bot answers its first request at once (an opening book, then the network's
policy) while its search loads in the background."""
HELP_OPTIONS = ("--help", "-h")
BROKEN_PIPE = 141  # as the rest of the command line: 128 + SIGPIPE
INTERRUPTED = 130  # 128 + SIGINT


def choices(values: Sequence[str]) -> str:
    """An option's metavar naming its values, as typer shows a choice's.

    >>> choices(("human", "computer"))
    '<human|computer>'
    """
    return f"<{'|'.join(values)}>"


RULES_HELP = f"Rules: a preset ({', '.join(PRESETS)}), then any key=value changes."


def players_help(what: str = "Player spec") -> str:
    """The help of an option that takes a player spec, `what` first, naming the players
    (this imports every player's module, numba's too: for help, never on the bot's way)."""
    from ninefold.players import load_all

    return f"{what} NAME[:OPTIONS], e.g. mcts:ms=100; NAME: {', '.join(sorted(load_all()))}."


class BotOption(NamedTuple):
    name: str
    help: str
    required: bool = False
    metavar: str | None = None  # None: the type's (typer's <str>)


OPTIONS = (
    BotOption("protocol", "The platform's protocol.", required=True,
              metavar=choices(PROTOCOLS)),
    BotOption("player", "{players} Default: the strongest; on a time bank "
                        f"nodes={timing.BANK_TREE_NODES} unless given, memory allowing."),
    BotOption("rules", RULES_HELP + " Default: standard, codingame for codingame."),
)


def option_help(option: BotOption) -> str:
    """`option`'s help text, the players named where it takes a player spec."""
    return option.help.replace("{players}", players_help()) if "{players}" in option.help \
        else option.help


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see 'ninefold bot --help')")


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``ninefold bot``."""
    parse = _Parser(prog="ninefold bot", description=HELP, add_help=False)
    for option in OPTIONS:
        parse.add_argument(f"--{option.name}", required=option.required,
                           metavar=option.name.upper())
    return parse


def fail(message: str) -> NoReturn:
    """``error: message`` on one line of stderr, and exit status 2 (as the command line)."""
    sys.stderr.write(f"error: {' '.join(message.split())}\n")
    sys.stderr.flush()
    os._exit(2)  # also from the engine's loading thread: nothing is left to clean up


def player_defaults(protocol: str, memory_mb: float) -> dict[str, object]:
    """The search's options where the player spec gives none, for a bot on `protocol`:
    on a time bank (AI Games, Riddles) a tree big enough for its longest moves
    (`timing.BANK_TREE_NODES`), where the process may use the memory (`memory_mb`,
    as `memory_limit_mb`). The search process falls back to the player's own
    default if it cannot load with it. docs/research/strength.md has the measurements.

    >>> player_defaults("codingame", memory_mb=24_000)
    {}
    >>> player_defaults("riddles", memory_mb=24_000)
    {'nodes': 8000000}
    >>> player_defaults("riddles", memory_mb=512)
    {}
    """
    if TimeControl.for_protocol(protocol).is_bank and \
            memory_mb >= timing.BANK_TREE_LEAST_MEMORY_MB:
        return {"nodes": timing.BANK_TREE_NODES}
    return {}


def run_bot(protocol: str, player: str | None = None, rules: str | None = None) -> int:
    """Play as a bot on stdin/stdout until the input ends; ValueError for bad options.

    The player's name is checked at once; its options when it loads, in the
    background: bad ones end the process with ``error: ...`` and status 2, also
    when the input ends first (it waits for the verdict, `timing.SPEC_VERDICT_WAIT_S`).
    """
    protocol = check_protocol(protocol)
    spec = player or strongest_spec()
    check_name(spec)
    default_rules = "codingame" if protocol == "codingame" else "standard"
    bot_rules = Rules.parse(rules or default_rules)
    engine = Engine(spec, bot_rules, on_error=lambda exc: fail(str(exc)),
                    defaults=player_defaults(protocol, memory_limit_mb()))
    status = runner(protocol, engine, rules=bot_rules).run()
    engine.settle(timing.SPEC_VERDICT_WAIT_S)  # the input may end before the options are checked
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """``ninefold bot [options]``: returns the exit status."""
    args = parser().parse_args(sys.argv[2:] if argv is None else argv)
    try:
        return run_bot(args.protocol, args.player, args.rules)
    except ValueError as exc:
        fail(str(exc))
    except BrokenPipeError:
        return BROKEN_PIPE
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return INTERRUPTED


def dispatch(argv: Sequence[str]) -> int | None:
    """The exit status of ``ninefold bot ...`` if `argv` (without the program) asks for
    it, else None: the rest of the command line handles it, ``ninefold bot --help`` too.

    >>> dispatch(["bot", "--protocol", "riddles", "--help"]) is None
    True
    """
    if list(argv[:1]) != ["bot"] or any(word in HELP_OPTIONS for word in argv[1:]):
        return None
    return main(argv[1:])
