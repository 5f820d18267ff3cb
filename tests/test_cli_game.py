"""The game commands as a user meets them: show, replay, analyze and play limits, hints.

Real players, real files; the terminal loop gets its input from a list of answers.
"""

from __future__ import annotations

import io
import json
import random

from rich.console import Console
from typer.testing import CliRunner

from ninefold import Board, Game, Move, write_games
from ninefold.cli import app
from ninefold.players import make_player
from ninefold.players.level import analysis_spec
from ninefold.terminal import play_game, replay_game

runner = CliRunner()


def run(*args: str):
    result = runner.invoke(app, list(args))
    return result, " ".join(result.output.split())  # rich wraps long lines


def refused(*args: str) -> str:
    result, text = run(*args)
    assert result.exit_code == 2, text
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in text
    return text


# --- show ----------------------------------------------------------------------------


def test_show_start_with_rules_and_moves() -> None:
    # `show start` was refused while `analyze start` worked
    result, text = run("show", "start")
    assert result.exit_code == 0, text
    assert "standard 9/9/9/9/9/9/9/9/9 x - ........." in text
    result, text = run("show", "start", "--rules", "codingame", "--moves", "e5 e4")
    assert result.exit_code == 0, text
    assert "codingame 9/9/9/4o4/4x4/9/9/9/9 x 1 ........." in text
    assert "legal: d1 e1 f1 d2 e2 f2 d3 e3 f3" in text
    result, text = run("show", "--moves", "e5")
    assert result.exit_code == 0 and "o 4 ........." in text


def test_show_refuses_bad_input_in_one_short_line() -> None:
    assert "empty position" in refused("show", "")
    assert "--rules goes with 'start'" in refused(
        "show", "standard 9/9/9/9/4x4/9/9/9/9 o 4 .........", "--rules", "codingame"
    )
    assert "unknown rules preset" in refused("show", "start", "--rules", "chess")
    for args in (("show", "x" * 100_000), ("show", "--moves", "e5 " + "z" * 100_000)):
        text = refused(*args)
        assert text.startswith("error:") and len(text) < 300, text[:400]
    twice = refused("show", "start", "--rules", "boards=open,boards=closed")
    assert "'boards' is given twice" in twice


# --- replay ---------------------------------------------------------------------------


def recorded_games() -> list[Game]:
    games = []
    for seed in range(3):
        rng = random.Random(seed)
        board = Board(opening="53271")
        while not board.is_game_over() and board.ply < 12 + seed:
            board.push(rng.choice(list(board.legal_moves)))
        game = Game.from_board(board, X=f"alice{seed}", O="bob")
        game.comments = {4: "12 ms"}
        games.append(game)
    return games


def test_replay_prints_every_position_of_the_chosen_game(tmp_path) -> None:
    path = tmp_path / "games.pgn"
    with path.open("w") as out:
        write_games(recorded_games(), out)
    fifth = recorded_games()[1].moves[4]
    result, text = run("replay", str(path), "--game", "2")
    assert result.exit_code == 0, text
    assert "alice1 (X) vs bob (O)" in text
    assert "start (0/13 moves)" in text and "move 13/13" in text
    assert f"move 5/13: X {fifth} {{12 ms}}" in text  # after the opening's four moves
    assert text.count("a b c d e f g h i") == 14
    assert "holds 3 games, not 4" in refused("replay", str(path), "--game", "4")


def test_replay_bad_files_name_the_game_and_line(tmp_path) -> None:
    path = tmp_path / "games.pgn"
    with path.open("w") as out:
        write_games(recorded_games()[:2], out)
    text = path.read_text()
    path.write_text(text[: text.rindex("*")] + " e5 e5 *\n")
    message = refused("replay", str(path), "--game", "2")
    assert "game 2 (from line" in message and "line 9" in message, message
    assert "illegal move" in message
    assert "cannot read" in refused("replay", str(tmp_path / "missing.pgn"))


