"""The extras (`ninefold.extras`): each missing one is answered with the one line that installs
it, through the real commands, in a process where the extra's packages are hidden; the light
commands run without any of them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest
from webserver import start_server, stop_server

from ninefold.extras import EXTRAS

ROOT = Path(__file__).resolve().parent.parent
NINEFOLD = str(Path(sys.executable).with_name("ninefold"))  # this venv's console script

# the import hook a hidden extra's process starts with: each module named in
# NINEFOLD_HIDE is not there (its import fails, importlib.util.find_spec finds nothing)
SITECUSTOMIZE = """\
import os, sys
for name in os.environ["NINEFOLD_HIDE"].split(","):
    sys.modules[name] = None
"""


def hiding(tmp_path: Path, *extras: str) -> dict[str, str]:
    """An environment whose Python cannot import the modules of `extras`."""
    folder = tmp_path / "hide"
    folder.mkdir(exist_ok=True)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    hidden = [module for extra in extras for module in EXTRAS[extra]]
    return {**os.environ, "PYTHONPATH": str(folder), "NINEFOLD_HIDE": ",".join(hidden)}


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The process's only line of stderr (no traceback)."""
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def install_line(what: str, extra: str) -> str:
    return rf"{re.escape(what)}: needs the {extra} extra \(.+ missing\): " \
           rf"pip install 'ninefold\[{extra}\]'"


def test_the_extras_table_is_pyproject_s():
    """Each extra's packages are in its extra (and the test extra), none in the core list."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(requirements: list[str]) -> set[str]:
        return {re.split(r"[\s\[<>=;!~]", r, maxsplit=1)[0].lower() for r in requirements}

    def expanded(extra: str) -> set[str]:  # "ninefold[rl,train]": those extras' packages
        own = names(project["optional-dependencies"][extra])
        included = [r for r in project["optional-dependencies"][extra] if r.startswith("ninefold[")]
        more = [expanded(e) for r in included for e in r[len("ninefold["):-1].split(",")]
        return (own - {"ninefold"}).union(*more)

    core = names(project["dependencies"])
    optional = {extra: expanded(extra) for extra in project["optional-dependencies"]}
    for extra, modules in EXTRAS.items():
        wanted = set(modules.values())
        assert wanted <= optional[extra], (extra, wanted - optional[extra])
        assert wanted <= optional["test"], (extra, wanted - optional["test"])
        assert not wanted & core, (extra, wanted & core)


@pytest.mark.parametrize(("args", "what"), [
    (["platform", "admin", "ann", "--db", "sqlite:///platform.sqlite"], "ninefold platform"),
    (["platform", "worker", "--db", "sqlite:///platform.sqlite"], "ninefold platform"),
    (["serve", "--port", "0", "--platform", "sqlite:///platform.sqlite"],
     "ninefold serve --platform"),
    (["serve", "--port", "0", "--db", "postgresql+psycopg://ann@127.0.0.1:1/games"],
     "ninefold serve --db postgresql"),
], ids=["admin", "worker", "serve-platform", "serve-postgres"])
def test_without_the_platform_extra_its_commands_say_how_to_install_it(tmp_path, args, what):
    done = run([NINEFOLD, *args], hiding(tmp_path, "platform"), tmp_path)
    assert re.fullmatch("error: " + install_line(what, "platform"), one_line(done))
    assert done.returncode == 2
    assert not (tmp_path / "platform.sqlite").exists()  # nothing was started


def test_a_bot_author_needs_no_platform_extra(tmp_path):
    """``platform starter`` (and upload, over HTTP) run on the light install."""
    done = run([NINEFOLD, "platform", "starter", "python", "--out", "bot.zip"],
               hiding(tmp_path, "platform"), tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "bot.zip").stat().st_size > 0


def test_the_web_board_serves_without_any_extra(tmp_path):
    env = hiding(tmp_path, *EXTRAS)
    proc, url = start_server(tmp_path / "web.sqlite", 0, ninefold=[NINEFOLD], env=env)
    try:
        with urllib.request.urlopen(url + "/", timeout=60) as answer:
            page = answer.read().decode()
        assert answer.status == 200 and 'id="board"' in page
    finally:
        stop_server(proc)


@pytest.mark.parametrize("module", ["ninefold.learn", "ninefold.learn.distill"])
def test_without_the_train_extra_training_says_how_to_install_it(tmp_path, module):
    done = run([sys.executable, "-m", module, "--out", "run"], hiding(tmp_path, "train"),
               tmp_path)
    assert re.fullmatch(install_line(f"python -m {module}", "train"), one_line(done))
    assert done.returncode == 1
    assert not (tmp_path / "run").exists()


def test_without_the_rl_extra_the_environments_say_how_to_install_it(tmp_path):
    env = hiding(tmp_path, "rl")
    for module in ("single", "aec"):
        done = run([sys.executable, "-c", f"import ninefold.env.{module}"], env, tmp_path)
        assert done.returncode == 1
        assert re.fullmatch("ninefold.extras.MissingExtra: " + install_line(
            f"ninefold.env.{module}", "rl"), done.stderr.strip().splitlines()[-1])
    # the batched environment needs neither Gymnasium nor PettingZoo
    done = run([sys.executable, "-c", "from ninefold.env import BatchedEnv; BatchedEnv(2)"],
               env, tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow  # two processes, one loading PyTorch: `make test-all` and CI run it
def test_without_the_cluster_extra_ray_says_how_to_install_it(tmp_path):
    env = hiding(tmp_path, "cluster")
    done = run([NINEFOLD, "platform", "run", "--ray", "auto", "--workers", "0",
                "--db", "sqlite:///platform.sqlite"], env, tmp_path)
    assert re.fullmatch("error: " + install_line("--ray", "cluster"), one_line(done))
    assert done.returncode == 2
    pytest.importorskip("torch")
    done = run([sys.executable, "-m", "ninefold.learn", "--out", "run", "--ray", "auto"], env,
               tmp_path)
    assert re.fullmatch("ninefold.learn: " + install_line("--ray", "cluster"), one_line(done))
    assert done.returncode == 1


def make_variable(name: str) -> list[str]:
    """A variable of the Makefile, as make reads it."""
    done = subprocess.run(["make", "-s", "-f", "Makefile", f"--eval=show-it: ; @echo $({name})",
                           "show-it"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_makefile_installs_the_debian_packages_its_comment_names():
    """``make run``'s Debian packages (the sandbox, .rar uploads, the compiler of each language
    in recipes.toml) and ``make test``'s (those, and what the tests drive), as the comment says."""
    run_debs, test_debs = make_variable("RUN_DEBS"), make_variable("DEBS")
    packages = {name: [pair.split(":")[1] for pair in pairs]
                for name, pairs in (("run", run_debs), ("test", test_debs))}
    comment = (ROOT / "Makefile").read_text()
    said_run = re.search(r"^# make run: (.+)$", comment, re.M)
    said_test = re.search(r"^# make test: the same, and (.+)$", comment, re.M)
    assert said_run and said_test
    assert said_run.group(1).split() == packages["run"]
    assert packages["run"] + said_test.group(1).split() == packages["test"]
    recipes = tomllib.loads((ROOT / "src/ninefold/platform/recipes.toml").read_text())
    compilers = {word for recipe in recipes.values() for word in recipe.get("compile", "").split()
                 if word.startswith("/usr/bin/")}
    assert compilers and compilers <= {pair.split(":")[0] for pair in run_debs}
