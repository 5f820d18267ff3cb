"""The web board's command: ``ninefold serve``.

With ``--processes N`` (more than one) N server processes share the port
(uvicorn's workers), each building its app with `process_app` from the
database and the limits the command was given; their games are in PostgreSQL, which tells
each process of the changes the others store (`ninefold.web.notify`).
"""

from __future__ import annotations

import gc
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ninefold.cli import _fail, app, err
from ninefold.extras import require

if TYPE_CHECKING:
    from fastapi import FastAPI

DEFAULT_DB = "ninefold-web.sqlite"
DB_VARIABLE = "NINEFOLD_SERVE_DB"  # how `serve --processes N` hands its processes --db
LIMITS_VARIABLE = "NINEFOLD_SERVE_LIMITS"  # and the limits (`WebLimits`, JSON)
EXPLORER_VARIABLE = "NINEFOLD_SERVE_EXPLORER"  # and the explorer's index
PUZZLES_VARIABLE = "NINEFOLD_SERVE_PUZZLES"  # and the puzzles' file


@app.command(rich_help_panel="Platform")
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on (0.0.0.0: every one)."),
    port: int = typer.Option(8000, min=0, max=65535, help="Port (0: any free one)."),
    db: str = typer.Option(DEFAULT_DB, help="The games' SQLite file (made if missing), or a "
                           "postgresql+psycopg://... URL."),
    platform: str = typer.Option("", help="Also serve the contest platform, its database at "
                                 "this URL (sqlite:///FILE or postgresql+psycopg://...)."),
    platform_file: str = typer.Option("", help="The same, its URL read from this file (chmod "
                                      "600): a password stays off the command line."),
    workers: int = typer.Option(0, min=0, help="Platform workers to start: they build "
                                "uploads and play games (0: none; `ninefold platform worker`)."),
    processes: int = typer.Option(1, min=1, help="Server processes sharing the port and the "
                                  "games (more than 1: a PostgreSQL --db)."),
    games_per_minute: int = typer.Option(30, min=0, help="New games one client (address) may "
                                         "make a minute, per process (0: no limit)."),
    computer_moves_per_client: int = typer.Option(
        4, min=0, help="The computer's moves one client may have waiting or searched at "
        "once, per process (0: no limit)."),
    analyses_per_client: int = typer.Option(2, min=0, help="Analyses one client may have "
                                            "waiting or running at once (0: no limit)."),
    explorer: str = typer.Option("", metavar="FILE", help="The opening explorer's index "
                                 "(ninefold explore index makes one), shown at /explorer."),
    puzzles: str = typer.Option("", metavar="FILE", help="The puzzles shown at /puzzles "
                                "(ninefold puzzles make writes them; default: the shipped "
                                "ones)."),
    allow_origin: Annotated[list[str] | None, typer.Option(
        metavar="<origin>", help="Another page origin (https://host[:port]) that may open "
        "the WebSockets and post; repeatable; *: any page may open them, not post.")] = None,
) -> None:
    """Serve the web board: play the computer or a friend by link.

    With --platform, the contest platform too. Ctrl-C stops."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from ninefold.web.limits import WebLimits
    from ninefold.web.store import GameStore, is_postgres

    limits = WebLimits(games_per_minute=games_per_minute,
                       computer_moves_per_client=computer_moves_per_client,
                       analyses_per_client=analyses_per_client,
                       allowed_origins=tuple(allow_origin or ()))

    if is_postgres(db):
        require("platform", "ninefold serve --db postgresql")
    if processes > 1 and not is_postgres(db):
        _fail(f"--processes {processes} needs the games in PostgreSQL "
              "(--db postgresql+psycopg://...): a SQLite file serves one process")
    if platform_file:
        from ninefold.cli.platform import db_url

        platform = db_url(platform, platform_file)
    if processes > 1 and platform:
        _fail("--platform runs in one server process (with its workers' supervisor): "
              "leave out --processes")
    if explorer:  # one line now, not "cannot open the games database" later
        from ninefold.explorer import Explorer, ExplorerError

        try:
            Explorer(explorer, readonly=True).close()
        except ExplorerError as exc:
            _fail(f"{exc} (--explorer)")
    if puzzles:  # one line now, not a 503 on the first puzzle
        from ninefold.puzzles.puzzle import InvalidPuzzleError, load

        try:
            load(Path(puzzles))
        except InvalidPuzzleError as exc:
            _fail(f"{exc} (--puzzles)")
    if platform:
        from ninefold.cli.platform import _store

        _store(platform, "ninefold serve --platform")  # one line now, not a traceback later
    try:
        application: FastAPI | str
        if processes == 1:
            from ninefold.web.app import create_app

            application = create_app(db, platform_url=platform or None, workers=workers,
                                     limits=limits, explorer=explorer or None,
                                     puzzles=puzzles or None)
        else:  # the table made once, here; each process builds its own app
            GameStore(db).close()
            os.environ[DB_VARIABLE] = db
            os.environ[LIMITS_VARIABLE] = limits.to_json()
            os.environ[EXPLORER_VARIABLE] = explorer
            os.environ[PUZZLES_VARIABLE] = puzzles
            application = f"{__name__}:process_app"
    except Exception as exc:  # an unreadable or unwritable database
        _fail(f"cannot open the games database {_shown(db)}: {exc}")
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # accepted connections inherit it: an answer is not held back for the last ACK
        # (without it a kept-alive connection waited about 40 ms a request)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
        sock.listen(2048)  # connections wait from now on, before the server has started
    except OSError as exc:
        _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    shown = f"[{host}]" if ":" in host else host
    err.print(f"ninefold: the web board is at http://{shown}:{sock.getsockname()[1]}/ "
              f"(games in {_shown(db)}"
              f"{f', {processes} processes' if processes > 1 else ''}"
              f"{f'; contests at /platform, {workers} worker' if platform else ''}"
              f"{'s' if platform and workers != 1 else ''}"
              "; Ctrl-C stops)", highlight=False, markup=False, soft_wrap=True)
    # httptools: uvicorn's C parser (a tenth less CPU a request than h11, measured by
    # benchmarks/web_load.py); uvloop's event loop ("auto": the standard one where uvloop
    # is not installed, as on Windows): 50 games' move requests a median 17.5 ms against
    # 23.8 (five runs each, alternating); WebSocket messages not compressed (a view is a
    # few kB; compressing each cost CPU a message), none larger than the limit (a larger
    # one closes the socket with 1009); no access log (a call a request)
    config = uvicorn.Config(application, log_level="warning", ws="websockets-sansio",
                            http="httptools", loop="auto", ws_per_message_deflate=False,
                            ws_max_size=limits.ws_max_bytes,
                            workers=processes, factory=processes > 1, access_log=False)
    if processes == 1:
        keep_out_of_collections()
        uvicorn.Server(config).run(sockets=[sock])
    else:
        Multiprocess(config, sockets=[sock]).run()


def process_app() -> FastAPI:
    """The app of one of ``serve --processes N``'s processes (uvicorn's factory): the
    games in the database the command was given, with its limits."""
    from ninefold.web.app import create_app
    from ninefold.web.limits import WebLimits

    app = create_app(os.environ[DB_VARIABLE],
                     limits=WebLimits.from_json(os.environ[LIMITS_VARIABLE]),
                     explorer=os.environ.get(EXPLORER_VARIABLE) or None,
                     puzzles=os.environ.get(PUZZLES_VARIABLE) or None)
    keep_out_of_collections()
    return app


def keep_out_of_collections() -> None:
    """Leave what start-up made (the modules, the app: hundreds of thousands of objects
    that live as long as the server) out of the garbage collector's full passes
    (`gc.freeze`). Each pass went through them all and held every request meanwhile:
    50-85 ms, every few thousand requests (`benchmarks/web_load.py`'s p99)."""
    gc.collect()
    gc.freeze()


def _shown(db: str) -> str:
    """`db` as the messages show it: a URL without its password."""
    from ninefold.web.store import is_postgres

    if not is_postgres(db):
        return db
    from sqlalchemy import make_url

    return make_url(db).render_as_string(hide_password=True)
