"""Text in and out: moves, position strings, game records, and fuzzing of every parser.

Every parser may only raise its documented error: `InvalidMoveError` for
moves, `InvalidPositionError` (or its `InvalidOpeningError`) for positions and
opening codes, `InvalidRecordError` for records and `ValueError` for rules.
"""

from __future__ import annotations

import contextlib
import io
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ninefold import (
    PRESETS,
    Board,
    Game,
    InvalidMoveError,
    InvalidOpeningError,
    InvalidPositionError,
    InvalidRecordError,
    Mark,
    Move,
    O,
    Outcome,
    Rules,
    Termination,
    X,
    kernel,
    opening_moves,
    read_games,
    write_game,
    write_games,
)
from ninefold.rules import has_line

SETTINGS = settings(
    max_examples=200,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def random_game(rules: str | Rules, seed: int, plies: int = 81, **kwargs) -> Board:
    rng = random.Random(seed)
    board = Board(rules, **kwargs)
    while not board.is_game_over() and board.ply < plies:
        board.push(rng.choice(list(board.legal_moves)))
    return board


def positions_of(board: Board) -> list[Board]:
    """The board at every ply of its game (copies)."""
    copy = board.copy()
    out = [copy.copy()]
    while copy.move_stack:
        copy.pop()
        out.append(copy.copy())
    return out


# --- moves ----------------------------------------------------------------------------


ALL_MOVES = [Move(b, c) for b in range(9) for c in range(9)]


def test_move_text_follows_the_spec() -> None:
    for move in ALL_MOVES:
        b, c = move.board, move.cell
        column, row = 3 * (b % 3) + c % 3, 3 * (b // 3) + c // 3
        assert move.xy == (column, row)
        assert str(move) == "abcdefghi"[column] + str(row + 1)
    assert len({str(m) for m in ALL_MOVES}) == 81
    corners = [Move(0, 0), Move(4, 4), Move(8, 8), Move(2, 5), Move(6, 2)]
    assert [str(m) for m in corners] == ["a1", "e5", "i9", "i2", "c7"]


@pytest.mark.parametrize("move", ALL_MOVES, ids=str)
def test_move_round_trips(move: Move) -> None:
    text = str(move)
    assert Move.parse(text) == move
    assert Move.parse(f"  {text.upper()}\t") == move
    assert Move.from_xy(*move.xy) == move
    assert Move.from_action(move.action) == move
    assert move.action == 9 * move.board + move.cell
    assert Move(move.board, move.cell) == move and hash(Move(move.board, move.cell)) == hash(move)


@pytest.mark.parametrize(
    "text", ["", "e", "e55", "j1", "a0", "a10", "5e", "e 5", "ee", "11", "-", "e5e5", "é5", "e٥"]
)
def test_move_parse_errors(text: str) -> None:
    with pytest.raises(InvalidMoveError, match="cannot read move"):
        Move.parse(text)


@pytest.mark.parametrize("value", [None, 5, 4.4, b"e5", ["e5"]])
def test_move_parse_needs_text(value: object) -> None:
    with pytest.raises(InvalidMoveError):
        Move.parse(value)  # type: ignore[arg-type]


def test_move_constructors_check_ranges() -> None:
    for bad in (-1, 9, True, 1.0, "1"):
        with pytest.raises(InvalidMoveError):
            Move(bad, 0)  # type: ignore[arg-type]
        with pytest.raises(InvalidMoveError):
            Move(0, bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidMoveError):
            Move.from_xy(bad, 0)  # type: ignore[arg-type]
        with pytest.raises(InvalidMoveError):
            Move.from_xy(0, bad)  # type: ignore[arg-type]
    for bad in (-1, 81, True, 4.0, None):
        with pytest.raises(InvalidMoveError):
            Move.from_action(bad)  # type: ignore[arg-type]
    assert Move(1, 2) < Move(2, 0) < Move(2, 1)  # ordered like actions


# --- positions -------------------------------------------------------------------------


def test_start_and_known_positions() -> None:
    assert Board().position() == "standard 9/9/9/9/9/9/9/9/9 x - ........."
    assert Board("tic-tac-ku").position() == "tic-tac-ku 9/9/9/9/9/9/9/9/9 x - ........."
    board = Board("codingame")
    for text in ("e5", "e4", "e2"):
        board.push_text(text)
    assert board.position() == "codingame 9/4x4/9/4o4/4x4/9/9/9/9 o 4 ........."
    assert Board("standard,win=five").position().startswith("boards=closed,win=five,full=draw ")


def test_position_reading_sets_every_field() -> None:
    board = Board.from_position("open-boards 9/9/9/xxx6/o8/o8/9/9/9 o 0 ...x.....")
    assert board.rules == PRESETS["open-boards"]
    assert board.small_board(3) == (X, X, X, O, None, None, O, None, None)
    assert board.owners == [None, None, None, X, None, None, None, None, None]
    assert board.turn is O and board.target == 0 and board.outcome() is None
    assert board.move_stack == [] and board.ply == 0
    assert len(board.legal_moves) == 9  # sent to board 0 by the X on d4


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_position_round_trips_at_every_ply(name: str) -> None:
    double_lines = 0
    seen = 0
    for seed in range(15):
        for board in positions_of(random_game(name, seed)):
            text = board.position()
            again = Board.from_position(text)
            assert again == board, text
            assert again.position() == text
            assert (kernel.from_board(again) == kernel.from_board(board)).all()
            assert [m.action for m in again.legal_moves] == [m.action for m in board.legal_moves]
            double_lines += sum(
                has_line(board.small_board(b), X) and has_line(board.small_board(b), O)
                for b in range(9)
            )
            seen += 1
    assert seen > 15 * 20
    if PRESETS[name].open_boards:
        assert double_lines > 0, "the sample must include boards with lines of both players"


def test_position_with_both_lines_in_a_board_keeps_the_owner() -> None:
    # Boards 4: X's middle row first, then O's top row (see test_rules).
    board = Board("open-boards")
    for b, c in [(4, 3), (3, 4), (4, 5), (5, 4), (4, 4), (4, 0), (0, 4), (4, 1), (1, 4), (4, 2)]:
        board.push(Move(b, c))
    text = board.position()
    assert text.endswith(" x 2 ....x....")
    assert Board.from_position(text).owners[4] is X
    swapped = text[: -len("....x....")] + "....o...."
    # O's line was made by the last move (e3, which sent X to board 2): X's came first
    with pytest.raises(InvalidPositionError, match="no last move of O leads here"):
        Board.from_position(swapped)
    with pytest.raises(InvalidPositionError, match="5 fields"):
        Board.from_position(text.rsplit(" ", 1)[0])
    with pytest.raises(InvalidPositionError, match="impossible when won boards close"):
        Board.from_position(text.replace("open-boards", "standard").replace(" 2 ", " - "))


def test_position_without_owners_field_is_refused() -> None:
    # Was accepted, the owners derived from the lines: positions have 5 fields.
    board = random_game("standard", 3, plies=40)
    text = board.position()
    with pytest.raises(InvalidPositionError, match=r"a position has 5 fields .* got 4"):
        Board.from_position(text.rsplit(" ", 1)[0])


def test_position_of_finished_games() -> None:
    for name in PRESETS:
        for seed in range(10):
            board = random_game(name, seed)
            assert board.is_game_over()
            text = board.position()
            assert text.split()[3] == "-"
            again = Board.from_position(text)
            assert again.outcome() == board.outcome()


GOOD = "standard 9/9/9/9/4x4/9/9/9/9 o 4 ........."


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty position: write 5 fields"),
        ("  \t ", "empty position: write 5 fields"),
        ("standard 9/9/9/9/9/9/9/9/9", "5 fields"),
        (GOOD + " extra", "5 fields"),
        ("chess 9/9/9/9/9/9/9/9/9 x - .........", "rules field: unknown rules preset"),
        ("standard 9/9/9/9/9/9/9/9 x - .........", "needs 9 rows"),
        ("standard 9/9/9/9/9/9/9/9/9/9 x - .........", "needs 9 rows"),
        ("standard 9/9/9/9/4X4/9/9/9/9 o 4 .........", "'X' is not x, o or a digit"),
        ("standard 9/9/9/9/4x0x3/9/9/9/9 o 4 .........", "'0' is not x, o or a digit"),
        ("standard 9/9/9/9/4x5/9/9/9/9 o - .........", "row 5 of the grid ('4x5') has 10 squares"),
        ("standard 9/9/9/9/8/9/9/9/9 x - .........", "has 8 squares"),
        ("standard 9/9/9/9/4x4/9/9/9/9 z 4 .........", "side to move must be 'x' or 'o'"),
        ("standard 9/9/9/9/4x4/9/9/9/9 x 4 .........", "mark counts (X 1, O 0) say O"),
        ("standard 9/9/9/9/3xx4/9/9/9/9 o - .........", "X has 2 marks and O 0"),
        ("standard 9/9/9/9/3oo4/9/9/9/9 x - .........", "X has 0 marks and O 2"),
        ("standard 9/9/9/9/4x4/9/9/9/9 o 9 .........", "target board must be 0-8 or '-'"),
        ("standard 9/9/9/9/4x4/9/9/9/9 o 44 .........", "target board must be 0-8 or '-'"),
        ("standard 9/9/9/9/4x4/9/9/9/9 o 3 .........", "needs a X mark in cell 3"),
        ("standard 9/9/9/9/4x4/9/9/9/9 o 4 ........", "board owners must be 9 of x, o or '.'"),
        ("standard 9/9/9/9/4x4/9/9/9/9 o 4 ....-....", "board owners must be 9"),
        ("standard 9/9/9/9/4x4/9/9/9/9 o 4 ....x....", "board 4 is given to X, who has no line"),
        (
            "standard 9/9/9/xxx6/o8/o8/9/9/9 o - .........",
            "board 3 has a line of X but no owner",
        ),
        (
            "standard 9/9/9/xxx6/o8/o8/9/9/9 o 3 ...x.....",
            "target board 3 is closed",
        ),
    ],
)
def test_position_errors(text: str, words: str) -> None:
    with pytest.raises(InvalidPositionError) as info:
        Board.from_position(text)
    assert words in str(info.value)


