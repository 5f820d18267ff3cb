"""Classic tic-tac-toe: the three views, the players, the statistics, the commands."""

from __future__ import annotations

import os
import re
from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest
from typer.testing import CliRunner

from ninefold.classic import (
    CELL_NAMES,
    CENTRE,
    CORNERS,
    MAGIC,
    CentrePlayer,
    ClassicBoard,
    MatchResult,
    NaivePlayer,
    PerfectPlayer,
    PlotPathError,
    RandomPlayer,
    View,
    best_win_chance,
    make_classic_player,
    outcome_probabilities,
    parse_move,
    play_game,
    play_match,
    plot_match,
    render,
    wilson_interval,
)
from ninefold.cli import app
from ninefold.players.player import GameOverError
from ninefold.players.registry import PlayerSpecError
from ninefold.rules import LINES, IllegalMoveError, InvalidMoveError, O, X, has_line

# --- a reference solver, independent of ninefold.classic.players ---------------------------------

_REF: dict[tuple, int] = {}


def ref_value(cells: tuple) -> int:
    """Plain minimax: 1 if the side to move wins with best play, 0 draw, -1 loss."""
    if cells in _REF:
        return _REF[cells]
    mover = X if cells.count(X) == cells.count(O) else O
    if has_line(cells, mover.other):
        result = -1
    elif None not in cells:
        result = 0
    else:
        result = max(
            -ref_value((*cells[:c], mover, *cells[c + 1 :])) for c in range(9) if cells[c] is None
        )
    _REF[cells] = result
    return result


# --- the views ----------------------------------------------------------------------------


def test_lo_shu_lines_are_the_triples_summing_to_15():
    triples = {frozenset(t) for t in combinations(range(1, 10), 3) if sum(t) == 15}
    lines = {frozenset(MAGIC[c] for c in line) for line in LINES}
    assert triples == lines and len(lines) == 8
    assert sorted(MAGIC) == list(range(1, 10))


def _pick15_numbers(picture: str, row: int) -> tuple[int, ...]:
    return tuple(int(n) for n in picture.splitlines()[row].split(":")[1].split())


def test_views_agree_on_every_move_and_result_of_every_game():
    """Walk the game tree once, memoised by position: every game is a path in it,
    so every move and every result of all 255168 games is checked."""
    board = ClassicBoard()
    memo: dict[tuple, Counter] = {}

    def walk() -> Counter:
        key = board.key()
        if key in memo:
            return memo[key]
        outcome = board.outcome()
        winner = outcome.winner if outcome else None
        # every view judges the same result, each by its own rule
        assert [view.winner(board) for view in View] == [winner] * 3
        # every picture shows the same holdings
        pick = render(board, View.PICK15)
        assert _pick15_numbers(pick, 1) == board.numbers(X)
        assert _pick15_numbers(pick, 2) == board.numbers(O)
        magic = render(board, View.MAGIC15).split()
        for cell, mark in enumerate(board.cells):
            assert magic[cell] == (str(MAGIC[cell]) if mark is None else f"{mark}{MAGIC[cell]}")
        if outcome is not None:
            assert board.legal_moves == []
            result = Counter({winner: 1})
        else:
            result = Counter()
            for cell in board.legal_moves:
                # the same move, entered in each view, is the same move
                for view in View:
                    text = view.text(cell)
                    assert view.parse(text) == parse_move(text) == cell
                    twin = board.copy()
                    assert twin.push_text(text, view) == cell
                    assert twin.numbers(board.turn) == tuple(
                        sorted((*board.numbers(board.turn), MAGIC[cell]))
                    )
                board.push(cell)
                result += walk()
                board.pop()
        memo[key] = result
        return result

    games = walk()
    assert len(memo) == 5478  # the legal positions
    assert games == Counter({X: 131184, O: 77904, None: 46080})
    assert sum(games.values()) == 255168


def test_the_chapter_example_in_all_three_views():
    board = ClassicBoard()
    for number in (8, 4, 2, 5, 6, 7, 1):  # Green 8, Blue 4, Green 2, Blue 5, ...
        board.push_text(str(number), View.PICK15)
    assert board.outcome().winner is X
    assert render(board, View.PICK15).endswith("X wins with 8 + 1 + 6 = 15")
    assert render(board, View.TICTACTOE).endswith("X wins with a1 b1 c1")
    assert render(board, View.MAGIC15, marks="colours").splitlines()[0] == "G8 G1 G6"


