"""`ninefold platform`: the competition platform's commands.

The server side (`serve --platform URL` runs the web pages and takes uploads;
with ``--workers`` it also starts worker processes): ``worker`` (one worker,
which builds uploads and plays ranked games in the sandbox, started by the
server or by hand, e.g. as a service of its own), ``run`` (the scheduler and
workers without the web server: here, or games on a Ray cluster), ``admin``,
``organiser``, ``contest``, ``times`` and ``house`` (an operator's set-up, straight
on the database: admins, organisers, contests and their opening and closing times,
house bots). The
author's side: ``starter`` (a starter bot in any language, for any protocol), and
over HTTP ``token`` (an API token from a name and password) and ``upload`` (send
an archive, wait for its compile and input test).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ninefold.cli import Sections, _fail, app, console, err
from ninefold.extras import require
from ninefold.options import clip
from ninefold.platform import DB_URL_VARIABLE
from ninefold.platform.archive import ArchiveLimits
from ninefold.platform.recipes import recipes
from ninefold.protocols.botmain import RULES_HELP, choices, players_help
from ninefold.protocols.clock import PROTOCOLS

if TYPE_CHECKING:
    from ninefold.platform.cluster import RayRunner
    from ninefold.platform.store import Contest, Store

class _Platform(Sections):
    panels = ("Running it", "Setting up contests", "Bot authors")


platform_app = typer.Typer(
    cls=_Platform,
    help="The contest platform: workers, set-up, and uploading a bot.",
    no_args_is_help=True,
)
app.add_typer(platform_app, name="platform", rich_help_panel="Platform")
PROTOCOL = choices(PROTOCOLS)

DB_HELP = (f"The platform's database: sqlite:///FILE or postgresql+psycopg://... (env "
           f"{DB_URL_VARIABLE}: keeps a password off the command line, which anyone may read).")
DB_FILE_HELP = ("Read the database's URL from this file instead of --db: the file may be "
                "read by its owner only (chmod 600), as it holds the password.")
DEFAULT_URL = "sqlite:///ninefold-platform.sqlite"
SERVER_HELP = "The platform's web address (env NINEFOLD_SERVER)."
TIME_HELP = "{} this time: ISO 8601, UTC unless an offset is given (empty: no limit)."


def _store(url: str, what: str = "ninefold platform") -> Store:  # SQLAlchemy: only when asked
    """The platform's database; `what` (the command) needs the platform extra."""
    require("platform", what)
    from ninefold.platform.store import Store

    try:
        return Store(url)
    except Exception as exc:  # an unreachable server, a newer schema...
        _fail(f"cannot open the platform database {shown_url(url)}: {exc}")


def shown_url(url: str) -> str:
    """A database's URL as messages show it: without its password.

    >>> shown_url("postgresql+psycopg://ann:secret@db/contest")
    'postgresql+psycopg://ann:***@db/contest'
    """
    from sqlalchemy import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(a URL that is not one)"


def db_url(db: str, db_file: str) -> str:
    """The database's URL: read from the file `db_file` if given, which only its owner
    may read (else the command ends, saying so); else `db` (``--db``, or the environment)."""
    if not db_file:
        return db
    try:
        mode = os.stat(db_file).st_mode & 0o777
        text = Path(db_file).read_text().strip()
    except OSError as exc:
        _fail(f"cannot read {db_file}: {exc.strerror or exc}")
    if mode & 0o077:
        _fail(f"{db_file} may be read by other users (mode {mode:o}), and it holds the "
              f"database's password: chmod 600 {db_file}")
    if not text:
        _fail(f"{db_file} is empty: write the database's URL in it")
    return text


