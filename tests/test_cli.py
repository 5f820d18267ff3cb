"""The command's root, run as a user runs it: a real process (`python -m ninefold.cli`).

Version, help, one-line errors, broken pipes and Ctrl-C: what every command shares.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NINEFOLD = [sys.executable, "-m", "ninefold.cli"]


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*NINEFOLD, *args], capture_output=True, text=True, timeout=timeout)


def no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr


def test_version_comes_from_the_package():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    result = run("--version")
    assert (result.returncode, result.stdout, result.stderr) == (0, f"ninefold {version}\n", "")


def test_the_console_script_calls_main():
    (script,) = entry_points(group="console_scripts", name="ninefold")
    assert script.value == "ninefold.command:main"


@pytest.mark.parametrize("command", [[], ["perft"], ["classic", "stats"]])
def test_flags_show_as_flags_in_help(command):
    result = run(*command, "--help")
    assert result.returncode == 0, result.stderr
    assert "<bool>" not in result.stdout
    assert "--help " in result.stdout


def test_a_flag_given_a_value_is_refused_in_one_clear_line():
    result = run("perft", "2", "--json", "true")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: --json is a flag and takes no value")
    assert "ninefold perft --help" in result.stderr


def test_usage_errors_are_one_line():
    result = run("perft", "two")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert "Invalid value for 'depth'" in result.stderr


def test_errors_do_not_echo_100_kb_of_input():
    huge = "x" * 100_000
    for args in (["show", huge], ["perft", "2", "--rules", huge], ["perft", "2", "--moves", huge]):
        result = run(*args)
        assert result.returncode == 2, result.stderr[:300]
        no_traceback(result.stderr)
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
        assert len(result.stderr) < 500, len(result.stderr)


def test_error_text_is_not_read_as_markup():
    result = run("show", "[/x] 9/9/9/9/9/9/9/9/9 x - .........")
    assert result.returncode == 2
    no_traceback(result.stderr)
    assert "[/x]" in result.stderr and result.stderr.count("\n") == 1


def closed_pipe(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run with stdout a pipe whose reader has gone before anything is written."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        proc = subprocess.run([*NINEFOLD, *args], stdout=writer, stderr=subprocess.PIPE,
                              text=True, timeout=timeout)
    finally:
        os.close(writer)
    return proc


@pytest.mark.parametrize("args", [["perft", "3", "--json"], ["perft", "3"],
                                  ["classic", "stats", "-n", "10"], ["--version"], ["--help"]])
def test_a_broken_pipe_exits_quietly_like_a_unix_tool(args):
    result = closed_pipe(*args)
    assert (result.returncode, result.stderr) == (141, "")


def test_export_into_a_closed_pipe_exits_quietly(tmp_path):
    db = tmp_path / "m.db"
    made = run("match", "--bot1", "random", "--bot2", "random", "-n", "2", "--db", str(db))
    assert made.returncode == 0, made.stderr
    result = closed_pipe("export", str(db))
    assert (result.returncode, result.stderr) == (141, "")


def test_ctrl_c_prints_one_line_and_exits_130():
    proc = subprocess.Popen([*NINEFOLD, "classic", "play"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        seen = b""
        deadline = time.monotonic() + 60
        while b"move [" not in seen and time.monotonic() < deadline:  # waiting for a move
            seen += os.read(proc.stdout.fileno(), 4096)
        assert b"move [" in seen, seen
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130
    assert stderr.decode().strip() == "interrupted"


LONG_RUNS = [  # 8 s each: `make test-all` runs them (Ctrl-C itself: test_ctrl_c_prints_...)
    pytest.param(["analyze", "start", "--ms", "300000"], marks=pytest.mark.slow),
    pytest.param(["bench", "--seconds", "300"], marks=pytest.mark.slow),
    pytest.param(["analyze", "start", "--ms", "300000", "--threads", "2"],
                 marks=[pytest.mark.slow,
                        pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2,
                                           reason="two search threads need two CPUs")]),
]


@pytest.mark.parametrize("args", LONG_RUNS, ids=lambda a: " ".join(a))
def test_ctrl_c_stops_a_long_computation_at_once(args):
    """A search or a benchmark in numba code (and in worker threads) stops at Ctrl-C
    with one line and exit status 130, not when its time is up."""
    proc = subprocess.Popen([*NINEFOLD, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        time.sleep(8)  # past the start-up (and a first run's compiling)
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=20)  # the run itself would take 300 s
    finally:
        proc.kill()
        proc.wait()
    no_traceback(stderr)
    assert proc.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1] == "interrupted"
