"""The benchmarks that play real bot processes (`bot_clock.py`, `strength.py --subprocess`)
run end to end on tiny settings, so they cannot rot. No assertion on speed.

All of them are `slow` (about 3.5 minutes on two cores): `make test-all` and CI run them,
`make test` leaves them out."""

from __future__ import annotations

import doctest
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))

import botgames  # noqa: E402
import compare_runs  # noqa: E402
import openspiel_mcts  # noqa: E402

from ninefold.arena.referee import GameResult, Seat, play_game  # noqa: E402
from ninefold.protocols import TimeControl  # noqa: E402
from ninefold.rules import Board, Mark, Outcome, Rules, Termination  # noqa: E402


def run(script: str, *args: str, timeout: float = 300,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                          text=True, timeout=timeout,
                          env=dict(os.environ, COLUMNS="200", **(env or {})))


@pytest.mark.parametrize("module", [botgames, compare_runs, openspiel_mcts])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


def test_bot_requests_replay_the_referees_clock():
    # After a four-move opening X moves first: its answers took 9.7 s, 0.3 s, 1.2 s, so
    # it was told the 10 s bank, then 10000 - 9700 + 500, then 800 - 300 + 500.
    result = GameResult(x="a", o="b", rules=Rules(), opening="53271", moves=[],
                        times_ms=[9700.0, 50.0, 300.0, 60.0, 1200.0],
                        outcome=Outcome(Mark.O, Termination.TIME_FORFEIT), reason="a (X)")
    tc = TimeControl(bank_ms=10000, increment_ms=500)
    asked = botgames.bot_requests(result, Mark.X, tc)
    assert [(q.turn, q.limit_ms, q.ms) for q in asked] == [
        (0, 10000.0, 9700.0), (1, 800.0, 300.0), (2, 1000.0, 1200.0)]
    assert [q.late for q in asked] == [False, False, True]
    o_limits = [q.limit_ms for q in botgames.bot_requests(result, Mark.O, tc)]
    assert o_limits == [10000.0, 10000.0]  # never above the bank's maximum
    assert botgames.lost_on_time(result, Mark.X) and not botgames.lost_on_time(result, Mark.O)


def test_openspiel_bot_plays_whole_codingame_games():
    tc = TimeControl(turn_ms=100, first_turn_ms=1000, slack_ms=2000, first_move_ms=5000)
    bot = Seat.external(botgames.openspiel_command("codingame", ms=30), "codingame",
                        name="openspiel", tc=tc)
    for x, o in ((bot, Seat.builtin("random:seed=3")), (Seat.builtin("random:seed=4"), bot)):
        result = play_game(x, o, rules="codingame")
        assert result.termination not in (Termination.BOT_FAILURE, Termination.ILLEGAL_MOVE)
        assert len(result.times_ms) >= 10


def test_bot_clock_runs_a_tiny_measure():
    done = run("bot_clock.py", "--protocols", "codingame", "--no-cold", "--starts", "1",
               "--turns", "3", "--opponent", "random")
    assert done.returncode == 0, done.stderr
    for text in ("first answer, warm cache", "time used a turn", "time-outs", "median ≥ 85",
                 "a sleeping process"):
        assert text in done.stdout


def test_bot_clock_times_a_c_control_bot_beside_ninefold():
    done = run("bot_clock.py", "--protocols", "codingame", "--no-cold", "--starts", "1",
               "--turns", "20", "--opponent", "random", "--control", "30")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if "time used a turn" in line]
    assert len(rows) == 2 and "control: C, spins 30 ms" in rows[1], done.stdout
    median = int(rows[1].split("│")[4].split(" ms")[0])
    assert 30 <= median < 60, rows[1]  # it answers once it has spun its 30 ms
    bad = run("bot_clock.py", "--protocols", "codingame", "--control", "100", "--turns", "1")
    assert bad.returncode == 2 and "--control" in bad.stderr and "Traceback" not in bad.stderr


