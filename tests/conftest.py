"""Shared test set-up."""

from __future__ import annotations

import gc

import pytest


@pytest.fixture(autouse=True)
def _automatic_gc_restored():
    """A bot runner turns automatic garbage collection off for the rest of its process
    (`ninefold.protocols.runner.BotRunner.clock_starts`); tests run runners in this
    process, so each test gets it back as it was."""
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
