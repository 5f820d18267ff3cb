"""The rules of every preset on hand-built positions, push/pop, copies, errors, openings.

Positions are reached by playing moves (never by poking at the board's
fields), so every position here can arise in a real game. Moves are written
as (board, cell), 0-8 in reading order, or as squares (``e5``) for the long
games found by a seeded random search.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ninefold import (
    PRESETS,
    Board,
    IllegalMoveError,
    InvalidMoveError,
    InvalidOpeningError,
    InvalidPositionError,
    Mark,
    Move,
    O,
    Outcome,
    Rules,
    Termination,
    X,
    opening_moves,
    random_opening,
)
from ninefold.options import OptionError
from ninefold.rules import has_line

SETTINGS = settings(
    max_examples=150,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def play(rules: str, moves: list[tuple[int, int]] | list[str] | str) -> Board:
    board = Board(rules)
    if isinstance(moves, str):
        moves = moves.split()
    if moves and isinstance(moves[0], str):
        for text in moves:
            board.push_text(text)
    else:
        for b, c in moves:
            board.push(Move(b, c))
    return board


def actions(board: Board) -> set[int]:
    return {m.action for m in board.legal_moves}


def empty_squares(board: Board, boards: list[int]) -> set[int]:
    return {9 * b + c for b in boards for c in range(9) if board.cell(b, c) is None}


# X takes the middle row of the centre board, O answers each time in the board X
# sent it to, always on that board's centre cell (which sends X back to board 4).
# The last move, X's e5 = (4, 4), wins board 4 and sends O to board 4 itself.
WIN_CENTRE = [(4, 3), (3, 4), (4, 5), (5, 4), (4, 4)]

# Fill the centre board without a line:   X O X
#                                         X X O
#                                         O X O
# X plays four corners/edges of board 4 while O answers on other boards' centres;
# X's centre (4, 4) sends O into board 4, and from then on O plays there.
# The last move, X's (8, 4), sends O to the full board 4.
FILL_CENTRE = [
    (4, 0), (0, 4), (4, 2), (2, 4), (4, 3), (3, 4), (4, 7), (7, 4), (4, 4),
    (4, 1), (1, 4), (4, 5), (5, 4), (4, 6), (6, 4), (4, 8), (8, 4),
]

# Shortest games ending in each way among 20,000 seeded random games.
X_LINE_GAME = (  # 27 plies, standard: X wins boards 0, 4 and 8 (a diagonal), O owns board 3
    "i8 i6 g8 c5 g5 c4 i3 g7 a3 a7 a1 c2 i4 g1 b1 d1 a2 c6 h8 e5 f4 h2 f5 i5 h4 e2 f6"
)
O_LINE_GAME = (  # 28 plies, standard: O wins boards 3, 4 and 5 (the middle row), X none
    "f2 i4 h2 f6 g8 b6 e8 f5 h4 f1 i2 g5 c5 g4 a2 c6 h8 d6 a8 a5 b5 f4 g3 b9 d8 a6 c8 g6"
)
# 50 plies: every board closed, no line; X owns 5 boards, O owns 3.
X_MORE_BOARDS = (
    "c7 i1 h3 e9 f7 h1 d1 c1 g1 a3 a9 c8 g5 c5 g4 b3 d7 c3 i8 i4 g2 c4 h2 d4 d2 b6 e7 f1 "
    "i2 g6 c9 g8 b5 f4 i6 i9 h7 e1 d3 a7 h5 e4 g7 b7 b8 h9 h8 c6 g9 i7"
)
# 44 plies: every board closed, no line; X owns 4 boards, O owns 5.
O_MORE_BOARDS = (
    "f1 i2 g5 a4 b2 f4 i3 g7 b3 d9 c9 i9 h9 d7 a2 b5 e4 d3 b9 f9 h7 d1 c3 h8 f6 e9 e6 c6 "
    "e1 d2 a9 i1 g2 c2 i6 h1 g4 b1 g6 d5 e5 a1 a3 g1"
)
# 49 plies: every board closed, no line; 4 boards each.
EQUAL_BOARDS = (
    "g7 c1 h3 f7 g3 a9 b9 d9 b8 e5 d6 a7 b2 d4 a3 c7 h2 f6 i8 i4 i2 g5 a4 a2 a6 b7 e3 e8 "
    "h8 c4 h1 e1 f3 h9 e2 d3 h6 b4 d1 c3 i9 h5 b5 b3 c2 i5 a5 a1 b1"
)
# Tic-Tac-Ku, 42 plies: O owns boards 0, 1 and 2 (a line) at ply 36, plays on,
# and wins with its fifth board at ply 42.
KU_O_FIVE = (
    "d4 c1 g2 a4 b1 e1 d2 b5 f4 g1 a1 c2 g5 b4 d1 a3 b9 d9 c7 h2 e4 d3 a7 c3 i7 i3 h7 e2 "
    "e5 d5 a5 c4 i1 g3 b7 f1 h3 d7 b3 f8 h6 d8"
)
# Tic-Tac-Ku, 41 plies: X's last move wins its fifth board, which also makes a line.
KU_X_FIVE = (
    "e6 d7 a3 c8 h6 e8 d6 a8 c6 h8 f6 g8 a6 b7 d3 a7 b3 d8 b6 e7 e1 f2 i6 g9 c9 g7 b1 d1 "
    "c3 i7 g2 b5 f5 h4 d2 b4 e2 e4 e3 f8 g6"
)
# Tic-Tac-Ku, 81 plies: the grid fills up, X owns 4 boards and O 3.
KU_COUNT = (
    "c8 i5 h5 f4 i1 g1 c2 g6 c9 h7 f2 h6 d7 b3 d8 b6 e9 f8 h4 f1 g2 a4 a1 c1 h3 f9 i7 g3 "
    "b9 e7 d2 c4 h2 e6 f7 i2 i4 i3 h8 d5 b4 e1 d1 a3 a7 c3 g9 c7 h1 d3 a9 b8 d4 b2 e4 e2 "
    "f5 g4 a2 a5 b5 e5 d6 b7 f3 i9 g8 a6 a8 c6 g7 b1 e3 e8 f6 i8 i6 h9 d9 c5 g5"
)
# Tic-Tac-Ku, 81 plies: the grid fills up with 4 boards each.
KU_EQUAL = (
    "c2 i6 h7 f3 h8 d6 c8 h5 f4 h2 d4 b2 f5 i4 i2 g4 c3 g8 b5 e4 d2 b4 e1 d1 a3 c9 g9 b9 "
    "e7 f1 g2 a4 a1 b3 e9 e8 e6 d9 b8 d5 c6 h9 f7 h3 d7 b1 e3 d8 a5 c5 g6 a7 a2 c4 g3 a9 "
    "a8 a6 c7 i3 i8 h6 f8 h4 e2 e5 f6 i7 h1 d3 b7 f2 g5 b6 f9 i9 g7 c1 g1 i5 i1"
)


# --- rules and presets -------------------------------------------------------------


def test_presets_are_the_documented_option_sets() -> None:
    assert PRESETS["standard"] == Rules(open_boards=False, win="line", full_grid="draw")
    assert PRESETS["codingame"] == Rules(open_boards=False, win="line", full_grid="count")
    assert PRESETS["open-boards"] == Rules(open_boards=True, win="line", full_grid="draw")
    assert PRESETS["tic-tac-ku"] == Rules(open_boards=True, win="five", full_grid="count")
    assert [PRESETS[n].flags for n in ("standard", "codingame", "open-boards", "tic-tac-ku")] == [
        0, 4, 1, 7,
    ]


@pytest.mark.parametrize("open_boards", [False, True])
@pytest.mark.parametrize("win", ["line", "five"])
@pytest.mark.parametrize("full", ["draw", "count"])
def test_rules_name_round_trips(open_boards: bool, win: str, full: str) -> None:
    rules = Rules(open_boards, win, full)
    assert Rules.parse(rules.name) == rules
    assert Rules.parse(rules) is rules
    spelled = f"boards={'open' if open_boards else 'closed'},win={win},full={full}"
    assert Rules.parse(spelled) == rules
    assert Rules.parse(f"standard,{spelled}") == rules


def test_rules_parse_options_change_a_preset() -> None:
    assert Rules.parse(" Standard ") == PRESETS["standard"]
    assert Rules.parse("standard,full=count") == PRESETS["codingame"]
    assert Rules.parse("open-boards, win=five, full=count") == PRESETS["tic-tac-ku"]
    assert Rules.parse("tic-tac-ku,boards=closed").open_boards is False
    assert Rules.parse("win=five").name == "boards=closed,win=five,full=draw"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty rules"),
        (" , ", "an empty option"),
        ("standard,", "an empty option"),
        ("chess", "unknown rules preset 'chess'"),
        ("standard,boards=sideways", "boards=sideways: choose one of closed, open"),
        ("standard,speed=fast", "no option 'speed'"),
        ("win=five,standard", "the preset 'standard' must come first"),
        ("standard,win", "win needs a value"),
        # a key given twice was taken as the last value
        ("boards=open,boards=closed", "'boards' is given twice"),
        ("codingame,full=count,full=draw", "'full' is given twice"),
        ("x" * 100_000, "characters)"),
    ],
)
def test_rules_parse_errors(text: str, words: str) -> None:
    with pytest.raises(OptionError) as info:
        Rules.parse(text)
    assert words in str(info.value)
    assert len(str(info.value)) < 300


def test_rules_constructor_checks_values() -> None:
    with pytest.raises(ValueError, match="win must be"):
        Rules(win="four")
    with pytest.raises(ValueError, match="full_grid must be"):
        Rules(full_grid="coin-toss")


def test_outcome_result_and_score() -> None:
    assert Outcome(X, Termination.LINE).result() == "1-0"
    assert Outcome(O, Termination.FIVE_BOARDS).result() == "0-1"
    assert Outcome(None, Termination.NO_MOVES).result() == "1/2-1/2"
    assert Outcome(O, Termination.LINE).score(O) == 1.0
    assert Outcome(O, Termination.LINE).score(X) == 0.0
    assert Outcome(None, Termination.NO_MOVES).score(X) == 0.5


def test_marks() -> None:
    assert X.other is O and O.other is X
    assert bool(X) and bool(O)  # X is 0 but never falsy
    assert (X or "none") is X


# --- the start ---------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_start_position(name: str) -> None:
    board = Board(name)
    assert board.turn is X and board.target is None and board.ply == 0
    assert len(board.legal_moves) == 81
    assert actions(board) == set(range(81))
    assert board.outcome() is None and not board.is_game_over()
    assert board.owners == [None] * 9


def test_move_sends_opponent_to_the_cell_board() -> None:
    board = Board()
    board.push(Move(0, 7))
    assert board.turn is O and board.target == 7
    assert actions(board) == {63 + c for c in range(9)}
    assert "a8" not in board.legal_moves and Move.parse("a8") not in board.legal_moves
    assert Move.parse("d7") in board.legal_moves
    board.push(Move(7, 7))  # O may play the same cell index of the board it was sent to
    assert board.turn is X and board.target == 7
    assert actions(board) == {63 + c for c in range(9) if c != 7}


# --- winning a small board -------------------------------------------------------------


@pytest.mark.parametrize("name", ["standard", "codingame"])
def test_won_board_closes(name: str) -> None:
    board = play(name, WIN_CENTRE[:-1])
    assert board.owners == [None] * 9 and board.target == 4
    board.push(Move(*WIN_CENTRE[-1]))
    assert board.owners[4] is X
    assert board.owners.count(None) == 8
    assert board.is_closed(4) and not board.is_full(4)
    # O was sent to board 4, which is closed: a free move in every other board.
    assert board.target is None
    assert actions(board) == empty_squares(board, [0, 1, 2, 3, 5, 6, 7, 8])
    assert len(board.legal_moves) == 72 - 2  # O's two marks are outside board 4
    assert board.open_boards() == [0, 1, 2, 3, 5, 6, 7, 8]
    with pytest.raises(IllegalMoveError, match=r"board 4, which is won and closed"):
        board.push(Move(4, 0))
    # Being sent there later gives a free move again.
    board.push(Move(0, 4))
    assert board.target is None and board.turn is X
    assert actions(board) == empty_squares(board, [0, 1, 2, 3, 5, 6, 7, 8])


@pytest.mark.parametrize("name", ["open-boards", "tic-tac-ku"])
def test_won_board_stays_open(name: str) -> None:
    board = play(name, WIN_CENTRE)
    assert board.owners[4] is X
    assert not board.is_closed(4)
    assert board.target == 4  # O must play in the board X just won
    assert actions(board) == {36 + c for c in (0, 1, 2, 6, 7, 8)}
    board.push(Move(4, 0))
    assert board.cell(4, 0) is O


@pytest.mark.parametrize("name", ["open-boards", "tic-tac-ku"])
def test_won_board_keeps_its_first_owner(name: str) -> None:
    # Continue in board 4: O takes its top row, X answering in boards 0 and 1.
    board = play(name, [*WIN_CENTRE, (4, 0), (0, 4), (4, 1), (1, 4)])
    assert board.target == 4 and board.turn is O
    board.push(Move(4, 2))
    assert has_line(board.small_board(4), O) and has_line(board.small_board(4), X)
    assert board.owners[4] is X
    assert board.boards_won(O) == 0 and board.boards_won(X) == 1
    # X completing a second line there changes nothing either.
    assert board.target == 2
    board.push(Move(2, 4))
    board.push(Move(4, 6))  # O, sent to board 4
    assert board.owners[4] is X
    # A board closes only when full: fill board 4 and it stops being playable.
    board.push(Move(6, 4))  # X, sent to board 6, sends O to board 4
    board.push(Move(4, 7))
    board.push(Move(7, 4))
    board.push(Move(4, 8))
    assert board.is_full(4) and board.is_closed(4) and board.owners[4] is X
    board.push(Move(8, 4))  # X sends O to the full board 4: free move
    assert board.target is None
    assert 4 not in board.open_boards()


# --- full small boards and free moves ------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_drawn_full_board_belongs_to_nobody(name: str) -> None:
    board = play(name, FILL_CENTRE[:-2])
    assert board.small_board(4).count(None) == 1
    board.push(Move(*FILL_CENTRE[-2]))
    assert board.small_board(4) == (X, O, X, X, X, O, O, X, O)
    assert board.is_full(4) and board.is_closed(4)
    assert board.owners == [None] * 9
    assert board.outcome() is None
    assert board.target == 8
    board.push(Move(*FILL_CENTRE[-1]))  # X sends O to the full board 4
    assert board.target is None and board.turn is O
    assert actions(board) == empty_squares(board, [0, 1, 2, 3, 5, 6, 7, 8])
    with pytest.raises(IllegalMoveError, match=r"board 4, which is full and closed"):
        board.push(Move(4, 0))


def test_free_move_may_go_to_any_open_board() -> None:
    board = play("standard", [*WIN_CENTRE, (8, 0)])
    # O's free move in board 8 sent X to board 0.
    assert board.target == 0
    board.pop()
    for b in (0, 1, 2, 3, 5, 6, 7, 8):
        board.push(Move(b, 0 if b != 0 else 1))
        board.pop()


# --- winning the game --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("standard", Outcome(X, Termination.LINE)),
        ("codingame", Outcome(X, Termination.LINE)),
    ],
)
def test_line_of_boards_wins(name: str, expected: Outcome) -> None:
    board = play(name, X_LINE_GAME)
    assert board.outcome() == expected
    assert has_line(board.owners, X)
    assert board.owners == [X, None, None, O, X, None, None, None, X]
    assert board.legal_moves.__bool__() is False and len(board.legal_moves) == 0
    assert board.target is None
    assert any(not board.is_closed(b) for b in range(9)), "the game ended before the grid filled"
    board.pop()
    assert board.outcome() is None and board.owners.count(X) == 2


def test_line_of_boards_wins_for_o() -> None:
    board = play("standard", O_LINE_GAME)
    assert board.outcome() == Outcome(O, Termination.LINE)
    assert board.owners == [None, None, None, O, O, O, None, None, None]


def test_open_boards_line_win() -> None:
    board = play("open-boards", KU_X_FIVE)
    assert board.outcome() == Outcome(X, Termination.LINE)
    assert board.boards_won(X) == 5


def test_game_over_refuses_moves() -> None:
    board = play("standard", X_LINE_GAME)
    with pytest.raises(IllegalMoveError, match=r"game is over \(1-0, line\)"):
        board.push(Move(0, 0))
    assert board.why_illegal(Move(0, 0)) is not None
    assert not board.is_legal(Move(0, 0))


def test_tic_tac_ku_five_boards_win_and_no_line_win() -> None:
    moves = KU_O_FIVE.split()
    board = Board("tic-tac-ku")
    for text in moves[:36]:
        assert board.outcome() is None
        board.push_text(text)
    assert board.owners[:3] == [O, O, O] and has_line(board.owners, O)
    assert board.outcome() is None, "a line of boards does not win Tic-Tac-Ku"
    for text in moves[36:-1]:
        board.push_text(text)
        assert board.outcome() is None
    assert board.boards_won(O) == 4
    board.push_text(moves[-1])
    assert board.outcome() == Outcome(O, Termination.FIVE_BOARDS)
    assert board.boards_won(O) == 5 and board.boards_won(X) == 2
    assert len(board.legal_moves) == 0

    # The same moves in open-boards (identical routing) stop at the line.
    other = play("open-boards", moves[:36])
    assert other.outcome() == Outcome(O, Termination.LINE)


def test_tic_tac_ku_five_boards_beats_a_simultaneous_line() -> None:
    board = play("tic-tac-ku", KU_X_FIVE)
    assert has_line(board.owners, X)
    assert board.outcome() == Outcome(X, Termination.FIVE_BOARDS)


@pytest.mark.parametrize(
    ("moves", "x", "o"),
    [(X_MORE_BOARDS, 5, 3), (O_MORE_BOARDS, 4, 5), (EQUAL_BOARDS, 4, 4)],
)
def test_full_grid_standard_draw_codingame_counts(moves: str, x: int, o: int) -> None:
    standard = play("standard", moves)
    codingame = play("codingame", moves)
    for board in (standard, codingame):
        assert all(board.is_closed(b) for b in range(9))
        assert not has_line(board.owners, X) and not has_line(board.owners, O)
        assert (board.boards_won(X), board.boards_won(O)) == (x, o)
        assert len(board.legal_moves) == 0
    assert standard.outcome() == Outcome(None, Termination.NO_MOVES)
    expected = (
        Outcome(None, Termination.NO_MOVES)
        if x == o
        else Outcome(X if x > o else O, Termination.BOARD_COUNT)
    )
    assert codingame.outcome() == expected
    # One move earlier the game was still on.
    codingame.pop()
    assert codingame.outcome() is None and len(codingame.legal_moves) > 0


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        (KU_COUNT, Outcome(X, Termination.BOARD_COUNT)),
        (KU_EQUAL, Outcome(None, Termination.NO_MOVES)),
    ],
)
def test_tic_tac_ku_full_grid_counts(moves: str, expected: Outcome) -> None:
    board = play("tic-tac-ku", moves)
    assert board.ply == 81 and all(board.is_full(b) for b in range(9))
    assert board.outcome() == expected
    assert max(board.boards_won(X), board.boards_won(O)) < 5
    # The same grid with five to win but a drawn full grid is a draw.
    assert play("boards=open,win=five,full=draw", moves).outcome() == Outcome(
        None, Termination.NO_MOVES
    )


# --- illegal moves -------------------------------------------------------------------------


def test_illegal_move_messages_name_the_reason() -> None:
    board = Board()
    board.push(Move.parse("e5"))
    sent = r"illegal move a1: a1 is in board 0, but O was sent to board 4 \(squares d4-f6\)"
    with pytest.raises(IllegalMoveError, match=sent):
        board.push(Move.parse("a1"))
    with pytest.raises(IllegalMoveError, match=r"illegal move e5: e5 is already taken by X"):
        board.push(Move.parse("e5"))
    assert board.ply == 1 and board.turn is O, "a refused move changes nothing"
    assert isinstance(IllegalMoveError("x"), ValueError)
    assert board.why_illegal(Move.parse("d4")) is None


def test_push_text_errors() -> None:
    board = Board()
    with pytest.raises(InvalidMoveError):
        board.push_text("j1")
    assert board.push_text(" E5 ") == Move(4, 4)


def test_pop_empty_board() -> None:
    with pytest.raises(IndexError):
        Board().pop()


# --- push, pop and copy ----------------------------------------------------------------------


def snapshot(board: Board) -> tuple:
    return (
        list(board.cells),
        list(board.owners),
        board.turn,
        board.target,
        board.outcome(),
        list(board.move_stack),
        sorted(m.action for m in board.legal_moves),
    )


@SETTINGS
@given(
    name=st.sampled_from(sorted(PRESETS)),
    picks=st.lists(st.integers(0, 80), min_size=0, max_size=81),
)
def test_push_pop_restores_everything(name: str, picks: list[int]) -> None:
    board = Board(name)
    history = [(board.copy(), snapshot(board))]
    for pick in picks:
        legal = list(board.legal_moves)
        if not legal:
            break
        board.push(legal[pick % len(legal)])
        history.append((board.copy(), snapshot(board)))
    for copy, snap in reversed(history):
        assert board == copy
        assert snapshot(board) == snap
        if board.move_stack:
            board.pop()
    assert board == Board(name)
    assert snapshot(board) == snapshot(Board(name))


def random_game(name: str, seed: int, plies: int = 81) -> Board:
    rng = random.Random(seed)
    board = Board(name)
    while not board.is_game_over() and board.ply < plies:
        board.push(rng.choice(list(board.legal_moves)))
    return board


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_copy_is_independent(name: str) -> None:
    board = random_game(name, seed=7, plies=30)
    before = snapshot(board)
    copy = board.copy()
    assert copy == board and copy is not board
    assert copy.move_stack == board.move_stack
    # Play the copy to the end and back: the original never moves.
    rng = random.Random(1)
    while not copy.is_game_over():
        copy.push(rng.choice(list(copy.legal_moves)))
    assert snapshot(board) == before
    assert copy != board
    while copy.ply > 30:
        copy.pop()
    assert copy == board
    # Pop the original all the way: the copy keeps its history.
    while board.move_stack:
        board.pop()
    assert snapshot(copy) == before
    assert copy.ply == 30


def test_equality_and_hash() -> None:
    a, b = Board(), Board()
    assert a == b
    assert Board("standard") != Board("codingame")
    a.push(Move(4, 4))
    assert a != b
    b.push(Move(4, 4))
    assert a == b
    assert a != "not a board"
    with pytest.raises(TypeError):
        hash(a)


# --- opening codes -------------------------------------------------------------------------


def test_opening_code_plays_four_moves() -> None:
    assert opening_moves("53271") == [Move(4, 2), Move(2, 1), Move(1, 6), Move(6, 0)]
    board = Board("standard", opening="53271")
    assert [str(m) for m in board.move_stack] == ["f4", "h1", "d3", "a7"]
    assert board.opening == "53271"
    assert board.turn is X and board.target == 0
    # Digit 1 is a board, each later digit a cell (1 = top-left), sent on each time.
    assert opening_moves("19283") == [Move(0, 8), Move(8, 1), Move(1, 7), Move(7, 2)]


def test_opening_code_sends_on() -> None:
    moves = opening_moves("12345")
    assert moves == [Move(0, 1), Move(1, 2), Move(2, 3), Move(3, 4)]
    for name in PRESETS:
        assert Board(name, opening=" 12345 ").move_stack == moves


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("55555", "digit 3 ('5') plays e5 again, which X already took at move 1"),
        ("11111", "digit 3 ('1') plays a1 again, which X already took at move 1"),
        ("12121", "digit 4 ('2') plays b1 again, which X already took at move 1"),
        ("12323", "digit 5 ('3') plays f1 again, which O already took at move 2"),
        ("51515", "digit 4 ('1') plays d4 again, which X already took at move 1"),
    ],
)
def test_opening_code_repeated_cell(code: str, words: str) -> None:
    with pytest.raises(InvalidOpeningError) as info:
        opening_moves(code)
    assert words in str(info.value)
    assert isinstance(info.value, InvalidPositionError)
    with pytest.raises(InvalidOpeningError):
        Board("standard", opening=code)


@pytest.mark.parametrize(
    "code", ["", "1234", "123456", "12a45", "01234", "12340", "1 345", "١٢٣٤٥", "5327l"]
)
def test_opening_code_format_errors(code: str) -> None:
    with pytest.raises(InvalidOpeningError, match="must be exactly 5 digits, each 1-9"):
        opening_moves(code)


@pytest.mark.parametrize("code", [None, 12345, ["1", "2"]])
def test_opening_code_must_be_text(code: object) -> None:
    with pytest.raises(InvalidOpeningError, match="must be a string"):
        opening_moves(code)  # type: ignore[arg-type]


def test_random_openings_are_legal_and_varied() -> None:
    rng = random.Random(5)
    codes = [random_opening(rng) for _ in range(300)]
    assert len(set(codes)) > 250
    for code in codes:
        board = Board("standard", opening=code)
        assert board.ply == 4 and board.turn is X and board.target is not None
    every = 0
    for a in range(1, 10):
        for b in range(1, 10):
            for c in range(1, 10):
                for d in range(1, 10):
                    for e in range(1, 10):
                        try:
                            opening_moves(f"{a}{b}{c}{d}{e}")
                            every += 1
                        except InvalidOpeningError:
                            pass
    # Count the legal codes independently: four moves, never the same square twice.
    expected = 0
    for a in range(9):
        for b in range(9):
            for c in range(9):
                for d in range(9):
                    for e in range(9):
                        squares = {(a, b), (b, c), (c, d), (d, e)}
                        expected += len(squares) == 4
    assert every == expected


def test_mark_type() -> None:
    assert isinstance(X, Mark) and int(O) == 1


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_transformed_game_is_the_game_played_turned(name: str) -> None:
    """`Board.transform(k)` equals the game whose every move is turned by `k`, under
    every rule set (all are symmetric): its legal moves and outcome are the turned
    ones, and it takes back its moves like the game it copies."""
    rng = random.Random(name)
    for _game in range(6):
        board = Board(name)
        for _ in range(rng.randrange(1, 81)):  # some games to their end
            if board.is_game_over():
                break
            board.push(rng.choice(list(board.legal_moves)))
        for k in range(8):
            turned = board.transform(k)
            replayed = Board(name)
            for move in board.move_stack:
                replayed.push(move.transform(k))
            assert turned == replayed and turned.position() == replayed.position()
            assert turned.move_stack == replayed.move_stack
            assert set(turned.legal_moves) == {m.transform(k) for m in board.legal_moves}
            assert turned.outcome() == board.outcome()
            back = next(j for j in range(8) if turned.transform(j) == board)
            assert turned.transform(back).position() == board.position()
            while turned.move_stack:  # pop restores the turned positions on the way
                turned.pop()
                replayed.pop()
                assert turned.position() == replayed.position()
