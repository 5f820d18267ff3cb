"""Games between bot processes as a platform plays them: the pieces `bot_clock.py` and
`strength.py --subprocess` share.

Both scripts start real bot processes (``ninefold bot``, or `openspiel_bot.py`)
and play them with the arena's referee (`ninefold.arena.referee.play_game`),
which times every request from the write of its first line to the read of
the answer (`ninefold.protocols.connection.BotConnection.ask`). This module
says how to start ninefold as a bot, what the platforms' clocks are, which
requests of a finished game were a given bot's (with the time it was given,
replayed on the referee's own `Clock`), and how to keep the cores busy.

>>> str(platform_control("codingame")), str(platform_control("codingame", turn_ms=50))
('turn=100,first=1000', 'turn=50,first=1000')
>>> str(platform_control("riddles", bank_ms=5000, increment_ms=200))
'bank=5000,inc=200'
>>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5), percentile([], 0.5)
(3.0, nan)
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from ninefold.arena.referee import GameResult
from ninefold.protocols import BotCommand, Clock, TimeControl, connect
from ninefold.rules import Board, Mark, Termination

HERE = Path(__file__).resolve().parent
OPENSPIEL_BOT = HERE / "openspiel_bot.py"
SPIN_BOT = HERE / "spin_bot.c"  # a control: a C bot that only uses its turn
# ninefold's source at other git revisions (NINEFOLD_REVISIONS: another folder, the tests')
REVISIONS = Path(os.environ.get("NINEFOLD_REVISIONS") or HERE.parent / ".bench" / "revisions")
LOAD_MAX_S = 4 * 3600  # a spinning process ends by itself after this, whatever happens


def ninefold_argv(src: Path | None = None, told_turn_ms: int | None = None) -> list[str]:
    """``ninefold`` as installed next to this Python, or the ninefold whose source is in
    `src`, run by this Python: the words before a subcommand. With `told_turn_ms`, its
    CodinGame runner is told a turn is that long (benchmarks/told_turn.py).

    A revision runs through the entry point its console script uses, ``python -m
    ninefold`` (`entry_module`): ``ninefold bot`` goes the lean way there, while
    ``ninefold.cli`` imports typer, rich and numba first, and a bot started that way
    read its first request after about a second and answered CodinGame's first turn
    late in half the games (measured).
    """
    script = Path(sys.executable).with_name("ninefold")
    env = ["env", f"PYTHONPATH={src}"] if src is not None else []
    module = entry_module(src or HERE.parent / "src")
    if told_turn_ms is not None:
        return [*env, sys.executable, str(Path(__file__).with_name("told_turn.py")),
                str(told_turn_ms), module]
    if src is None and script.exists():
        return [str(script)]
    return [*env, sys.executable, "-m", module]


def entry_module(src: Path) -> str:
    """The module ``python -m`` runs for the ``ninefold`` command of the source in `src`:
    ``ninefold`` (its lean entry point, ``ninefold.command``) where it has one, else
    ``ninefold.cli`` (revisions before the lean entry point).

    >>> entry_module(HERE.parent / "src")
    'ninefold'
    """
    return "ninefold" if (src / "ninefold" / "__main__.py").is_file() else "ninefold.cli"


def ninefold_command(protocol: str, spec: str | None = None, rules: str | None = None,
                     src: Path | None = None, told_turn_ms: int | None = None) -> str:
    """The command line of ``ninefold bot`` as installed next to this Python, or of the
    ninefold whose source is in `src` (`revision_src`), run by this Python; with
    `told_turn_ms`, told that a CodinGame turn is that long (`ninefold_argv`).

    >>> ninefold_command("codingame", "mcts:c=0.6").split()[-5:]
    ['bot', '--protocol', 'codingame', '--player', 'mcts:c=0.6']
    >>> ninefold_command("riddles", src=Path("/x/src")).split()[:2]
    ['env', 'PYTHONPATH=/x/src']
    """
    argv = [*ninefold_argv(src, told_turn_ms), "bot", "--protocol", protocol]
    if spec:
        argv += ["--player", spec]
    if rules:
        argv += ["--rules", rules]
    return shlex.join(argv)


def split_revision(spec: str) -> tuple[str, str | None]:
    """A player spec with an optional git revision, ``SPEC@REV``: (spec, revision).

    >>> split_revision("mcts@09be2c6"), split_revision("mcts:ms=50")
    (('mcts', '09be2c6'), ('mcts:ms=50', None))
    """
    spec, at, rev = spec.partition("@")
    return spec, (rev if at and rev else None)


def revision_src(rev: str) -> Path:
    """The ``src`` folder of ninefold as it was at git revision `rev`: exported once (git
    archive) into ``.bench/revisions/SHA``, so an older version can play the current one
    as a bot process. ValueError if git does not know `rev`."""
    root = HERE.parent
    found = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                           cwd=root, capture_output=True, text=True, check=False)
    sha = found.stdout.strip()
    if found.returncode or not sha:
        raise ValueError(f"git knows no revision {rev!r} here")
    path = REVISIONS / sha
    if not (path / "src" / "ninefold").is_dir():
        part = REVISIONS / f"{sha}.part"
        shutil.rmtree(part, ignore_errors=True)
        part.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", sha, "src"], cwd=root, capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(part)], input=archive, check=True)
        shutil.rmtree(path, ignore_errors=True)
        part.rename(path)  # whole or not at all
    return path / "src"


def warm_cache(src: Path | None = None, timeout_s: float = 600.0) -> bool:
    """Fill the numba cache of ``ninefold bot`` before it is measured: this tree's, or that of
    the source in `src` (`revision_src`), with its ``ninefold warmup`` (its progress on this
    stderr). False if that ninefold has no such command (before issue 11, when a bot
    compiled before its first answer: one first answer warms it).

    One first answer does not warm today's bot: it answers from its book at once while a
    child compiles, and the child dies with the bot, so games would be played by the
    fallback player until one lasted the whole compile. ValueError if the warm-up fails.
    """
    try:
        done = subprocess.run([*ninefold_argv(src), "warmup"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise ValueError(f"ninefold warmup took more than {timeout_s:.0f} s") from None
    if "No such command" in done.stderr:
        return False
    sys.stderr.write(done.stderr)
    if done.returncode == 0:
        return True
    lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
    raise ValueError(f"ninefold warmup failed: {lines[-1]}")


def first_answer(command: str, protocol: str, rules: str, tc: TimeControl,
                 env: dict[str, str] | None = None) -> tuple[float, float]:
    """Launch a bot, ask for its first move at once (it moves first on an empty board),
    end it: (ms from launch, ms from the write of the request) to the read of the
    answer. `BotFault` if it fails."""
    bot = connect(BotCommand(command, protocol, env=env or {}), name="bot")
    board = Board(rules)
    t_launch = time.monotonic()
    try:
        bot.start(Mark.X, board, tc)
        t_ask = time.monotonic()
        ms = float(bot.play(board, None, Clock(tc)).info["ms"])
        return 1000 * (t_ask - t_launch) + ms, ms
    finally:
        bot.close()


def spin_bot_command(spin_ms: float) -> str:
    """The command line of `spin_bot.c` (a CodinGame bot that keeps the CPU busy for
    `spin_ms` of each turn, then answers), compiled once into ``.bench/`` with the C
    compiler (ValueError if there is none, or it fails)."""
    exe = HERE.parent / ".bench" / "spin_bot"
    if not exe.exists() or exe.stat().st_mtime < SPIN_BOT.stat().st_mtime:
        cc = shutil.which("gcc") or shutil.which("cc")
        if cc is None:
            raise ValueError("the control bot needs a C compiler (gcc or cc) on the PATH")
        exe.parent.mkdir(exist_ok=True)
        part = exe.with_suffix(".part")
        built = subprocess.run([cc, "-O2", "-o", str(part), str(SPIN_BOT)],
                               capture_output=True, text=True, check=False)
        if built.returncode:
            raise ValueError(f"cannot compile {SPIN_BOT.name}: {built.stderr.strip()[:200]}")
        part.rename(exe)
    return shlex.join([str(exe), f"{spin_ms:g}"])


def openspiel_command(protocol: str, ms: float | None = None, safety_ms: float | None = None,
                      seed: int | None = None) -> str:
    """The command line of OpenSpiel's MCTSBot as a bot process (`openspiel_bot.py`)."""
    argv = [sys.executable, str(OPENSPIEL_BOT), "--protocol", protocol]
    for flag, value in (("--ms", ms), ("--safety-ms", safety_ms), ("--seed", seed)):
        if value is not None:
            argv += [flag, f"{value:g}"]
    return shlex.join(argv)


