"""The workers (`ninefold.platform.worker`, `ninefold.platform.pool`): the processes that
build uploads and play games, apart from the web server.

- a worker killed mid-game leaves its game's temporary folder; the next one removes it;
- builds are claimed under a lease: two workers never take one, a dead worker's is taken
  again;
- the web server compiles nothing: started as ``nobody`` with no workers, it takes an
  upload, which stays ``uploaded`` until a worker process builds it;
- the database's URL reaches the worker processes that ``serve --workers`` starts
  through their environment: no command line on the machine holds its password; a
  ``--db-url-file`` others may read is refused;
- a worker's cache and work folders are its own user's only (0700)."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from needs import require
from platform_fixtures import bot_archive
from typer.testing import CliRunner
from webserver import children

from ninefold.platform import DB_URL_VARIABLE, house, jobs, sandbox
from ninefold.platform.store import Store
from ninefold.platform.uploads import submit
from ninefold.platform.worker import build_next, work

pytest_plugins = ["pgserver"]

PASSWORD = "a long enough password"
BUILT_S = 120.0  # a build's deadline on a busy machine

# A process that plays a "game" as `play` does: in a game folder of the temporary directory.
PLAYS = """
import sys, tempfile, time
from ninefold.platform.jobs import GAME_PREFIX
import os
folder = tempfile.mkdtemp(prefix=f"{GAME_PREFIX}{os.getpid()}-")
open(os.path.join(folder, "x.log"), "w").write("stderr")
print(folder, flush=True)
time.sleep(60)
"""


def test_a_worker_killed_mid_game_leaves_a_folder_the_next_one_removes(tmp_path,
                                                                       monkeypatch):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", PLAYS], stdout=subprocess.PIPE,
                            text=True, env=env)
    folder = proc.stdout.readline().strip()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    assert os.path.isdir(folder) and folder.startswith(str(tmp_path))
    mine = tempfile.mkdtemp(prefix=f"{jobs.GAME_PREFIX}{os.getpid()}-", dir=tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stop = threading.Event()
    stop.set()
    started = time.monotonic()
    assert work(object(), "w", tmp_path / "cache", stop) == 0  # a store it never reads
    assert time.monotonic() - started < 5
    assert not os.path.exists(folder) and os.path.isdir(mine)  # a live process's stays


def _contest(store: Store) -> tuple[object, object]:
    user = store.add_user("ann", "hash")
    return user, store.add_contest("cup", "Cup", rules="standard", protocol="riddles",
                                   max_bots_per_user=3)


def test_a_build_is_claimed_once_and_taken_again_when_its_worker_dies(store_url):
    with Store(store_url) as store:
        user, contest = _contest(store)
        first = submit(store, contest, user, "a", *bot_archive("python"))[1]
        second = submit(store, contest, user, "b", *bot_archive("python"))[1]
        taken = store.claim_build("w1", 30.0, 1000.0)
        assert taken is not None and taken[0].id == first.id
        assert (taken[0].status, taken[0].worker) == ("compiling", "w1")
        again = store.claim_build("w2", 30.0, 1000.0)
        assert again is not None and again[0].id == second.id  # not w1's
        assert store.claim_build("w3", 30.0, 1010.0) is None  # both held
        assert store.renew_build(first.id, taken[1], 30.0, 1020.0)  # w1 lives: 1050
        found = store.claim_build("w3", 30.0, 1040.0)  # w2 died: its lease ended at 1030
        assert found is not None and found[0].id == second.id and found[1] != again[1]
        assert not store.renew_build(second.id, again[1], 30.0, 1041.0)  # w2's claim is gone
        assert store.version(second.id).worker == "w3"


def test_a_worker_builds_uploads_before_it_plays(tmp_path):
    """`work` with `games` off builds and stops; a build that breaks is failed, and the
    worker goes on to the next."""
    url = f"sqlite:///{tmp_path / 'p.sqlite'}"
    with Store(url) as store:
        user, contest = _contest(store)
        broken = submit(store, contest, user, "a", *bot_archive("python"))[1]
        store.set_version_status(broken.id, "uploaded", language="cobol")  # no such recipe
        good = submit(store, contest, user, "b", *bot_archive("python"))[1]
        assert build_next(store, "w").status == "compile_failed"
        assert "internal error" in store.version(broken.id).compile_log
        if sandbox.available() is None:
            assert build_next(store, "w").status == "active"
            assert store.version(good.id).worker == "w"
            assert build_next(store, "w") is None


def _serve(tmp: Path, *options: str, prefix: list[str] | None = None,
           env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([*(prefix or []), sys.executable, "-m", "ninefold.cli", "serve",
                             "--port", "0", "--db", str(tmp / "web.sqlite"), *options],
                            stderr=subprocess.PIPE, text=True, cwd=tmp,
                            env={**os.environ, **(env or {})})
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert "http://" in line, line + proc.stderr.read()
    return proc, line.split("http://", 1)[1].split("/", 1)[0]


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _uid(pid: int) -> int:
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines()
                if x.startswith("Uid:"))
    return int(line.split()[1])


@pytest.fixture
def nobodys(tmp_path: Path) -> Iterator[Path]:
    """A folder of nobody's (as root; else ours) that nobody can reach: pytest's own
    folders are root's only."""
    folder = Path(tempfile.mkdtemp(prefix="ninefold-nobody-"))
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        os.chown(folder, nobody.pw_uid, nobody.pw_gid)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_server_as_nobody_builds_nothing_and_a_worker_process_builds_its_uploads(
        tmp_path, nobodys):
    require("the sandbox (bubblewrap)", sandbox.available())
    url = f"sqlite:///{nobodys / 'platform.sqlite'}"  # nobody's server makes it
    prefix = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
              "--"] if os.geteuid() == 0 else []
    numba = {"NUMBA_CACHE_DIR": str(nobodys / "numba")}  # nobody writes no source tree
    if prefix:  # nobody must read the source: a checkout under `mktemp -d` (0700) is not
        seen = subprocess.run([*prefix, sys.executable, "-c", "import ninefold.cli"],
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, **numba})
        require("a source tree that the user nobody can read",
                None if seen.returncode == 0 else seen.stderr.strip().splitlines()[-1])
    server, address = _serve(nobodys, "--platform", url, prefix=prefix, env=numba)
    worker = None
    try:
        if prefix:
            assert _uid(server.pid) == pwd.getpwnam("nobody").pw_uid
        Store(url).add_contest("cup", "Cup", rules="standard", protocol="riddles")
        with httpx.Client(base_url=f"http://{address}", timeout=60) as client:
            r = client.post("/api/platform/signup", json={"name": "ann", "password": PASSWORD})
            assert r.status_code == 201, r.text
            r = client.post("/api/platform/contests/cup/bots", data={"bot": "annbot"},
                            files={"file": bot_archive("python", strategy="first")})
            assert r.status_code == 201, r.text
            version = r.json()["id"]

            def status() -> str:
                return client.get(f"/api/platform/versions/{version}").json()["status"]

            for _ in range(10):  # 2 s: the server's own builder took one within 0.3 s
                assert status() == "uploaded"
                assert children(server.pid) == []  # no compiler, no sandbox
                time.sleep(0.2)
            worker = subprocess.Popen(
                [sys.executable, "-m", "ninefold.cli", "platform", "worker", "--name",
                 "builder-1", "--cache", str(tmp_path / "cache"), "--no-games"],
                env={**os.environ, DB_URL_VARIABLE: url}, cwd=tmp_path)
            deadline = time.monotonic() + BUILT_S
            while status() in ("uploaded", "compiling", "testing"):
                assert time.monotonic() < deadline, "not built"
                time.sleep(0.2)
            assert status() == "active"
        assert Store(url).version(version).worker == "builder-1"
    finally:
        if worker is not None:
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(60) == 0
        _stop(server)


