"""`ninefold review`: the table, the accuracies, the graph; bad input in one line."""

from __future__ import annotations

import subprocess
import sys

import pytest
from reviewgames import blunder_game, short_blunder_record

NINEFOLD = [sys.executable, "-m", "ninefold.cli"]


def review(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*NINEFOLD, "review", *args], capture_output=True, text=True,
                          timeout=300, env={"COLUMNS": "120", "PATH": "/usr/bin:/bin"})


def test_the_table_names_the_blunder_and_the_png_is_written(tmp_path):
    record = tmp_path / "game.txt"
    record.write_text(short_blunder_record())
    png = tmp_path / "graph.png"
    proc = review(str(record), "--budget", "30", "--workers", "1", "--png", str(png))
    assert proc.returncode == 0, proc.stderr
    _, wins, missed = blunder_game()
    rows = [line for line in proc.stdout.splitlines() if f" {missed} " in line]
    assert rows and "blunder" in rows[0]
    assert any(f" {w} " in rows[0] for w in wins)  # the better move, in its row
    assert "30." in rows[0]  # numbered as in the game, from its position
    assert "accuracy: X " in proc.stdout and ", O " in proc.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("text", "says"), [
    ("[Rules \"standard\"]\n\n1. e5 e5 *\n", "e5"),
    ("1. e5 e4 *\n", "not finished"),
    ("[Rules \"chess\"]\n[Result \"1-0\"]\n\n1. e5 1-0\n", "chess"),
    ("", "holds no game record"),
])
def test_bad_records_are_one_line(tmp_path, text, says):
    record = tmp_path / "bad.txt"
    record.write_text(text)
    proc = review(str(record), "--workers", "1")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error:"), proc.stderr
    assert says in proc.stderr and "Traceback" not in proc.stderr


def test_a_missing_game_or_file_is_one_line(tmp_path):
    record = tmp_path / "game.txt"
    record.write_text(short_blunder_record())
    proc = review(str(record), "--game", "3")
    assert proc.returncode == 2 and "holds 1 game(s): there is no game 3" in proc.stderr
    proc = review(str(tmp_path / "none.txt"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "cannot read" in proc.stderr


def test_a_review_kept_in_a_web_database_is_shown_from_there(tmp_path):
    from ninefold.review import Review
    from ninefold.web.store import GameStore

    record = tmp_path / "game.txt"
    record.write_text(short_blunder_record())
    db = tmp_path / "web.sqlite"
    first = review(str(record), "--ms", "30", "--workers", "1", "--db", str(db))
    assert first.returncode == 0, first.stderr
    assert "stored in" not in first.stdout
    stored = GameStore(db).backend.connection().execute(
        "SELECT key, review FROM web_reviews").fetchall()
    assert len(stored) == 1 and Review.from_json(stored[0][1]).key == stored[0][0]
    again = review(str(record), "--ms", "500", "--workers", "1", "--db", str(db))
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"the review stored in {db} (made with 30 ms a position)")
    assert again.stdout.split("\n", 1)[1] == first.stdout  # the same table, not made again
