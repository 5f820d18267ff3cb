"""The web board's pages (`router`): every page of the board is ``static/index.html``,
which reads its address and asks the API for the rest (``/rules`` shows its
section of rules for a newcomer); ``/static/...`` serves its files.

``GET /``, ``/g/{id}``, ``/replay/{id}``, ``/review/{key}``, ``/analysis``, ``/arena``,
``/arena/{n}``, ``/rules``, ``/favicon.ico`` (and, from
`ninefold.web.routes_platform`, ``/platform-game/{n}``: 404 for no such game).

Anything after ``/g/``, ``/replay/`` or ``/arena/`` gets the page, which says in
words when it names no game (never the API's JSON). The
page is served with its Contests link shown when the server runs the platform,
so no page asks the platform's API to find out.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse

STATIC = Path(__file__).resolve().parent / "static"
PLATFORM_LINK = '<a href="/platform" id="nav-platform" data-control="nav-platform" hidden>'

router = APIRouter(include_in_schema=False)


@cache
def index_page(platform: bool, name: str = "index.html") -> str:
    """A page of ``static/`` (index.html by default), its Contests link shown when `platform`
    (``/proof`` and ``/classic`` are served so too)."""
    html = (STATIC / name).read_text(encoding="utf-8")
    assert PLATFORM_LINK in html
    return html.replace(PLATFORM_LINK, PLATFORM_LINK.replace(" hidden", "")) if platform else html


@router.get("/")
@router.get("/g/{rest:path}")
@router.get("/replay/{rest:path}")
@router.get("/review/{rest:path}")
@router.get("/analysis")
@router.get("/rules")
@router.get("/arena")
@router.get("/arena/{rest:path}")
async def page(request: Request) -> HTMLResponse:
    return HTMLResponse(index_page(request.app.state.platform is not None))


@router.get("/favicon.ico")
async def favicon() -> FileResponse:
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")
