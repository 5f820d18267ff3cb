"""Shared test set-up."""

from __future__ import annotations

import gc

import pytest

# The scripts in bots/ are bots run as subprocesses, not test modules: never import them.
collect_ignore_glob = ["bots/*_bot.py", "bots/botlib.py"]


@pytest.fixture(autouse=True)
def _automatic_gc_restored():
    """A bot runner turns automatic garbage collection off for the rest of its process
    (`ninefold.protocols.runner.BotRunner.clock_starts`); tests run runners in this
    process, so each test gets it back as it was."""
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
