"""``ninefold bot`` as it is, told that a CodinGame turn after the first is TURN_MS ms.

Benchmark only: ``strength.py --b-turn-ms`` runs side B this way, so that a reference
bot with ``sims=`` in its spec does the same work every turn on any machine. On the
platform's 100 ms a bot's runner keeps back time against the machine's stalls as it
measures them, so a match against it measures the machine as well as the bot. Told a
longer turn, the bot stops at its simulation count instead, whatever the machine did;
its tree reuse, pondering and fallbacks are its own. It works with any revision whose
``CodinGameRunner`` takes ``turn_ms`` (all since the protocol landed). MODULE is what
``python -m`` would run for the revision's ``ninefold`` command (``ninefold``, the lean
entry point, or ``ninefold.cli`` before it: `botgames.entry_module`)::

    env PYTHONPATH=.bench/revisions/REV/src .venv/bin/python benchmarks/told_turn.py 300 \\
        ninefold bot --protocol codingame --player mcts:net=default,sims=11000
"""

from __future__ import annotations

import functools
import runpy
import sys


def main(argv: list[str]) -> None:
    if len(argv) < 3 or not argv[0].isdigit() or int(argv[0]) < 1 or \
            argv[1] not in ("ninefold", "ninefold.cli"):
        sys.exit("usage: told_turn.py TURN_MS MODULE bot --protocol codingame [OPTIONS]")
    turn_ms = float(argv[0])
    from ninefold.protocols import codingame  # the revision's, from PYTHONPATH

    init = codingame.CodinGameRunner.__init__

    @functools.wraps(init)
    def told(self: object, *args: object, **kw: object) -> None:
        kw["turn_ms"] = turn_ms
        init(self, *args, **kw)  # type: ignore[arg-type]

    codingame.CodinGameRunner.__init__ = told  # type: ignore[method-assign]
    sys.argv = ["ninefold", *argv[2:]]
    runpy.run_module(argv[1], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
