"""The sandbox (`ninefold.platform.sandbox`) with real bubblewrap, real compilers, real bots.

Every hostile bot is run in a game while a normal game runs beside it: the
hostile one is contained and its log says what failed, the normal one is
unaffected, and no process is left when the games end.
"""

from __future__ import annotations

import logging
import os
import platform
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import pytest
from needs import require
from platform_fixtures import (
    LANGUAGES,
    bot_archive,
    bot_source,
    hostile_archive,
    missing_compiler,
    pack,
)

from ninefold.arena.referee import GameResult, Seat, play_game
from ninefold.platform import cgroups, confine, sandbox, seccomp
from ninefold.platform.archive import unpack
from ninefold.platform.recipes import Recipe, detect
from ninefold.protocols import TimeControl
from ninefold.rules import Mark
from ninefold.system import process_status
from ninefold.variants import Termination

require("the sandbox (bubblewrap)", sandbox.available(), module=True)

# Bank and increment short, start-up long: a hostile bot does its worst before playing.
TC = TimeControl.parse("bank=2000,inc=200,startup=15000,slack=200")
RULES_END = {Termination.LINE, Termination.BOARD_COUNT, Termination.NO_MOVES}
MARKER = "NINEFOLD-SECRET-3141"
# The tests' builds get more time than an upload's 60 s: on a machine busy with other
# tests a compiler may take that long, and only the tests given limits are about them.
BUILD_LIMITS = replace(sandbox.COMPILE_LIMITS, wall_s=600, cpu_s=600)


def build(folder: Path, filename: str, data: bytes,
          limits: sandbox.Limits = BUILD_LIMITS) -> tuple[sandbox.Build, Path, Recipe]:
    """Unpack and compile an upload under `folder`: the build, its folder, its recipe."""
    recipe = detect(unpack(data, filename, folder / "src"))
    made = sandbox.compile_bot(folder / "src", recipe, folder / "out", limits)
    return made, folder / "out", recipe


def need(*languages: str) -> None:
    """Skip the test (fail it under CI) if a compiler of `languages` is not installed."""
    for language in languages:
        missing = missing_compiler(language)
        require(f"the {language} compiler", missing and f"no {missing} (make debs installs it)")


