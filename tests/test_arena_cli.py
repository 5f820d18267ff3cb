"""The arena's command line at its edges: nothing lost, no game missing, one-line
errors instead of tracebacks, no silent acceptance, resume that notices changes,
Ctrl-C that stops at once. Real SQLite files, real subprocess bots (tests/bots/),
the CLI through `python -m ninefold.cli` or typer's CliRunner."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ninefold.cli import app

BOTS = Path(__file__).parent / "bots"
PY = sys.executable
ENV = dict(os.environ, COLUMNS="200")


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "ninefold.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=kw.pop("timeout", 120), env=kw.pop("env", ENV), **kw)


class Invoked:
    def __init__(self, exit_code: int, output: str) -> None:
        self.exit_code = exit_code
        self.output = " ".join(output.split())  # the console wraps long lines


def invoke(*args: str) -> Invoked:
    """The CLI in this process; an error must be a message, never a traceback."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{args}: {result.exception!r}")
    return Invoked(result.exit_code, result.output)


def count(db: Path) -> int:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]


RANDOMS = ("--bot1", "random:seed=1", "--bot2", "random:seed=2", "--openings", "none",
           "--no-check", "--quiet")


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A finished 2-game match between built-in players."""
    db = tmp_path_factory.mktemp("played") / "m.db"
    out = cli("match", *RANDOMS, "-n", "2", "--db", db)
    assert out.returncode == 0, out.stderr
    return db


@contextlib.contextmanager
def read_only(path: Path):
    """`path` (a file or folder) made read-only even for root (chattr +i), restored
    afterwards; skips the test where no way is allowed."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    if shutil.which("chattr") is None or subprocess.run(
            ["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("cannot make a read-only file here (root without chattr +i)")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


# --- export: nothing lost --------------------------------------------------------------------


def test_export_never_writes_onto_the_database_or_an_existing_file(played, tmp_path) -> None:
    db = tmp_path / "same.db"
    shutil.copy(played, db)
    before = db.read_bytes()
    out = invoke("export", db, "-o", db)
    assert out.exit_code == 2 and "database itself" in out.output, out.output
    assert db.read_bytes() == before
    notes = tmp_path / "notes.txt"
    notes.write_text("precious")
    out = invoke("export", db, "-o", notes)
    assert out.exit_code == 2 and "--force" in out.output
    assert notes.read_text() == "precious"
    out = invoke("export", db, "-o", notes, "--force")
    assert out.exit_code == 0, out.output
    assert notes.read_text().count("[Result ") == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "same.db"]  # no temp