def test_workers_get_the_database_url_in_their_environment_never_on_a_command_line(
        pg_server, tmp_path):
    secret = "s3cret-pw-62-" + os.urandom(4).hex()  # trust auth: any password will do
    url = pg_server.create_database().replace("postgres@", f"postgres:{secret}@", 1)
    with Store(url) as store:
        boss = store.add_user("boss", "hash")
        store.set_admin("boss", True)
        boss = store.user_by_name("boss")
        contest = store.add_contest("cup", "Cup", rules="standard", protocol="riddles",
                                    openings="none")
        for name in ("a", "b"):
            house.enter(store, contest, boss, name, f"random:seed={len(name)}")
    url_file = tmp_path / "db-url"
    url_file.write_text(url + "\n")
    url_file.chmod(0o600)
    server, _ = _serve(tmp_path, "--platform-file", str(url_file), "--workers", "2")
    try:
        deadline = time.monotonic() + BUILT_S
        with Store(url) as store:
            while store.counts(contest.id).get("done", 0) < 2:  # the workers play
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
            workers = {g.worker or "" for g in store.games(contest.id)
                       if g.status == "done"}
        spawned = [pid for pid in children(server.pid)
                   if b"platform\0worker" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(spawned) == 2  # the server's, named host-PID-wN: they played the games
        assert workers and all(w.rsplit("-", 1)[1] in ("w1", "w2") for w in workers), workers
        leaks = []
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                if secret.encode() in cmdline.read_bytes():
                    leaks.append(cmdline.parent.name)
            except OSError:
                pass  # gone meanwhile
        assert leaks == [], f"processes with the password on their command line: {leaks}"
    finally:
        _stop(server)


def test_a_url_file_that_others_may_read_is_refused(tmp_path):
    import ninefold.cli.platform  # noqa: F401  (registers `ninefold platform`)
    from ninefold.cli import app

    url_file = tmp_path / "db-url"
    url_file.write_text(f"sqlite:///{tmp_path / 'p.sqlite'}")
    url_file.chmod(0o644)
    result = CliRunner().invoke(app, ["platform", "worker", "--db-url-file", str(url_file)])
    assert result.exit_code == 2
    assert "may be read by other users" in " ".join(result.output.split())


def test_a_workers_cache_and_work_folders_are_its_own(tmp_path, monkeypatch):
    require("the sandbox (bubblewrap)", sandbox.available())
    old = os.umask(0o022)  # what a worker's folders would be without their own modes
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    seen: dict[str, int] = {}

    def compile_bot(src, *args, **kwargs):
        seen[f"build {src.parent.name}"] = src.parent.stat().st_mode & 0o777
        return real_compile(src, *args, **kwargs)

    def play_game(*args, log_dir, **kwargs):
        seen[f"game {Path(log_dir).name}"] = Path(log_dir).stat().st_mode & 0o777
        return real_play(*args, log_dir=log_dir, **kwargs)

    real_compile, real_play = sandbox.compile_bot, jobs.play_game
    monkeypatch.setattr(sandbox, "compile_bot", compile_bot)
    monkeypatch.setattr(jobs, "play_game", play_game)
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o755)  # as a worker before this left it: readable by everyone
    url = f"sqlite:///{tmp_path / 'p.sqlite'}"
    with Store(url) as store:
        user, contest = _contest(store)
        for name in ("a", "b"):
            submit(store, contest, user, name, *bot_archive("python", strategy="first"))
        stop = threading.Event()
        thread = threading.Thread(target=work, args=(store, "w", cache, stop))
        thread.start()
        try:
            deadline = time.monotonic() + BUILT_S
            while len(store.active_versions(contest.id)) < 2:
                assert time.monotonic() < deadline, "not built"
                time.sleep(0.1)
            a, b = (v.id for v in store.active_versions(contest.id))
            store.queue_pair(contest.id, a, b, None)
            while store.counts(contest.id).get("done", 0) < 2:
                assert time.monotonic() < deadline, "not played"
                time.sleep(0.1)
        finally:
            stop.set()
            thread.join()
            os.umask(old)
    assert (cache.stat().st_mode & 0o777) == 0o700
    inside = {p.name: p.stat().st_mode & 0o777 for p in cache.iterdir()}
    assert len(inside) == 2 and set(inside.values()) == {0o700}, inside
    assert len(seen) == 4 and set(seen.values()) == {0o700}, seen