class Bots(dict[str, tuple[Path, Recipe]]):
    """The fixture bot of each language, language -> (folder, recipe), compiled the first
    time a test asks for it (skipped, or failed under CI, without its compiler): the
    fast tests need C and Python only, and Java, Rust and Go take a while to build."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def __missing__(self, language: str) -> tuple[Path, Recipe]:
        need(language)
        made, out, recipe = build(self.root / language,
                                  *bot_archive(language, seed=LANGUAGES.index(language)))
        assert made.ok, made.log
        assert made.log.startswith("compiled in "), made.log
        self[language] = (out, recipe)
        return out, recipe

    def every(self) -> dict[str, tuple[Path, Recipe]]:
        return {language: self[language] for language in LANGUAGES}



@pytest.fixture(scope="module")
def bots(tmp_path_factory) -> Bots:
    return Bots(tmp_path_factory.mktemp("bots"))


def seat(name: str, folder: Path, recipe: Recipe, limits: sandbox.Limits | None = None) -> Seat:
    return Seat.external(sandbox.game_command(folder, recipe, limits), "riddles", name=name,
                         tc=TC)


def game_log(log_dir: Path, name: str) -> str:
    return "".join(p.read_text() for p in sorted(log_dir.glob(f"{name}-*/*.log")))


def ended_sandboxes_left() -> list[int]:
    """The sandbox users' living processes whose sandbox has ended: its user is named after
    its launcher's pid, and the launcher is gone. A sandbox still running is another
    test's (pytest-xdist's other worker, another run on this machine), not a leftover."""
    left = []
    for pid in sandbox.leftovers():
        status = process_status(pid)
        if status is None:
            continue  # gone meanwhile
        launcher = process_status(status.uid - sandbox.SANDBOX_UID_BASE)
        if launcher is None or launcher.state in ("Z", "X"):
            left.append(pid)
    return left


def no_leftovers(timeout: float = 5.0) -> list[int]:
    """The processes of ended sandboxes still living once they had `timeout` s to die."""
    deadline = time.monotonic() + timeout
    while ended_sandboxes_left() and time.monotonic() < deadline:
        time.sleep(0.02)
    return ended_sandboxes_left()


class Game(threading.Thread):
    """A game played in a thread of its own."""

    def __init__(self, x: Seat, o: Seat, log_dir: Path) -> None:
        super().__init__(daemon=True)
        self.x, self.o, self.log_dir = x, o, log_dir
        self.result: GameResult | None = None
        self.start()

    def run(self) -> None:
        self.result = play_game(self.x, self.o, log_dir=self.log_dir)

    def finished(self) -> GameResult:
        self.join(60)
        assert self.result is not None
        return self.result

    def log(self, name: str) -> str:
        return game_log(self.log_dir, name)


def normal_game(bots, log_dir: Path) -> Game:
    """A C bot against a Python one: the game beside a hostile one."""
    return Game(seat("c", *bots["c"]), seat("python", *bots["python"]), log_dir)


def check_normal(game: Game) -> None:
    """The game ended by the rules, and neither bot said a word on stderr."""
    assert game.finished().termination in RULES_END, game.finished().reason
    assert not game.log(game.x.name) and not game.log(game.o.name)


def test_the_sandbox_is_available_here():
    assert sandbox.available() is None


def test_available_says_why_not(monkeypatch):
    shown = Path(tempfile.mkdtemp())
    shown.chmod(0o755)  # the sandbox's user runs bwrap: it must reach it
    broken = shown / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\n"
                      "exit 1\n")
    broken.chmod(0o755)
    real = sandbox._tool
    try:
        for fake, why in (("bwrap", "bwrap is not installed (apt-get install bubblewrap)"),
                          (str(broken), "the sandbox does not work here: bwrap: No "
                           "permissions to create new namespace")):
            monkeypatch.setattr(sandbox, "_tool",
                                lambda name, fake=fake: fake if name == "bwrap" else real(name))
            sandbox.available.cache_clear()
            assert sandbox.available() == why
    finally:
        monkeypatch.undo()
        sandbox.available.cache_clear()
        shutil.rmtree(shown)


SLOW = pytest.mark.slow  # builds Java, Rust or Go: `make test-all` and CI run it


@pytest.mark.parametrize("x,o", [pytest.param("python", "java", marks=SLOW), ("c", "cpp"),
                                 ("cpp", "python"), pytest.param("rust", "go", marks=SLOW),
                                 pytest.param("javascript", "rust", marks=SLOW),
                                 pytest.param("go", "javascript", marks=SLOW)])
def test_bots_of_every_language_play_in_the_sandbox(bots, tmp_path, x, o):
    need(x, o)
    result = play_game(seat(x, *bots[x]), seat(o, *bots[o]), log_dir=tmp_path)
    assert result.termination in RULES_END, result.reason
    assert len(result.moves) > 10
    assert not game_log(tmp_path, x) and not game_log(tmp_path, o)
    assert no_leftovers() == []


@SLOW
def test_every_language_plays_the_same_moves(tmp_path):
    """The fixtures' strategies and random generator are the same in every language."""
    games = {}
    need("rust", "go", "javascript")
    for language in ("python", "c", "rust", "go", "javascript"):
        made, out, recipe = build(tmp_path / language,
                                  *bot_archive(language, strategy="center", seed=5))
        assert made.ok, made.log
        games[language] = play_game(seat("x", out, recipe), seat("o", out, recipe)).moves
    assert games["python"] == games["c"] == games["rust"] == games["go"] == games["javascript"]


