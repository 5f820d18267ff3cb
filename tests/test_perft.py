"""Perft: the kernel's move generator counts exactly the published leaf counts.

The vectors (tests/data/perft.json, the project's own copy of the published counts) were
computed by two independent bitboard programs and agree with OpenSpiel.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ninefold import PRESETS, Board, Move, Rules, kernel
from ninefold.cli import app

VECTORS = json.loads((Path(__file__).parent / "data" / "perft.json").read_text())
MAX_DEPTH = 7  # from the empty board; the rows with start moves are checked at their depth

# (name, rules, start moves, depth, expected count)
ROWS = [
    (name, "open-boards" if name == "open-boards" else "standard", row["start"], int(d), n)
    for name, row in VECTORS.items()
    if isinstance(row, dict)
    for d, n in row["perft"].items()
    if row["start"] or int(d) <= MAX_DEPTH
]


def start_board(rules: str, start: list[list[int]]) -> Board:
    board = Board(rules)
    for b, c in start:
        board.push(Move(b, c))
    return board


def test_vectors_cover_what_the_brief_asks() -> None:
    names = {(name, depth) for name, _, _, depth, _ in ROWS}
    for depth in range(1, 8):
        assert ("standard", depth) in names
        assert ("open-boards", depth) in names
    assert ("standard_after_centre", 8) in names
    assert ("standard_after_two", 8) in names


@pytest.mark.parametrize(
    ("name", "rules", "start", "depth", "expected"),
    ROWS,
    ids=[f"{name}-{depth}" for name, _, _, depth, _ in ROWS],
)
def test_perft_vectors(name: str, rules: str, start: list, depth: int, expected: int) -> None:
    board = start_board(rules, start)
    state = kernel.from_board(board)
    assert kernel.perft(state, depth, Rules.parse(rules).flags) == expected


def test_perft_edge_depths() -> None:
    state = kernel.new_state()
    assert kernel.perft(state, 0, 0) == 1
    assert kernel.perft(state, 1, 0) == 81
    before = state.copy()
    kernel.perft(state, 4, 0)
    assert (state == before).all(), "perft must not change its start state"


def test_codingame_counts_like_standard() -> None:
    # The tie-break changes who wins, never when the game ends or which moves exist.
    for depth in range(1, 7):
        assert kernel.perft(kernel.new_state(), depth, PRESETS["codingame"].flags) == int(
            VECTORS["standard"]["perft"][str(depth)]
        )


def python_perft(board: Board, depth: int) -> int:
    """The reference implementation's perft, on `Board` (slow: small depths only)."""
    if depth == 0:
        return 1
    if board.is_game_over():
        return 0
    if depth == 1:
        return len(board.legal_moves)
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += python_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_perft_agrees_with_board_in_midgame(name: str) -> None:
    """Deep into random games (where won, full and closed boards matter) the kernel's
    perft matches a plain count on `Board`, for every preset."""
    rules = PRESETS[name]
    rng = random.Random(2024)
    checked = 0
    for _ in range(12):
        board = Board(rules)
        plies = rng.randrange(20, 60)
        while not board.is_game_over() and board.ply < plies:
            board.push(rng.choice(list(board.legal_moves)))
        if board.is_game_over():
            board.pop()
        for depth in (1, 2, 3):
            assert kernel.perft(kernel.from_board(board), depth, rules.flags) == python_perft(
                board, depth
            ), (board.position(), depth)
        checked += 1
    assert checked == 12


# --- the command line ------------------------------------------------------------------

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def test_cli_perft_json() -> None:
    result = run("perft", "5", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        str(d): VECTORS["standard"]["perft"][str(d)] for d in range(1, 6)
    }


def test_cli_perft_open_boards() -> None:
    result = run("perft", "6", "--json", "--rules", "open-boards")
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)
    assert counts == {str(d): VECTORS["open-boards"]["perft"][str(d)] for d in range(1, 7)}
    assert counts["6"] != VECTORS["standard"]["perft"]["6"]


def test_cli_perft_after_moves() -> None:
    board = Board()
    board.push(Move.parse("e5"))
    board.push(Move.parse("e4"))
    state = kernel.from_board(board)
    expected = {str(d): int(kernel.perft(state, d, 0)) for d in range(1, 4)}
    assert expected["1"] == 9  # sent to the top-middle board (e4 is its cell 1)
    result = run("perft", "3", "--json", "--moves", "e5 e4")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == expected


def test_cli_perft_after_centre_matches_vector() -> None:
    result = run("perft", "4", "--json", "--moves", "e5")
    assert result.exit_code == 0, result.output
    board = start_board("standard", [[4, 4]])
    assert json.loads(result.stdout)["4"] == kernel.perft(kernel.from_board(board), 4, 0)


def test_cli_perft_plain_output() -> None:
    result = run("perft", "2")
    assert result.exit_code == 0, result.output
    assert "720" in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--rules", "bogus"), ["unknown rules preset", "bogus"]),
        (("--rules", "boards=sideways"), ["boards=sideways: choose one of closed, open"]),
        (("--rules", "win=five,win=line"), ["'win' is given twice"]),
        (("--position", ""), ["empty position"]),
        (("--moves", "e5 e5"), ["illegal move e5", "already taken"]),
        (("--moves", "e5 a1"), ["illegal move a1", "sent to board 4"]),
        (("--moves", "z9"), ["cannot read move", "z9"]),
    ],
)
def test_cli_perft_bad_input(args: tuple[str, ...], words: list[str]) -> None:
    result = run("perft", "3", "--json", *args)
    assert result.exit_code == 2
    # typer.Exit(2) shows up as SystemExit(2); anything else is an escaped exception
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    # result.output holds stderr too (with every click version); rich wraps long lines
    text = " ".join(result.output.split())
    assert "Traceback" not in text
    assert text.startswith("error:")
    for word in words:
        assert word in text
    assert "{" not in text, "no counts after an error"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_perft_in_pieces_sums_to_perft(name: str) -> None:
    """The pieces the command line counts in (so that Ctrl-C is seen between them) add
    up to the whole count, also from midgame positions where children end the game."""
    flags = PRESETS[name].flags
    rng = random.Random(7)
    for _ in range(6):
        board = Board(name)
        while not board.is_game_over() and board.ply < rng.randrange(30, 70):
            board.push(rng.choice(list(board.legal_moves)))
        state = kernel.from_board(board)
        for depth in (0, 1, 3, 4):
            for piece in (1, 2):
                assert sum(kernel.perft_pieces(state, depth, flags, piece)) == kernel.perft(
                    state, depth, flags
                ), (board.position(), depth, piece)


def test_cli_perft_refuses_absurd_depths() -> None:
    # `perft 20` was accepted (and would have run for years)
    result = run("perft", "20")
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "depths above 10 need --deep" in text, text
    result = run("perft", "82", "--deep")
    assert result.exit_code == 2
    # --deep from a late position is quick: the game ends before the depth
    board = Board()
    rng = random.Random(3)
    while board.ply < 70 and not board.is_game_over():
        board.push(rng.choice(list(board.legal_moves)))
    result = run("perft", "12", "--deep", "--json", "--position", board.position())
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)) == 12


def test_cli_perft_stops_at_ctrl_c() -> None:
    """Ctrl-C during a deep count stops it at once with one line and exit status 130
    (it used to wait for the whole depth, then print click's "Aborted!")."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ninefold.cli", "perft", "10"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        for line in proc.stdout:
            if line.startswith("perft(8)"):
                break
        proc.send_signal(signal.SIGINT)  # during perft(9), which takes seconds
        _, stderr = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert stderr.strip() == "interrupted during perft(9)"
