"""No process of a bot outlives its game, whatever the arena's fate.

Real arenas (``python -m ninefold.cli match``) run real bots that fork
children, and children that escape their process group by ``setsid`` and a
double fork; every process of those bots carries a marker in its
environment, and /proc is scanned for it afterwards.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from ninefold.protocols import BotCommand, BotProcess, BotStartError
from ninefold.protocols.process import NoAnswer

BOTS = Path(__file__).parent / "bots"
PY = sys.executable
MARK = "NINEFOLD_TEST_MARK"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def marked(mark: str) -> list[int]:
    """The living processes whose environment holds ``NINEFOLD_TEST_MARK=mark``."""
    wanted = f"{MARK}={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != b"Z" and wanted in env:
            found.append(int(entry))
    return found


def survivors(mark: str, wait_s: float = 5.0) -> list[int]:
    """The marked processes still alive after up to `wait_s` (killing takes a moment)."""
    deadline = time.monotonic() + wait_s
    while (alive := marked(mark)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def arena(tmp_path: Path, mark: str, games: int, pause_s: float) -> subprocess.Popen:
    """`ninefold match` between a bot that forks three children and one whose
    children escape by setsid, as a subprocess."""
    env = dict(os.environ, **{MARK: mark, "PIDFILE": str(tmp_path / "pids"),
                              "BOT_PAUSE_S": str(pause_s)})
    argv = [PY, "-m", "ninefold.cli", "match",
            "--bot1", f"{PY} {BOTS / 'aigames_bot.py'} forks", "--protocol1", "aigames",
            "--bot2", f"{PY} {BOTS / 'riddles_bot.py'} escape", "--protocol2", "riddles",
            "-n", str(games), "--openings", "none", "--no-check", "--quiet",
            "--db", str(tmp_path / "m.db")]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def wait_for_pids(path: Path, count: int, timeout_s: float = 60.0) -> None:
    """Until the bots have written `count` pids (themselves and their children)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text().split()) >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"the bots did not start: {path.read_text() if path.exists() else ''}")


@contextlib.contextmanager
def running_arena(tmp_path: Path, games: int, pause_s: float):
    """An arena subprocess and its marker; afterwards nothing marked is left running."""
    mark = uuid.uuid4().hex
    proc = arena(tmp_path, mark, games=games, pause_s=pause_s)
    try:
        yield proc, mark
    finally:
        proc.kill()
        proc.wait()
        kill_all(marked(mark))


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_no_bot_process_survives_the_arena_killed_mid_game(tmp_path, sig) -> None:
    with running_arena(tmp_path, games=2, pause_s=0.3) as (proc, mark):
        wait_for_pids(tmp_path / "pids", 4 + 3)  # the forking bot and 3 children, the
        time.sleep(0.5)  # escaping bot and 2; then let the game run a little
        assert proc.poll() is None, proc.communicate()
        assert len(marked(mark)) >= 1 + 7  # the arena and all the bots' processes
        proc.send_signal(sig)
        proc.wait(timeout=30)
        left = survivors(mark)
        assert not left, f"{len(left)} processes of the bots survive the arena's {sig.name}"


def test_no_bot_process_survives_a_match(tmp_path) -> None:
    with running_arena(tmp_path, games=2, pause_s=0.0) as (proc, mark):
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert "2 of 2 games stored" in out
        assert len((tmp_path / "pids").read_text().split()) == 2 * (4 + 3)
        left = survivors(mark)
        assert not left, f"{len(left)} processes of the bots survive a 2-game match"


def test_a_bot_that_exits_takes_its_children_along(tmp_path) -> None:
    """The bot's end is the game's end for its children too: the referee sees the
    end of output at once instead of waiting for an orphan that holds the pipe."""
    mark = uuid.uuid4().hex
    code = ("import os, subprocess, sys, time\n"
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
            "print('started', flush=True)\n"
            "sys.exit(4)")
    process = BotProcess(BotCommand(f"{PY} -c \"{code}\"", "riddles", env={MARK: mark}))
    try:
        process.start()
        assert process.read_line(30)[1] == "started"
        with pytest.raises(NoAnswer, match="exited with status 4"):
            process.read_line(10)
        assert not survivors(mark)
    finally:
        process.close()
        kill_all(marked(mark))


def test_a_bot_that_cannot_start_says_why() -> None:
    process = BotProcess(BotCommand("/nonexistent/bot --flag", "riddles"))
    with pytest.raises(BotStartError, match="No such file or directory: '/nonexistent/bot'"):
        process.start()
    assert process.proc is not None and process.proc.poll() is not None  # no supervisor left


def test_limits_reach_the_bot(tmp_path) -> None:
    """Memory and CPU limits are set on the bot itself (not only on its supervisor)."""
    code = ("import resource; "
            "print(resource.getrlimit(resource.RLIMIT_AS)[0], "
            "resource.getrlimit(resource.RLIMIT_CPU)[0], flush=True)")
    process = BotProcess(BotCommand(f"{PY} -c \"{code}\"", "riddles", memory_mb=2048, cpu_s=7))
    try:
        process.start()
        assert process.read_line(30)[1] == f"{2048 << 20} 7"
    finally:
        process.close()


def test_why_a_bot_cannot_start_is_in_its_log(tmp_path) -> None:
    log = tmp_path / "bot.log"
    process = BotProcess(BotCommand("/nonexistent/bot", "riddles"), log_path=log)
    with pytest.raises(BotStartError):
        process.start()
    assert "cannot start bot '/nonexistent/bot'" in log.read_text()


def test_both_ways_of_finding_descendants_agree() -> None:
    """The supervisor reads ``children`` files, or scans /proc where there are none."""
    from ninefold.protocols import supervisor

    code = ("import subprocess, sys, time\n"
            "kids = [subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])"
            " for _ in range(2)]\n"
            "print('ok', flush=True)\n"
            "time.sleep(60)")
    parent = subprocess.Popen([PY, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None and parent.stdout.readline() == "ok\n"
        found = supervisor.descendants(parent.pid)
        assert len(found) == 2 and sorted(found) == sorted(supervisor.scan(parent.pid))
    finally:
        kill_all(supervisor.scan(parent.pid))
        parent.kill()
        parent.wait()


def test_a_command_that_cannot_be_read_is_a_bot_failure() -> None:
    from ninefold.arena.referee import Seat, play_game
    from ninefold.rules import Mark

    result = play_game(Seat.external("python3 'unclosed", "riddles", name="quote"),
                       Seat.builtin("random"))
    assert (result.winner, str(result.termination)) == (Mark.O, "bot-failure")
    assert "No closing quotation" in result.reason
