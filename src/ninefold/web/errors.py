"""The requests the web board refuses, each with the HTTP status it answers, and the
handlers that turn them (and malformed requests) into a one-line ``detail``.

A route (or the `ninefold.web.games.WebGame` it changes) raises a `GameError`;
`add_handlers` makes the app answer it as ``{"detail": "..."}`` with the
error's `status`, and a request FastAPI could not parse as a 422 that names
the field. An address that names nothing answers 404: to a browser (it accepts
``text/html``), outside ``/api/``, a small page that says so with links home
(``static/notfound.html``); to anything else the JSON ``detail``.

>>> Stale("the game is over").status
409
"""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException

from ninefold.web.limits import retry_after

NOT_FOUND_PAGE = Path(__file__).resolve().parent / "static" / "notfound.html"
WHAT = "<!-- what -->"  # where the not-found page says what was not found


class GameError(Exception):
    """A request the game refuses; `status` is the HTTP status the API answers."""

    status = 400


class Forbidden(GameError):
    """No seat token, or not the token of the side that would move."""

    status = 403


class NotFound(GameError):
    status = 404


class Stale(GameError):
    """The request was made for another position (replayed, or the game moved on)."""

    status = 409


class IllegalMove(GameError):
    status = 422


class Unavailable(GameError):
    """Data the server needs and cannot read (a damaged puzzles file): one line, not a
    traceback."""

    status = 503


class TooMany(GameError):
    """A client asking more than `ninefold.web.limits.WebLimits` lets it; it may try again
    after `retry_after` seconds (the answer's ``Retry-After``)."""

    status = 429

    def __init__(self, text: str, retry_after: float) -> None:
        super().__init__(text)
        self.retry_after = retry_after


async def game_error(request: Request, exc: GameError) -> JSONResponse:
    """A `GameError`'s answer: its text as the detail, with its status (and a `TooMany`'s
    ``Retry-After``)."""
    headers = {"Retry-After": retry_after(exc.retry_after)} if isinstance(exc, TooMany) else None
    return JSONResponse({"detail": str(exc)}, exc.status, headers=headers)


async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A request FastAPI could not parse: 422, the first problem in one line."""
    first = exc.errors()[0] if exc.errors() else {}
    if first.get("type") == "json_invalid":  # its place is a character, not a field
        at = first.get("loc", ("body", "?"))[-1]
        return JSONResponse({"detail": f"the body is not valid JSON (at character {at})"},
                            422)
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    text = first.get("msg", "invalid request")
    return JSONResponse({"detail": f"{where}: {text}" if where else text}, 422)


@cache
def not_found_page() -> str:
    page = NOT_FOUND_PAGE.read_text(encoding="utf-8")
    assert WHAT in page
    return page


async def not_found(request: Request, exc: HTTPException) -> Response:
    """A 404 for a browser's page: the not-found page, saying what is missing when the
    route said (its ``detail``); any other HTTP error as FastAPI answers it."""
    wants_page = "text/html" in request.headers.get("accept", "") and \
        not request.url.path.startswith("/api/")
    if exc.status_code != 404 or not wants_page:
        return await http_exception_handler(request, exc)
    said = exc.detail if exc.detail != "Not Found" else "There is nothing at this address."
    page = not_found_page().replace(WHAT, html.escape(said))
    if getattr(request.app.state, "platform", None) is not None:  # its links shown
        page = page.replace(" data-platform hidden", " data-platform")
    return HTMLResponse(page, 404)


def add_handlers(app: FastAPI) -> None:
    """Answer `GameError`s and unparsable requests with a one-line ``detail``, and a
    browser's page that names nothing with the not-found page."""
    app.add_exception_handler(GameError, game_error)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, not_found)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, bad_request)  # type: ignore[arg-type]