@SLOW
def test_the_build_keeps_sources_and_results(bots):
    files = {lang: sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
             for lang, (out, _) in bots.every().items()}
    assert files["c"] == ["bot", "bot.c"] and files["cpp"] == ["bot", "bot.cpp"]
    assert files["java"] == ["Bot.class", "Bot.java"]
    assert files["rust"] == ["bot", "main.rs"] and files["go"] == ["bot", "main.go"]
    assert files["javascript"] == ["main.js"]  # Go's build cache stayed in /tmp
    assert "bot.py" in files["python"]
    assert (bots["c"][0] / "bot").stat().st_mode & 0o111


def first_answer(command: str) -> str:
    """What the bot started by `command` answers to the first move of a game."""
    empty, free = ",".join(["."] * 81), ",".join(["-1"] * 9)
    lines = ["settings your_botid 0", f"update game field {empty}",
             f"update game macroboard {free}", "action move 1000"]
    done = subprocess.run(command, shell=True, input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=30)
    return done.stdout.strip() + done.stderr.strip()


@pytest.mark.parametrize("files,language", [
    (["main.py", "helper.c"], "python"), (["gen.py", "bot.cpp"], "cpp"),
    (["a.c", "b.cc"], "cpp"), (["Bot.java", "tools/x.py"], "java"), (["x.c", "README"], "c"),
    (["main.rs", "board.rs"], "rust"), (["main.go", "gen.py"], "go"), (["util.go"], "go"),
    (["main.js", "helper.py"], "javascript"), (["bot.js", "gen.py"], "javascript"),
])
def test_the_language_is_recognised(files, language):
    assert detect(files).name == language


def test_an_unknown_language_is_refused_with_one_line():
    with pytest.raises(ValueError, match=r"^no language recognised: expected main.py, "
                       r"\*.java, \*.cpp, \*.c, main.rs, main.go or main.js at the archive's "
                       r"top level \(it has README.md, src/\)$"):
        detect(["README.md", "src/main.py"])


@pytest.mark.parametrize("files,why", [
    ({"a.py": "", "b.py": ""}, "cannot tell which file starts the python bot: name it main.py"),
    ({"A.java": "class A {}", "B.java": "class B {}"},
     "exactly one class must have `public static void main` (none does)"),
])
def test_a_bot_without_a_clear_entry_fails_to_compile(tmp_path, files, why):
    made, out, _ = build(tmp_path, *pack(files, "bot"))
    assert not made.ok and not out.exists()
    assert made.log == f"compile failed: {why}"


@SLOW
def test_a_java_bot_in_a_package_runs(tmp_path):
    source = bot_source("java")[1]
    made, out, recipe = build(tmp_path, *pack({"uttt/Bot.java": "package uttt;\n" + source},
                                              "bot"))
    assert made.ok, made.log
    assert (out / "uttt" / "Bot.class").exists()
    assert recipe.for_folder(out).run.endswith("-cp . uttt.Bot")
    assert first_answer(sandbox.game_command(out, recipe)) == "place_disc 7 6"


@SLOW
def test_game_commands_get_the_recipes_memory(bots):
    assert f"--as={1024 << 20}" in sandbox.game_command(*bots["java"])
    assert f"--as={512 << 20}" in sandbox.game_command(*bots["c"])
    assert "/usr/bin/python3 -u bot.py" in sandbox.game_command(*bots["python"])
    for language, mb in (("rust", 512), ("go", 1024), ("javascript", 1024)):
        assert f"--as={mb << 20}" in sandbox.game_command(*bots[language])


def run(shell: str, folder: Path,
        limits: sandbox.Limits | None = None) -> subprocess.CompletedProcess[str]:
    """Run `shell` in the sandbox on a copy of `folder`."""
    return subprocess.run(sandbox.command(folder, shell, limits or sandbox.GAME_LIMITS),
                          capture_output=True, text=True, timeout=30)