def finished(name: str, termination: Termination) -> Board:
    """The first seeded random game of `name` that ends by `termination`."""
    for seed in range(200):
        board = random_game(name, seed)
        if board.outcome().termination is termination:
            return board
    raise AssertionError(f"no {termination} game found")


def test_position_errors_for_finished_games() -> None:
    board = finished("standard", Termination.LINE)
    text = board.position()
    rules, grid, side, target, owners = text.split()
    with pytest.raises(InvalidPositionError, match="target board must be '-'"):
        # any target is refused once the game is over
        Board.from_position(" ".join([rules, grid, side, str(board.move_stack[-1].cell), owners]))
    flipped = "o" if side == "x" else "x"
    with pytest.raises(InvalidPositionError):
        Board.from_position(" ".join([rules, grid, flipped, target, owners]))


def test_position_winner_to_move_is_refused() -> None:
    # X owns boards 0, 1, 2 (a line); O has as many marks as X, so it is X's turn: impossible.
    grid = "xxxxxxxxx/9/9/o1o1o1o1o/1o1o5/9/o1o6/9/9"
    with pytest.raises(InvalidPositionError, match="X has already won, yet it is X to move"):
        Board.from_position(f"standard {grid} x - xxx......")


def test_position_both_players_with_a_line_of_boards() -> None:
    grid = "xxxxxxxxx/9/9/ooooooooo/9/9/x8/9/9"
    with pytest.raises(InvalidPositionError, match="both players have three boards in a row"):
        Board.from_position(f"standard {grid} o - xxxooo...")


