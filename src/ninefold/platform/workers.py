"""Ranked play: the scheduler that queues games and rates them, and the match workers.

The database is the one source of truth. The **scheduler** (one per
platform) keeps each active contest's queue topped up with pairs chosen by
`ninefold.platform.ladder`, sends games whose worker vanished back to the
queue, and rates finished games in the order they finished. A **worker**
claims one queued game at a time (a lease with a random claim token), plays
it in the sandbox, renews the lease while it plays, and hands the result in
with its token. A worker killed mid-game (even by ``kill -9``) loses its
lease; the game goes back to the queue and is played again, and a late
result from the old claim is dropped by the store: no game is lost, none is
counted twice.

`play` plays a `Job` and touches no database, so the same function runs in a
local worker process (`work`, started by `Pool`) and as a Ray task on a
cluster (`ninefold.platform.cluster`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ninefold.arena.config import DEFAULT_FIRST_MOVE_MS, DEFAULT_SLACK_MS, Openings
from ninefold.arena.referee import Seat, play_game
from ninefold.platform import ladder, recipes, sandbox
from ninefold.platform.archive import unpack
from ninefold.platform.store import Contest, GameRow, Store, existing
from ninefold.protocols.clock import TimeControl

LEASE_S = 30.0  # a worker renews its claim every third of this while it plays
IDLE_S = 0.3  # how long a worker without a game waits before it looks again
QUEUE_PER_WORKER = 2  # games kept queued per worker, so none waits for the scheduler
MAX_LOG_CHARS = 64_000  # of each bot's stderr kept with a game (its tail)


@dataclass(frozen=True)
class Side:
    """One bot of a game, with everything a worker needs to run it anywhere."""

    version_id: int
    name: str
    language: str
    build: bytes  # a tar of the compiled folder

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.build).hexdigest()[:16]


@dataclass(frozen=True)
class Job:
    """One claimed game, self-contained (it can travel to another machine)."""

    game_id: int
    claim: str
    rules: str
    protocol: str
    time_control: str
    opening: str | None
    x: Side
    o: Side


@dataclass(frozen=True)
class Played:
    """What a worker hands back for a game."""

    result: str
    reason: str
    moves: list[str]
    times_ms: list[float]
    x_log: str
    o_log: str


def time_control(contest: Contest | Job) -> TimeControl:
    """A contest's clock: its protocol's platform control with the arena's allowances
    (start-up, slack), changed by the contest's own ``time_control`` text."""
    base = TimeControl.for_protocol(contest.protocol).with_allowances(
        DEFAULT_FIRST_MOVE_MS, DEFAULT_SLACK_MS)
    text = contest.time_control.strip()
    return TimeControl.parse(text, base) if text else base


def job_for(store: Store, game: GameRow) -> Job:
    """The self-contained job of a claimed game: `ValueError` if it is not claimed,
    `NotFound` if a row it names (contest, version, bot, build) is missing."""
    if game.claim is None:
        raise ValueError(f"game {game.id} is not claimed: it has no job")
    contest = existing(store.contest(game.contest_id), f"contest {game.contest_id}")

    def side(version_id: int) -> Side:
        v = existing(store.version(version_id), f"version {version_id}")
        bot = existing(store.bot(v.bot_id), f"bot {v.bot_id}")
        build = existing(store.version_blob(version_id, "build"),
                         f"build of version {version_id}")
        return Side(version_id, f"{bot.name}-v{v.number}", v.language or "", build)

    return Job(game.id, game.claim, contest.rules, contest.protocol, contest.time_control,
               game.opening, side(game.x_version), side(game.o_version))


def build_dir(side: Side, cache: Path) -> Path:
    """The compiled folder of `side`, unpacked once per machine into `cache`."""
    folder = cache / f"v{side.version_id}-{side.digest}"
    if not folder.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            unpack(side.build, "build.tar", Path(tmp) / "b")
            os.chmod(Path(tmp) / "b", 0o755)
            with contextlib.suppress(OSError):  # another worker was quicker: same content
                os.rename(Path(tmp) / "b", folder)
    return folder


def seat(side: Side, job: Job, cache: Path) -> Seat:
    command = sandbox.game_command(build_dir(side, cache), recipes.named(side.language))
    return Seat.external(command, job.protocol, name=side.name, tc=time_control(job))


def play(job: Job, cache: Path | str) -> Played:
    """Play `job`'s game, both bots in the sandbox; a bot that breaks the protocol or
    its limits loses with the reason, as in the arena."""
    cache = Path(cache)
    with tempfile.TemporaryDirectory(prefix="ninefold-game-") as logs:
        result = play_game(seat(job.x, job, cache), seat(job.o, job, cache), rules=job.rules,
                           opening=job.opening, log_dir=logs)
        found = {p.parent.name: p for p in Path(logs).glob("*/*.log")}
        x_log, o_log = (_tail(found.get(f"{s.name}-{m}")) for s, m in ((job.x, "X"),
                                                                        (job.o, "O")))
    return Played(result.result, result.reason, result.moves, result.times_ms, x_log, o_log)