def test_the_sandbox_shows_only_usr_a_little_etc_and_its_own_folder(tmp_path):
    (tmp_path / "main.py").write_text("x")

    def lines(shell: str) -> list[str]:
        return run(shell, tmp_path).stdout.splitlines()

    assert lines("ls /") == ["bin", "bot", "dev", "etc", "lib", "lib64", "proc", "sbin",
                             "tmp", "usr"]
    assert set(lines("ls /etc")) <= {"alternatives", "java-17-openjdk", "ld.so.cache",
                                     "ld.so.conf", "ld.so.conf.d", "localtime"}
    assert lines("pwd; ls -A") == ["/bot", ".tmp", "main.py"]
    assert int(lines("ls /proc | grep -c '^[0-9]'")[0]) <= 4  # bwrap's init, sh, ls, grep
    uid = int(lines("id -u")[0])
    assert sandbox.SANDBOX_UID_BASE <= uid < sandbox.SANDBOX_UID_BASE + sandbox.PID_SPAN
    assert [line.split(":")[0].strip() for line in lines("cat /proc/net/dev")[2:]] == ["lo"]
    assert lines("for f in /x /usr/x /etc/x /dev/x /proc/x; do touch $f 2>&1; done; "
                 "echo y > /tmp/y && cat .tmp/y") == [
        *(f"touch: cannot touch '{f}': Read-only file system"
          for f in ("/x", "/usr/x", "/etc/x", "/dev/x")),
        "touch: cannot touch '/proc/x': No such file or directory", "y"]


def test_each_sandbox_has_its_own_user(tmp_path):
    (tmp_path / "f").write_text("x")
    procs = [subprocess.Popen(sandbox.command(tmp_path, "sleep 0.3; id -u",
                                              sandbox.GAME_LIMITS),
                              stdout=subprocess.PIPE, text=True) for _ in range(3)]
    uids = {int(p.communicate(timeout=30)[0]) for p in procs}
    assert len(uids) == 3


def test_the_cpu_limit_stops_a_spinning_process(tmp_path):
    (tmp_path / "f").write_text("x")
    t0 = time.monotonic()
    done = run("while :; do :; done", tmp_path, sandbox.Limits(cpu_s=1))
    assert done.returncode in (128 + 9, 128 + 24)  # SIGKILL, SIGXCPU
    # its 1 s of CPU, which a busy machine spreads over seconds; unstopped, `run` would
    # give up at 30 s
    assert time.monotonic() - t0 < 25


def test_compile_errors_are_logged(tmp_path):
    made, out, _ = build(tmp_path, *pack({"bot.c": "int main(void) { return x; }\n"}, "bad"))
    assert not made.ok and not out.exists()
    assert "error: ‘x’ undeclared" in made.log
    assert made.log.endswith("\ncompile failed (exit 1)")


def test_the_compile_log_is_capped(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "f").write_text("x")
    noisy = Recipe("noisy", ("f",), "true", compile="yes 'a long line of output' | head -c 1000000")
    made = sandbox.compile_bot(tmp_path / "src", noisy, tmp_path / "out")
    assert made.ok
    assert len(made.log) < sandbox.LOG_BYTES + 200
    assert "[934464 more bytes of compile output not kept]\ncompiled in" in made.log


def test_a_compile_result_with_a_link_is_refused(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "f").write_text("x")
    linker = Recipe("linker", ("f",), "true", compile="ln -s /etc etc")
    made = sandbox.compile_bot(tmp_path / "src", linker, tmp_path / "out")
    assert not made.ok and not (tmp_path / "out").exists()
    assert made.log.endswith("its result was refused ('./etc' is a link: links are not "
                             "allowed)")


def test_a_compile_that_never_ends_is_stopped(bots, tmp_path):
    beside = normal_game(bots, tmp_path / "beside")
    limits = replace(sandbox.COMPILE_LIMITS, wall_s=2)
    t0 = time.monotonic()
    made, out, recipe = build(tmp_path, *hostile_archive("slow-compile"), limits=limits)
    assert recipe.name == "c"
    # stopped at its 2 s (a busy machine adds seconds to the sandbox's start, not minutes:
    # unstopped, it never ends)
    assert 2 <= time.monotonic() - t0 < 60
    assert not made.ok and not out.exists()
    assert made.log.endswith("compile stopped after 2 s (time limit)")
    assert no_leftovers() == []
    check_normal(beside)