def platform_control(protocol: str, turn_ms: int | None = None, bank_ms: int | None = None,
                     increment_ms: int | None = None) -> TimeControl:
    """The platform's clock for `protocol` (CodinGame: 1,000 ms first turn, then 100 ms;
    AI Games and Riddles: a 10 s bank, which is also its maximum, + 500 ms a move),
    with the given values changed; no referee allowances."""
    tc = TimeControl.for_protocol(protocol)
    if not tc.is_bank and turn_ms is not None:
        tc = replace(tc, turn_ms=turn_ms)
    if tc.is_bank and bank_ms is not None:
        tc = replace(tc, bank_ms=bank_ms)
    if tc.is_bank and increment_ms is not None:
        tc = replace(tc, increment_ms=increment_ms)
    return tc


@dataclass(frozen=True)
class Request:
    """One move request answered by one bot: its number in the game (0 = the bot's
    first), the time it was given (the turn's time, or the bank left) and took."""

    turn: int
    limit_ms: float
    ms: float

    @property
    def late(self) -> bool:
        """Answered after the limit: a time-out on the platform."""
        return self.ms > self.limit_ms


def bot_requests(result: GameResult, mark: Mark, tc: TimeControl) -> list[Request]:
    """The requests `mark` answered in `result`, each with the limit the referee's
    `Clock` (with control `tc`) gave it. A request that got no answer at all (the
    referee gave up on it) is not in `result.times_ms`: see `lost_on_time`."""
    first = Board(result.rules, opening=result.opening).ply
    clock = Clock(tc)
    requests = []
    for i, ms in enumerate(result.times_ms):
        mover = Mark.X if (first + i) % 2 == 0 else Mark.O
        if mover is not mark:
            continue
        limit = clock.told_ms()
        requests.append(Request(clock.requests, float(limit), ms))
        clock.charge(ms)
    return requests


