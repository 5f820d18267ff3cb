"""The arena: schedules, storage, resume after kill -9, ratings, SPRT, check-bot,
tournaments, reports and export — with real subprocess bots (tests/bots/)."""

from __future__ import annotations

import io
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ninefold.arena import (
    ArenaError,
    GameKey,
    Openings,
    RunConfig,
    Seat,
    Sprt,
    Standings,
    Storage,
    bradley_terry,
    load_toml,
    match_elo,
    open_run,
    play_game,
    run,
    schedule,
)
from ninefold.arena.checkbot import check_bot, passed, refuse_failing, standard_positions
from ninefold.arena.ratings import elo_from_score, pentanomial
from ninefold.arena.report import export, plot
from ninefold.arena.storage import config_from_json, config_to_json
from ninefold.records import read_games
from ninefold.rules import Mark, Outcome, Rules, Termination

BOTS = Path(__file__).parent / "bots"
PY = sys.executable


def bot(protocol: str, mode: str = "good", name: str | None = None,
        tc: str | None = None) -> Seat:
    """A test bot of `protocol` as a seat; `tc`: a time control's text (the platform's)."""
    return Seat.parse(f"{PY} {BOTS / (protocol + '_bot.py')} {mode}", protocol, tc=tc,
                      name=name or f"{protocol}-{mode}")


def randoms(n: int) -> list[Seat]:
    return [Seat.builtin(f"random:seed={i + 1}", name=f"r{i + 1}") for i in range(n)]


# --- schedule ------------------------------------------------------------------------------


def test_schedule_pairs_share_openings_with_colours_swapped() -> None:
    cfg = RunConfig(players=randoms(3), games=4, format="round-robin", seed=9)
    games = list(schedule(cfg))
    assert len(games) == 3 * 4 and len({g.key for g in games}) == len(games)
    for first, second in zip(games[::2], games[1::2], strict=True):
        assert first.opening == second.opening and first.opening is not None
        assert (first.x, first.o) == (second.o, second.x)
    again = config_from_json(config_to_json(cfg))
    assert again == cfg and [g.key for g in schedule(again)] == [g.key for g in games]


def test_gauntlet_and_odd_games() -> None:
    cfg = RunConfig(players=randoms(4), games=3, format="gauntlet", openings=Openings.parse("none"))
    games = list(schedule(cfg))
    assert len(games) == 3 * 3
    assert all(0 in (g.x, g.o) for g in games)


def test_the_schedule_is_lazy_and_long_runs_are_capped() -> None:
    """A run of the most games allowed starts at once (nothing materialised); more
    are refused with the limit."""
    import itertools

    from ninefold.arena.config import MAX_GAMES

    cfg = RunConfig(players=randoms(2), games=MAX_GAMES)
    first = list(itertools.islice(schedule(cfg), 3))
    assert [g.seq for g in first] == [0, 1, 2] and cfg.total_games == MAX_GAMES
    assert first[0].opening == first[1].opening != first[2].opening
    with pytest.raises(ArenaError, match="at most 1,000,000 per pairing"):
        RunConfig(players=randoms(2), games=MAX_GAMES + 1)


def test_a_longer_run_extends_a_shorter_one() -> None:
    short = list(schedule(RunConfig(players=randoms(3), games=3, format="round-robin")))
    long = list(schedule(RunConfig(players=randoms(3), games=6, format="round-robin")))
    assert {(g.key, g.opening) for g in short} <= {(g.key, g.opening) for g in long}


