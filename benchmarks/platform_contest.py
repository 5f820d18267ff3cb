"""The competition platform end to end: 20 uploaded bots, ranked play on 1, 2 and Ray workers.

    .venv/bin/python benchmarks/platform_contest.py                  # 400 games a phase
    .venv/bin/python benchmarks/platform_contest.py --games 40 --bots 6 --no-ray   # quick
    .venv/bin/python benchmarks/platform_contest.py --db postgresql+psycopg://...

It starts ``ninefold serve --platform`` as a real server, signs up authors
over HTTP, creates a contest (Riddles protocol, a short clock), and uploads
`--bots` bots in Python, C, C++ and Java (the test fixtures, each with its own
strategy and seed); each one is compiled and input-tested in the sandbox by a
worker that only builds (``ninefold platform worker --no-games``: the server
compiles nothing).
Then three phases of `--games` ranked games each, by ``ninefold platform run``:

1. one match worker (the reference);
2. two workers, one killed with SIGKILL mid-run (the pool starts another);
3. a Ray cluster started here (a head and one worker node on loopback, one
   CPU each), one of its game tasks' processes killed with SIGKILL mid-run.

At the end the database must hold every game once: each finished game rated
exactly once, every bot's game count equal to its rated games, nothing lost.
It prints games a minute for each phase and the ratio to one worker.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2 as httpx
import typer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from platform_fixtures import bot_archive

from ninefold.platform import DB_URL_VARIABLE
from ninefold.platform.store import Store

app = typer.Typer(add_completion=False)
NINEFOLD = [sys.executable, "-m", "ninefold"]
STRATEGIES = ("random", "first", "center", "win-if-possible")
LANGS = ("python", "c", "cpp", "java")
PASSWORD = "correct horse battery"
LEASE_S = 5.0  # a killed worker's game is played again this soon


def start_server(web_db: Path, url: str) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen([*NINEFOLD, "serve", "--port", "0", "--db", str(web_db),
                             "--platform", url], stderr=subprocess.PIPE)
    assert proc.stderr is not None
    seen = []
    for raw in proc.stderr:  # its address, after any warnings (until it ends, if it fails)
        line = raw.decode(errors="replace")
        found = re.search(r"http://[\d.]+:\d+", line)
        if found:
            return proc, found.group(0)
        seen.append(line.strip())
    proc.kill()
    raise SystemExit(f"the server did not start: {' / '.join(seen[-3:])}")


def upload_bots(base: str, url: str, bots: int) -> None:
    """Sign up authors (three bots each), make a contest, upload and wait for the builds."""
    with httpx.Client(base_url=base, timeout=120) as organiser:
        organiser.post("/api/platform/signup", json={"name": "organiser", "password": PASSWORD})
        subprocess.run([*NINEFOLD, "platform", "admin", "organiser", "--db", url], check=True,
                       stdout=subprocess.DEVNULL)
        made = organiser.post("/api/platform/contests", json={
            "name": "bench", "title": "Benchmark", "protocol": "riddles",
            "time_control": "bank=2000,inc=100", "openings": "random4",
            "max_bots_per_user": 3})
        made.raise_for_status()
    versions = []
    t0 = time.monotonic()
    for i in range(bots):
        author = f"author{i // 3}"
        with httpx.Client(base_url=base, timeout=120) as client:
            if i % 3 == 0:
                client.post("/api/platform/signup", json={"name": author, "password": PASSWORD})
            else:
                client.post("/api/platform/login", json={"name": author, "password": PASSWORD})
            lang = LANGS[i % len(LANGS)]
            name, data = bot_archive(lang, strategy=STRATEGIES[(i // len(LANGS)) % 4], seed=i)
            r = client.post("/api/platform/contests/bench/bots", data={"bot": f"b{i:02d}-{lang}"},
                            files={"file": (name, data)})
            r.raise_for_status()
            versions.append(r.json()["id"])
    with httpx.Client(base_url=base, timeout=60) as client:
        while True:
            states = [client.get(f"/api/platform/versions/{v}").json()["status"]
                      for v in versions]
            busy = sum(s in ("uploaded", "compiling", "testing") for s in states)
            print(f"\r  builds: {len(states) - busy}/{len(states)} done", end="", flush=True)
            if not busy:
                break
            time.sleep(1)
    print(f" in {time.monotonic() - t0:.0f} s")
    bad = [v for v, s in zip(versions, states, strict=True) if s != "active"]
    if bad:
        raise SystemExit(f"{len(bad)} of {len(versions)} bots did not become active:\n"
                         + "\n".join(failed_build(url, v) for v in bad))


def failed_build(url: str, version_id: int) -> str:
    """Which bot a version is, its language, its state, and the logs the platform kept
    (read from the database: the API shows them to their author only)."""
    store = Store(url)
    version = store.version(version_id)
    if version is None:
        return f"version {version_id}: not in the database"
    bot = store.bot(version.bot_id)
    lines = [f"{bot.name if bot else '?'} (version {version_id}, {version.language}): "
             f"{version.status}"]
    for name, log in (("compile log", version.compile_log), ("test log", version.test_log)):
        if log:
            lines += [f"  {name}:", *(f"    {line}" for line in log.splitlines())]
    return "\n".join(lines)


def done(store: Store) -> int:
    return sum(store.counts(c.id).get("done", 0) for c in store.contests())


def phase(url: str, cache: Path, target: int, *, workers: int = 1, ray: str = "",
          kill: str = "") -> float:
    """Run ranked play until `target` games are done; kill a worker (``pool``) or a Ray
    task (``ray``) once a quarter of the phase is played. Returns the minutes taken."""
    store = Store(url)
    start = done(store)
    args = ["--ray", ray] if ray else ["--workers", str(workers)]
    runner = subprocess.Popen([*NINEFOLD, "platform", "run", "--db", url, "--cache", str(cache),
                               "--games", str(target), "--lease", str(LEASE_S), *args],
                              stderr=subprocess.DEVNULL)
    t0 = time.monotonic()
    killed = False
    while runner.poll() is None:
        n = done(store)
        print(f"\r  {n - start}/{target - start} games", end="", flush=True)
        if kill and not killed and n - start >= (target - start) // 4:
            killed = kill_one(kill, store)
        time.sleep(0.1 if kill and not killed else 0.5)
    minutes = (time.monotonic() - t0) / 60
    print(f"\r  {done(store) - start} games in {minutes * 60:.0f} s"
          f"{'; killed ' + killed if killed else ''}            ")
    if runner.returncode:
        raise SystemExit(f"ninefold platform run failed (exit {runner.returncode})")
    return minutes


def kill_one(kind: str, store: Store) -> str:
    """SIGKILL a match worker in the middle of a game (``pool``: the worker holding a
    running game's claim) or a Ray task's process while it plays (``ray``)."""
    if kind == "pool":
        running = [g for c in store.contests() for g in store.games(contest_id=c.id,
                                                                      status="running")]
        if not running or not running[0].worker:
            return ""
        pattern = f"platform worker .*--name {running[0].worker} "
    else:
        pattern = "ray::play"
    found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout
    pids = [int(p) for p in found.split()]
    if not pids:
        return ""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pids[0], signal.SIGKILL)
    return f"{kind} process {pids[0]}"


def check(url: str) -> tuple[int, int]:
    """Every finished game rated once and counted once; returns (games, replayed games)."""
    store = Store(url)
    games = [g for c in store.contests() for g in store.games(contest_id=c.id, status="done",
                                                              limit=10**6)]
    versions = [v for c in store.contests() for v in store.active_versions(c.id)]
    history = sum(len(store.rating_history(v.id)) for v in versions)
    counted = sum(v.games for v in versions)
    rated = sum(g.rated for g in games)
    ids = [g.id for g in games]
    problems = []
    if len(set(ids)) != len(ids):
        problems.append("a game listed twice")
    if rated != len(games):
        problems.append(f"{len(games) - rated} finished games not rated")
    if history != 2 * len(games) or counted != 2 * len(games):
        problems.append(f"{len(games)} games but {history} rating changes, {counted} counted")
    if any(not g.moves or not g.result for g in games):
        problems.append("a finished game without moves or result")
    running = sum(store.counts(c.id).get("running", 0) for c in store.contests())
    if running:
        problems.append(f"{running} games still marked running")
    if problems:
        raise SystemExit("FAILED: " + "; ".join(problems))
    return len(games), sum(g.attempts > 1 for g in games)


@contextlib.contextmanager
def ray_cluster(tmp: Path):
    """A Ray head and one worker node on loopback, one CPU each, with token
    authentication (a new token in `tmp`; the environment carries it to the runner)."""
    ray = shutil.which("ray", path=str(Path(sys.executable).parent))
    if ray is None:
        yield None
        return
    port = "6391"
    token = tmp / "ray-token"
    token.write_text(secrets.token_hex(32))
    token.chmod(0o600)
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token))
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    common = ["--num-cpus", "1", "--disable-usage-stats"]
    try:
        subprocess.run([ray, "start", "--head", "--port", port, "--node-ip-address", "127.0.0.1",
                        "--include-dashboard", "false", *common], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run([ray, "start", "--address", f"127.0.0.1:{port}",
                        "--node-ip-address", "127.0.0.1", *common], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([ray, "stop", "--force"], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


@app.command()
def main(
    games: int = typer.Option(400, min=4, help="Ranked games in each phase."),
    bots: int = typer.Option(20, min=2, help="Bots uploaded (Python, C, C++, Java in turn)."),
    db: str = typer.Option("", help="The platform's database URL (default: a new SQLite file)."),
    use_ray: bool = typer.Option(True, "--ray/--no-ray", help="Run the Ray phase."),
) -> None:
    with tempfile.TemporaryDirectory(prefix="ninefold-contest-") as tmp_name:
        tmp = Path(tmp_name)
        url = db or f"sqlite:///{tmp / 'platform.sqlite'}"
        server, base = start_server(tmp / "web.sqlite", url)
        try:
            print(f"server at {base}; uploading {bots} bots")
            builder = subprocess.Popen([*NINEFOLD, "platform", "worker", "--no-games",
                                        "--cache", str(tmp / "cache")],
                                       env={**os.environ, DB_URL_VARIABLE: url})
            try:
                upload_bots(base, url, bots)
            finally:
                builder.send_signal(signal.SIGTERM)
                builder.wait(60)
            rates = {}
            print(f"phase 1: {games} games, 1 worker")
            rates["1 worker"] = games / phase(url, tmp / "cache", games, workers=1)
            print(f"phase 2: {games} games, 2 workers, one killed")
            rates["2 workers"] = games / phase(url, tmp / "cache", 2 * games, workers=2,
                                               kill="pool")
            if use_ray:
                with ray_cluster(tmp) as address:
                    if address is None:
                        print("phase 3: skipped (Ray is not installed: pip install "
                              "'ninefold[cluster]')")
                    else:
                        print(f"phase 3: {games} games on Ray (head + 1 worker node), "
                              "a task killed")
                        rates["Ray, 2 nodes"] = games / phase(url, tmp / "cache", 3 * games,
                                                              ray=address, kill="ray")
            time.sleep(LEASE_S + 1)  # the last killed worker's lease runs out: then drain
            print("draining: the games left in the queue, 1 worker")
            phase(url, tmp / "cache", done(Store(url)) + 2, workers=1)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
        total, replayed = check(url)
        print(f"\n{total} games in the database, each rated and counted once; "
              f"{replayed} played again after a kill")
        print(f"{'workers':<14}{'games/min':>10}{'ratio':>8}")
        for name, rate in rates.items():
            print(f"{name:<14}{rate:>10.1f}{rate / rates['1 worker']:>8.2f}")


if __name__ == "__main__":
    app()