@platform_app.command(rich_help_panel="Running it")
def worker(
    db: str = typer.Option(DEFAULT_URL, envvar=DB_URL_VARIABLE, help=DB_HELP),
    db_url_file: str = typer.Option("", help=DB_FILE_HELP),
    name: str = typer.Option("", help="The worker's name in the database (default: host-pid)."),
    cache: str = typer.Option(".ninefold-cache", help="Where compiled bots are unpacked "
                              "(made readable by this user only)."),
    lease: float = typer.Option(30.0, min=1.0, help="Seconds a claim lasts unless renewed."),
    builds: bool = typer.Option(True, help="Build (compile and input-test) uploads."),
    games: bool = typer.Option(True, help="Play queued games (after the waiting builds)."),
) -> None:
    """Build uploads and play queued games until stopped.

    One at a time, in the sandbox, until SIGTERM or Ctrl-C. The web server compiles
    and plays nothing: this process does."""
    from ninefold.platform.worker import work

    store = _store(db_url(db, db_url_file))
    os.environ.pop(DB_URL_VARIABLE, None)  # not for the programs it starts
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    label = name or f"{os.uname().nodename}-{os.getpid()}"
    with contextlib.suppress(KeyboardInterrupt):
        work(store, label, Path(cache), stop, lease_s=lease, builds=builds, games=games)


@platform_app.command(rich_help_panel="Running it")
def run(
    db: str = typer.Option(DEFAULT_URL, envvar=DB_URL_VARIABLE, help=DB_HELP),
    db_url_file: str = typer.Option("", help=DB_FILE_HELP),
    workers: int = typer.Option(2, min=0, help="Worker processes on this machine: they "
                                "build uploads, then play games (with --ray: only build)."),
    ray: str = typer.Option("", help="A Ray cluster's address ('auto', 'host:port'): "
                            "games run there as tasks instead (pip install ninefold[cluster])."),
    cache: str = typer.Option(".ninefold-cache", help="Where compiled bots are unpacked."),
    games: int = typer.Option(0, min=0, help="Stop once this many games are done (0: never)."),
    lease: float = typer.Option(30.0, min=1.0, help="Seconds a claim lasts unless renewed: "
                                "a game of a lost worker is played again after this."),
) -> None:
    """Run the scheduler and the workers, without the web pages.

    Until SIGTERM or Ctrl-C."""
    from ninefold.platform.pool import Pool

    db = db_url(db, db_url_file)
    store = _store(db)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    runners: list[RayRunner | Pool] = []
    if ray:
        from ninefold.platform.cluster import RayRunner
        from ninefold.raycluster import ClusterError

        try:
            runners.append(RayRunner(db, ray, Path(cache), lease_s=lease).start())
        except ClusterError as exc:
            _fail(str(exc))
    if workers or not ray:  # with Ray, these only build (the runner schedules)
        runners.append(Pool(db, workers, Path(cache), lease_s=lease, schedule=not ray,
                            games=not ray).start())
    doing = f"Ray at {ray}, {workers} building workers" if ray else f"{workers} workers"
    err.print(f"ninefold: builds and ranked play on {shown_url(db)} ({doing}; Ctrl-C stops)",
              highlight=False, markup=False)
    try:
        while not stop.wait(1.0):
            if games and sum(store.counts(c.id).get("done", 0) for c in store.contests()) >= games:
                break
    except KeyboardInterrupt:
        pass
    finally:
        for runner in runners:
            runner.close()


@platform_app.command(rich_help_panel="Setting up contests")
def admin(
    name: str = typer.Argument(..., help="An existing account's name."),
    db: str = typer.Option(DEFAULT_URL, envvar=DB_URL_VARIABLE, help=DB_HELP),
    revoke: bool = typer.Option(False, "--revoke", help="Take the admin role away instead."),
) -> None:
    """Make an account an admin, or --revoke it.

    Admins create and organise every contest."""
    store = _store(db)
    if store.user_by_name(name) is None:
        _fail(f"no account {name!r}: sign up on the web page first")
    store.set_admin(name, not revoke)
    console.print(f"{name} is {'no longer ' if revoke else ''}an admin", highlight=False)