def test_export_into_a_read_only_folder_is_one_line(played, tmp_path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    with read_only(folder):
        out = invoke("export", played, "-o", folder / "g.txt")
    assert out.exit_code == 2 and "cannot write" in out.output, out.output
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("command", ["export", "report"])
def test_a_closed_pipe_ends_quietly(played, tmp_path, command) -> None:
    """`ninefold export db | head`: the reader goes away; no traceback."""
    r, w = os.pipe()
    os.close(r)  # every write now fails with EPIPE
    args = [command, str(played)] + (["--no-plots"] if command == "report" else [])
    proc = subprocess.run([PY, "-m", "ninefold.cli", *args], stdout=w, stderr=subprocess.PIPE,
                          text=True, timeout=60, env=ENV)
    os.close(w)
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr
    assert proc.stderr.strip() == ""
    assert proc.returncode == 141  # as a shell reports a tool ended by SIGPIPE


# --- report ---------------------------------------------------------------------------------


def test_report_out_onto_a_file_or_a_read_only_folder_is_one_line(played, tmp_path) -> None:
    file = tmp_path / "plots"
    file.write_text("not a folder")
    out = invoke("report", played, "--out", file)
    assert out.exit_code == 2 and "not a folder" in out.output, out.output
    assert file.read_text() == "not a folder"
    folder = tmp_path / "ro"
    folder.mkdir()
    with read_only(folder):
        out = invoke("report", played, "--out", folder)
    assert out.exit_code == 2 and "cannot write" in out.output, out.output


def test_summary_names_the_endings_in_words(tmp_path) -> None:
    out = cli("match", *RANDOMS, "-n", "2", "--db", tmp_path / "m.db")
    last = out.stdout.strip().splitlines()[-1]
    assert "2 of 2 games stored" in last and "Endings: " in last, last
    assert any(word in last for word in ("won on a line", "drawn"))
    assert not last.rstrip().endswith(("line 2", "line 1", "no-moves 1", "no-moves 2")), last


# --- names and keys: no game missing -------------------------------------------------------


def _toml(tmp_path: Path, body: str, players: list[str] | None = None) -> Path:
    path = tmp_path / "t.toml"
    tables = "".join(f'[[player]]\nname = "{n}"\nspec = "random:seed={i}"\n'
                     for i, n in enumerate(["r1", "r2"] if players is None else players, 1))
    path.write_text(body + "\n" + tables)
    return path


def test_names_with_bars_keep_every_game(tmp_path) -> None:
    toml = _toml(tmp_path, 'games = 2\nopenings = "none"', ["a", "a|b", "b|c", "c"])
    db = tmp_path / "bars.db"
    out = cli("tournament", toml, "--db", db, "--quiet", "--no-check")
    assert out.returncode == 0, out.stderr
    assert "12 of 12 games stored" in out.stdout and count(db) == 12, out.stdout
    again = cli("tournament", toml, "--db", db, "--quiet", "--no-check", "--resume")
    assert again.returncode == 0 and "(0 played now)" in again.stdout, again.stdout
    assert count(db) == 12


@pytest.mark.parametrize(("name", "why"), [("tab\there", "control characters"),
                                           ("x" * 200, "too long"),
                                           (" padded", "spaces")])
def test_player_names_are_checked(tmp_path, name, why) -> None:
    db = tmp_path / "n.db"
    out = invoke("match", *RANDOMS, "--name1", name, "--db", db)
    assert out.exit_code == 2 and why in out.output, out.output
    assert not db.exists()


# --- tournament files: every key and value checked ------------------------------------------


@pytest.mark.parametrize(("body", "players", "message"), [
    ('games = "ten"', None, "games = 'ten' must be a whole number"),
    ("player = 5", [], "player = 5 must be a list"),
    ("gams = 4", None, "unknown key 'gams' (keys: name, format, games"),
    ('[[player]]\nspec = "random"\ncommand = "./bot"\nprotocol = "riddles"', ["r1"],
     "player 1: give either spec"),
    ('[[player]]\ncomand = "./bot"', ["r1"], "player 1: unknown key 'comand' (keys: name, spec"),
    ('[[player]]\ncommand = "./bot"\nprotocol = "riddles"\nmemory_mb = -5', ["r1"],
     "memory_mb=-5 must be"),
    ('[[player]]\ncommand = "./bot"\nprotocol = "riddles"\ncpu_s = -1', ["r1"],
     "cpu_s=-1 must be"),
    ('[[player]]\nspec = "random"\nmemory_mb = 100', ["r1"], "apply to a command"),
    ("games = 2\ngames = 4", None, "given twice"),
    ('format = "match"\nsprt = "elo0=1,elo0=2"', None, "'elo0' is given twice"),
])
def test_tournament_files_refuse_what_they_cannot_mean(tmp_path, body, players, message) -> None:
    toml = _toml(tmp_path, body, players)
    db = tmp_path / "t.db"
    out = invoke("tournament", toml, "--db", db, "--quiet", "--no-check")
    assert out.exit_code == 2, out.output
    assert message in out.output, out.output
    assert not db.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--slack-ms", "-100"], "--slack-ms"),
    (["--first-move-ms", "-5000"], "--first-move-ms"),
    (["--memory-mb", "-5"], "--memory-mb"),
    (["--sprt", "elo0=1,elo0=2"], "given twice"),
    (["-n", "1000000000"], "1000000"),
])
def test_match_options_refuse_what_they_cannot_mean(tmp_path, args, message) -> None:
    db = tmp_path / "m.db"
    out = invoke("match", *RANDOMS, *args, "--db", db)
    assert out.exit_code == 2 and message in out.output, out.output
    assert not db.exists()


# --- resume -----------------------------------------------------------------------------------