def test_env_speed_runs_every_row():
    done = run("env_speed.py", "--seconds", "0.05", "--rounds", "1")
    assert done.returncode == 0, done.stderr
    for row in ("kernel random playouts", "OpenSpiel", "PettingZoo AEC", "Gymnasium",
                "BatchedEnv planes N=4096", "BatchedEnv state N=4096", "numba loop N=4096",
                "Half the kernel's random-playout moves/s"):
        assert row in done.stdout


def test_net_speed_compares_this_tree_with_a_revision():
    done = run("net_speed.py", "--rev", "HEAD", "--seconds", "0.05", "--rounds", "1")
    assert done.returncode == 0, done.stderr
    for row in ("simulations, net, empty board", "simulations, net, mid-game",
                "simulations, no network, empty board", "network evaluations"):
        assert row in done.stdout
    assert "HEAD" in done.stdout and "x" in done.stdout.split("network evaluations")[1]


def test_sim_parts_times_each_part_against_the_shipped_network():
    done = run("sim_parts.py", "--plies", "10,30", "--positions", "20", "--reps", "1",
               "--rounds", "1")
    assert done.returncode == 0, done.stderr
    for row in ("playout", "fast features", "fast first layer", "accumulator update",
                "fast evaluation", "fast, no policy", "shipped network"):
        assert row in done.stdout
    assert "(1.00x)" in done.stdout.split("shipped network")[-1]
    bad = run("sim_parts.py", "--plies", "ten")
    assert bad.returncode == 2 and "--plies must be numbers" in bad.stderr


