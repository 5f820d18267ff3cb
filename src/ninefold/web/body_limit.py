"""A cap on request bodies for the web board's server (`BodyLimit`, ASGI middleware).

Every route reads small JSON bodies (`MAX_BODY_BYTES`); the platform's uploads
have a larger cap of their own, by path prefix.
"""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse

MAX_BODY_BYTES = 16 * 1024  # a request body larger than this is refused (413)


class BodyLimit:
    """ASGI middleware: a request body over `limit` bytes, announced or sent, is
    answered 413 before any route reads it."""

    def __init__(self, app: Any, limit: int, uploads: tuple[str, int] | None = None) -> None:
        self.app = app
        self.limit = limit
        self.uploads = uploads  # (path prefix, limit): a larger limit for file uploads

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        limit = self.limit
        if self.uploads and scope.get("path", "").startswith(self.uploads[0]):
            limit = self.uploads[1]
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _too_big(limit)(scope, receive, send)
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


def _too_big(limit: int) -> JSONResponse:
    return JSONResponse({"detail": f"the body is over {limit} bytes"}, 413)
