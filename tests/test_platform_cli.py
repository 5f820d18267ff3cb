"""`ninefold platform upload`'s refusals before and while it sends (`ninefold.cli.platform`)."""

from __future__ import annotations

import http.server
import threading

import pytest
from typer.testing import CliRunner

from ninefold.cli import app
from ninefold.platform.archive import ArchiveLimits


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["platform", "upload", *args, "--contest", "spring",
                                      "--token", "t"])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, " ".join(result.output.split())


def test_an_archive_over_the_limit_is_refused_before_it_is_sent(tmp_path):
    big = tmp_path / "big.zip"
    big.write_bytes(b"PK" + bytes(ArchiveLimits().max_upload_bytes))
    code, out = run(str(big), "--server", "http://127.0.0.1:9")  # nothing listens there
    assert code == 2 and "an upload is at most 16 MiB" in out and "cannot reach" not in out


class _TooLarge(http.server.BaseHTTPRequestHandler):
    """Answers every upload 413, after reading it (or before: `early`)."""

    early = False

    def do_POST(self) -> None:
        if not self.early:
            self.rfile.read(int(self.headers["Content-Length"]))
        body = b'{"detail": "the body is over 100 bytes"}'
        self.send_response(413)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("early", [False, True])
def test_a_413_is_reported_as_what_it_is(tmp_path, early):
    handler = type("Handler", (_TooLarge,), {"early": early})
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        bot = tmp_path / "bot.zip"
        bot.write_bytes(b"PK" + bytes(8 << 20))  # under the limit, over this server's
        code, out = run(str(bot), "--server", f"http://127.0.0.1:{server.server_port}")
        server.shutdown()
    assert code == 2 and "413" in out and "cannot reach" not in out, out
