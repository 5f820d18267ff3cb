"""What the web board's routes are given (FastAPI dependencies): the game store and the
hub that `ninefold.web.app.create_app` keeps on ``app.state``, the seat token a
request sends, and the client it counts as (`ninefold.web.limits`). Each is an
``async def``: FastAPI runs a plain ``def`` dependency in a thread, a hop per
dependency per request for what is an attribute read.

>>> import asyncio
>>> [asyncio.run(seat_token(h)) for h in ("Bearer abc", "Basic abc", None)]
['abc', None, None]
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header
from starlette.requests import HTTPConnection

from ninefold.web.hub import Hub
from ninefold.web.limits import client_key
from ninefold.web.store import GameStore


async def seat_token(authorization: Annotated[str | None, Header()] = None) -> str | None:
    """The seat token of ``Authorization: Bearer TOKEN`` (None: a spectator)."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


async def game_store(conn: HTTPConnection) -> GameStore:
    """The app's games (``app.state.store``)."""
    store: GameStore = conn.app.state.store
    return store


async def hub(conn: HTTPConnection) -> Hub:
    """The app's computer moves, clocks and watchers (``app.state.hub``)."""
    found: Hub = conn.app.state.hub
    return found


async def client(conn: HTTPConnection) -> str:
    """The client a request counts as (`ninefold.web.limits.client_key` of its address)."""
    return client_key(conn.client.host if conn.client else None)


Token = Annotated[str | None, Depends(seat_token)]
Client = Annotated[str, Depends(client)]
Store = Annotated[GameStore, Depends(game_store)]
Live = Annotated[Hub, Depends(hub)]
