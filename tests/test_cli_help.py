"""The command line's help as an 80-column terminal shows it: the commands grouped,
``play`` first, summaries whole, choices shown as choices, ``ninefold bot --help``
like the rest; and ``ninefold train``, the training commands.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from ninefold.cli import PANELS
from ninefold.players import load_all

NINEFOLD = [sys.executable, "-m", "ninefold"]  # the console script's way: `ninefold.command`
COLUMNS = {**os.environ, "COLUMNS": "80", "LINES": "50"}


def help_of(*args: str) -> str:
    done = subprocess.run([*NINEFOLD, *args, "--help"], capture_output=True, text=True,
                          timeout=120, env=COLUMNS)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


def sections(text: str) -> dict[str, list[str]]:
    """Each section's heading -> the names in its first column."""
    found: dict[str, list[str]] = {}
    heading = None
    for line in text.splitlines():
        if re.fullmatch(r"[A-Z][\w ]*:", line):
            heading = line[:-1]
            found[heading] = []
        elif heading and (name := re.match(r"  (\S+)", line)):
            found[heading].append(name.group(1))
    return found


def whole(text: str) -> None:
    """No line of `text` is wider than 80 columns, no summary is cut ("...")."""
    for line in text.splitlines():
        assert len(line) <= 80, line
        assert line.startswith("Usage: ") or not line.endswith("..."), line


def test_root_help_groups_the_commands_with_play_first_and_whole_summaries():
    text = help_of()
    groups = {k: v for k, v in sections(text).items() if k not in ("Usage", "Options")}
    assert list(groups) == list(PANELS)  # no command outside a group ("Commands:")
    assert groups["Play"][0] == "play"
    assert {"bot", "check-bot", "match", "tournament"} <= set(groups["Bots and arena"])
    assert {"serve", "platform"} <= set(groups["Platform"])
    assert {"train", "prove", "perft", "bench", "warmup"} <= set(groups["Research"])
    whole(text)


@pytest.mark.parametrize("group", [["platform"], ["classic"], ["train"]])
def test_every_summary_of_a_group_is_whole(group):
    text = help_of(*group)
    commands = [name for heading, names in sections(text).items() if heading != "Options"
                for name in names]
    assert len(commands) >= 2
    whole(text)


def test_platform_help_groups_the_operator_s_and_the_author_s_commands():
    groups = {k: v for k, v in sections(help_of("platform")).items() if k != "Options"}
    assert groups == {"Running it": ["worker", "run"],
                      "Setting up contests": ["admin", "organiser", "contest", "times", "house"],
                      "Bot authors": ["starter", "token", "upload"]}


@pytest.mark.parametrize(("command", "shown"), [
    (["bot"], "--protocol <aigames|riddles|codingame>"),
    (["check-bot"], "--protocol <aigames|riddles|codingame>"),
    (["match"], "--protocol1 <aigames|riddles|codingame>"),
    (["play"], "--first <human|computer>"),
    (["prove"], "--guide <paper|diagonal|none|safe|refill>"),
    (["classic", "play"], "--view <tictactoe|pick15|magic15>"),
    (["classic", "stats"], "--x <random|naive|centre|perfect>"),
    (["platform", "starter"], "<python|java|cpp|c|rust|go|javascript>"),
    (["platform", "contest"], "--openings <random4|none>"),
    (["train", "rounds"], "--device <cpu|cuda|auto>"),
    (["train", "distill"], "--rules <standard|codingame|open-boards|tic-tac-ku>"),
])
def test_options_of_a_fixed_set_show_their_choices(command, shown):
    assert shown in help_of(*command)


@pytest.mark.parametrize("command", [["play"], ["bot"], ["match"]])
def test_a_player_option_names_the_players(command):
    text = " ".join(help_of(*command).split())
    assert "e.g. mcts:ms=100" in text
    # ninefold's players (not those a test module registers in this process: the help
    # comes from a fresh one; under pytest-xdist a worker may have run test_startup first)
    shipped = [name for name, kind in load_all().items()
               if kind.factory.__module__.startswith("ninefold.")]
    assert ", ".join(sorted(shipped)) in text


def test_rules_options_name_the_presets():
    text = " ".join(help_of("play").split()).replace("- ", "-")
    assert "standard, codingame, open-boards, tic-tac-ku" in text