class Hostile(NamedTuple):
    result: GameResult  # of the hostile bot's game
    log: str  # the hostile bot's stderr
    processes: int  # the sandboxes' processes when the normal game began


def hostile_game(bots, tmp_path: Path, name: str, extra: dict[str, str] | None = None,
                 limits: sandbox.Limits | None = None, holds: bool = False) -> Hostile:
    """Play the hostile bot `name` against the C bot while a normal game runs beside it (once
    the hostile bot says HOLDING, if it `holds` its damage for a while)."""
    made, out, recipe = build(tmp_path / "hostile", *hostile_archive(name, extra=extra))
    assert made.ok, made.log
    hostile = Game(seat("hostile", out, recipe, limits), seat("c", *bots["c"]),
                   tmp_path / "logs")
    deadline = time.monotonic() + 20
    while holds and "HOLDING" not in hostile.log("hostile") and time.monotonic() < deadline:
        time.sleep(0.02)
    processes = len(sandbox.leftovers())
    beside = normal_game(bots, tmp_path / "beside")
    check_normal(beside)
    result = hostile.finished()
    assert no_leftovers() == []
    return Hostile(result, hostile.log("hostile"), processes)


def test_a_bot_cannot_read_the_servers_files_or_other_bots(bots, tmp_path, monkeypatch):
    monkeypatch.setenv("NINEFOLD_SERVER_SECRET", MARKER)  # the server's environment
    secret = tmp_path / "secret.txt"
    secret.write_text(MARKER)
    other = bots["python"][0] / "bot.py"
    targets = [str(secret), str(tmp_path), str(other), f"/proc/1/root{secret}", "/tmp",
               str(Path.home())]
    result, log, _ = hostile_game(bots, tmp_path, "reads", {"targets.txt": "\n".join(targets)})
    assert result.termination in RULES_END, result.reason
    for path in [*targets[:4], "/etc/shadow", "/work", "/root", "/proc/1/root/etc/shadow"]:
        assert f"cannot read {path}:" in log, path
    assert MARKER not in log
    assert "READ /tmp: []" in log  # its own, empty /tmp
    assert "READ /proc/1/environ: b''" in log  # its process 1 (bwrap) has an empty one


def host_address() -> str:
    """The host's own address on its network (its loopback's if it has none)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # no packet is sent: it only picks a route
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def test_a_bot_cannot_reach_the_network(bots, tmp_path):
    with socket.create_server(("0.0.0.0", 0)) as server:
        port = server.getsockname()[1]
        targets = f"127.0.0.1 {port}\n{host_address()} {port}\n"
        result, log, _ = hostile_game(bots, tmp_path, "sockets", {"targets.txt": targets})
        server.settimeout(0.2)
        with pytest.raises(TimeoutError):
            server.accept()
    assert result.termination in RULES_END, result.reason
    assert "cannot resolve example.com" in log
    # its own loopback (nobody listens there), and the host's address: out of reach
    assert f"cannot connect to 127.0.0.1:{port}: [Errno 111] Connection refused" in log
    if host_address() != "127.0.0.1":
        assert f"{host_address()}:{port}: [Errno 101] Network is unreachable" in log
    assert "cannot send UDP: [Errno 101] Network is unreachable" in log
    assert "CONNECTED" not in log and "RESOLVED" not in log and "SENT" not in log


def test_a_fork_bomb_is_contained(bots, tmp_path):
    result, log, processes = hostile_game(bots, tmp_path, "fork-bomb", holds=True)
    assert result.termination in RULES_END, result.reason
    assert processes >= 50  # the bomb held its processes while the Java bot started
    assert "fork failed: [Errno 11] Resource temporarily unavailable" in log


def test_a_bot_cannot_fill_the_disk(bots, tmp_path):
    free = shutil.disk_usage(tmp_path).free
    limits = replace(sandbox.GAME_LIMITS, memory_mb=512, disk_mb=96)
    result, log, _ = hostile_game(bots, tmp_path, "fills-disk", limits=limits, holds=True)
    assert result.termination in RULES_END, result.reason
    assert "disk full after 80 MiB: No space left on device" in log
    assert "cannot write a 100 MiB file: File too large" in log
    for path in ("/fill", "/usr/fill", "/dev/shm/fill", "/dev/fill"):
        assert f"cannot write {path}: Read-only file system" in log
    assert "WROTE" not in log
    assert free - shutil.disk_usage(tmp_path).free < 512 << 20  # it tried to write 1 GiB


def test_a_bot_cannot_take_all_the_memory(bots, tmp_path):
    result, log, _ = hostile_game(bots, tmp_path, "allocates", holds=True)
    assert result.termination in RULES_END, result.reason
    assert "MemoryError: 10 GiB refused" in log
    assert "ALLOCATED" not in log
    got = int(log.split("MemoryError after ")[1].split()[0])
    assert 256 <= got <= 512


def test_the_launcher_needs_no_access_to_the_bots_path(bots, tmp_path):
    """The folder is streamed in, not bound: a private (0700) parent folder is fine."""
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    folder = private / "bot"
    shutil.copytree(bots["c"][0], folder)
    assert run("ls", folder).stdout.split() == ["bot", "bot.c"]


def secret_file(folder: Path) -> str:
    """A file of the server's that no bot may read: its path."""
    secret = folder / "secret.txt"
    secret.write_text(MARKER)
    return str(secret)