@platform_app.command(rich_help_panel="Setting up contests")
def organiser(
    name: str = typer.Argument(..., help="An existing account's name."),
    db: str = typer.Option(DEFAULT_URL, envvar=DB_URL_VARIABLE, help=DB_HELP),
    revoke: bool = typer.Option(False, "--revoke", help="Take the role away instead."),
) -> None:
    """Let an account create contests on the web page.

    It organises the ones it creates: their times, their house bots."""
    store = _store(db)
    if store.user_by_name(name) is None:
        _fail(f"no account {name!r}: sign up on the web page first")
    store.set_organiser(name, not revoke)
    console.print(f"{name} is {'no longer ' if revoke else ''}an organiser", highlight=False)


@platform_app.command(rich_help_panel="Setting up contests")
def contest(
    name: str = typer.Argument(..., help="Its name in links: lower-case letters, digits, -."),
    db: str = typer.Option(DEFAULT_URL, envvar=DB_URL_VARIABLE, help=DB_HELP),
    title: str = typer.Option("", help="Its title on the pages."),
    rules: str = typer.Option("standard", help=RULES_HELP),
    protocol: str = typer.Option("riddles", metavar=PROTOCOL, help="The bots' protocol."),
    tc: str = typer.Option("", help="Changes to the protocol's clock, e.g. bank=10000,inc=500."),
    openings: str = typer.Option("random4", metavar="<random4|none>",
                                 help="Random-four openings, or the empty board."),
    max_bots: int = typer.Option(3, min=1, help="Bots an author may have in it."),
    opens: str = typer.Option("", help=TIME_HELP.format("Uploads and ranked games from")),
    closes: str = typer.Option("", help=TIME_HELP.format("No uploads or ranked games after")),
) -> None:
    """Create a contest straight on the database.

    The web page's admin form does the same."""
    from ninefold.protocols.clock import TimeControl
    from ninefold.variants import Rules

    try:
        opened, closed = _when(opens), _when(closes)
        Rules.parse(rules)
        if tc.strip():
            TimeControl.parse(tc)
        if protocol not in ("riddles", "aigames", "codingame"):
            raise ValueError(f"no such protocol {protocol!r}: riddles, aigames or codingame")
        if openings not in ("random4", "none"):
            raise ValueError(f"openings must be random4 or none, not {openings!r}")
    except ValueError as exc:
        _fail(str(exc))
    store = _store(db)
    try:
        made = store.add_contest(name=name, title=title, rules=rules, protocol=protocol,
                                 time_control=tc, openings=openings, max_bots_per_user=max_bots,
                                 created_by=None, opens=opened, closes=closed)
    except ValueError as exc:
        _fail(str(exc))
    console.print(f"contest {made.name} created", highlight=False)


def _when(text: str) -> float | None:
    """An ISO 8601 time as epoch seconds (UTC unless it has an offset); None if empty.

    >>> _when("2026-01-31T18:00"), _when("2026-01-31 19:00+01:00"), _when("")
    (1769882400.0, 1769882400.0, None)
    """
    if not text.strip():
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"not a time: {text!r} (ISO 8601, e.g. 2026-01-31T18:00)") from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _contest_named(store: Store, name: str) -> Contest:
    found = store.contest_by_name(name)
    if found is None:
        _fail(f"no contest {name!r}")
    return found


@platform_app.command(rich_help_panel="Setting up contests")
def times(
    name: str = typer.Argument(..., help="The contest's name."),
    db: str = typer.Option(DEFAULT_URL, envvar=DB_URL_VARIABLE, help=DB_HELP),
    opens: str = typer.Option("", help=TIME_HELP.format("Uploads and ranked games from")),
    closes: str = typer.Option("", help=TIME_HELP.format("No uploads or ranked games after")),
) -> None:
    """Set when a contest opens and closes.

    At the close the scheduler stores its final standings."""
    from ninefold.platform.store import StoreError

    store = _store(db)
    try:
        store.set_contest_times(_contest_named(store, name).id, _when(opens), _when(closes))
    except (ValueError, StoreError) as exc:  # a bad time; its standings are final already
        _fail(str(exc))
    console.print(f"contest {name}: opens {opens or 'now'}, closes {closes or 'never'}",
                  highlight=False)


