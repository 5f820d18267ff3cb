"""The opening explorer's index (`ninefold.explorer`) and `ninefold explore`: counts and
scores of known games, each game indexed once, every source, bad input in one line."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from stores import arena_database

from ninefold.explorer import (
    SOURCES,
    Explorer,
    ExplorerError,
    StoredGame,
    key_of,
    parse_board,
    read_games_from,
)
from ninefold.records import Game, write_game
from ninefold.rules import Board, Move

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "records" / "riddles_067dc70_vs_e827b65.jsonl"
NINEFOLD = [sys.executable, "-m", "ninefold.cli"]


def match_file(path: Path, games: int, skip: int = 0) -> Path:
    """The match line and games `skip`..`skip + games` of a real match record."""
    lines = RECORDS.read_text().splitlines()
    rows = [line for line in lines[1:] if '"moves"' in line][skip:skip + games]
    path.write_text("\n".join([lines[0], *rows]) + "\n")
    return path


def expected(path: Path, plies: int) -> dict[str, Counter[tuple[str, str]]]:
    """By position string: (move, result) counted over the record's games, replayed with
    `Board` alone (not the index's keys)."""
    seen: dict[str, Counter[tuple[str, str]]] = {}
    for line in path.read_text().splitlines()[1:]:
        row = json.loads(line)
        score_x = row["score_a"] if row["a_is_x"] else 1 - row["score_a"]
        result = {1: "x", 0: "o"}.get(score_x, "draw")
        board = Board()
        for move in row["moves"][:plies]:
            seen.setdefault(board.position(), Counter())[(move, result)] += 1
            board.push_text(move)
    return seen


def test_counts_and_scores_of_real_games_match_a_replay_by_board(tmp_path):
    path = match_file(tmp_path / "five.jsonl", 5)
    ex = Explorer(tmp_path / "index.sqlite", plies=12)
    assert ex.add(read_games_from(path)) == 5
    want = expected(path, 12)
    assert len(want) > 40
    for position, counts in want.items():
        answer = ex.query(Board.from_position(position))
        got = {(str(r.move), res): n for r in answer.moves
               for res, n in (("x", r.x), ("draw", r.draw), ("o", r.o)) if n}
        assert got == dict(counts), position
        assert answer.games == sum(counts.values())
    first = ex.query(Board())
    assert first.games == 5 and sum(r.games for r in first.moves) == 5


def test_a_game_is_indexed_once_however_often_its_file_is(tmp_path):
    path = match_file(tmp_path / "three.jsonl", 3)
    ex = Explorer(tmp_path / "index.sqlite")
    assert ex.add(read_games_from(path)) == 3
    before = ex.query(Board())
    assert ex.add(read_games_from(path)) == 0
    assert ex.query(Board()) == before
    match_file(path, 4)  # the same file with one more game
    assert ex.add(read_games_from(path)) == 1
    assert ex.query(Board()).games == 4 and ex.games() == 4
    ex.close()
    again = Explorer(tmp_path / "index.sqlite")  # kept on disk
    assert again.add(read_games_from(path)) == 0 and again.games() == 4


def test_only_the_first_plies_are_indexed(tmp_path):
    moves = tuple(Move.parse(m) for m in ["e5", "e4", "e2", "e6"])
    ex = Explorer(":memory:", plies=2)
    ex.add([StoredGame("records", "g", Board(), moves, "o")])
    board = Board()
    for m in moves[:2]:
        assert [str(r.move) for r in ex.query(board).moves] == [str(m)]
        board.push(m)
    assert ex.query(board).moves == []  # ply 3: beyond the index


def test_sources_and_presets_are_kept_apart(tmp_path):
    e5 = (Move.parse("e5"),)
    ex = Explorer(":memory:")
    ex.add([StoredGame("web", "a", Board(), e5, "x"),
            StoredGame("arena", "b", Board(), e5, "o"),
            StoredGame("arena", "c", Board("open-boards"), e5, "draw")])
    (row,) = ex.query(Board()).moves
    assert (row.games, row.x, row.draw, row.o) == (2, 1, 0, 1)
    held = sorted(SOURCES[s] for (s,) in ex.db.execute("SELECT source FROM games"))
    assert held == ["arena", "arena", "web"]
    (web,) = ex.query(Board(), "web").moves
    assert (web.games, web.x) == (1, 1)
    assert ex.query(Board(), "platform").moves == []
    (open_row,) = ex.query(Board("open-boards")).moves
    assert (open_row.games, open_row.draw) == (1, 1)


def test_web_store_games_count_when_finished(tmp_path):
    from ninefold.web.store import SCHEMA

    path = tmp_path / "web.sqlite"
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    columns = ("id, created, mode, rules, opening, moves, ply, seats, resigned, agreed_draw")
    for key, moves, resigned, agreed in (("resigned", "e5 e4", "x", 0), ("going", "e5 e6", None, 0),
                                         ("agreed", "a1", None, 1)):
        db.execute(f"INSERT INTO web_games ({columns}) VALUES (?, 0, 'local', 'standard', NULL,"
                   f" ?, ?, '{{}}', ?, ?)", (key, moves, len(moves.split()), resigned, agreed))
    db.commit()
    db.close()
    games = {g.name: g for g in read_games_from(path)}
    assert set(games) == {"web#resigned", "web#agreed"}
    assert games["web#resigned"].result == "o" and games["web#agreed"].result == "draw"
    assert all(g.source == "web" for g in games.values())


def test_arena_results_count_with_their_winner(tmp_path):
    (game,) = read_games_from(arena_database(tmp_path / "arena.db"))
    assert (game.source, game.result, [str(m) for m in game.moves]) == ("arena", "o", ["e5", "e4"])


def test_game_records_are_read(tmp_path):
    board = Board()
    for m in ["e5", "e4", "e2"]:
        board.push_text(m)
    record = tmp_path / "games.txt"
    write = write_game(Game.from_board(board))
    record.write_text(write.replace("*", "0-1"))
    (game,) = read_games_from(record)
    assert game.result == "o" and len(game.moves) == 3


@pytest.mark.parametrize(("args", "says"), [
    (("standard 9/9 x - .........", None, None), "9 rows"),
    ((None, "e5 zz", None), "zz"),
    ((None, "e5 a1", None), "a1"),
    (("open-boards 9/9/9/9/9/9/9/9/9 x - .........", None, "standard"), "open-boards rules"),
    ((None, None, "chess"), "chess"),
])
def test_bad_queries_are_one_line(args, says):
    with pytest.raises(ExplorerError, match=says) as err:
        parse_board(*args)
    assert "\n" not in str(err.value)


def test_an_unknown_source_and_an_illegal_game_are_one_line(tmp_path):
    ex = Explorer(":memory:")
    with pytest.raises(ExplorerError, match="unknown source 'chess'"):
        ex.query(Board(), "chess")
    bad = StoredGame("records", "bad#1", Board(), (Move.parse("e5"), Move.parse("a1")), "x")
    good = StoredGame("records", "good#1", Board(), (Move.parse("e5"),), "x")
    with pytest.raises(ExplorerError, match=r"bad#1: move 2 \(a1\) is not legal"):
        ex.add([good, bad])
    assert ex.games() == 1 and ex.query(Board()).games == 1  # the game before it is kept
    with pytest.raises(ExplorerError, match="bad#1"):  # and the bad one is not marked done
        ex.add([bad])
    not_jsonl = tmp_path / "x.jsonl"
    not_jsonl.write_text('{"match": {"rules": "standard"}}\n[1]\n')
    with pytest.raises(ExplorerError, match="line 2"):
        list(read_games_from(not_jsonl))
    with pytest.raises(ExplorerError, match="no explorer index"):
        Explorer(tmp_path / "missing.sqlite", readonly=True)


def test_the_key_is_the_positions(tmp_path):
    a, b = Board(), Board()
    for m in ["e5", "e4"]:
        a.push_text(m)
    for m in ["e5", "e6"]:
        b.push_text(m)
    assert key_of(a) != key_of(b)
    assert key_of(a) == key_of(Board.from_position(a.position()))


def explore(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*NINEFOLD, "explore", *args], capture_output=True, text=True,
                          timeout=300, env={"COLUMNS": "120", "PATH": "/usr/bin:/bin"})


