"""What the server tells browsers and what it refuses from other sites
(`ninefold.web.security`): the security headers on every page and answer, no inline
script or style in any page the server sends, and a change posted from another origin
(another port of the same host is the same *site*, so its posts carry a SameSite=Lax
cookie) refused with 403 before any route runs, while the server's own pages and
scripts without an ``Origin`` go on working. The same in a real browser:
tests/test_platform_browser.py (a cross-origin form, every page under the policy)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from ninefold.web.app import create_app
from ninefold.web.computer import Computer
from ninefold.web.security import REFUSED, BrowserPolicy, cross_site

PASSWORD = "a long enough password"
PAGES = ["/", "/g/abc", "/replay/abc", "/analysis", "/rules", "/arena", "/arena/1",
         "/classic", "/proof", "/platform", "/platform/c/nothing", "/platform/bot/1",
         "/platform-game/1", "/nowhere"]
OTHERS = ["/static/app.js", "/static/style.css", "/static/rules-board.svg", "/favicon.ico",
          "/api/platform/contests", "/api/platform/me", "/openapi.json"]
INLINE = [re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I),  # a script with no file
          re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.I),  # onclick=, onload=, ...
          re.compile(r"<[a-z][^>]*\sstyle\s*=", re.I),  # a style attribute
          re.compile(r"<style", re.I),
          re.compile(r"javascript:", re.I)]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("security")
    computer = Computer(workers=1)
    app = create_app(tmp / "web.sqlite", computer,
                     platform_url=f"sqlite:///{tmp / 'platform.sqlite'}")
    with TestClient(app) as client:
        yield client
    computer.close()


def assert_guarded(r, path: str) -> None:
    h = r.headers
    csp = h.get("content-security-policy", "")
    assert "script-src 'self';" in csp and "'unsafe-inline'" not in csp, (path, csp)
    for part in ("style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'",
                 "base-uri 'none'", "object-src 'none'", "form-action 'self'"):
        assert part in csp, (path, part)
    assert h.get("x-content-type-options") == "nosniff", path
    assert h.get("referrer-policy") == "same-origin", path
    assert h.get("x-frame-options") == "DENY", path


def test_every_page_and_answer_has_the_security_headers(site):
    for path in PAGES:
        r = site.get(path, headers={"Accept": "text/html"})
        assert r.headers["content-type"].startswith("text/html"), path
        assert_guarded(r, path)
    for path in OTHERS:
        assert_guarded(site.get(path), path)
    assert_guarded(site.post("/api/games", json={"mode": "nonsense"}), "POST /api/games")
    docs = site.get("/docs").headers["content-security-policy"]  # FastAPI's, from a CDN
    assert "frame-ancestors 'none'" in docs and "object-src 'none'" in docs


def test_no_page_has_inline_script_or_style(site):
    """What the policy would block, found in the HTML itself (a browser finds the
    rest: test_platform_browser.py::test_pages_run_under_the_content_security_policy)."""
    for path in PAGES:
        html = site.get(path, headers={"Accept": "text/html"}).text
        for pattern in INLINE:
            assert not pattern.search(html), (path, pattern.pattern, pattern.search(html))


def test_a_change_from_another_origin_is_refused(site):
    site.cookies.clear()
    r = site.post("/api/platform/signup", json={"name": "victim", "password": PASSWORD})
    assert r.status_code == 201, r.text
    assert site.get("/api/platform/me").status_code == 200
    other = "http://testserver:8001"  # same site (host), another origin (port)
    for headers in ({"Origin": other}, {"Origin": "null"}, {"Sec-Fetch-Site": "same-site"},
                    {"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}):
        r = site.post("/api/platform/logout", headers=headers)
        assert r.status_code == 403 and r.json() == {"detail": REFUSED}, (headers, r.text)
        assert_guarded(r, "403")
        r = site.post("/api/platform/contests/cup/bots", headers=headers,
                      data={"bot": "x"}, files={"file": ("x.zip", b"PK\x05\x06" + bytes(18))})
        assert r.status_code == 403, (headers, r.text)
        r = site.post("/api/platform/tokens", headers=headers)
        assert r.status_code == 403, (headers, r.text)
        assert site.get("/api/platform/me", headers=headers).status_code == 200  # reads: fine
    # the server's own pages, and scripts that send no Origin, go on
    r = site.post("/api/platform/tokens", headers={"Origin": "http://testserver",
                                                  "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 201, r.text
    assert site.post("/api/platform/logout", headers={"Origin": "http://testserver"}
                     ).status_code == 204
    assert site.get("/api/platform/me").status_code == 401


def test_cross_site_decisions():
    policy = BrowserPolicy(trusted_origins=("https://admin.example.org",))

    def refused(method: str, **h: str) -> bool:
        headers = {k.replace("_", "-").encode(): v.encode() for k, v in h.items()}
        return cross_site(method, headers, policy)

    assert not refused("GET", origin="https://evil.example", host="example.org")
    assert not refused("POST", host="example.org")  # a script: no Origin, no Sec-Fetch-Site
    assert not refused("POST", origin="https://example.org", host="example.org")
    assert not refused("DELETE", origin="http://example.org:8000/", host="example.org:8000")
    assert not refused("PUT", sec_fetch_site="same-origin", host="example.org")
    assert not refused("POST", origin="https://admin.example.org", host="example.org")
    assert refused("POST", origin="https://example.org:8443", host="example.org")
    assert refused("PATCH", origin="https://sub.example.org", host="example.org")
    assert refused("DELETE", sec_fetch_site="same-site", host="example.org")
    assert refused("POST", origin="http://[::1", host="example.org")  # unparsable


def test_sessions_are_listed_and_revoked_over_the_api(site):
    site.cookies.clear()
    assert site.get("/api/platform/sessions").status_code == 401
    r = site.post("/api/platform/signup", json={"name": "tokener", "password": PASSWORD})
    assert r.status_code == 201, r.text
    token = site.post("/api/platform/tokens").json()["token"]
    listed = site.get("/api/platform/sessions")
    assert listed.status_code == 200 and token not in listed.text
    rows = listed.json()
    assert [(s["kind"], s["current"]) for s in rows] == [("api", False), ("cookie", True)]
    assert all(set(s) == {"id", "kind", "created", "last_used", "expires", "current"}
               for s in rows)
    bearer = {"Authorization": f"Bearer {token}"}
    assert [s["current"] for s in site.get("/api/platform/sessions", headers=bearer).json()
            ] == [True, False]
    cookie = site.cookies.get("ninefold_session")
    site.cookies.clear()  # someone else may not end them
    site.post("/api/platform/signup", json={"name": "other", "password": PASSWORD})
    assert site.delete(f"/api/platform/sessions/{rows[0]['id']}").status_code == 404
    assert site.get("/api/platform/me", headers=bearer).status_code == 200
    site.cookies.clear()
    site.cookies.set("ninefold_session", cookie)
    assert site.delete("/api/platform/sessions/nothex").status_code == 422
    assert site.delete(f"/api/platform/sessions/{rows[0]['id']}").status_code == 204
    assert site.get("/api/platform/me", headers=bearer).status_code == 401  # revoked
    assert site.delete(f"/api/platform/sessions/{rows[0]['id']}").status_code == 404
    assert [s["kind"] for s in site.get("/api/platform/sessions").json()] == ["cookie"]
    assert site.delete(f"/api/platform/sessions/{rows[1]['id']}").status_code == 204
    assert site.get("/api/platform/me").status_code == 401  # signed out of this browser


def test_the_origins_serve_allows_may_post_and_any_never(tmp_path):
    """`serve --allow-origin` (WebLimits.allowed_origins) is one list for the sockets and
    the posts; ``*`` opens the sockets to every page but never lets another site post."""
    from ninefold.web.limits import WebLimits

    computer = Computer(workers=1)
    try:
        for allowed, admin_may_post in ((("https://admin.example.org",), True), (("*",), False)):
            app = create_app(tmp_path / f"{admin_may_post}.sqlite", computer,
                             limits=WebLimits(allowed_origins=allowed))
            with TestClient(app) as client:
                r = client.post("/api/games", json={"mode": "local"},
                                headers={"Origin": "https://admin.example.org"})
                assert (r.status_code != 403) is admin_may_post, r.text
                r = client.post("/api/games", json={"mode": "local"},
                                headers={"Origin": "https://evil.example"})
                assert r.status_code == 403, r.text
    finally:
        computer.close()
