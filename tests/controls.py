"""Every control of the web board's pages has a test: the names and the check.

Each control a page shows (every ``a[href]``, ``button``, ``select``, ``input`` and
``textarea``) carries a stable name in ``data-control``, and each element with key
bindings lists them in ``data-keys`` (the pages fill it from their key tables). A
test reaches a control through `control` and presses a bound key through `key`;
`controls_with_tests` reads those calls out of the test modules' source, so the check
(`assert_every_control_tested`, called by test_web_controls.py for the web board's pages
and by test_platform_browser.py for the contest platform's) knows which controls have a
test whichever tests a run selects, and fails naming any control, key or unnamed
element without one.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a module without the browser (test_web_classic's API tests) imports this
    from playwright.sync_api import Locator, Page

TESTS = Path(__file__).resolve().parent
LISTING = """() => ({
  names: [...document.querySelectorAll("a[href], button, select, input, textarea")]
    .filter((el) => el.dataset.control).map((el) => el.dataset.control),
  unnamed: [...document.querySelectorAll("a[href], button, select, input, textarea")]
    .filter((el) => !el.dataset.control).map((el) => el.outerHTML.slice(0, 120)),
  keys: [...document.querySelectorAll("[data-keys]")]
    .flatMap((el) => el.dataset.keys.split(" ").map((k) => `${el.id}:${k}`)),
})"""


def control(page: Page, name: str) -> Locator:
    """The page's control named `name` (its ``data-control``)."""
    return page.locator(f'[data-control="{name}"]')


def key(page: Page, scope: str, name: str) -> None:
    """Press key `name` (as ``data-keys`` names it: Space, Enter, ArrowLeft...), bound on
    the element whose id is `scope`."""
    page.keyboard.press(name)


def wait_until(page: Page, expression: str, timeout: float = 30_000) -> None:
    """Wait until the JavaScript `expression` is true on `page`, asking every 50 ms, for
    at most `timeout` ms. (Playwright's ``wait_for_function`` evaluates its string with
    ``eval`` inside the page, which the pages' Content-Security-Policy refuses;
    ``page.evaluate`` comes through the debugger, which it does not.)"""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout / 1000:.0f} s: {expression}")
        page.wait_for_timeout(50)


def listed(page: Page) -> tuple[set[str], list[str]]:
    """The page's controls and key bindings (``scope:Key``) now, and its unnamed controls."""
    found = page.evaluate(LISTING)
    return set(found["names"]) | {f"key {k}" for k in found["keys"]}, found["unnamed"]


def controls_with_tests() -> set[str]:
    """The controls and keys the test modules reach through `control` and `key`."""
    names: set[str] = set()
    for module in TESTS.glob("test_*.py"):
        text = module.read_text(encoding="utf-8")
        names |= set(re.findall(r"\bcontrol\(\w+, \"([a-z0-9-]+)\"\)", text))
        names |= {f"key {scope}:{k}" for scope, k in
                  re.findall(r"\bkey\(\w+, \"([\w-]+)\", \"(\w+)\"\)", text)}
    return names


def assert_every_control_tested(page: Page, where: str,
                                dynamic: frozenset[str] = frozenset()) -> None:
    """Every control and key binding `page` shows now (and the `dynamic` ones, which it
    shows only with data the run has none of) is named and has a test; `where` names
    the page in the failure."""
    shown, unnamed = listed(page)
    assert unnamed == [], f"{where}: controls without a data-control name: {unnamed}"
    untested = sorted((shown | dynamic) - controls_with_tests())
    assert untested == [], f"{where}: controls without a test: {untested}"