@platform_app.command(rich_help_panel="Setting up contests")
def house(
    contest: str = typer.Argument(..., help="The contest's name."),
    name: str = typer.Argument(..., help="The house bot's name on the leaderboard."),
    spec: str = typer.Argument(..., help=players_help("The house bot's player spec")),
    admin: str = typer.Option(..., "--admin", help=(
        "The account that enters it: an admin, or the contest's organiser.")),
    db: str = typer.Option(DEFAULT_URL, envvar=DB_URL_VARIABLE, help=DB_HELP),
) -> None:
    """Enter one of ninefold's players as a house bot.

    It is ranked like the others; entered again under its name, it is a new
    version."""
    from ninefold.platform.house import enter
    from ninefold.platform.store import StoreError

    store = _store(db)
    who = store.user_by_name(admin)
    if who is None:
        _fail(f"no account {admin!r}")
    try:
        version = enter(store, _contest_named(store, contest), who, name, spec)
    except (PermissionError, ValueError, StoreError) as exc:
        _fail(str(exc))
    console.print(f"house bot {name} v{version.number} ({spec}) is active in {contest}",
                  highlight=False)


# --- the author's side -------------------------------------------------------------------


@platform_app.command(rich_help_panel="Bot authors")
def starter(
    language: str = typer.Argument(..., metavar=choices(list(recipes())),
                                   help="The bot's language."),
    protocol: str = typer.Option("riddles", metavar=PROTOCOL, help="The contest's protocol."),
    out: str = typer.Option("", help="Where to write it (default: starter-LANGUAGE-PROTOCOL"
                            ".zip here)."),
) -> None:
    """Write a starter bot for a language and a protocol.

    It speaks the protocol, plays a legal move, and passes the input test as it
    is: unpack it, make it yours, and upload it again."""
    from ninefold.platform import starters

    try:
        name, data = starters.archive(language, protocol)
    except ValueError as exc:
        _fail(str(exc))
    path = Path(out or name)
    try:
        path.write_bytes(data)
    except OSError as exc:
        _fail(f"cannot write {path}: {exc.strerror or exc}")
    files = ", ".join(sorted(starters.files(language, protocol)))
    console.print(f"wrote {path} ({files}); upload it with: ninefold platform upload {path} "
                  "--contest NAME", highlight=False, markup=False)


# --- the author's side: HTTP -------------------------------------------------------------


def _request(server: str, method: str, path: str, *, token: str | None = None,
             body: bytes | None = None, content_type: str | None = None,
             opener: urllib.request.OpenerDirector | None = None) -> dict[str, Any]:
    """A JSON request to the platform; a refusal or an unreachable server ends the command
    with the server's one-line reason."""
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if content_type:
        headers["Content-Type"] = content_type
    req = urllib.request.Request(server.rstrip("/") + path, data=body, method=method,
                                 headers=headers)
    try:
        with (opener or urllib.request.build_opener()).open(req, timeout=60) as response:
            answer = json.loads(response.read() or b"{}")
            if not isinstance(answer, dict):
                _fail(f"{server} answered {clip(str(answer))}: not a JSON object")
            return answer
    except urllib.error.HTTPError as exc:
        try:
            detail = json.loads(exc.read()).get("detail", exc.reason)
        except ValueError:
            detail = exc.reason
        too_large = ": too large" if exc.code == 413 else ""
        _fail(f"{server} refused: {detail} (HTTP {exc.code}{too_large})")
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if body and isinstance(reason, (BrokenPipeError, ConnectionResetError)):
            _fail(f"{server} closed the connection before the {len(body)}-byte request was "
                  "sent: over its size limit (HTTP 413)?")
        _fail(f"cannot reach {server}: {reason}")