def lost_on_time(result: GameResult, mark: Mark) -> bool:
    """Did `mark` lose `result` because the referee stopped waiting for its answer?"""
    return result.termination is Termination.TIME_FORFEIT and result.winner is mark.other


def percentile(xs: list[float], q: float) -> float:
    """The `q` quantile of `xs` (nearest rank; nan when empty)."""
    if not xs:
        return math.nan
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def fmt_ms(x: float) -> str:
    """Milliseconds for a report, "-" when there is no value.

    >>> fmt_ms(12.34), fmt_ms(math.nan)
    ('12 ms', '-')
    """
    return "-" if math.isnan(x) else f"{x:.0f} ms"


class Load:
    """`n` processes spinning on the CPU while the block runs, each ended at the end
    (and by itself once this process is gone, or after `LOAD_MAX_S`).

    Each in a session of its own (`own_sessions`), as other programs on a machine
    are: Linux's autogroup scheduling (``/proc/sys/kernel/sched_autogroup_enabled``)
    shares the CPU fairly between sessions, so spinners started in this process's
    session would take their CPU from this session's share: from the referee, which
    then reads answers late (a bot is started in a session of its own).

    >>> with Load(1) as load:
    ...     spinner = load.procs[0]
    ...     len(load.procs), spinner.poll() is None, os.getsid(spinner.pid) == spinner.pid
    (1, True, True)
    >>> with Load(1, own_sessions=False) as load:
    ...     os.getsid(load.procs[0].pid) == os.getsid(0)
    True
    >>> load.procs[0].poll() is not None
    True
    """

    def __init__(self, n: int, own_sessions: bool = True) -> None:
        self.n = n
        self.own_sessions = own_sessions
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Load:
        spin = (
            "import os, time\n"
            f"parent, end = {os.getpid()}, time.monotonic() + {LOAD_MAX_S}\n"
            "while os.getppid() == parent and time.monotonic() < end:\n"
            "    for _ in range(200000): pass\n"
        )
        try:
            for _ in range(self.n):
                self.procs.append(subprocess.Popen([sys.executable, "-c", spin],
                                                   start_new_session=self.own_sessions))
        except BaseException:
            self.__exit__()
            raise
        if self.n:
            time.sleep(0.3)  # let them reach the CPU
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