def test_the_cli_indexes_and_prints_the_table(tmp_path):
    path = match_file(tmp_path / "five.jsonl", 5)
    db = str(tmp_path / "index.sqlite")
    made = explore("index", "--from", str(path), "--db", db)
    assert made.returncode == 0, made.stderr
    assert "5 games added" in made.stdout and "5 games read, 5 new" in made.stderr
    assert "0 games added" in explore("index", "--from", str(path), "--db", db).stdout
    shown = explore("--db", db, "--no-eval")
    assert shown.returncode == 0, shown.stderr
    first = Counter(json.loads(line)["moves"][0] for line in path.read_text().splitlines()[1:])
    move, games = first.most_common(1)[0]
    row = next(line for line in shown.stdout.splitlines() if f" {move} " in line)
    assert f" {games} " in row and "%" in row
    assert "5 games" in shown.stdout
    deeper = explore("show", "--db", db, "--no-eval", "--moves", move)
    assert deeper.returncode == 0 and deeper.stdout != shown.stdout


@pytest.mark.parametrize(("args", "says"), [
    (("--moves", "e5 e5"), "e5"),
    (("--source", "chess"), "'chess' is not one of 'all', 'web', 'arena'"),
    (("nonsense position",), "5 fields"),
])
def test_the_cli_says_bad_input_in_one_line(tmp_path, args, says):
    db = tmp_path / "index.sqlite"
    Explorer(db).close()
    proc = explore(*args, "--db", str(db), "--no-eval")
    assert proc.returncode == 2 and says in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    missing = explore("--db", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 2 and "ninefold explore index" in missing.stderr


def test_the_engine_evaluates_once_and_the_index_keeps_it(tmp_path):
    path = match_file(tmp_path / "five.jsonl", 5)
    ex = Explorer(tmp_path / "index.sqlite")
    ex.add(read_games_from(path))
    board = Board()
    assert not ex.query(board).evaluated
    answer = ex.evaluate(board, ms=100)
    assert answer.evaluated
    scored = [r for r in answer.moves if r.eval_x is not None]
    assert scored and all(0.0 <= r.eval_x <= 1.0 for r in scored if r.eval_x is not None)
    made = ex.db.execute("SELECT ms, moves FROM evals").fetchall()
    assert len(made) == 1
    assert ex.query(board) == answer  # a plain query reads it back
    assert ex.evaluate(board, ms=100) == answer
    assert ex.db.execute("SELECT ms, moves FROM evals").fetchall() == made  # not searched again


def test_platform_games_count_when_done(tmp_path):
    sa = pytest.importorskip("sqlalchemy")
    from ninefold.platform.store import contests, games, metadata

    path = tmp_path / "platform.sqlite"
    engine = sa.create_engine(f"sqlite:///{path}")
    metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(contests.insert().values(
            id=1, name="spring", title="Spring", rules="open-boards", protocol="riddles",
            time_control="bank=1000,inc=100", openings="none", max_bots_per_user=1, created=0))
        for gid, status, result, moves in ((1, "done", "0-1", "e5 e4"),
                                           (2, "running", None, "e5"),
                                           (3, "done", "1/2-1/2", "a1")):
            conn.execute(games.insert().values(
                id=gid, contest_id=1, pair=1, x_version=1, o_version=2, status=status,
                result=result, moves=moves, created=0))
    engine.dispose()
    found = {g.name: g for g in read_games_from(path)}
    assert set(found) == {"platform#1", "platform#3"}
    assert found["platform#1"].result == "o" and found["platform#3"].result == "draw"
    assert found["platform#1"].start.rules.name == "open-boards"


def test_another_program_s_database_is_left_alone(tmp_path):
    path = tmp_path / "web.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE web_games (id TEXT)")
    db.commit()
    db.close()
    for readonly in (False, True):
        with pytest.raises(ExplorerError, match="is no explorer index: it holds the tables "
                                                "web_games"):
            Explorer(path, readonly=readonly)
    tables = sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("web_games",)]


@pytest.mark.slow  # a benchmark end to end: `make test-all` and CI run it
def test_the_benchmark_runs_on_a_few_games():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "explorer_speed.py"),
                           "--games", "2000", "--queries", "100"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "2,000 random games" in proc.stdout
    assert re.search(r"query: median [\d.]+ ms, p99 [\d.]+ ms", proc.stdout)
    assert "(100/100 found in the index)" in proc.stdout
    assert re.search(r"ratio: .* x the 2,000-game scan", proc.stdout)