def grid(marks: dict[tuple[int, int], Mark]) -> str:
    """The grid field with `marks` at (board, cell), every empty square a '1'."""
    chars = {Move(b, c).xy: "x" if m is X else "o" for (b, c), m in marks.items()}
    return "/".join("".join(chars.get((x, y), "1") for x in range(9)) for y in range(9))


def test_free_move_the_last_move_cannot_give_is_refused() -> None:
    # Was accepted: X's only mark sends O to board 4, which is open.
    with pytest.raises(InvalidPositionError, match=r"target '-' \(a free move\) needs a X mark"):
        Board.from_position("standard 9/9/9/9/4x4/9/9/9/9 o - .........")
    assert Board.from_position(Board().position()) == Board()  # the start is free


def test_board_won_twice_over_is_refused_when_won_boards_close() -> None:
    # X holds rows 1 and 3 of board 0: its first line closed the board. O's marks all
    # sit in cell 0 of their boards, so the free move fits the last move.
    marks = {(0, c): X for c in (0, 1, 2, 6, 7, 8)} | {(b, 0): O for b in (1, 2, 3, 5, 6, 7)}
    text = f"standard {grid(marks)} x - x........"
    with pytest.raises(InvalidPositionError, match="two lines of X with no square in common"):
        Board.from_position(text)
    again = text.replace("standard", "open-boards").replace(" - ", " 0 ")  # board 0 stays open
    assert Board.from_position(again).owners[0] is X


