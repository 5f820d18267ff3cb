"""Shared test set-up."""

from __future__ import annotations

import gc
import os
import signal
from pathlib import Path

import pytest
from needs import require

CHROMIUM = Path("/usr/bin/chromium")  # Debian's; the browser tests launch it by path
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]
ROOT = Path(__file__).resolve().parent.parent


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here (None: they can)."""
    return None if CHROMIUM.exists() else f"no {CHROMIUM} (apt-get install chromium)"

# The scripts in bots/ and platform_bots/ are bots run as subprocesses (or uploaded),
# not test modules: never import them.
collect_ignore_glob = ["bots/*_bot.py", "bots/botlib.py", "platform_bots/*"]


@pytest.fixture(autouse=True)
def _automatic_gc_restored():
    """A bot runner turns automatic garbage collection off for the rest of its process
    (`ninefold.protocols.runner.BotRunner.clock_starts`); tests run runners in this
    process, so each test gets it back as it was."""
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()


# --- the web board's browser tests: a real server, a real chromium -----------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real ``ninefold serve`` process on a fresh SQLite file; its base URL. No limit
    on new games a minute: a test file's games all come from one address, more than 30
    a minute when the tests run quickly (test_web_limits checks the limit on servers of
    its own)."""
    from webserver import start_server, stop_server

    proc, url = start_server(tmp_path_factory.mktemp("web") / "games.sqlite",
                             0, "--games-per-minute", "0")
    yield url
    stop_server(proc)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Where screenshots go: ``NINEFOLD_SHOTS=docs/images`` puts them in docs/images/ (the
    docs show them), else a temporary folder."""
    where = os.environ.get("NINEFOLD_SHOTS")
    return ROOT / where if where else tmp_path_factory.mktemp("shots")


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium driven by Playwright (skipped, saying why, when it is missing)."""
    require("Debian's chromium", chromium_missing())
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    p = context.new_page()
    yield p
    context.close()


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C reaches the programs the tests start, however pytest was started.

    A shell without job control starts a background command (``bash .ci/run &``,
    ``nohup``) with SIGINT ignored, and an ignored signal stays ignored in every
    child: the tests that press Ctrl-C on a bot or a search would wait in vain.
    A handler, unlike an ignore, is not inherited, so with Python's own the
    children start with the default, as from a terminal."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