def test_replay_steps_forward_and_back() -> None:
    game = recorded_games()[0]
    out = io.StringIO()
    answers = iter(["", "", "b", "x", "q"])
    replay_game(game, Console(file=out, width=100), ask=lambda _: next(answers))
    text = out.getvalue()
    shown = [line.split(":")[0] for line in text.splitlines() if line.startswith(("move", "start"))]
    assert shown == ["start (0/12 moves)", "move 1/12", "move 2/12", "move 1/12"]
    assert "Enter = next, b = back, q = quit" in text  # the answer "x" is not a command


# --- thinking times ----------------------------------------------------------------------


def test_absurd_thinking_times_are_refused() -> None:
    # `analyze --ms 1e20` was accepted and would think for 3 billion years
    for args in (("analyze", "start", "--ms", "1e20"), ("play", "--ms", "1000000000")):
        result, text = run(*args)
        assert result.exit_code == 2 and "3600000" in text, text


def test_analyze_start_with_rules() -> None:
    result, text = run("analyze", "start", "--rules", "tic-tac-ku", "--moves", "e5", "--ms", "30",
                       "--json")
    assert result.exit_code == 0, text
    data = json.loads(result.output.splitlines()[-1])  # after any compiling note
    assert data["side_to_move"] == "O" and data["player"] == analysis_spec()


def test_analyze_names_its_player_level_10s_search() -> None:
    result, text = run("analyze", "start", "--ms", "30")
    assert result.exit_code == 0, text
    assert text.endswith(f"player: {analysis_spec()}") and "net=default" in text


def test_analyze_says_one_simulation_in_the_singular() -> None:
    """A win in one is proven by the first simulation: '1 simulation', never '1 simulations'."""
    o_wins = ("standard 2oo2o1x/1ox2oxoo/o1o3xo1/3x2xxx/3xoo1x1/ooooxxo1o/oxxx1ox1x/xoxx1o1x1/"
              "ox1x2x2 o - o..o.x.xx")
    result, text = run("analyze", o_wins, "--ms", "300")
    assert result.exit_code == 0, text
    assert "[1 simulation in" in text, text


# --- hints -----------------------------------------------------------------------------


def one_winning_move() -> tuple[Board, Move]:
    """A position (found in seeded random games) where the side to move wins at once
    with exactly one of many legal moves."""
    for seed in range(500):
        rng = random.Random(seed)
        board = Board()
        while not board.is_game_over():
            moves = list(board.legal_moves)
            wins = []
            for move in moves:
                board.push(move)
                if board.outcome() is not None and board.outcome().winner is not None:
                    wins.append(move)
                board.pop()
            if len(wins) == 1 and len(moves) >= 20:
                return board, wins[0]
            board.push(rng.choice(moves))
    raise AssertionError("no such position")


def test_hint_comes_from_the_strongest_player_not_the_opponent() -> None:
    # `hint` asked the opponent: a random opponent gave random hints. It asks the
    # analyses' player (level 10's search), and names it.
    board, win = one_winning_move()
    out = io.StringIO()
    answers = iter(["hint", "quit"])
    computer = make_player("random:seed=1")
    play_game(board, computer, board.turn.other, 200, Console(file=out, width=100),
              ask=lambda _: next(answers))
    hints = [line for line in out.getvalue().splitlines() if line.startswith("hint:")]
    assert len(hints) == 1 and hints[0].split()[1] == str(win), (hints, win)
    assert hints[0].endswith(f"from {analysis_spec()}"), hints
    assert board.outcome() is None  # the hint is not played


def test_play_against_a_player_that_cannot_play_there_is_refused_in_one_line() -> None:
    result = runner.invoke(app, ["play", "--opponent", "proof", "--rules", "standard"],
                           input="e5\n")
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "Traceback" not in text, text
    assert "proof plays X with open-boards rules only, not standard" in text
