"""Which pages may open the web board's WebSockets (`OriginCheck`, ASGI middleware).

A browser sends every WebSocket's ``Origin``: the scheme, host and port of the
page that opened it. A page of another site must not use a visitor's browser
to watch games or run analyses here, so a WebSocket whose ``Origin`` is not the
server's own (the ``Host`` it was reached by:
`ninefold.web.security.same_origin`) nor one of the allowed origins
(`WebLimits.allowed_origins`, ``serve --allow-origin``; ``*``: any) is refused
with ``403`` before any route sees it. A client that sends no ``Origin`` (a
script, a bot: not a browser) is let through. (Plain HTTP requests from other
origins are `ninefold.web.security`'s.)

Behind a proxy that rewrites ``Host`` (to the server's own address), the public
origin must be allowed by name: ``--allow-origin https://games.example``.
"""

from __future__ import annotations

from typing import Any

from ninefold.web.security import same_origin


def normal_origin(origin: str) -> str:
    """`origin` as compared with an allowed one: lower case, no trailing slash.

    >>> normal_origin("HTTPS://Games.Example/")
    'https://games.example'
    """
    return origin.strip().rstrip("/").lower()


class OriginCheck:
    """ASGI middleware: a WebSocket whose ``Origin`` is neither the server's own nor in
    `allowed` (``*``: any) is refused (403) before the route runs."""

    def __init__(self, app: Any, allowed: tuple[str, ...] = ()) -> None:
        self.app = app
        self.allowed = frozenset(normal_origin(o) for o in allowed)

    def allows(self, headers: dict[bytes, bytes]) -> bool:
        """Whether a WebSocket with these request headers may open."""
        origin = headers.get(b"origin")
        if origin is None or "*" in self.allowed:
            return True
        text = origin.decode("latin-1")
        host = headers.get(b"host", b"").decode("latin-1")
        return same_origin(text, host) or normal_origin(text) in self.allowed

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket" or self.allows(dict(scope.get("headers") or [])):
            await self.app(scope, receive, send)
            return
        if "websocket.http.response" in scope.get("extensions", {}):  # say why (uvicorn)
            body = b'{"detail":"a WebSocket from a page of another origin is refused"}'
            await send({"type": "websocket.http.response.start", "status": 403,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "websocket.http.response.body", "body": body})
        else:
            await send({"type": "websocket.close", "code": 1008})


__all__ = ["OriginCheck"]