def test_resume_refuses_changed_settings_and_extends_on_purpose(played, tmp_path) -> None:
    db = tmp_path / "r.db"
    shutil.copy(played, db)
    out = invoke("match", *RANDOMS, "--db", db, "--resume", "--seed", "5")
    assert out.exit_code == 2 and "seed 1 -> 5" in out.output, out.output
    other = ["--bot1", "random:seed=1", "--bot2", "random:seed=3", "--openings", "none",
             "--no-check", "--quiet", "-n", "2"]
    out = invoke("match", *other, "--db", db, "--resume")
    assert out.exit_code == 2, out.output
    assert "players random:seed=1, random:seed=2 -> random:seed=1, random:seed=3" in out.output
    out = invoke("match", "--db", db, "--resume", "-n", "1", "--quiet")
    assert out.exit_code == 2 and "--games 2 or more" in out.output
    assert count(db) == 2
    out = invoke("match", "--db", db, "--resume", "-n", "4", "--quiet", "--no-check")
    assert out.exit_code == 0 and "4 of 4 games stored" in out.output, out.output
    assert "(2 played now)" in out.output and count(db) == 4
    out = invoke("match", *RANDOMS, "--db", db, "--resume")  # the same bots, no -n: as stored
    assert out.exit_code == 0 and "4 of 4 games stored" in out.output, out.output


def test_tournament_resume_refuses_a_changed_file(tmp_path) -> None:
    toml = _toml(tmp_path, 'games = 2\nopenings = "none"')
    db = tmp_path / "t.db"
    assert invoke("tournament", toml, "--db", db, "--quiet", "--no-check").exit_code == 0
    toml.write_text(toml.read_text().replace("random:seed=2", "naive"))
    out = invoke("tournament", toml, "--db", db, "--quiet", "--no-check", "--resume")
    assert out.exit_code == 2 and "player 2 (r2) spec" in out.output, out.output
    out = invoke("tournament", "--db", db, "--quiet", "--no-check", "--resume", "-n", "4")
    assert out.exit_code == 0 and "4 of 4 games stored" in out.output, out.output


def test_resume_of_a_missing_database_creates_nothing(tmp_path) -> None:
    for command in ("match", "tournament"):
        db = tmp_path / f"{command}.db"
        out = invoke(command, "--resume", "--db", db)
        assert out.exit_code == 2 and "nothing to resume" in out.output, out.output
        assert not db.exists()


def test_a_database_in_a_missing_or_read_only_folder_is_one_line(tmp_path) -> None:
    out = invoke("match", *RANDOMS, "--db", tmp_path / "no" / "m.db")
    assert out.exit_code == 2 and "no folder" in out.output, out.output
    folder = tmp_path / "ro"
    folder.mkdir()
    with read_only(folder):
        out = invoke("match", *RANDOMS, "--db", folder / "m.db")
    assert out.exit_code == 2 and "read-only" in out.output, out.output


def test_resume_on_a_read_only_database_plays_nothing(played, tmp_path) -> None:
    db = tmp_path / "ro.db"
    shutil.copy(played, db)
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DELETE FROM games WHERE seq = 1")
    with read_only(db):
        out = cli("match", "--db", db, "--resume", "--quiet", "--no-check")
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "cannot write" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert count(db) == 1


# --- Ctrl-C -----------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_ctrl_c_stops_at_once_keeps_games_and_kills_bots(tmp_path) -> None:
    """SIGINT while a bot is thinking: exit 130 with one line, well before the bot
    would have answered, no bot process left, the finished game kept; --resume
    then completes the run."""
    db, pids = tmp_path / "c.db", tmp_path / "pids"
    env = dict(ENV, PIDFILE=str(pids), BOT_SLOW_S="8")
    riddles = f"{PY} {BOTS / 'riddles_bot.py'}"
    cmd = [PY, "-m", "ninefold.cli", "match", "--bot1", f"{riddles} good", "--protocol1",
           "riddles", "--bot2", f"{riddles} slow-once", "--protocol2", "riddles", "-n", "2",
           "--openings", "none", "--no-check", "--quiet", "--db", str(db)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:  # the second game's bots run
        time.sleep(0.1)
        with contextlib.suppress(sqlite3.Error, OSError):
            if db.exists() and count(db) >= 1 and len(pids.read_text().split()) >= 4:
                break
    time.sleep(1.0)  # bot 2 now sleeps 8 s on its second move
    assert proc.poll() is None, proc.communicate()
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    waited = time.monotonic() - sent
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert "interrupted: 1 of 2 games stored" in stderr and "--resume" in stderr
    assert waited < 5, f"took {waited:.1f} s to stop (the bot's move takes 8 s)"
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) >= 4 and not [p for p in started if _alive(p)]
    assert count(db) == 1
    done = subprocess.run([*cmd, "--resume"], capture_output=True, text=True, timeout=120,
                          env=dict(env, BOT_SLOW_S="0"))
    assert done.returncode == 0, done.stderr
    assert "2 of 2 games stored" in done.stdout and count(db) == 2