@SLOW
def test_a_rust_bot_cannot_include_the_servers_files_as_it_compiles(tmp_path):
    need("rust")
    secret = secret_file(tmp_path)
    made, out, recipe = build(tmp_path / "bot",
                              *hostile_archive("rust-includes", extra={"targets.txt": secret}))
    assert recipe.name == "rust"
    assert not made.ok and not out.exists()
    for path in ("/etc/shadow", "../../../etc/passwd", "/proc/1/root/etc/shadow", secret):
        assert f"couldn't read {path}" in made.log, path
    assert MARKER not in made.log
    assert made.log.endswith("compile failed (exit 1)")


@pytest.mark.parametrize("name,language", [pytest.param("go-escapes", "go", marks=SLOW),
                                           ("js-escapes", "javascript")])
def test_go_and_javascript_bots_cannot_read_reach_out_or_multiply(bots, tmp_path, name,
                                                                   language):
    need(language)
    secret = secret_file(tmp_path)
    with socket.create_server(("0.0.0.0", 0)) as server:
        port = server.getsockname()[1]
        targets = f"{secret}\n127.0.0.1 {port}\n{host_address()} {port}\n"
        result, log, _ = hostile_game(bots, tmp_path, name, {"targets.txt": targets})
        server.settimeout(0.2)
        with pytest.raises(TimeoutError):
            server.accept()
    assert result.termination in RULES_END, result.reason
    for path in ("/etc/shadow", "/etc/passwd", "/proc/1/root/etc/shadow", secret):
        assert f"cannot read {path}: " in log, path
    for address in ("example.com:80", f"127.0.0.1:{port}", f"{host_address()}:{port}"):
        assert f"cannot connect to {address}: " in log, address
    if language == "go":
        assert "resource temporarily unavailable" in log  # the thousand processes
    else:
        assert "cannot allocate 2 GiB: Array buffer allocation failed" in log
    for word in ("READ", "CONNECTED", "STARTED", "ALLOCATED", MARKER):
        assert word not in log


# What the seccomp filter refuses, as the `syscalls` bot calls them (x86-64).
REFUSED = ("io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "add_key",
           "request_key", "bpf", "userfaultfd", "perf_event_open", "ptrace",
           "process_vm_readv", "kexec_load", "kexec_file_load", "init_module", "finit_module",
           "delete_module", "mount", "umount2", "pivot_root", "unshare", "setns",
           "personality", "open_by_handle_at", "swapon", "swapoff", "reboot", "acct",
           "quotactl", "lookup_dcookie", "clone(CLONE_NEWUSER)")


