"""A cap on request bodies for the web board's server (`BodyLimit`, ASGI middleware).

Every route reads small JSON bodies (`MAX_BODY_BYTES`), read here whole and
counted before any route sees them. The platform's upload route alone has a
larger cap, and its body is not read here: it goes on to the route as it
comes, counted, so that the route reads it only once it knows who sends it
(an unknown sender is refused without a byte of it read), and into a file on
disk as it reads (a multipart form's files: Starlette spools them).
"""

from __future__ import annotations

import re
from typing import Any

from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

MAX_BODY_BYTES = 16 * 1024  # a request body larger than this is refused (413)


class BodyLimit:
    """ASGI middleware: a request body over `limit` bytes, announced or sent, is
    answered 413 before any route reads it. `uploads`: (a regular expression of the
    upload routes' paths, their larger limit); a POST to one of them is passed on
    unread, and reading more than that limit of it raises a 413 in the route."""

    def __init__(self, app: Any, limit: int, uploads: tuple[str, int] | None = None) -> None:
        self.app = app
        self.limit = limit
        self.uploads = (re.compile(uploads[0]), uploads[1]) if uploads else None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        limit, streamed = self.limit, False
        if self.uploads and scope.get("method") == "POST" and \
                self.uploads[0].fullmatch(scope.get("path", "")):
            limit, streamed = self.uploads[1], True
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _too_big(limit)(scope, receive, send)
            return
        if streamed:
            await self.app(scope, _counted(receive, limit), send)
            return
        body, size, more = [], 0, True
        while more:  # read it all first (it is small), counting
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body.append(message.get("body", b""))
            size += len(body[-1])
            more = message.get("more_body", False)
            if size > limit:
                await _too_big(limit)(scope, receive, send)
                return
        whole = b"".join(body)
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": whole, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _counted(receive: Any, limit: int) -> Any:
    """`receive`, raising a 413 (`HTTPException`, answered by the app's handler) once the
    body read through it is over `limit` bytes."""
    size = 0

    async def counted() -> Any:
        nonlocal size
        message = await receive()
        if message["type"] == "http.request":
            size += len(message.get("body", b""))
            if size > limit:
                raise HTTPException(413, _too_big_text(limit))
        return message

    return counted


def _too_big_text(limit: int) -> str:
    return f"the body is over {limit} bytes"


def _too_big(limit: int) -> JSONResponse:
    return JSONResponse({"detail": _too_big_text(limit)}, 413)
