"""The site menu is the same on every page that shows it: the same links, to the same
places, under the same control names (the pages are static files with no templating)."""

from __future__ import annotations

import re
from pathlib import Path

import ninefold.web

STATIC = Path(ninefold.web.__file__).parent / "static"
_NAV = re.compile(r'<nav aria-label="Site">(.*?)</nav>', re.S)
_LINK = re.compile(r'<a href="([^"]+)"[^>]*data-control="([^"]+)"[^>]*>([^<]*)</a>')


def menu(page: Path) -> list[tuple[str, str, str]] | None:
    """The (href, control, text) of each link of a page's site menu; None without one."""
    found = _NAV.search(page.read_text("utf-8"))
    return None if found is None else _LINK.findall(found.group(1))


def test_every_page_with_the_site_menu_has_the_same_links() -> None:
    menus = {p.name: menu(p) for p in sorted(STATIC.glob("*.html"))}
    menus = {name: links for name, links in menus.items() if links is not None}
    assert {"index.html", "proof.html", "puzzles.html", "explorer.html", "classic.html",
            "platform.html"} <= set(menus)
    home = menus["index.html"]
    assert ("/puzzles", "nav-puzzles", "Puzzles") in home
    assert ("/explorer", "nav-explorer", "Explorer") in home
    for name, links in menus.items():
        assert links == home, name
