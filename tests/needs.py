"""What a test needs from the machine: Debian's chromium, bubblewrap, PostgreSQL.

Where one is missing the tests that need it are skipped, saying why, except under CI
(``CI=true``), where a missing part fails the run: a CI that silently skipped the
browser or the sandbox would pass having tested nothing of them.

>>> require("nothing", None)   # nothing is missing: nothing happens
"""

from __future__ import annotations

import os

import pytest


def under_ci() -> bool:
    """True where the run is CI's (``CI`` set, and not to ``0`` or ``false``)."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def require(what: str, why_missing: str | None, module: bool = False) -> None:
    """Skip the test (the whole `module` if asked) because `what` is missing, saying
    `why_missing`; under CI fail instead. Nothing happens when `why_missing` is None.

    ``require("the sandbox", sandbox.available(), module=True)``
    """
    if why_missing is None:
        return
    message = f"{what} is missing: {why_missing}"
    if under_ci():
        pytest.fail(f"{message} (CI needs it; `make test` installs it as root)", pytrace=False)
    pytest.skip(message, allow_module_level=module)