def test_move_errors_are_precise():
    board = ClassicBoard(["b2"])
    with pytest.raises(IllegalMoveError, match="5 is already taken by X"):
        board.push_text("5", View.PICK15)
    with pytest.raises(IllegalMoveError, match="b2 is already taken by Green"):
        board.push_text("b2", View.TICTACTOE, {X: "Green", O: "Blue"})
    with pytest.raises(InvalidMoveError, match="out of range"):
        View.MAGIC15.parse("0")
    with pytest.raises(InvalidMoveError, match="not a number"):
        View.PICK15.parse("five")
    with pytest.raises(InvalidMoveError, match="numbers 1-9 are moves in the Pick15"):
        View.TICTACTOE.parse("5")
    with pytest.raises(InvalidMoveError, match="not a move"):
        parse_move("d4")
    with pytest.raises(InvalidMoveError, match="cell 0-8"):
        board.push(9)
    with pytest.raises(ValueError, match="unknown view"):
        View.parse_name("chess")
    with pytest.raises(IndexError):
        ClassicBoard().pop()
    done = ClassicBoard(["a1", "a2", "b1", "b2", "c1"])
    with pytest.raises(IllegalMoveError, match="the game is over"):
        done.push(8)


# --- players ------------------------------------------------------------------------------


def _positions() -> list[ClassicBoard]:
    """Every reachable position where someone is to move."""
    seen: dict[tuple, ClassicBoard] = {}
    board = ClassicBoard()

    def walk() -> None:
        if board.key() in seen or board.is_game_over():
            return
        seen[board.key()] = board.copy()
        for cell in board.legal_moves:
            board.push(cell)
            walk()
            board.pop()

    walk()
    return list(seen.values())


POSITIONS = _positions()


@pytest.mark.parametrize("mark", [X, O])
def test_perfect_never_loses_and_wins_after_every_error(mark):
    """All opponent lines against every move perfect might choose."""
    perfect = PerfectPlayer()
    board = ClassicBoard()
    leaves: Counter = Counter()

    def walk(erred: bool) -> None:
        outcome = board.outcome()
        if outcome is not None:
            assert outcome.winner is not mark.other, f"perfect lost: {board.move_stack}"
            assert (outcome.winner is mark) == erred, f"error not punished: {board.move_stack}"
            leaves[outcome.winner] += 1
            return
        mover_is_perfect = board.turn is mark
        for cell in perfect.options(board) if mover_is_perfect else board.legal_moves:
            board.push(cell)
            # an error: the opponent's move handed perfect a won position
            walk(erred or (not mover_is_perfect and ref_value(board.key()) == 1))
            board.pop()

    walk(False)
    assert leaves[mark.other] == 0
    assert leaves[mark] > 0 and leaves[None] > 0


def test_perfect_keeps_every_win_and_every_draw():
    perfect = PerfectPlayer()
    for board in POSITIONS:
        value = ref_value(board.key())
        for cell in perfect.options(board):
            after = board.copy()
            after.push(cell)
            assert -ref_value(after.key()) == value, (board.move_stack, cell)


def test_perfect_opens_in_a_corner_and_answers_a_corner_with_the_centre():
    perfect = PerfectPlayer()
    assert set(perfect.options(ClassicBoard())) <= set(CORNERS)
    for corner in CORNERS:
        assert perfect.options(ClassicBoard([corner])) == [CENTRE]


def test_naive_wins_before_it_blocks_and_blocks_before_it_guesses():
    naive, centre = NaivePlayer(), CentrePlayer()
    win_or_block = ClassicBoard(["a1", "a2", "b1", "b2"])  # X: c1 wins; O threatens c2
    assert naive.options(win_or_block) == [CELL_NAMES.index("c1")]
    block = ClassicBoard(["a1", "b2", "b1"])  # O must block c1
    assert naive.options(block) == centre.options(block) == [CELL_NAMES.index("c1")]
    quiet = ClassicBoard(["a1"])
    assert naive.options(quiet) == RandomPlayer().options(quiet) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert centre.options(quiet) == [CENTRE]
    for board in POSITIONS:  # naive and centre always take a win when there is one
        wins = [c for c in board.legal_moves if _wins(board, c)]
        if wins:
            assert naive.options(board) == centre.options(board) == wins


def _wins(board: ClassicBoard, cell: int) -> bool:
    after = board.copy()
    after.push(cell)
    return has_line(after.cells, board.turn)


def test_a_winning_line_against_naive():
    """The line in docs/guide/classic.md: only naive's first reply is a random choice."""
    board = ClassicBoard()
    naive = NaivePlayer()
    for i, name in enumerate(["a1", "b1", "a2", "a3", "b2", "c2", "c3"]):
        cell = CELL_NAMES.index(name)
        if i % 2:
            assert cell in naive.options(board)
        board.push(cell)
    assert board.outcome().winner is X
    assert naive.options(ClassicBoard(["a1", "b1", "a2"])) == [CELL_NAMES.index("a3")]  # forced
    assert naive.options(ClassicBoard(["a1", "b1", "a2", "a3", "b2"])) == [5, 8]  # two threats
    best = best_win_chance(naive, O)
    assert (best.win, best.loss) == (Fraction(89, 96), 0)
    assert outcome_probabilities(PerfectPlayer(), naive)[X] == Fraction(89, 96)


def test_make_classic_player():
    assert isinstance(make_classic_player(" Centre "), CentrePlayer)
    assert isinstance(make_classic_player("center"), CentrePlayer)
    with pytest.raises(PlayerSpecError, match="unknown classic player 'best'"):
        make_classic_player("best")
    with pytest.raises(GameOverError):
        NaivePlayer().choose(ClassicBoard(["a1", "a2", "b1", "b2", "c1"]))