def multipart(fields: dict[str, str], file_field: str, filename: str,
              data: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body and its content type.

    >>> body, kind = multipart({"bot": "b1"}, "file", "b.zip", b"PK")
    >>> kind.startswith("multipart/form-data; boundary=") and b'name="bot"' in body
    True
    """
    boundary = "ninefold-" + secrets.token_hex(12)
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
             .encode() for k, v in fields.items()]
    safe = filename.replace('"', "_").replace("\r", "_").replace("\n", "_")
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; '
                 f'filename="{safe}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
                 + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


@platform_app.command(rich_help_panel="Bot authors")
def token(
    user: str = typer.Option(..., help="Your account's name."),
    server: str = typer.Option("http://127.0.0.1:8000", envvar="NINEFOLD_SERVER",
                               help=SERVER_HELP),
) -> None:
    """Print a new API token.

    Asks for the password (or reads it from env NINEFOLD_PASSWORD)."""
    password = os.environ.get("NINEFOLD_PASSWORD") or typer.prompt("Password", hide_input=True)
    login = json.dumps({"name": user, "password": password}).encode()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())  # the session
    _request(server, "POST", "/api/platform/login", body=login, opener=opener,
             content_type="application/json")
    print(_request(server, "POST", "/api/platform/tokens", body=b"", opener=opener)["token"])


@platform_app.command(rich_help_panel="Bot authors")
def upload(
    archive: str = typer.Argument(..., help="A .zip, .rar, .tar.gz or .tar of the bot's sources."),
    contest: str = typer.Option(..., help="The contest's name."),
    bot: str = typer.Option("", help="The bot's name (default: the archive's name)."),
    server: str = typer.Option("http://127.0.0.1:8000", envvar="NINEFOLD_SERVER",
                               help=SERVER_HELP),
    api_token: str = typer.Option(..., "--token", envvar="NINEFOLD_TOKEN",
                                  help="An API token (ninefold platform token)."),
    wait: bool = typer.Option(True, help="Wait for the compile and the input test."),
) -> None:
    """Upload a bot, or a new version of yours.

    Prints its compile log and its input test."""
    path = Path(archive)
    try:
        data = path.read_bytes()
    except OSError as exc:
        _fail(f"cannot read {archive}: {exc.strerror or exc}")
    limit = ArchiveLimits().max_upload_bytes  # the server's: checked before anything is sent
    if len(data) > limit:
        _fail(f"{archive} is {len(data)} bytes: an upload is at most {limit >> 20} MiB")
    name = bot or path.name.split(".")[0]
    body, kind = multipart({"bot": name}, "file", path.name, data)
    version = _request(server, "POST", f"/api/platform/contests/{contest}/bots", token=api_token,
                       body=body, content_type=kind)
    err.print(f"uploaded {name} v{version['number']} ({version['language']}); "
              f"bot page: {server.rstrip('/')}/platform/bot/{version['bot']}",
              highlight=False, markup=False)
    if not wait:
        return
    shown = ""
    while version["status"] in ("uploaded", "compiling", "testing"):
        if version["status"] != shown:
            err.print(f"{version['status']}...", highlight=False, markup=False)
            shown = version["status"]
        time.sleep(0.5)
        version = _request(server, "GET", f"/api/platform/versions/{version['id']}",
                           token=api_token)
    for title, key in (("compile log", "compile_log"), ("input test", "test_log")):
        if version.get(key):
            print(f"--- {title}\n{version[key].rstrip()}")
    if version["status"] != "active":
        _fail(f"{name} v{version['number']}: {version['status'].replace('_', ' ')}")
    print(f"{name} v{version['number']} is active in {contest}")
    sys.stdout.flush()