def test_game_that_went_on_after_it_was_won_is_refused() -> None:
    x_rows = {(b, c): X for b in (0, 1, 2, 6, 7, 8) for c in (0, 1, 2)}
    no_line = {(b, c): O for b in (3, 4, 5) for c in (0, 1, 5, 6, 8)} | {(0, 3): O, (1, 3): O}
    text = f"standard {grid(x_rows | no_line)} o - xxx...xxx"
    with pytest.raises(InvalidPositionError, match="two lines of boards with no board in common"):
        Board.from_position(text)
    six = {(b, c): X for b in range(6) for c in (0, 1, 2)}
    others = {(b, c): O for b in range(6) for c in (3, 4)} | {(6, c): O for c in (0, 1, 5, 6, 8)}
    with pytest.raises(InvalidPositionError, match="X owns 6 boards and O 0: the game ends"):
        Board.from_position(f"tic-tac-ku {grid(six | others)} o - xxxxxx...")


def test_position_needs_text() -> None:
    for value in (None, 3, b"standard"):
        with pytest.raises(InvalidPositionError):
            Board.from_position(value)  # type: ignore[arg-type]


# --- game records ------------------------------------------------------------------------


def sample_games() -> list[Game]:
    """Finished and unfinished games of every preset, with openings, positions, comments."""
    games = []
    for i, name in enumerate(sorted(PRESETS)):
        finished = random_game(name, i)
        games.append(Game.from_board(finished, X="alice", O='bob "the bot"', Event="test\\run"))
        unfinished = random_game(name, i + 10, plies=23, opening="53271")
        game = Game.from_board(unfinished, X="mcts:ms=100", O="random")
        game.comments = {0: "12 ms", 5: "a {nested} comment", 22: "last"}
        games.append(game)
        start = Board.from_position(random_game(name, i + 20, plies=11).position())
        rng = random.Random(i)
        while not start.is_game_over():
            start.push(rng.choice(list(start.legal_moves)))
        games.append(Game.from_board(start))
    games.append(Game.from_board(Board()))  # no moves at all
    return games


def same_game(a: Game, b: Game) -> None:
    assert a.tags == b.tags
    assert a.moves == b.moves
    assert a.comments == {k: v.replace("}", ")") for k, v in b.comments.items()}
    assert a.board() == b.board()


def test_records_round_trip_many_games_per_file() -> None:
    games = sample_games()
    out = io.StringIO()
    write_games(games, out)
    text = out.getvalue()
    assert text.count('[Result "') == len(games)
    back = list(read_games(io.StringIO(text)))
    assert len(back) == len(games)
    for original, read in zip(games, back, strict=True):
        same_game(read, original)
        assert read.outcome == original.outcome
        assert str(read) == str(original)
    # The finished games carry their outcome; the unfinished ones do not.
    assert [g.outcome is None for g in back] == [g.result == "*" for g in games]
    assert sum(g.result == "*" for g in games) >= 4
    assert sum("Position" in g.tags for g in games) == 4
    assert sum("Opening" in g.tags for g in games) == 4


def test_record_tags_and_result_of_a_finished_game() -> None:
    board = random_game("codingame", 4)
    game = Game.from_board(board, X="a", O="b")
    assert list(game.tags) == ["Rules", "X", "O", "Result", "Termination"]
    assert game.tags["Result"] == board.outcome().result()
    assert game.tags["Termination"] == board.outcome().termination.value
    assert game.outcome == board.outcome()
    assert write_game(game).endswith(" " + board.outcome().result())


def test_hand_written_record() -> None:
    text = """
% a comment line, then two games
[Event "club \\"night\\""]
[Rules "standard"]
[Opening "53271"]
[X "alice"]
[O "bob"]

1. f4 h1 2. d3 {thinking} a7
3.b2 {12 ms}
*

[Rules "open-boards"]
[Position "open-boards 9/9/9/9/4x4/9/9/9/9 o 4 ........."]
1... e4 2. d1 *
"""
    first, second = read_games(text)
    assert first.tags["Event"] == 'club "night"'
    assert [str(m) for m in first.moves] == ["f4", "h1", "d3", "a7", "b2"]
    assert first.comments == {2: "thinking", 4: "12 ms"}
    assert first.result == "*" and first.outcome is None
    board = first.board()
    assert board.opening == "53271" and board.ply == 5 and board.turn is O
    assert second.start_board() == Board.from_position(
        "open-boards 9/9/9/9/4x4/9/9/9/9 o 4 ........."
    )
    assert [str(m) for m in second.moves] == ["e4", "d1"]
    assert second.board().turn is O