# --- odds and statistics ------------------------------------------------------------------


def test_exact_odds_add_up_and_match_a_seeded_match():
    odds = outcome_probabilities(NaivePlayer(), CentrePlayer())
    assert sum(odds.values()) == 1
    result = play_match("naive", "centre", 3000, seed=11)
    for (_, _, _, low, high), key in zip(result.rows(), (X, O, None), strict=True):
        assert low <= float(odds[key]) <= high
    assert result.x_wins + result.o_wins + result.draws == 3000


def test_stats_are_reproducible_with_a_seed():
    a = play_match("naive", "naive", 500, seed=3)
    assert a == play_match("naive", "naive", 500, seed=3)
    assert a != play_match("naive", "naive", 500, seed=4)
    import random

    game1 = play_game(NaivePlayer(random.Random(5)), RandomPlayer(random.Random(6)))
    game2 = play_game(NaivePlayer(random.Random(5)), RandomPlayer(random.Random(6)))
    assert game1.move_stack == game2.move_stack


def test_wilson_interval_matches_scipy():
    # scipy.stats.binomtest(k, n).proportion_ci(0.95, method="wilson"), precomputed
    expected = {
        (0, 10): (0.0, 0.2775328),
        (3, 10): (0.107791267, 0.603221853),
        (700, 10000): (0.065162564, 0.075167674),
        (10000, 10000): (0.999616002, 1.0),
    }
    for (k, n), interval in expected.items():
        assert wilson_interval(k, n) == pytest.approx(interval, abs=1e-8)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_plot_is_a_png(tmp_path):
    result = play_match("centre", "naive", 200, seed=1)
    path = plot_match(result, tmp_path / "stats.png", outcome_probabilities(
        CentrePlayer(), NaivePlayer()))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_mode & 0o777 == 0o666 & ~_umask()
    assert [p.name for p in tmp_path.iterdir()] == ["stats.png"]  # no temporary file left


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_plot_is_whole_or_not_written(tmp_path):
    result = play_match("naive", "naive", 50, seed=2)
    with pytest.raises(PlotPathError, match=r"no folder .*missing.* create it first"):
        plot_match(result, tmp_path / "missing" / "p.png")
    (tmp_path / "old.png").write_bytes(b"old")
    unreadable = MatchResult("$\\nosuchsymbol$", "naive", 10, 5, 3, 2)  # fails while drawn
    with pytest.raises(ValueError, match="nosuchsymbol"):
        plot_match(unreadable, tmp_path / "old.png")
    assert (tmp_path / "old.png").read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["old.png"]


# --- the commands -------------------------------------------------------------------------

runner = CliRunner()


def test_cli_stats_table_is_reproducible(tmp_path):
    args = ["classic", "stats", "--games", "300", "--x", "naive", "--o", "centre", "--seed", "9"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "X wins" in first.output and "Wilson" in first.output
    assert runner.invoke(app, args).output == first.output
    png = tmp_path / "p.png"
    assert runner.invoke(app, [*args, "--plot", str(png)]).exit_code == 0
    assert png.exists()
    bad = runner.invoke(app, ["classic", "stats", "--x", "nobody"])
    assert bad.exit_code == 2


def test_cli_stats_plot_into_a_missing_folder_is_one_line(tmp_path):
    (tmp_path / "dir.png").mkdir()
    missing = tmp_path / "no" / "such"
    for plot, reason in ((missing / "p.png", f"no folder '{missing}' for the plot"),
                         (tmp_path, "must be a .png file"),
                         (tmp_path / "dir.png", "is a folder, not a file")):
        result = runner.invoke(app, ["classic", "stats", "-n", "10", "--plot", str(plot)])
        assert result.exit_code == 2, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and reason in lines[0], lines
    assert not missing.exists()


def test_cli_play_rejects_bad_input_and_exits_on_eof():
    result = runner.invoke(
        app, ["classic", "play", "--computer", "perfect", "--seed", "1"],
        input="zz\n0\nb2\nb2\nundo\nmagic15\n10\n",
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "'zz' is not a cell" in out
    assert "'0' is not a cell" in out
    assert "b2 is already taken by X" in out
    assert "'10' is out of range: Magic15 numbers are 1-9" in out
    assert out.rstrip().endswith("bye")


def test_cli_play_a_whole_game_in_pick15_with_the_computer_first():
    moves = "\n".join(str(n) for n in range(1, 10)) + "\n"
    result = runner.invoke(
        app, ["classic", "play", "--first", "computer", "--view", "pick15", "--marks", "colours",
              "--computer", "perfect"], input=moves,
    )
    assert result.exit_code == 0, result.output
    first = re.search(r"The computer plays (\d)\.", result.output)
    assert first and int(first.group(1)) in (MAGIC[c] for c in CORNERS)
    assert "Blue" in result.output and "Green" in result.output
    assert "You win!" not in result.output
    assert "The computer wins." in result.output or "It's a draw." in result.output