def test_a_bot_is_refused_each_dangerous_system_call_and_plays_on(bots, tmp_path):
    require("an x86-64 machine (the bot's call numbers)",
            None if platform.machine() == "x86_64" else platform.machine())
    result, log, _ = hostile_game(bots, tmp_path, "syscalls")
    assert result.termination in RULES_END, result.reason
    assert "Seccomp:\t2" in log  # filtered
    for name in REFUSED:
        assert f"REFUSED {name}: EPERM" in log, name
    assert "ANSWERED" not in log
    assert "THREAD: started" in log  # clone3 answers ENOSYS: threads start through clone
    assert "X32: killed by SIGSYS" in log  # another ABI's call kills
    assert "I386: killed by SIGSYS" in log  # and another architecture's


def need_cgroups() -> cgroups.Tree:
    """The cgroups this host lets the sandbox make (skip, or fail under CI, if none)."""
    tree = cgroups.find()
    require("a writable cgroup (v2 delegated, or v1 as root)", None if tree else "none here")
    assert tree is not None
    return tree


def no_stale_cgroups(timeout: float = 10.0) -> list[str]:
    """The cgroups of ended sandboxes once they had `timeout` s to go (the sweeper's
    period is a second)."""
    deadline = time.monotonic() + timeout
    while cgroups.stale() and time.monotonic() < deadline:
        time.sleep(0.05)
    return cgroups.stale()


def test_a_sandbox_is_capped_as_a_whole(bots, tmp_path):
    """Eight processes of 200 MB each, each under its 512 MiB address space, together over
    the sandbox's 512 MiB: the sandbox is stopped, the bot loses saying why, nothing left."""
    need_cgroups()
    limits = replace(sandbox.GAME_LIMITS, memory_mb=512, total_mb=512)
    result, log, _ = hostile_game(bots, tmp_path, "shares-memory", limits=limits)
    assert result.termination not in RULES_END and result.winner == Mark.O, result.reason
    assert "hostile (X)" in result.reason
    assert ("sandbox: out of memory: its processes together may use 512 MiB; all of them "
            "stopped") in log
    assert "HOLDING" not in log
    assert no_stale_cgroups() == []


def cgroup_value(folder: str, name: str) -> str:
    return Path(folder, name).read_text().strip()


def test_each_sandbox_has_its_own_cgroup_removed_when_it_ends(tmp_path):
    tree = need_cgroups()
    (tmp_path / "f").write_text("x")
    limits = replace(sandbox.GAME_LIMITS, memory_mb=256, disk_mb=64, nproc=20, cpus=0.5)
    for ending, sleep in (("ends", 2), ("killed", 60)):
        proc = subprocess.Popen(sandbox.command(tmp_path, f"echo up; exec sleep {sleep}",
                                                limits),
                                stdout=subprocess.PIPE, text=True, start_new_session=True)
        assert proc.stdout is not None and proc.stdout.readline() == "up\n"
        folders = cgroups.sandboxes()[proc.pid]
        assert len(folders) == len(tree.parents)
        values = {}
        for folder in folders:
            for name in ("memory.limit_in_bytes", "memory.max", "pids.max",
                         "cpu.cfs_quota_us", "cpu.max"):
                if Path(folder, name).exists():
                    values[name] = cgroup_value(folder, name)
        memory = values.get("memory.limit_in_bytes") or values["memory.max"]
        assert int(memory) == (256 + 64) << 20
        assert values["pids.max"] == str(20 + sandbox.LAUNCHER_TASKS)
        if "cpu" in tree.controllers():
            quota = values.get("cpu.cfs_quota_us") or values["cpu.max"].split()[0]
            assert quota == "50000"
        if ending == "ends":  # it ends by itself: its cgroup goes with it
            assert proc.wait(30) == 0
            assert proc.pid not in cgroups.sandboxes()
        else:  # its launcher killed outright, as a game's supervisor does: swept
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
            assert no_stale_cgroups() == []
        assert no_leftovers() == []