def test_record_from_a_position_numbers_its_moves() -> None:
    start = Board()
    start.push_text("e5")
    board = Board.from_position(start.position())
    for text in ("e4", "d1", "a2"):
        board.push_text(text)
    game = Game.from_board(board)
    assert game.tags["Position"] == start.position()
    assert write_game(game).endswith("\n1... e4 2. d1 a2 *")
    [again] = read_games(write_game(game))
    assert again.board() == board


def test_record_text_stays_readable_with_odd_tags_and_comments() -> None:
    board = Board(opening="53271")
    game = Game.from_board(board, X="line\nbreak", O="carriage\rreturn\u2028sep", Event='q"\\')
    game.comments = {0: "two\nlines", 1: "close } brace", 3: "form\x0cfeed"}
    back = list(read_games(write_game(game)))
    assert len(back) == 1
    assert back[0].tags["X"] == "line break"
    assert back[0].tags["O"] == "carriage return sep"
    assert back[0].tags["Event"] == 'q"\\'
    assert back[0].comments == {0: "two lines", 1: "close ) brace", 3: "form feed"}
    assert back[0].moves == board.move_stack


def record(board: Board, **tags: str) -> str:
    game = Game.from_board(board)
    for key, value in tags.items():
        if value is None:
            game.tags.pop(key, None)
        else:
            game.tags[key] = value
    return write_game(game)


LINE_GAME = finished("standard", Termination.LINE)
DRAWN_GAME = finished("standard", Termination.NO_MOVES)
COUNT_GAME = finished("codingame", Termination.BOARD_COUNT)
OPEN_GAME = random_game("standard", 1, plies=20)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (record(LINE_GAME, Result="1/2-1/2"), "but the record says 1/2-1/2"),
        (record(LINE_GAME, Result="*", Termination=None), "but the record says *"),
        (record(LINE_GAME, Termination="no-moves"), "end by line, the record says no-moves"),
        (record(LINE_GAME, Termination="time-forfeit"), "the record says time-forfeit"),
        (record(DRAWN_GAME, Result="1-0", Termination=None), "but the record says 1-0"),
        (record(COUNT_GAME, Termination="line"), "the moves end by board-count"),
        (record(OPEN_GAME, Result="1-0", Termination="line"), "the moves do not end the game"),
        (record(OPEN_GAME, Result="1/2-1/2", Termination="no-moves"), "do not end the game"),
        (record(OPEN_GAME, Result="0-1", Termination="board-count"), "do not end the game"),
        (record(OPEN_GAME, Result="*", Termination="line"), "but the result is *"),
        (record(OPEN_GAME, Result="*", Termination="resignation"), "but the result is *"),
        (record(OPEN_GAME, Result="1/2-1/2", Termination="resignation"), "needs a winner"),
        (record(OPEN_GAME, Result="1/2-1/2", Termination="time-forfeit"), "needs a winner"),
        (record(OPEN_GAME, Result="1-0", Termination="checkmate"), "unknown Termination"),
        (
            record(OPEN_GAME).replace('[Result "*"]', '[Result "2-0"]'),
            "Result tag '2-0' is not one of",
        ),
        (
            record(OPEN_GAME, Result="1-0").rsplit(" ", 1)[0] + " 0-1",
            "the moves end with 0-1 but the Result tag says 1-0",
        ),
        (record(OPEN_GAME)[:-1] + "1-0", "but the Result tag says *"),
        (record(OPEN_GAME) + " e5", "after the result *"),
    ],
)
def test_inconsistent_records_are_refused(text: str, words: str) -> None:
    with pytest.raises(InvalidRecordError) as info:
        list(read_games(text))
    assert words in str(info.value)
    assert "game 1" in str(info.value)