def test_strength_figure_draws_the_matches_and_prints_the_guides_table(tmp_path):
    import strength_figure

    out = tmp_path / "strength.png"
    done = run("strength_figure.py", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 10_000 and out.read_bytes()[:4] == b"\x89PNG"
    rows = [line for line in done.stdout.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + len(strength_figure.MATCHES)
    guide = (BENCH.parent / "docs" / "guide" / "strength.md").read_text()
    for row in rows:  # the guide shows the table as the script prints it
        assert row in guide, row


def test_net_speed_times_another_weights_file():
    from ninefold.players.net_inputs import DEFAULT_PATH

    done = run("net_speed.py", "--rev", "HEAD", "--net", str(DEFAULT_PATH), "--mix", "0",
               "--seconds", "0.05", "--rounds", "1")
    assert done.returncode == 0, done.stderr
    assert "network evaluations" in done.stdout
    bad = run("net_speed.py", "--rev", "HEAD", "--mix", "1.5", "--seconds", "0.05")
    assert bad.returncode == 2 and "--mix" in bad.stderr
    bad = run("net_speed.py", "--rev", "HEAD", "--net", "no-such.npz", "--seconds", "0.05",
              "--rounds", "1")
    assert bad.returncode != 0 and "no network file 'no-such.npz'" in bad.stderr


def test_bot_clock_refuses_an_unknown_protocol():
    done = run("bot_clock.py", "--protocols", "codingame,nope", "--turns", "1")
    assert done.returncode == 2 and "--protocols" in done.stderr


def test_strength_subprocess_against_openspiel(tmp_path):
    # The bots start 5 s before each game (--settle-ms), so A's search is loaded before its
    # first turn however busy the machine: without it, a search still loading beside three
    # other test workers lost on time at its second or third turn, before its log could say
    # "engine ready" (a fresh-clone CI run, 2026-12-03)
    done = run("strength.py", "mcts:ms=5", "openspiel", "--subprocess", "--games", "2",
               "--ms", "200", "--first-move-ms", "5000", "--settle-ms", "5000",
               "--logs", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert ("bot processes speaking codingame, turn=200,first=1000; bots settled 5000 ms "
            "before the first request, 2 games") in done.stdout
    assert "lost on time: A" in done.stdout and "A (mcts:ms=5): time a turn" in done.stdout
    assert "a sleeping process" in done.stdout  # the machine's stalls, beside the time losses
    logs = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.log"))
    assert logs == ["A-O/A_B_0_1.log", "A-X/A_B_0_0.log", "B-O/A_B_0_0.log", "B-X/A_B_0_1.log"]
    for log in ("A-X/A_B_0_0.log", "A-O/A_B_0_1.log"):  # loaded before its first turn
        assert (tmp_path / log).read_text().startswith("ninefold: engine ready after"), log


def test_strength_subprocess_bank_mode_reports_banks(tmp_path):
    png = tmp_path / "banks.png"
    done = run("strength.py", "random", "random:seed=2", "--subprocess", "--protocol",
               "riddles", "--games", "2", "--bank", "3000", "--inc", "100", "--plot", str(png))
    assert done.returncode == 0, done.stderr
    assert "riddles, bank=3000,inc=100" in done.stdout
    assert done.stdout.count("bank left from its 10th move") == 2
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_strength_gives_time_odds_to_a_through_the_referees_clock(tmp_path):
    saved = tmp_path / "odds.jsonl"
    done = run("strength.py", "random", "random:seed=2", "--subprocess", "--protocol",
               "riddles", "--games", "2", "--bank", "3000", "--inc", "100", "--odds", "2",
               "--save", str(saved))
    assert done.returncode == 0, done.stderr
    assert "riddles, bank=3000,inc=100; time odds: A's clock x2 (bank=6000,inc=200)" \
        in done.stdout
    banks = [line for line in done.stdout.splitlines() if "bank left from its 10th" in line]
    medians = [int(line.split("median ")[1].split(" ms")[0]) for line in banks]
    assert medians[0] > 3000 >= medians[1], banks  # A's bank is twice B's, and refills so
    head = saved.read_text().splitlines()[0]
    assert '"odds": 2.0' in head  # another match than the same run without odds


def test_strength_settles_the_bots_before_each_game_and_keeps_it_apart(tmp_path):
    saved = tmp_path / "settled.jsonl"
    args = ("random", "random:seed=2", "--subprocess", "--protocol", "riddles", "--games", "2",
            "--bank", "3000", "--inc", "100")
    done = run("strength.py", *args, "--settle-ms", "300", "--save", str(saved))
    assert done.returncode == 0, done.stderr
    assert "bots settled 300 ms before the first request" in done.stdout
    assert '"settle_ms": 300' in saved.read_text().splitlines()[0]
    other = run("strength.py", *args, "--save", str(saved))  # unsettled: another match
    assert other.returncode == 2 and "holds games of another run (match differ)" in other.stderr


def test_strength_gives_time_odds_in_process_too():
    done = run("strength.py", "random", "random:seed=2", "--ms", "5", "--games", "2",
               "--odds", "3")
    assert done.returncode == 0, done.stderr
    assert "5 ms/move; time odds: A's clock x3" in done.stdout
    bad = run("strength.py", "random", "random", "--odds", "0")
    assert bad.returncode == 2 and "--odds" in bad.stderr and "Traceback" not in bad.stderr


def test_strength_subprocess_openspiel_speaks_codingame_only():
    done = run("strength.py", "mcts", "openspiel", "--subprocess", "--protocol", "riddles")
    assert done.returncode == 2 and "codingame only" in done.stderr


def test_strength_plays_ninefold_at_a_git_revision(tmp_path):
    """SPEC@REV: the source at a git revision, exported once (here into an empty folder, so
    its numba cache is empty too), plays as a bot process with its search from the first
    game on. Today's bot answers its first request from a book while a child compiles the
    search, so a warm-up by one first answer left the cache empty and the first games to
    the fallback player."""
    revisions, logs = tmp_path / "revisions", tmp_path / "logs"
    done = run("strength.py", "random", "mcts:sims=50@HEAD", "--subprocess", "--protocol",
               "riddles", "--games", "2", "--bank", "3000", "--inc", "100", "--logs", str(logs),
               env={"NINEFOLD_REVISIONS": str(revisions)})
    assert done.returncode == 0, done.stderr
    assert "random vs mcts:sims=50@HEAD" in done.stdout
    assert "0 games lost by a fault" not in done.stdout and "lost on time: A 0, B 0" in done.stdout
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True, cwd=BENCH.parent).stdout.strip()
    assert (revisions / head / "src" / "ninefold" / "rules.py").is_file()
    for log in sorted(logs.glob("B-*/*.log")):
        text = log.read_text()
        assert "engine ready" in text and "compiling" not in text, (log.name, text)


def test_strength_tells_b_a_longer_turn_and_gives_it():
    """--b-turn-ms: B's bot (benchmarks/told_turn.py) plans its turns on the time it is told,
    and the referee gives it that time. Not told, the bot would stop within CodinGame's 100
    ms; told 400 ms, its `ms=200` search runs out its 200 ms (twice what CodinGame's turn
    would allow: lost on time, were the 400 ms not given), and no turn is late. (The
    first answers get the allowance every match here uses; in a CI run B's first answer
    passed 1,000 ms when told_turn.py still started it through ``ninefold.cli``. With
    `ms=300` a CI run under four test workers once lost a game at ply 32: 100 ms of room
    was too little on a loaded machine, 200 ms is the test's margin now.)"""
    done = run("strength.py", "random", "mcts:ms=200", "--subprocess", "--protocol",
               "codingame", "--games", "2", "--b-turn-ms", "400", "--first-move-ms", "3000")
    assert done.returncode == 0, done.stderr
    assert "turn=100,first=1000; B told and given 400 ms a turn" in done.stdout
    assert "lost on time: A 0, B 0" in done.stdout
    line = next(x for x in done.stdout.splitlines() if x.startswith("B (mcts:ms=200)"))
    assert int(line.split("time a turn median ")[1].split(" ms")[0]) > 150, line


@pytest.mark.parametrize("told_turn_ms", [None, 300])
def test_a_revisions_bot_starts_the_lean_way(told_turn_ms):
    """A bot run from a revision's source (``SPEC@REV``), told a turn or not, starts through
    the entry point the console script uses: no typer, rich, numpy or numba before its
    first answer. (Through ``ninefold.cli`` it read its first request after about a
    second, and half its first answers as X passed CodinGame's 1,000 ms.)"""
    argv = botgames.ninefold_argv(BENCH.parent / "src", told_turn_ms)
    at = argv.index(sys.executable) + 1
    argv[at:at] = ["-X", "importtime"]  # this process's imports, on stderr
    done = subprocess.run([*argv, "bot", "--protocol", "codingame"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:") and "|" in line}
    assert "ninefold.command" in imported
    assert not imported & {"typer", "rich", "numpy", "numba"}, sorted(imported)


@pytest.mark.parametrize(("args", "words"), [
    (("random", "random@no-such-revision", "--subprocess", "--protocol", "riddles"),
     "git knows no revision"),
    (("random", "random", "--b-turn-ms", "300"), "add --subprocess --protocol codingame"),
    (("random", "random", "--subprocess", "--b-turn-ms", "0"), "give 1 to 60000 ms"),
    (("random", "openspiel", "--subprocess", "--protocol", "codingame", "--b-turn-ms", "300"),
     "the OpenSpiel bot thinks --ms"),
    (("random", "random@HEAD"), "add --subprocess"),
    (("random", "random", "--plot", "x.png"), "add --subprocess"),
    (("random", "random", "--settle-ms", "1000"), "add --subprocess"),
    (("random", "random", "--subprocess", "--protocol", "riddles", "--plot", "/no/such/x.png"),
     "no folder /no/such"),
])
def test_strength_refuses_bad_options_in_one_line(args, words):
    done = run("strength.py", *args)
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_runs_compares_runs_of_one_match_and_refuses_another_in_one_line(tmp_path):
    args = ("random", "random:seed=2", "--ms", "5", "--games", "6")
    files = [tmp_path / f"run{seed}.jsonl" for seed in (1, 2)]
    for seed, path in zip((1, 2), files, strict=True):
        done = run("strength.py", *args, "--seed", str(seed), "--save", str(path))
        assert done.returncode == 0, done.stderr
    done = run("compare_runs.py", *map(str, files))
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith(("1 run", "2 run"))]
    assert len(rows) == 2 and all(" 6 " in row for row in rows), done.stdout
    assert "the runs' seeds differ: 1, 2" in done.stdout
    assert "Cochran's Q" in done.stdout and "random effects" in done.stdout
    assert "A as O by run: " in done.stdout
    one = run("compare_runs.py", str(files[0]))
    assert one.returncode == 0 and "one run: nothing to compare it with" in one.stdout
    other = tmp_path / "other.jsonl"
    done = run("strength.py", "random", "random:seed=3", "--ms", "5", "--games", "2",
               "--save", str(other))
    assert done.returncode == 0, done.stderr
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not a record\n")
    for bad, words in ((other, "holds another match than"), (garbage, "not a file of games"),
                       (tmp_path / "none.jsonl", "cannot read it")):
        done = run("compare_runs.py", str(files[0]), str(bad))
        assert done.returncode == 2 and words in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_strength_saves_its_games_and_goes_on_where_it_stopped(tmp_path):
    saved = tmp_path / "games.jsonl"
    args = ("random", "random:seed=2", "--ms", "5", "--save", str(saved))
    done = run("strength.py", *args, "--games", "2")
    assert done.returncode == 0, done.stderr
    assert len(saved.read_text().splitlines()) == 3  # what match it is, then two games
    with saved.open("a") as f:
        f.write('{"game": 2, "score_a": 1')  # a kill mid-write: that game is played again
    done = run("strength.py", *args, "--games", "4")
    assert done.returncode == 0, done.stderr
    assert "2 games already played (saved), 2 to play" in done.stdout
    assert "4 games" in done.stdout
    lines = saved.read_text().splitlines()
    assert len(lines) == 5 and all(line.endswith("}") for line in lines)
    other = run("strength.py", "random", "random:seed=3", "--ms", "5", "--save", str(saved))
    assert other.returncode == 2 and "holds games of another run (match differ)" in other.stderr
    assert saved.read_text().splitlines() == lines  # nothing lost
    saved.write_text(lines[0] + "\nnot a game\n" + "\n".join(lines[1:]) + "\n")
    broken = run("strength.py", *args, "--games", "4")
    assert broken.returncode == 2 and "line 2: not a saved game" in broken.stderr


def test_o_losses_reads_saved_games_and_counts_o_s_score(tmp_path):
    saved = tmp_path / "games.jsonl"
    done = run("strength.py", "random", "random:seed=2", "--ms", "5", "--games", "8",
               "--rules", "codingame", "--save", str(saved))
    assert done.returncode == 0, done.stderr
    games = [json.loads(line) for line in saved.read_text().splitlines()[1:]]
    o_scores = [g["score_a"] if not g["a_is_x"] else 1 - g["score_a"] for g in games]
    out = run("o_losses.py", str(saved))
    assert out.returncode == 0, out.stderr
    lost = o_scores.count(0)
    assert (f"8 games (codingame); O scored {100 * sum(o_scores) / 8:.1f}% and lost {lost}"
            in out.stdout)
    counted = re.findall(r"plies \d+-\d+: (\d+)", out.stdout)
    assert sum(int(n) for n in counted) == lost
    saved.write_text("not saved games\n")
    bad = run("o_losses.py", str(saved))
    assert bad.returncode == 2 and "not a file of games saved by strength.py" in bad.stderr
    assert "Traceback" not in bad.stderr



def test_deep_labels_searches_drawn_positions_and_keeps_what_is_written(tmp_path):
    """Positions drawn from self-play files, each searched from an empty tree: the
    search's visit shares over legal moves, a value in 0..1, the stored result kept; a
    second run keeps the file written."""
    from ninefold.kernel import legal_actions
    from ninefold.learn.selfplay import Positions, Searcher, play_game
    from ninefold.variants import PRESETS

    pos = play_game(Searcher().player(30, 1), PRESETS["codingame"], [], random.Random(1))
    data = tmp_path / "data_0.npz"
    pos.save(data)
    out = tmp_path / "deep"
    args = (str(out), str(data), "--spec", "mcts", "--sims", "200", "--positions", "12",
            "--workers", "1")
    done = run("deep_labels.py", *args)
    assert done.returncode == 0, done.stderr
    assert "1/1" in done.stdout and "12 positions" in done.stdout
    deep = Positions.load(out / "deep_0.npz")
    assert len(deep) == 12 and ((deep.value >= 0) & (deep.value <= 1)).all()
    for state, shares in zip(deep.states, deep.policy.astype(np.float32), strict=True):
        legal = set(legal_actions(state.astype(np.int64)).tolist())
        assert abs(shares.sum() - 1) < 1e-2 and set(np.flatnonzero(shares)) <= legal
    stored = {s.tobytes(): r for s, r in zip(pos.states, pos.result, strict=True)}
    assert all(stored[s.tobytes()] == r for s, r in zip(deep.states, deep.result, strict=True))
    again = run("deep_labels.py", *args)
    assert again.returncode == 0 and "kept" in again.stdout
    # and value_capacity.py trains a probe on them from a fast network, reporting the loss
    from ninefold.players.fastnet import random_fast_net, save_fast_net

    save_fast_net(random_fast_net(1, 16), tmp_path / "fast.npz", {})
    probe = run("value_capacity.py", str(tmp_path / "fast.npz"), str(out), "4", "2", "1e-3")
    assert probe.returncode == 0, probe.stderr
    assert "11 positions, 1 held out" in probe.stdout and "K=4 epoch 2:" in probe.stdout
    bad = run("deep_labels.py", str(out), str(data), "--spec", "random")
    assert bad.returncode == 2 and "Invalid value for --spec: player 'random'" in bad.stderr
    assert "Traceback" not in bad.stderr

def test_o_losses_walks_a_lost_game_back_to_the_move_that_let_a_hold_go():
    import o_losses

    from ninefold.proof.search import Solver

    record = BENCH.parent / "records" / "codingame_deepgames_vs_3b01d42.jsonl"
    game = json.loads(record.read_text().splitlines()[1 + 79])  # O lost it
    assert (game["score_a"] if not game["a_is_x"] else 1 - game["score_a"]) == 0
    moves = game["moves"]
    assert o_losses.last_hold(moves, "codingame", 300_000) == ("let go", 38, 36_799)
    assert o_losses.last_hold(moves, "codingame", 30_000) == ("beyond reach", 38, 30_000)

    def x_wins(plies: int) -> bool:  # the position after `plies` moves, O to move
        board = Board("codingame")
        for move in moves[:plies]:
            board.push_text(move)
        assert board.turn is Mark.O
        return Solver(board.rules, 1_000_000, table_bits=20).x_wins(board)

    assert not x_wins(37) and x_wins(39)  # O's 38th move of the game let the hold go


def test_web_load_runs_tiny_and_survives_its_kill():
    done = run("web_load.py", "--games", "3", "--kill-after", "6")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 finished and whole" in done.stdout
    assert "server killed (SIGKILL)" in done.stdout and "read (GET, reference)" in done.stdout


def test_platform_contest_runs_end_to_end():
    # uploads in four languages, 1 and 2 workers (one killed mid-game), Ray with a task
    # killed when Ray is installed, and the database checked: every game once
    ray = "--ray" if (Path(sys.executable).parent / "ray").exists() else "--no-ray"
    done = run("platform_contest.py", "--games", "8", "--bots", "4", ray, timeout=600)
    # a bot that did not become active: its name, language, state and logs, on stderr
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-20000:]
    assert "each rated and counted once" in done.stdout
    assert "2 workers" in done.stdout
    if ray == "--ray":
        assert "Ray, 2 nodes" in done.stdout


def test_strength_killed_leaves_no_worker_or_bot_behind(tmp_path):
    """Its games run in worker processes (--jobs 2), each with two bot processes: a
    SIGKILL of the script ends them all at once (before, each worker played its game
    out: tens of seconds on Riddles' clock)."""
    import signal
    import time

    marker = "mcts:seed=987651"  # in the command line of B's bot processes
    proc = subprocess.Popen([sys.executable, str(BENCH / "strength.py"), "mcts", marker,
                             "--subprocess", "--protocol", "riddles", "--games", "40",
                             "--jobs", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def bots() -> list[str]:
        found = subprocess.run(["pgrep", "-f", f"bot --protocol riddles --player {marker}"],
                               capture_output=True, text=True)
        return found.stdout.split()

    try:
        deadline = time.monotonic() + 120
        while len(bots()) < 2:  # a game under way in each worker
            assert time.monotonic() < deadline and proc.poll() is None, "no game started"
            time.sleep(0.1)
        time.sleep(1.0)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 5
    while bots() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert bots() == []


def test_strength_names_the_machine_s_stall_before_a_game_lost_on_time():
    """Each game lost on time gets a line: the longest stall the probe saw in the second
    before the game ended, or none; games not lost on time, or from older saves (no
    end time), get none."""
    import strength

    probe = botgames.StallProbe()
    probe.times, probe.stalls = [100.0, 100.4, 250.0], [12.0, 31.0, 15.0]
    lost = strength.GameResult(0.0, True, 14, forfeit="A", ended=100.5)
    clear = strength.GameResult(1.0, False, 24, forfeit="B", ended=200.0)
    won = strength.GameResult(1.0, True, 40, ended=250.0)
    saved = strength.GameResult(0.0, True, 30, forfeit="A")
    assert strength.stall_blame([lost, clear, won, saved], probe) == [
        "  A lost on time after ply 14: a machine stall of 31 ms in the 1 s before the game ended",
        "  B lost on time after ply 24: no machine stall in the 1 s before the game ended",
    ]


def test_sim_profile_times_each_part_of_a_fast_networks_search_beside_the_default(tmp_path):
    from ninefold.players.fastnet import random_fast_net, save_fast_net

    fast = tmp_path / "fast.npz"
    save_fast_net(random_fast_net(0, 16), fast, {})
    done = run("sim_profile.py", f"mcts:net={fast},refine=4", "--sims", "300")
    assert done.returncode == 0, done.stderr
    assert "16 positions of real games" in done.stdout
    for part in ("leaf value", "fast policy (2nd visit)", "shipped priors (refine)",
                 "a simulation", "mean path length"):
        assert part in done.stdout, part
    played = run("sim_profile.py", f"mcts:net={fast},refine=4", "--play-ms", "5", "--games", "1")
    assert played.returncode == 0, played.stderr
    assert "in play" in played.stdout and "shipped priors (refine)" in played.stdout
    bad = run("sim_profile.py", "random", "--sims", "300")
    assert bad.returncode != 0 and "not an mcts player spec" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_search_speed_times_specs_beside_the_default():
    done = run("search_speed.py", "mcts:net=default,mix=0", "--sims", "200", "--rounds", "1",
               "--per-length", "1")
    assert done.returncode == 0, done.stderr
    assert "mcts:net=default,mix=0" in done.stdout and "1.00x" in done.stdout
    played = run("search_speed.py", "mcts:net=default,mix=0", "--play-ms", "5", "--games", "1")
    assert played.returncode == 0, played.stderr
    assert "in play" in played.stdout and "plies 4-19" in played.stdout
    assert "(1.00x)" in played.stdout
    bad = run("search_speed.py", "random", "--sims", "200", "--rounds", "1")
    assert bad.returncode != 0 and "not an mcts player spec" in bad.stderr
    assert "Traceback" not in bad.stderr