def test_without_cgroups_the_server_says_so_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(cgroups, "find", lambda: None)
    assert sandbox.setup_line().startswith(
        "sandbox: no delegated cgroup: limits are per process (rlimits); ")
    assert sandbox.command(tmp_path, "true", sandbox.GAME_LIMITS)[0] == "/bin/sh"
    (tmp_path / "f").write_text("x")
    assert run("cat f", tmp_path).stdout == "x"  # rlimits only, as before


def test_the_seccomp_filter_is_compiled_by_libseccomp():
    program = seccomp.program()
    assert len(program) % 8 == 0 and len(program) > 8 * len(seccomp.DENIED)  # sock_filters
    assert sandbox.setup_line().endswith("; seccomp deny-list on")


def test_a_delegated_cgroup_v2_folder_is_found_and_capped(monkeypatch, tmp_path):
    """cgroup v2 (not on this host: its controllers are v1's): a folder of this process's
    that hands memory and pids down is used, and a sandbox's limits are written there;
    without them, the folder named by NINEFOLD_SANDBOX_CGROUP; else v1, else none."""
    own, named = tmp_path / "service", tmp_path / "named"
    for folder, handed in ((own, "cpu memory pids"), (named, "memory pids")):
        folder.mkdir()
        (folder / "cgroup.subtree_control").write_text(handed + "\n")
    mounts = [("/", str(tmp_path), "cgroup2", "rw")]
    monkeypatch.setattr(cgroups, "_mounts", lambda: mounts)
    monkeypatch.setattr(cgroups, "_own", lambda: {"": "/service"})
    monkeypatch.delenv(cgroups.VARIABLE, raising=False)
    tree = cgroups.Tree(2, {"unified": str(own)})
    cgroups.find.cache_clear()
    try:
        assert cgroups.find() == tree
        assert tree.line() == ("sandbox: cgroup v2 (memory, pids, cpu): each build and game "
                               "capped as a whole")
        (own / "cgroup.subtree_control").write_text("cpu\n")  # memory not handed down
        cgroups.find.cache_clear()
        assert cgroups.find() is None
        (own / "cgroup.controllers").write_text("cpu io memory pids\n")  # but offered
        cgroups.find.cache_clear()
        cgroups.find()  # asks for them (a real cgroup would list them: a file does not)
        assert cgroup_value(str(own), "cgroup.subtree_control") == "+memory +pids"
        (own / "cgroup.controllers").unlink()
        (own / "cgroup.subtree_control").write_text("cpu\n")
        monkeypatch.setenv(cgroups.VARIABLE, str(named))
        cgroups.find.cache_clear()
        assert cgroups.find() == cgroups.Tree(2, {"unified": str(named)})
    finally:
        cgroups.find.cache_clear()
    made = confine.make({"unified": str(named)}, 320 << 20, 36, 50_000, 100_000)
    folder = Path(made["unified"])
    assert folder.name == f"sandbox-{os.getpid()}"
    assert {name: cgroup_value(str(folder), name) for name in
            ("memory.max", "memory.swap.max", "pids.max", "cpu.max")} == {
        "memory.max": str(320 << 20), "memory.swap.max": "0", "pids.max": "36",
        "cpu.max": "50000 100000"}


def test_the_setup_is_said_once_as_the_first_sandbox_starts(monkeypatch, caplog, tmp_path):
    monkeypatch.setattr(cgroups, "find", lambda: None)
    sandbox.announce.cache_clear()
    try:
        with caplog.at_level(logging.INFO, logger="ninefold.platform.sandbox"):
            for _ in range(3):
                sandbox.command(tmp_path, "true", sandbox.GAME_LIMITS)
    finally:
        sandbox.announce.cache_clear()
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.WARNING, "sandbox: no delegated cgroup: limits are per process (rlimits); "
                          "seccomp deny-list on")]