def test_referee_endings_are_accepted() -> None:
    for termination, result in [
        ("time-forfeit", "0-1"),
        ("illegal-move", "1-0"),
        ("bot-failure", "1-0"),
        ("resignation", "0-1"),
        ("adjudication", "1/2-1/2"),
        ("adjudication", "1-0"),
    ]:
        game = next(read_games(record(OPEN_GAME, Result=result, Termination=termination)))
        winner = {"1-0": X, "0-1": O, "1/2-1/2": None}[result]
        assert game.outcome == Outcome(winner, Termination(termination))
    old = next(read_games(record(LINE_GAME, Termination=None)))
    assert old.outcome == LINE_GAME.outcome()
    adjudicated = next(read_games(record(OPEN_GAME, Result="1-0", Termination=None)))
    assert adjudicated.outcome == Outcome(X, Termination.ADJUDICATION)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[Rules "standard"\n\n1. e5 *', "cannot read tag"),
        ('[Rules standard]\n\n1. e5 *', "cannot read tag"),
        ('[Rules "chess"]\n\n1. e5 *', "unknown rules preset"),
        ('[Position "standard 9/9 x - ........."]\n\n*', "needs 9 rows"),
        ('[Rules "open-boards"]\n[Position "standard 9/9/9/9/9/9/9/9/9 x - ........."]\n\n*',
         "the Position tag's rules differ from the Rules tag"),
        ("{hello} 1. e5 *", "comment before any move"),
        ("1. e5 e5 *", "move 2: illegal move e5: e5 is already taken by X"),
        ("1. e5 a1 *", "move 2: illegal move a1"),
        ("1. e5 k4 *", "move 2: cannot read move 'k4'"),
        ('[Opening "53271"]\n\n1. f4 h1 2. d3 a8 *', "do not match the Opening code 53271"),
        ('[Opening "5327"]\n\n1. f4 *', "must be exactly 5 digits"),
        ('[Opening "53271"]\n[Position "standard 9/9/9/9/9/9/9/9/9 x - ........."]\n\n*',
         "do not match the Opening code"),
        ('[Rules "standard"]\n\n1. e5 *\n\n1. e5 *', "'1.' after the result *"),
    ],
)
def test_bad_records(text: str, words: str) -> None:
    with pytest.raises(InvalidRecordError) as info:
        list(read_games(text))
    assert words in str(info.value)


def test_read_games_is_lazy_and_names_the_game() -> None:
    good = record(OPEN_GAME)
    text = good + "\n\n" + good + "\n\n" + good.replace(" *", " 1-0")
    games = read_games(text)
    assert next(games).moves == OPEN_GAME.move_stack
    assert next(games).moves == OPEN_GAME.move_stack
    with pytest.raises(InvalidRecordError, match=r"^game 3 \(from line \d+\)"):
        next(games)
    assert list(read_games("")) == []
    assert list(read_games("% only a comment\n\n")) == []


# --- fuzzing every parser -------------------------------------------------------------------


def sample_positions() -> list[str]:
    out = []
    for name in sorted(PRESETS):
        for seed in range(6):
            for plies in (0, 9, 30, 81):
                out.append(random_game(name, seed, plies).position())
    return out


POSITIONS = sample_positions()
RECORD_FILES = [
    "\n\n".join(write_game(g) for g in sample_games()[i : i + 3]) for i in range(0, 12, 3)
]

EDIT_CHARS = [
    *'xo0123456789/-. \n{}[]"\\*%abcdefghiXO=,;',
    *("1-0", "0-1", "1/2-1/2", "standard", "open-boards", "e5", "\u2028", "\r"),
    *('\n[Result "1-0"]\n', '[Termination "line"]'),
]
edits = st.lists(
    st.tuples(st.sampled_from("dri"), st.integers(0, 10_000), st.sampled_from(EDIT_CHARS)),
    min_size=1,
    max_size=5,
)


def mutate(text: str, changes: list[tuple[str, int, str]]) -> str:
    for op, at, piece in changes:
        i = at % (len(text) + 1)
        if op == "d":
            text = text[:i] + text[i + 1 :]
        elif op == "r":
            text = text[:i] + piece + text[i + 1 :]
        else:
            text = text[:i] + piece + text[i:]
    return text


