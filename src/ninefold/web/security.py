"""What the web board's server tells browsers, and the changes it refuses from other sites
(`BrowserGuard`, ASGI middleware, with its settings in `BrowserPolicy`).

Every HTTP answer carries the security headers: a Content-Security-Policy that lets a
page run only the scripts and styles of this server's own files (no inline script or
``style`` attribute, no plug-in, no ``<base>``, forms posted only here, fetches and
WebSockets only to this server) and be framed by no one, ``X-Frame-Options: DENY`` for
browsers that predate ``frame-ancestors``, ``X-Content-Type-Options: nosniff`` and
``Referrer-Policy: same-origin``. The API's own documentation pages (``/docs``,
``/redoc``: FastAPI's, an inline script and a CDN) get a policy that allows just that.

A change (``POST``, ``PUT``, ``PATCH``, ``DELETE``) that a browser says comes from
another origin (its ``Origin`` header, or ``Sec-Fetch-Site`` where it sends no
``Origin``) is answered 403 before any route runs: the platform's session cookie is
``SameSite=Lax``, which another *site* cannot send along with a post, but another
origin of the same site (another port of the same host, a sibling subdomain) can.
Scripts and the command line send neither header and are not affected; an API token
or a seat token travels in a header that no other page can set.

>>> same_origin("http://127.0.0.1:8000", "127.0.0.1:8000")
True
>>> same_origin("http://127.0.0.1:8001", "127.0.0.1:8000")
False
>>> same_origin("https://example.org", "example.org:443")
True
>>> same_origin("null", "example.org")
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fastapi.responses import JSONResponse

UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DEFAULT_PORTS = {"http": 80, "https": 443}
REFUSED = "refused: a change must come from this site's own pages (cross-site request)"

PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
               "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
               "form-action 'self'; frame-ancestors 'none'")
# FastAPI's /docs and /redoc: an inline script and their files from a CDN
DOCS_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
               "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net "
               "https://fonts.googleapis.com; font-src 'self' https://fonts.gstatic.com; "
               "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
               "worker-src 'self' blob:; connect-src 'self'; object-src 'none'; "
               "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


@dataclass(frozen=True)
class BrowserPolicy:
    """The headers every answer carries, and which other origins may post changes.

    `trusted_origins` (``scheme://host[:port]``, as a browser's ``Origin`` header says
    it) are allowed besides the server's own; none by default.
    """

    content_security_policy: str = PAGE_POLICY
    docs_policy: str = DOCS_POLICY
    docs_paths: tuple[str, ...] = ("/docs", "/redoc")
    referrer_policy: str = "same-origin"
    frame_options: str = "DENY"
    trusted_origins: tuple[str, ...] = ()

    def headers(self, path: str) -> list[tuple[bytes, bytes]]:
        """The security headers of the answer to `path`."""
        docs = any(path == p or path.startswith(p + "/") for p in self.docs_paths)
        csp = self.docs_policy if docs else self.content_security_policy
        return [(b"content-security-policy", csp.encode()),
                (b"x-content-type-options", b"nosniff"),
                (b"referrer-policy", self.referrer_policy.encode()),
                (b"x-frame-options", self.frame_options.encode())]


def same_origin(origin: str, host: str) -> bool:
    """Whether the browser's ``Origin`` `origin` names the server reached as `host` (its
    ``Host`` header): the same host and port (a scheme's default port may be left out on
    either side; the scheme itself is not compared, as behind a proxy that ends TLS the
    server sees plain HTTP)."""
    try:
        o = urlsplit(origin)
        h = urlsplit(f"//{host}")
        o_port, h_port = o.port, h.port
    except ValueError:
        return False
    if o.scheme not in DEFAULT_PORTS or not o.hostname or not h.hostname:
        return False
    default = DEFAULT_PORTS[o.scheme]
    return o.hostname == h.hostname and (o_port or default) == (h_port or default)


def cross_site(method: str, headers: dict[bytes, bytes], policy: BrowserPolicy) -> bool:
    """Whether a request is a change that a browser says another origin sent."""
    if method not in UNSAFE:
        return False
    origin = headers.get(b"origin")
    if origin is not None:
        text = origin.decode("latin-1").strip().rstrip("/")
        if text in policy.trusted_origins:
            return False
        return not same_origin(text, headers.get(b"host", b"").decode("latin-1"))
    site = headers.get(b"sec-fetch-site")
    return site is not None and site not in (b"same-origin", b"none")


class BrowserGuard:
    """ASGI middleware: the security headers on every HTTP answer (`BrowserPolicy`), and
    403 for a change another origin's page sends (`cross_site`)."""

    def __init__(self, app: Any, policy: BrowserPolicy | None = None) -> None:
        self.app = app
        self.policy = policy or BrowserPolicy()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.policy.headers(scope.get("path", ""))

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        headers = dict(scope.get("headers") or [])
        if cross_site(scope.get("method", "GET"), headers, self.policy):
            await JSONResponse({"detail": REFUSED}, 403)(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)
