"""Accessibility checked by a tool: axe-core (Deque, MPL-2.0) run in the page under test.

``tests/data/axe.min.js`` is axe-core 4.14.1's single-file build, vendored so that a
plain clone and CI need no network beyond the package registries (from the npm
package: ``npm pack axe-core@4.14.1``, its ``axe.min.js``; the licence, MPL-2.0, is
``tests/data/axe.min.js.LICENSE``). `serious_violations` injects it into a page and
lists what it finds of serious or critical impact; the browser tests assert that
list is empty on every page they open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parent / "data" / "axe.min.js"
SERIOUS = ("serious", "critical")


def serious_violations(page: Page) -> list[str]:
    """axe-core's serious and critical violations on `page` as it is now, one line each:
    the rule, its help text, and the first elements it names."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):  # run through the debugger:
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")  # a <script> breaks the CSP
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, { resultTypes: ['violations'] })).violations")
    return [f"{v['id']} ({v['impact']}): {v['help']}: "
            + ", ".join(" ".join(n["target"]) for n in v["nodes"][:3])
            for v in found if v["impact"] in SERIOUS]


def assert_accessible(page: Page) -> None:
    """No serious or critical axe-core violation on `page` (the list shown if there is)."""
    problems = serious_violations(page)
    assert not problems, f"{page.url}:\n" + "\n".join(problems)