def check_accepted_position(board: Board) -> None:
    """A position the parser accepts is a working board: it re-reads to itself, has moves
    while the game runs, and the kernel sees the same moves."""
    assert Board.from_position(board.position()) == board
    moves = [m.action for m in board.legal_moves]
    assert bool(moves) == (not board.is_game_over())
    assert kernel.legal_actions(kernel.from_board(board)).tolist() == moves
    if moves:
        board.push(Move.from_action(moves[len(moves) // 2]))
        board.pop()


def parse_position_or_error(text: str) -> None:
    try:
        board = Board.from_position(text)
    except InvalidPositionError:
        return
    check_accepted_position(board)


def read_games_or_error(text: str) -> None:
    try:
        games = list(read_games(text))
    except InvalidRecordError:
        return
    for game in games:
        assert game.board().ply == len(game.moves)
        game.outcome  # noqa: B018 - must not raise
        again = list(read_games(write_game(game)))
        assert len(again) == 1
        assert again[0].tags == game.tags and again[0].moves == game.moves
        assert again[0].comments == game.comments


@SETTINGS
@given(st.text())
def test_fuzz_move_parse(text: str) -> None:
    try:
        move = Move.parse(text)
    except InvalidMoveError:
        return
    assert str(move) == text.strip().lower()


@SETTINGS
@given(st.from_regex(r"\A\s*[a-kA-K0-9][0-9a-z]?\s*\Z"))
def test_fuzz_move_parse_near_misses(text: str) -> None:
    try:
        move = Move.parse(text)
    except InvalidMoveError:
        assert text.strip().lower() not in {str(m) for m in ALL_MOVES}
        return
    assert str(move) == text.strip().lower()


@SETTINGS
@given(st.text())
def test_fuzz_position_text(text: str) -> None:
    parse_position_or_error(text)


@SETTINGS
@given(
    st.sampled_from([*PRESETS, "standard,win=five", "x", ""]),
    st.lists(st.from_regex(r"\A[xo1-9]{0,9}\Z"), min_size=9, max_size=9),
    st.sampled_from(["x", "o", "-", "X"]),
    st.sampled_from([*"-012345678", "9", "x"]),
    st.one_of(st.none(), st.from_regex(r"\A[xo.]{9}\Z")),
)
def test_fuzz_position_fields(rules, rows, side, target, owners) -> None:
    text = f"{rules} {'/'.join(rows)} {side} {target}" + (f" {owners}" if owners else "")
    parse_position_or_error(text)


@SETTINGS
@given(st.sampled_from(POSITIONS), edits)
def test_fuzz_position_mutations(text: str, changes) -> None:
    parse_position_or_error(mutate(text, changes))


@SETTINGS
@given(st.text())
def test_fuzz_records_text(text: str) -> None:
    read_games_or_error(text)


@SETTINGS
@given(st.sampled_from(RECORD_FILES), edits)
def test_fuzz_record_mutations(text: str, changes) -> None:
    read_games_or_error(mutate(text, changes))


@SETTINGS
@given(st.sampled_from(RECORD_FILES), st.integers(0, 10_000), st.integers(0, 400))
def test_fuzz_record_truncation_and_cuts(text: str, at: int, length: int) -> None:
    i = at % (len(text) + 1)
    read_games_or_error(text[:i])
    read_games_or_error(text[:i] + text[i + length :])


@SETTINGS
@given(st.one_of(st.text(max_size=8), st.from_regex(r"\A\s*[0-9]{0,7}\s*\Z")))
def test_fuzz_opening_codes(code: str) -> None:
    try:
        moves = opening_moves(code)
    except InvalidOpeningError:
        return
    assert len(moves) == 4 and len(set(moves)) == 4
    assert Board(opening=code).move_stack == moves


@SETTINGS
@given(st.one_of(st.text(), st.none(), st.integers(), st.binary(), st.lists(st.text())))
def test_fuzz_parsers_with_any_value(value) -> None:
    for parse, errors in [
        (Move.parse, InvalidMoveError),
        (Board.from_position, InvalidPositionError),
        (opening_moves, InvalidOpeningError),
        (Rules.parse, ValueError),
    ]:
        with contextlib.suppress(errors):
            parse(value)


RULE_WORDS = [*PRESETS, "boards=open", "boards=closed", "win=line", "win=five", "full=draw",
              "full=count", "boards", "=", "win=", "x=y", " ", "STANDARD", "Tic-Tac-Ku"]


@SETTINGS
@given(st.one_of(st.text(), st.lists(st.sampled_from(RULE_WORDS), max_size=4).map(",".join)))
def test_fuzz_rules_parse(text: str) -> None:
    try:
        rules = Rules.parse(text)
    except ValueError:
        return
    assert isinstance(rules, Rules)
    assert Rules.parse(rules.name) == rules


def test_mark_chars_round_trip() -> None:
    assert Board.from_position(Board().position()).turn is Mark.X
