"""The web board's pages (`router`): every page is ``static/index.html``, which reads
its address and asks the API for the rest; ``/static/...`` serves its files.

``GET /``, ``/g/{id}``, ``/replay/{id}``, ``/analysis``, ``/arena``,
``/arena/{n}`` (and, from `ninefold.web.routes_platform`, ``/platform-game/{n}``).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC = Path(__file__).resolve().parent / "static"

router = APIRouter(include_in_schema=False)


@router.get("/")
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.get("/g/{game_id}")
@router.get("/replay/{game_id}")
@router.get("/analysis")
@router.get("/arena")
@router.get("/arena/{n}")
async def page() -> FileResponse:
    return FileResponse(STATIC / "index.html")
