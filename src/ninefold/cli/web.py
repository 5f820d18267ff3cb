"""The web board's command: ``ninefold serve``."""

from __future__ import annotations

import socket

import typer

from ninefold.cli import _fail, app, err

DEFAULT_DB = "ninefold-web.sqlite"


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on (0.0.0.0: every one)."),
    port: int = typer.Option(8000, min=0, max=65535, help="Port (0: any free one)."),
    db: str = typer.Option(DEFAULT_DB, help="SQLite file of the games (made if missing)."),
    platform: str = typer.Option("", help="Also serve the competition platform, its database "
                                 "at this URL (sqlite:///FILE or postgresql+psycopg://...)."),
    workers: int = typer.Option(0, min=0, help="Match workers playing the platform's ranked "
                                "games (0: none here; run `ninefold platform run` elsewhere)."),
) -> None:
    """Serve the web board: play the computer or a friend by link (Ctrl-C stops)."""
    import uvicorn

    from ninefold.web.app import create_app

    if platform:
        from ninefold.cli.platform import _store

        _store(platform)  # a one-line error now rather than a traceback from the app
    try:
        application = create_app(db, platform_url=platform or None, workers=workers)
    except Exception as exc:  # an unreadable or unwritable database
        _fail(f"cannot open the games database {db}: {exc}")
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
              f"(games in {db}"
              f"{f'; contests at /platform, {workers} match workers' if platform else ''}"
              "; Ctrl-C stops)", highlight=False, markup=False, soft_wrap=True)
    config = uvicorn.Config(application, log_level="warning", ws="websockets-sansio")
    uvicorn.Server(config).run(sockets=[sock])
