"""``ninefold bot`` as it is, told that a CodinGame turn after the first is TURN_MS ms.

Benchmark only: ``strength.py --b-turn-ms`` runs side B this way, so that a reference
bot with ``sims=`` in its spec does the same work every turn on any machine. On the
platform's 100 ms a bot's runner keeps back time against the machine's stalls as it
measures them, and on a noisy machine an older bot keeps back more than on a quiet
one (e827b65 thinks a median of 66 ms a turn on this 2-core VM, 88 ms on a quiet
16-core machine), so a match against it measures the machine as much as the bot.
Told a longer turn, the bot stops at its simulation count instead, whatever the
machine did; its tree reuse, pondering and fallbacks are its own. It works with any
revision whose ``CodinGameRunner`` takes ``turn_ms`` (all since the protocol landed)::

    env PYTHONPATH=.bench/revisions/REV/src .venv/bin/python benchmarks/told_turn.py 300 \\
        bot --protocol codingame --player mcts:net=default,sims=11000
"""

from __future__ import annotations

import functools
import importlib.util
import runpy
import sys


def main(argv: list[str]) -> None:
    if len(argv) < 2 or not argv[0].isdigit() or int(argv[0]) < 1:
        sys.exit("usage: told_turn.py TURN_MS bot --protocol codingame [OPTIONS]")
    turn_ms = float(argv[0])
    from ninefold.protocols import codingame  # the revision's, from PYTHONPATH

    init = codingame.CodinGameRunner.__init__

    @functools.wraps(init)
    def told(self: object, *args: object, **kw: object) -> None:
        kw["turn_ms"] = turn_ms
        init(self, *args, **kw)  # type: ignore[arg-type]

    codingame.CodinGameRunner.__init__ = told  # type: ignore[method-assign]
    sys.argv = ["ninefold", *argv[1:]]
    # the entry point the revision's console script uses: `ninefold bot` goes the lean way
    # there (`ninefold.command`); `ninefold.cli` would import typer, rich and numba first
    lean = importlib.util.find_spec("ninefold.__main__") is not None
    runpy.run_module("ninefold" if lean else "ninefold.cli", run_name="__main__",
                     alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
