"""The light install as a user gets it: the sdist and the wheel built by ``python -m build``
(the wheel from the sdist, so the sdist carries all the wheel does), the wheel installed in an
empty venv without any extra, a game played through ``ninefold play`` and the board page got
from ``ninefold serve``."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import tarfile
import threading
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest
from webserver import start_server, stop_server

from ninefold.extras import EXTRAS
from ninefold.rules import Board, Mark, Move

ROOT = Path(__file__).resolve().parent.parent

# what the wheel must carry besides the modules
DATA = ["ninefold/players/net_default.npz", "ninefold/players/opening_book.txt",
        "ninefold/players/deep_book.txt",
        "ninefold/proof/open-boards.npz", "ninefold/web/static/index.html",
        "ninefold/web/static/app.js", "ninefold/web/static/style.css",
        "ninefold/platform/recipes.toml", "ninefold/platform/migrations/env.py",
        "ninefold/platform/migrations/script.py.mako",
        "ninefold/platform/migrations/versions/0001_initial.py",
        "ninefold/platform/starters/fields/python/main.py",
        "ninefold/platform/starters/codingame/rust/main.rs"]
# never in the light install: the extras' packages and the test tools
HEAVY = {"torch", "ray", "open-spiel", "playwright", "pytest", "gymnasium", "pettingzoo",
         *(d for modules in EXTRAS.values() for d in modules.values())}


def clean_env() -> dict[str, str]:
    """This environment without what would point Python at the source tree or another venv."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def play_to_the_end(ninefold: Path, env: dict[str, str], cwd: Path) -> tuple[Board, str]:
    """A game of ``ninefold play`` against the random player: X plays the first legal move
    each turn; the board here follows the moves the computer prints."""
    proc = subprocess.Popen([str(ninefold), "play", "--player", "random", "--ms", "10"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env, cwd=cwd)
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    seen: list[str] = []

    def read(out=proc.stdout) -> None:
        for line in out:
            seen.append(line)
            lines.put(line)
        lines.put("")  # the end

    threading.Thread(target=read, daemon=True).start()
    board = Board()
    try:
        while not board.is_game_over():
            if board.turn is Mark.X:
                move = next(iter(board.legal_moves))
                proc.stdin.write(f"{move}\n")
                proc.stdin.flush()
                board.push(move)
                continue
            while not (found := re.search(r"random plays ([a-i][1-9])", line := lines.get(
                    timeout=120))):
                assert line, "".join(seen)  # the game ended before the computer moved
            board.push(Move.parse(found.group(1)))
        proc.stdin.close()
        assert proc.wait(60) == 0, "".join(seen)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return board, "".join(seen)


@pytest.mark.slow  # `make test-all` and CI run it: about 2 minutes, most of it pip
def test_the_wheel_installs_alone_plays_and_serves(tmp_path):
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = dist.glob("ninefold-*.whl")
    (sdist,) = dist.glob("ninefold-*.tar.gz")
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    assert set(DATA) <= in_wheel, set(DATA) - in_wheel
    with tarfile.open(sdist) as tar:
        in_sdist = {name.split("/src/", 1)[1] for name in tar.getnames() if "/src/" in name}
    assert {n for n in in_wheel if n.startswith("ninefold/")} <= in_sdist

    home = tmp_path / "venv"
    venv.create(home, with_pip=True, system_site_packages=False)
    python, ninefold = home / "bin" / "python", home / "bin" / "ninefold"
    env = clean_env()
    installed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(wheel)],
                               capture_output=True, text=True, timeout=900, env=env)
    assert installed.returncode == 0, installed.stderr[-3000:]
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=json"],
                            capture_output=True, text=True, timeout=120, env=env, check=True)
    packages = {p["name"].lower().replace("_", "-") for p in json.loads(listed.stdout)}
    assert "ninefold" in packages and not packages & HEAVY, packages & HEAVY

    board, shown = play_to_the_end(ninefold, env, tmp_path)
    assert board.is_game_over() and "Game over" in shown, shown[-2000:]

    proc, url = start_server(tmp_path / "web.sqlite", 0, ninefold=[str(ninefold)], env=env)
    try:
        with urllib.request.urlopen(url + "/", timeout=60) as answer:
            page = answer.read().decode()
        assert answer.status == 200 and 'id="board"' in page
        assert "<title>ninefold: Ultimate Tic-Tac-Toe</title>" in page
    finally:
        stop_server(proc)

    # the extras are missing for real here: each says how to install it, in one line
    done = subprocess.run([str(ninefold), "platform", "admin", "ann"], capture_output=True,
                          text=True, timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == (
        "error: ninefold platform: needs the platform extra (sqlalchemy, alembic, psycopg, "
        "argon2-cffi, openskill, python-multipart, libarchive-c are missing): "
        "pip install 'ninefold[platform]'")
    done = subprocess.run([str(python), "-c", "import ninefold.env.single"],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert done.stderr.strip().splitlines()[-1].endswith("pip install 'ninefold[rl]'")