# The probe sleeps this long, over and over. Not shorter: a process waking every 2 ms
# made a bot on a loaded machine late itself (bot_clock.py --load 2: 116 of 1,022
# answers late; 9 of 1,002 with a 5 ms step), so the probe measured its own effect.
STALL_STEP_MS = 5.0
STALL_MIN_MS = 10.0  # a wake-up this much later than asked is a stall
STALL_BLAME_S = 1.0  # a game lost on time ended within this of a stall: maybe the machine's
# fault (the game's end is taken once its bots are closed, some 0.1-0.5 s after the fault)


class StallProbe:
    """A process that sleeps `STALL_STEP_MS` over and over while the block runs and
    notes each wake-up at least `min_ms` late: the stalls of the whole machine (a VM
    whose host keeps its CPUs for a while, other load) that no bot sees coming. A bot
    that loses on time while the machine stalls for longer than its safety is not the
    bot's fault; a report shows both.

    >>> import signal
    >>> with StallProbe(min_ms=5.0) as probe:
    ...     probe.proc.send_signal(signal.SIGSTOP); time.sleep(0.05)
    ...     probe.proc.send_signal(signal.SIGCONT); time.sleep(0.5)
    >>> len(probe.stalls) >= 1 and max(probe.stalls) >= 40
    True
    >>> probe.before(probe.times[0] + 0.1) == probe.stalls[0], probe.before(probe.times[0] - 1)
    (True, None)
    >>> "longest" in probe.summary()
    True
    """

    def __init__(self, min_ms: float = STALL_MIN_MS) -> None:
        self.min_ms = min_ms
        self.proc: subprocess.Popen[str] | None = None
        self.stalls: list[float] = []  # ms late, in order
        self.times: list[float] = []  # when each was seen (`time.time()`)
        self.seconds = 0.0

    def __enter__(self) -> StallProbe:
        code = (
            "import os, sys, time\n"
            f"parent, end = {os.getpid()}, time.monotonic() + {LOAD_MAX_S}\n"
            f"step, least = {STALL_STEP_MS / 1000!r}, {self.min_ms / 1000!r}\n"
            "last = time.monotonic()\n"  # before 'ready': a stall right after it counts
            "print('ready', flush=True)\n"
            "while os.getppid() == parent and last < end:\n"
            "    time.sleep(step)\n"
            "    now = time.monotonic()\n"
            "    if now - last - step >= least:\n"
            "        print(f'{time.time():.3f} {1000 * (now - last - step):.1f}', flush=True)\n"
            "    last = now\n"
        )
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                     text=True)
        assert self.proc.stdout is not None
        self.proc.stdout.readline()  # it sleeps and wakes from now on
        self._t0 = time.monotonic()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is None:
            return
        self.seconds = time.monotonic() - self._t0
        self.proc.terminate()
        out, _ = self.proc.communicate()
        seen = [tuple(map(float, line.split())) for line in out.splitlines() if line]
        self.times = [when for when, _ in seen]
        self.stalls = [ms for _, ms in seen]

    def before(self, when: float, window_s: float = STALL_BLAME_S) -> float | None:
        """The longest stall seen in the `window_s` before `when` (a `time.time()`), or
        None: a bot that lost on time then may have lost to the machine."""
        found = [ms for t, ms in zip(self.times, self.stalls, strict=True)
                 if when - window_s <= t <= when + 0.01]
        return max(found) if found else None

    def summary(self) -> str:
        """One line: how often and how long the machine stalled while the block ran."""
        span = (f"{self.seconds:.0f} s" if self.seconds < 120
                else f"{self.seconds / 60:.0f} min")
        if not self.stalls:
            return (f"the machine did not stall a sleeping process by {self.min_ms:.0f} ms "
                    f"or more in {span}")
        return (f"the machine stalled a sleeping process {len(self.stalls)} times by "
                f"{self.min_ms:.0f} ms or more in {span} (longest "
                f"{max(self.stalls):.0f} ms): a turn it hits near its end is late "
                "whatever the bot does")