def test_toml_command_without_protocol(tmp_path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[[player]]\nspec = "random"\n[[player]]\ncommand = "./bot"\n')
    with pytest.raises(ArenaError, match="player 2: a command needs protocol"):
        load_toml(path)


def test_openings_file(tmp_path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text("# codes\n53271\n11111  # comment\n")
    with pytest.raises(ArenaError, match="11111"):
        Openings.parse(str(path))
    path.write_text("53271\n12345\n")
    cfg = RunConfig(players=randoms(2), games=6, openings=Openings.parse(str(path)))
    assert [g.opening for g in schedule(cfg)] == ["53271"] * 2 + ["12345"] * 2 + ["53271"] * 2


def test_codingame_bots_refuse_openings() -> None:
    with pytest.raises(ArenaError, match="opening"):
        RunConfig(players=[bot("codingame"), randoms(1)[0]])
    RunConfig(players=[bot("codingame"), randoms(1)[0]], openings=Openings.parse("none"))


# --- running, storage, resume ---------------------------------------------------------------


def test_match_stores_every_game_and_exports_records(tmp_path) -> None:
    db = tmp_path / "m.db"
    cfg = RunConfig(players=[bot("riddles", name="rid"), Seat.builtin("random", "rnd")],
                    games=6, first_move_ms=3000, slack_ms=100)
    cfg = open_run(cfg, db, resume=False)
    report = run(cfg, db, jobs=2, log_dir=tmp_path / "logs")
    assert (report.total, report.stored, report.played_now) == (6, 6, 6)
    with Storage(db) as store:
        games = store.games()
    assert {g.key for g in games} == {g.key for g in schedule(cfg)}
    for g in games:
        assert g.termination in (Termination.LINE, Termination.NO_MOVES) and g.times_ms
    out = io.StringIO()
    assert export(db, out) == 6
    records = list(read_games(out.getvalue()))
    assert len(records) == 6
    assert records[0].tags["Termination"] in ("line", "no-moves")
    assert records[0].comments  # move times
    with pytest.raises(ArenaError, match="--resume"):
        open_run(cfg, db, resume=False)


def test_resume_plays_only_missing_games(tmp_path) -> None:
    db = tmp_path / "t.db"
    cfg = open_run(RunConfig(players=randoms(3), games=4, format="round-robin"), db, False)
    first = run(cfg, db, max_games=5)
    assert first.stored == 5
    again = run(open_run(None, db, resume=True), db, jobs=2)
    assert again.stored == 12 and again.played_now == 7
    assert run(cfg, db).played_now == 0
    rows = sqlite3.connect(db).execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM games")
    assert rows.fetchone() == (12, 12)


def test_kill_9_mid_tournament_then_resume(tmp_path) -> None:
    """A real tournament process is killed with SIGKILL while playing; --resume
    completes it with exactly the scheduled games, none twice."""
    toml = tmp_path / "t.toml"
    toml.write_text(f"""
name = "kill test"
format = "round-robin"
games = 6
seed = 3
[[player]]
name = "r1"
spec = "random:seed=1"
[[player]]
name = "r2"
spec = "random:seed=2"
[[player]]
name = "rid"
command = "{PY} {BOTS / 'riddles_bot.py'}"
protocol = "riddles"
[[player]]
name = "aig"
command = "{PY} {BOTS / 'aigames_bot.py'}"
protocol = "aigames"
""")
    db = tmp_path / "k.db"
    cmd = [PY, "-m", "ninefold.cli", "tournament", str(toml), "--db", str(db), "-j", "2",
           "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stored = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        try:
            stored = sqlite3.connect(db).execute("SELECT COUNT(*) FROM games").fetchone()[0]
        except sqlite3.Error:
            continue
        if stored >= 6:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 0 < stored < 36, "the run should be killed part-way"
    done = subprocess.run([*cmd[:4], "--resume", *cmd[5:]], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    rows = sqlite3.connect(db).execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM games")
    assert rows.fetchone() == (36, 36)


def test_sprt_stops_a_lopsided_match_early(tmp_path) -> None:
    db = tmp_path / "s.db"
    cfg = RunConfig(players=[Seat.builtin("random", "rnd"), bot("aigames", "illegal", "bad")],
                    games=200, sprt=Sprt.parse("elo0=0,elo1=20,alpha=0.05,beta=0.05"))
    report = run(open_run(cfg, db, False), db, jobs=2)
    assert report.sprt == "H1" and report.stopped_early and report.stored < 40


def test_misbehaving_bots_do_not_stop_a_run(tmp_path) -> None:
    players = [bot("riddles", "crash-late", "crashy"), bot("aigames", "garbage", "junk"),
               Seat.builtin("random", "rnd")]
    db = tmp_path / "x.db"
    cfg = open_run(RunConfig(players=players, games=2, format="round-robin",
                             first_move_ms=3000, slack_ms=100), db, False)
    report = run(cfg, db, jobs=2)
    assert report.stored == 6
    with Storage(db) as store:
        reasons = [g.reason for g in store.games() if g.termination is Termination.BOT_FAILURE]
    assert len(reasons) >= 4 and all(("crashy" in r) or ("junk" in r) for r in reasons)


# --- check-bot ---------------------------------------------------------------------------


def test_check_positions_are_what_they_say() -> None:
    pos = standard_positions()
    assert pos["first move"].ply == 0
    assert pos["forced board"].target == 4
    assert pos["free move"].target is None and pos["free move"].ply > 0
    assert pos["nearly full board"].ply >= 58 and not pos["nearly full board"].is_game_over()


@pytest.mark.parametrize("protocol", ["aigames", "riddles", "codingame"])
def test_check_bot_passes_good_bots(protocol) -> None:
    checks = check_bot(bot(protocol))
    assert passed(checks), [str(c) for c in checks]
    assert [c.situation for c in checks] == ["first move", "forced board", "free move",
                                             "nearly full board"]


@pytest.mark.parametrize(("protocol", "mode"), [("aigames", "garbage"), ("riddles", "crash"),
                                                ("codingame", "illegal")])
def test_check_bot_fails_bad_bots_and_tournaments_refuse_them(protocol, mode) -> None:
    seat = bot(protocol, mode, name="badbot")
    checks = check_bot(seat, first_move_ms=3000)
    assert not passed(checks)
    with pytest.raises(ArenaError, match="badbot fails the input test"):
        refuse_failing([seat, Seat.builtin("random")])


def test_check_bot_cli(tmp_path) -> None:
    ok = subprocess.run([PY, "-m", "ninefold.cli", "check-bot", f"{PY} {BOTS / 'riddles_bot.py'}",
                         "--protocol", "riddles"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and "input test passed" in ok.stdout
    bad = subprocess.run([PY, "-m", "ninefold.cli", "check-bot",
                          f"{PY} {BOTS / 'riddles_bot.py'} hang", "--protocol", "riddles",
                          "--first-move-ms", "200", "--tc", "bank=300,inc=100"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "FAIL" in bad.stdout and "time-out" in bad.stdout


# --- ratings ------------------------------------------------------------------------------


def test_bradley_terry_recovers_a_known_difference() -> None:
    results = [("a", "b", 1.0)] * 75 + [("a", "b", 0.0)] * 25
    ratings = bradley_terry(["a", "b"], results, prior_draws=0.0)
    diff = ratings["a"][0] - ratings["b"][0]
    assert abs(diff - elo_from_score(0.75)) < 1.0
    assert 30 < ratings["a"][1] < 50  # each side: half the 95% half-width of the difference
    assert abs(ratings["a"][0] + ratings["b"][0]) < 1e-6


def test_bradley_terry_three_players_and_perfect_scores() -> None:
    results = [("a", "b", 1.0)] * 10 + [("b", "c", 1.0)] * 10 + [("a", "c", 0.5)] * 2
    r = bradley_terry(["a", "b", "c"], results)
    assert r["a"][0] > r["b"][0] and all(math.isfinite(v) for v, _ in r.values())


def test_pentanomial_and_match_elo() -> None:
    assert pentanomial([0, 0.5, 1, 1, 1.5, 2, 2]) == (1, 1, 2, 1, 2)
    est = match_elo([1.5, 2.0, 1.0, 1.5, 2.0, 1.0, 1.5, 1.5], paired=True)
    assert est.games == 16 and est.elo > 0 and est.low < est.elo < est.high
    assert est.los > 0.9


def test_sprt_decisions() -> None:
    sprt = Sprt.parse("elo0=0,elo1=10,alpha=0.05,beta=0.05")
    assert sprt.decision([2.0] * 30, paired=True) == "H1"
    assert sprt.decision([0.0] * 30, paired=True) == "H0"
    assert sprt.decision([1.0, 1.5, 0.5, 1.0], paired=True) is None
    with pytest.raises(ValueError):
        Sprt.parse("elo0=10,elo1=0")


# --- tournament file, report -------------------------------------------------------------


def test_tournament_toml_and_report(tmp_path) -> None:
    toml = tmp_path / "t.toml"
    toml.write_text(f"""
format = "gauntlet"
games = 2
openings = "none"
rules = "codingame"
[[player]]
name = "cg"
command = "{PY} {BOTS / 'codingame_bot.py'}"
protocol = "codingame"
[[player]]
spec = "random:seed=1"
name = "ra"
[[player]]
name = "rid"
command = "{PY} bots/riddles_bot.py"
protocol = "riddles"
cwd = "{BOTS.parent}"
""")
    cfg = load_toml(toml)
    assert cfg.format == "gauntlet" and cfg.total_games == 4
    db = tmp_path / "g.db"
    report = run(open_run(cfg, db, False), db)
    assert report.stored == 4
    with Storage(db) as store:
        st = Standings.of(["cg", "ra", "rid"], store.games())
    paths = plot(st, tmp_path, "g")
    assert all(p.exists() and p.stat().st_size > 1000 for p in paths)
    cli = subprocess.run([PY, "-m", "ninefold.cli", "report", str(db), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0 and "cg" in cli.stdout and "Elo" in cli.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('[[player]]\nspec = "random"\n[[player]]\ncommand = "x"\n')
    with pytest.raises(ArenaError, match="player 2"):
        load_toml(bad)


# --- names and the match line (found running public bots) ---------------------------------


def test_external_bots_get_short_default_names() -> None:
    from ninefold.arena.referee import short_name

    assert Seat.external(f"{PY} {BOTS / 'riddles_bot.py'} good", "riddles").name == "riddles_bot"
    assert short_name("java -cp bin bot.BotStarter") == "bot.BotStarter"
    assert short_name("java -Xmx1g -jar ../uttt-bot.jar") == "uttt-bot"
    assert short_name("./bot") == "bot" and short_name(f"{PY} -m mybot") == "mybot"
    assert short_name("/usr/local/bin/ninefold bot --protocol aigames") == "ninefold"
    assert Seat.external("./bot", "codingame", name="mine").name == "mine"


def test_log_folders_are_safe_names(tmp_path) -> None:
    """A bot's name (a path, say) never makes nested or hidden log folders."""
    seat = bot("riddles", name="./odd/name")
    refuse_failing([seat], log_dir=tmp_path)
    made = [p.name for p in tmp_path.iterdir()]
    assert made == ["check-_odd_name"], made


def test_settled_bots_get_their_first_request_that_long_after_they_start(tmp_path) -> None:
    """`settle_ms` (strength.py --settle-ms): a bot that loads first plays from its first
    turn; both bots wait at least that long, on no clock, and the game is played whole.
    The bot counts from its process's fork (botlib.process_age), as the referee does from
    the spawn: counted from the bot's own imports, a loaded machine read 0.546 s."""
    # a second a turn: the game is played whole, not lost on a stall of a loaded machine
    x, o = bot("codingame", "stamp", name="x", tc="turn=1000"), bot("riddles", "stamp", name="o")
    result = play_game(x, o, rules="codingame", settle_ms=600, log_dir=tmp_path,
                       key=GameKey("x", "o", 0, 0))
    assert result.outcome.termination in (Termination.LINE, Termination.BOARD_COUNT,
                                          Termination.NO_MOVES)  # the rules ended it
    for seat in ("x-X", "o-O"):
        note = (tmp_path / seat / "x_o_0_0.log").read_text()
        assert float(note.split("first request ")[1].split(" s")[0]) >= 0.57, note  # /proc's ticks


def test_match_cli_names_and_prints_the_match_line_once(tmp_path) -> None:
    """Two bots with the same command get numbered short names; the match line is
    printed once, and a 100 % score is said in words (never 'inf')."""
    cmd = f"{PY} {BOTS / 'riddles_bot.py'} good"
    out = subprocess.run(
        [PY, "-m", "ninefold.cli", "match", "--bot1", cmd, "--protocol1", "riddles",
         "--bot2", cmd, "--protocol2", "riddles", "-n", "2", "--openings", "none",
         "--no-check", "--db", str(tmp_path / "m.db"), "--log-dir", str(tmp_path / "logs")],
        capture_output=True, text=True, timeout=120, env=dict(os.environ, COLUMNS="200"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("riddles_bot-1 vs riddles_bot-2:") == 1, out.stdout
    assert "inf" not in out.stdout and "Elo difference" in out.stdout
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == [
        "riddles_bot-1-O", "riddles_bot-1-X", "riddles_bot-2-O", "riddles_bot-2-X"]


def test_match_line_says_an_unbounded_elo_in_words() -> None:
    from ninefold.arena.referee import GameResult
    from ninefold.arena.report import head_to_head_text

    games = [GameResult(x=x, o=o, rules=Rules(), opening=None, moves=[], times_ms=[],
                        outcome=Outcome(Mark.X if x == "a" else Mark.O, Termination.LINE),
                        reason="line", key=GameKey("a", "b", r, c))
             for r in range(3) for c, (x, o) in enumerate((("a", "b"), ("b", "a")))]
    text = head_to_head_text(Standings.of(["a", "b"], games))
    assert "not bounded: a scored 100%" in text and "inf" not in text
    assert "pentanomial [0, 0, 0, 0, 3]" in text
    assert "± inf" not in str(match_elo([1.0, 1.5], paired=True))


# --- broken results files: a clear error, and the file left as it was ---------------------


def test_storage_refuses_a_file_that_is_not_sqlite(tmp_path) -> None:
    from ninefold.arena.storage import Storage, StorageError

    path = tmp_path / "notes.db"
    path.write_bytes(b"my precious notes, not a database\n" * 10)
    before = path.read_bytes()
    with pytest.raises(StorageError, match="not a results database"):
        Storage(path)
    assert path.read_bytes() == before


def test_storage_leaves_another_programs_database_alone(tmp_path) -> None:
    import sqlite3

    from ninefold.arena.storage import Storage, StorageError

    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE accounts (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(StorageError, match="another program"):
        Storage(path)
    tables = sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("accounts",)]


def test_damaged_game_row_is_reported_not_crashed(tmp_path) -> None:
    from ninefold.arena.storage import Storage, StorageError

    path = tmp_path / "r.db"
    with Storage(path) as db:
        db.conn.execute(
            "INSERT INTO games (key, seq, x, o, rules, moves, times_ms, result, termination, "
            "reason, started, seconds) VALUES ('k', 0, 'a', 'b', 'standard', 'e5', '[1, 2', "
            "'*', 'line', '', 0, 0)"
        )
        db.conn.commit()
    with Storage(path, readonly=True) as db, pytest.raises(StorageError, match="damaged"):
        db.games()


def test_report_and_export_cli_on_broken_files(tmp_path) -> None:
    from typer.testing import CliRunner

    from ninefold.cli import app

    bad = tmp_path / "bad.db"
    bad.write_text("garbage")
    runner = CliRunner()
    for args in (["report", str(bad)], ["export", str(bad)], ["report", str(tmp_path / "no.db")]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
    assert bad.read_text() == "garbage"


def test_databases_of_the_previous_version_still_read_and_resume(tmp_path) -> None:
    """Results written before keys became JSON lists (``a|b|round|colour``, time
    controls and allowances as text) are still reported, exported and resumed."""
    import json

    db = tmp_path / "old.db"
    players = [Seat.builtin("random:seed=1", "r1"), Seat.parse("random:seed=2", name="r2",
                                                               tc="bank=5000,inc=100")]
    cfg = open_run(RunConfig(players=players, games=2, openings=Openings.parse("none")), db,
                   False)
    run(cfg, db, max_games=1)
    legacy = {"players": [{"name": "r1", "spec": "random:seed=1"},
                          {"name": "r2", "spec": "random:seed=2", "tc": "bank=5000,inc=100"}],
              "games": 2, "format": "match", "rules": "standard", "openings": [None],
              "seed": 1, "first_move_ms": None, "slack_ms": 50, "sprt": None, "name": ""}
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(legacy),))
        conn.execute("UPDATE games SET key = 'r1|r2|0|0'")
    with Storage(db) as store:
        assert store.config() == RunConfig(
            players=players, games=2, openings=Openings.parse("none"), first_move_ms=0)
        assert [g.key for g in store.games()] == [GameKey("r1", "r2", 0, 0)]
    out = io.StringIO()
    assert export(db, out) == 1
    again = run(open_run(None, db, resume=True), db)
    assert (again.played_now, again.stored) == (1, 2)