def test_bot_help_is_the_typer_help_with_the_same_sections():
    """``ninefold bot --help`` (the lean entry point) prints what the other commands print:
    typer's Usage / text / Options layout, choices shown."""
    lean = help_of("bot")
    assert lean.startswith("Usage: ninefold bot [OPTIONS]\n")
    assert list(sections(lean)) == ["Options"]
    assert "-h, --help" in lean

    def protocol_rows(text: str) -> list[str]:
        lines = text.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("  --protocol"))
        return lines[at:at + 2]

    assert protocol_rows(lean) == protocol_rows(help_of("check-bot"))  # typer's own layout
    short = subprocess.run([*NINEFOLD, "bot", "-h"], capture_output=True, text=True,
                           timeout=120, env=COLUMNS)
    assert short.stdout == lean


def test_the_old_option_names_still_work(tmp_path):
    """``--opponent`` is play's ``--player``, ``--output`` export's ``--out``: the commands
    read both (and get as far as checking their values)."""
    for flag in ("--player", "--opponent"):
        done = subprocess.run([*NINEFOLD, "play", flag, "chess"], capture_output=True,
                              text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert done.returncode == 2 and "unknown player 'chess'" in done.stderr, done.stderr
    for flag in ("--out", "--output", "-o"):
        done = subprocess.run([*NINEFOLD, "export", str(tmp_path / "none.db"), flag,
                               str(tmp_path / "games.txt")], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2 and "none.db" in done.stderr, done.stderr
        assert "No such option" not in done.stderr


def test_train_lists_its_commands():
    assert sections(help_of("train"))["Commands"] == ["rounds", "distill"]


@pytest.mark.parametrize(("args", "says"), [
    (["rounds", "--device", "gpu"], "error: Invalid value for --device: 'gpu': not cpu, cuda "
                                    "or auto"),
    pytest.param(["distill", "--teacher", "{tmp}/none.npz"],
                 "error: --teacher: no network file '{tmp}/none.npz'",
                 marks=pytest.mark.slow),  # a process loading PyTorch: test-all runs it
])
def test_train_refuses_bad_options_in_one_line(tmp_path, args, says):
    pytest.importorskip("torch")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    done = subprocess.run([*NINEFOLD, "train", *args, "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(says.replace("{tmp}", str(tmp_path))), done.stderr
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("command", ["rounds", "distill"])
def test_train_without_torch_names_the_extra_in_one_line(tmp_path, command):
    from test_extras import hiding

    env = {**hiding(tmp_path, "train"), "COLUMNS": "80"}
    done = subprocess.run([*NINEFOLD, "train", command, "--out", "run"], capture_output=True,
                          text=True, timeout=120, env=env, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"error: ninefold train {command}: needs the train extra (torch is "
                           "missing): pip install 'ninefold[train]'\n")
    assert not (tmp_path / "run").exists()
    listed = subprocess.run([*NINEFOLD, "train", "--help"], capture_output=True, text=True,
                            timeout=120, env=env, cwd=tmp_path)
    assert listed.returncode == 0 and "rounds" in listed.stdout


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out (self-play, torch)
def test_train_rounds_runs_a_tiny_round_and_writes_its_outputs(tmp_path):
    """A round of four self-play games, one epoch and a two-game gating match."""
    pytest.importorskip("torch")
    from ninefold.players.net import load_net, net_meta

    out = tmp_path / "run"
    args = ["train", "rounds", "--out", str(out), "--rounds", "1", "--first-games", "4",
            "--pure-sims", "20", "--epochs", "1", "--gate-pairs", "1", "--gate-sims", "10",
            "--workers", "1"]
    done = subprocess.run([*NINEFOLD, *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == str(out / "net_0.npz")
    assert {p.name for p in out.iterdir()} == {"data_0.npz", "net_0.npz", "rounds.jsonl",
                                               "rounds.png"}
    load_net(out / "net_0.npz")
    assert net_meta(out / "net_0.npz")["command"] == "ninefold " + " ".join(args)
    assert "round 0: self-play, 4 games" in done.stderr  # the progress, as it goes
    assert "epoch 1/1" in done.stderr
