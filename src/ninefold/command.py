"""The ``ninefold`` command's entry point: ``ninefold bot`` goes the lean way.

A bot must answer a platform's first request within its first-turn limit, so
``ninefold bot`` starts in `ninefold.protocols.botmain` without importing the
command line's libraries; every other command goes to `ninefold.cli`.
"""

from __future__ import annotations

import sys


def main() -> None:
    """The ``ninefold`` console script (and ``python -m ninefold``)."""
    from ninefold.protocols.botmain import dispatch

    code = dispatch(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from ninefold.cli import main as cli_main

    cli_main()
