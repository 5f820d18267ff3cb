"""A game (ranked or a test) as a self-contained `Job`, and `play`, which plays one in the sandbox.

A job carries everything needed to play its game anywhere: the rules, the
protocol and clock, the opening, and each bot's compiled folder as a tar (or,
for a house bot, the spec of one of ninefold's players, played in the worker's
process like the arena's built-in seats).
`play` touches no database, so the same function runs in a local worker
process (`ninefold.platform.worker`) and as a Ray task on a cluster
(`ninefold.platform.cluster`). It keeps the bots' logs in a temporary folder
named after its process (``ninefold-game-PID-...``); `sweep_games` removes the
ones whose process is gone (a worker killed mid-game cannot remove its own). It
notes how long each bot's log is after each move, so each turn's stderr is kept
too (`TurnLogs`: its last `TURN_LOG_BYTES`), for the viewer.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ninefold.arena.config import DEFAULT_FIRST_MOVE_MS, DEFAULT_SLACK_MS
from ninefold.arena.referee import Seat, log_path, play_game
from ninefold.platform import recipes, sandbox
from ninefold.platform.store import HOUSE, Contest, GameRow, Store, existing
from ninefold.protocols.clock import TimeControl
from ninefold.rules import Mark

MAX_LOG_CHARS = 64_000  # of each bot's stderr kept with a game (its tail)
TURN_LOG_BYTES = 1024  # of each bot's stderr kept per turn (its tail)
GAME_PREFIX = "ninefold-game-"  # a game's temporary folder: this, its process id, "-"


@dataclass(frozen=True)
class Side:
    """One bot of a game, with everything a worker needs to run it anywhere."""

    version_id: int
    name: str
    language: str
    build: bytes  # a tar of the compiled folder (empty for a house bot)
    spec: str | None = None  # a house bot's player spec

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
class TurnLogs:
    """The bots' stderr turn by turn, each piece its last `TURN_LOG_BYTES`: `turns[i]`
    is what the bot that played the i-th bot move (`Played.times_ms[i]`) wrote since
    its move before, and `end` what X and O wrote after their last move (a crash).

    >>> logs = TurnLogs.split([Mark.X, Mark.O, Mark.X], [3, 2, 6], (b"a-bcd-e", b"o-z"))
    >>> logs
    TurnLogs(turns=['a-b', 'o-', 'cd-'], end=('e', 'z'))
    >>> TurnLogs.from_json(logs.to_json()) == logs, TurnLogs.from_json(None).turns
    (True, [])
    """

    turns: list[str] = field(default_factory=list)
    end: tuple[str, str] = ("", "")

    @classmethod
    def split(cls, movers: Sequence[Mark], lengths: Sequence[int],
              logs: tuple[bytes, bytes]) -> TurnLogs:
        """Cut X's and O's whole `logs`: `movers[i]` played the i-th move, its log
        `lengths[i]` bytes long then."""
        start = {Mark.X: 0, Mark.O: 0}
        text = dict(zip((Mark.X, Mark.O), logs, strict=True))
        turns = []
        for mark, at in zip(movers, lengths, strict=True):
            turns.append(_clip(text[mark][start[mark]:at]))
            start[mark] = max(start[mark], at)
        return cls(turns, (_clip(logs[0][start[Mark.X]:]), _clip(logs[1][start[Mark.O]:])))

    def to_json(self) -> str:
        return json.dumps({"turns": self.turns, "end": list(self.end)})

    @classmethod
    def from_json(cls, text: str | None) -> TurnLogs:
        """The logs `to_json` wrote (none for a game stored without them)."""
        if not text:
            return cls()
        data = json.loads(text)
        x_end, o_end = data["end"]
        return cls(list(data["turns"]), (x_end, o_end))


@dataclass(frozen=True)
class Played:
    """What a worker hands back for a game."""

    result: str
    reason: str
    moves: list[str]
    times_ms: list[float]
    x_log: str
    o_log: str
    turn_logs: TurnLogs = field(default_factory=TurnLogs)


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
        if v.spec is not None:
            return Side(version_id, f"{bot.name}-v{v.number}", HOUSE, b"", v.spec)
        build = existing(store.version_blob(version_id, "build"),
                         f"build of version {version_id}")
        return Side(version_id, f"{bot.name}-v{v.number}", v.language or "", build)

    return Job(game.id, game.claim, contest.rules, contest.protocol, contest.time_control,
               game.opening, side(game.x_version), side(game.o_version))


def private_folder(folder: Path) -> Path:
    """`folder`, made if missing, readable by its owner only (0700): a worker's cache
    holds every bot's sources and build. The sandbox copies a bot's folder in as its
    owner, so no other user needs to reach it.

    >>> folder = private_folder(Path(tempfile.mkdtemp()) / "cache")
    >>> oct(folder.stat().st_mode & 0o777)
    '0o700'
    """
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if folder.stat().st_mode & 0o077:
        folder.chmod(0o700)
    return folder


def build_dir(side: Side, cache: Path) -> Path:
    """The compiled folder of `side`, unpacked once per machine into `cache` (0700, as
    each folder in it)."""
    folder = cache / f"v{side.version_id}-{side.digest}"
    if not folder.is_dir():
        private_folder(cache)
        with tempfile.TemporaryDirectory(dir=cache) as tmp:  # 0700
            sandbox.unpack(side.build, "build.tar", Path(tmp) / "b", kind="tar")
            os.chmod(Path(tmp) / "b", 0o700)
            with contextlib.suppress(OSError):  # another worker was quicker: same content
                os.rename(Path(tmp) / "b", folder)
    return folder


def seat(side: Side, job: Job, cache: Path) -> Seat:
    if side.spec is not None:
        return Seat.builtin(side.spec, name=side.name, tc=time_control(job))
    command = sandbox.game_command(build_dir(side, cache), recipes.named(side.language))
    return Seat.external(command, job.protocol, name=side.name, tc=time_control(job))


def play(job: Job, cache: Path | str) -> Played:
    """Play `job`'s game, both bots in the sandbox; a bot that breaks the protocol or
    its limits loses with the reason, as in the arena."""
    cache = Path(cache)
    with tempfile.TemporaryDirectory(prefix=f"{GAME_PREFIX}{os.getpid()}-") as logs:
        paths = {m: log_path(logs, None, f"{s.name}-{m.name}")
                 for m, s in ((Mark.X, job.x), (Mark.O, job.o))}
        movers: list[Mark] = []
        lengths: list[int] = []

        def note(mark: Mark) -> None:  # after each move: how long the mover's log is
            movers.append(mark)
            lengths.append(_size(paths[mark]))

        result = play_game(seat(job.x, job, cache), seat(job.o, job, cache), rules=job.rules,
                           opening=job.opening, log_dir=logs, on_move=note)
        whole = (_read(paths[Mark.X]), _read(paths[Mark.O]))
    turns = TurnLogs.split(movers, lengths, whole)
    x_log, o_log = (data[-MAX_LOG_CHARS:].decode(errors="replace") for data in whole)
    return Played(result.result, result.reason, result.moves, result.times_ms, x_log, o_log,
                  turns)


def sweep_games(root: Path | str | None = None) -> list[Path]:
    """Remove the game folders under `root` (the temporary directory) left by processes
    that are gone; the folders removed.

    >>> root = Path(tempfile.mkdtemp())
    >>> (root / f"{GAME_PREFIX}{os.getpid()}-a").mkdir()   # a game this process plays
    >>> (root / f"{GAME_PREFIX}999999999-b").mkdir()        # no such process
    >>> [p.name for p in sweep_games(root)]
    ['ninefold-game-999999999-b']
    >>> [p.name for p in root.iterdir()] == [f"{GAME_PREFIX}{os.getpid()}-a"]
    True
    """
    removed = []
    for folder in Path(root or tempfile.gettempdir()).glob(f"{GAME_PREFIX}*-*"):
        pid = folder.name.removeprefix(GAME_PREFIX).split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    """Whether process `pid` exists (another user's counts)."""
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except (ProcessLookupError, OverflowError):
        return False
    return True


def _size(path: Path | None) -> int:
    try:
        return path.stat().st_size if path is not None else 0
    except FileNotFoundError:  # a house bot's, or nothing written yet
        return 0


def _read(path: Path | None) -> bytes:
    try:
        return path.read_bytes() if path is not None else b""
    except FileNotFoundError:
        return b""


def _clip(data: bytes) -> str:
    """The last `TURN_LOG_BYTES` of `data`, as text (a character cut in two replaced)."""
    return data[-TURN_LOG_BYTES:].decode(errors="replace")