def _tail(path: Path | None) -> str:
    return "" if path is None else path.read_bytes()[-MAX_LOG_CHARS:].decode(errors="replace")


# --- a local worker --------------------------------------------------------------------


def work(store: Store, name: str, cache: Path, stop: threading.Event,
         lease_s: float = LEASE_S, idle_s: float = IDLE_S) -> int:
    """Claim and play games until `stop` is set; returns how many results were kept."""
    kept = 0
    while not stop.is_set():
        game = store.claim(name, lease_s, time.time())
        if game is None:
            stop.wait(idle_s)
            continue
        job = job_for(store, game)
        renewing = threading.Event()
        beat = threading.Thread(target=_renew, args=(store, job, lease_s, renewing),
                                daemon=True)
        beat.start()
        try:
            played = play(job, cache)
        finally:
            renewing.set()
            beat.join()
        kept += store.finish(job.game_id, job.claim, played.result, played.reason,
                             played.moves, played.times_ms, played.x_log, played.o_log,
                             time.time())
    return kept


def _renew(store: Store, job: Job, lease_s: float, done: threading.Event) -> None:
    while not done.wait(lease_s / 3):
        if not store.renew(job.game_id, job.claim, lease_s, time.time()):
            return  # the game went back to the queue: the result will be dropped


# --- the scheduler -----------------------------------------------------------------------


def rate_finished(store: Store, contest_id: int) -> int:
    """Rate the contest's finished games not yet rated, in the order they finished."""
    rated = 0
    for game in store.unrated_games(contest_id):
        x = existing(store.version(game.x_version), f"version {game.x_version}")
        o = existing(store.version(game.o_version), f"version {game.o_version}")
        if game.result is None:
            raise ValueError(f"game {game.id} has no result to rate")
        new_x, new_o = ladder.update((x.mu, x.sigma), (o.mu, o.sigma), game.result)
        rated += store.rate(game.id, {x.id: new_x, o.id: new_o}, time.time())
    return rated


def top_up(store: Store, contest: Contest, depth: int, rng: random.Random) -> int:
    """Queue pairs of games (one opening, colours swapped) until `depth` games wait."""
    counts = store.counts(contest.id)
    missing = depth - counts.get("queued", 0)
    if missing <= 0:
        return 0
    ratings = {v.id: (v.mu, v.sigma) for v in store.active_versions(contest.id)}
    openings = Openings.parse(contest.openings or "none")
    queued = 0
    for a, b in ladder.pick_pairs(ratings, store.in_flight(contest.id), (missing + 1) // 2,
                                  rng):
        opening = openings.for_round(rng.randrange(1 << 30), seed=contest.id)
        store.queue_pair(contest.id, a, b, opening)
        queued += 2
    return queued


def schedule_once(store: Store, depth: int, rng: random.Random) -> None:
    """One pass of the scheduler over every active contest."""
    store.requeue_expired(time.time())
    rate_all(store)
    for contest in store.contests():
        if contest.active:
            top_up(store, contest, depth, rng)


def rate_all(store: Store) -> int:
    """Rate every contest's finished games not yet rated (also when a runner stops)."""
    return sum(rate_finished(store, c.id) for c in store.contests())


class Pool:
    """Match workers as separate processes on this machine (``ninefold platform
    worker``), started again when one dies, plus the scheduler in a thread."""

    def __init__(self, url: str, workers: int, cache: Path, *, lease_s: float = LEASE_S,
                 tick_s: float = 0.5, schedule: bool = True) -> None:
        self.url, self.workers, self.cache = url, workers, cache
        self.lease_s, self.tick_s, self.schedule = lease_s, tick_s, schedule
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> Pool:
        self.stop.clear()
        self.thread = threading.Thread(target=self._run, daemon=True, name="platform-pool")
        self.thread.start()
        return self

    def _spawn(self, name: str) -> None:
        self.procs[name] = subprocess.Popen(
            [sys.executable, "-m", "ninefold", "platform", "worker", "--db", self.url,
             "--name", name, "--cache", str(self.cache), "--lease", str(self.lease_s)],
            stdin=subprocess.DEVNULL)

    def _run(self) -> None:
        store = Store(self.url)
        rng = random.Random()
        while not self.stop.is_set():
            for i in range(self.workers):
                name = f"{os.uname().nodename}-{os.getpid()}-w{i + 1}"
                proc = self.procs.get(name)
                if proc is None or proc.poll() is not None:
                    self._spawn(name)
            if self.schedule:
                schedule_once(store, max(2, QUEUE_PER_WORKER * self.workers), rng)
            self.stop.wait(self.tick_s)

    def close(self) -> None:
        """Stop the workers (a game under way goes back to the queue when its lease
        ends) and rate what finished."""
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
        for proc in self.procs.values():
            proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.schedule:
            rate_all(Store(self.url))
