"""Puzzles: the solver for either side, the maker, and every shipped solution replayed
with the reference `Board` alone."""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path

import pytest
from plain_search import board_wins
from stores import arena_database

from ninefold import kernel
from ninefold.proof.within import Solver, as_x
from ninefold.puzzles import make as maker
from ninefold.puzzles.puzzle import InvalidPuzzleError, Node, Puzzle, load, read_puzzles
from ninefold.rules import PRESETS, Board, Mark
from ninefold.stored_games import StoredGamesError, read_stored


@cache
def shipped() -> list[Puzzle]:
    return load()


# --- the reference: wins within N plies with Board alone (plain_search) -------------


def replay(board: Board, node: Node, attacker: Mark, plies: int) -> int:
    """Walk the solution tree from `board` with `Board` alone against every defence:
    each of the attacker's moves legal, every legal reply answered, the game won by the
    attacker within `plies`; the plies of the longest defence."""
    assert board.turn is attacker and not board.is_game_over()
    assert plies >= 1, f"{board.position()}: the win takes longer than promised"
    board.push(node.move)
    try:
        if board.is_game_over():
            assert board.outcome().winner is attacker, board.position()  # type: ignore[union-attr]
            assert not node.replies
            return 1
        legal = set(board.legal_moves)
        assert set(node.replies) == legal, f"{board.position()}: a defence is not answered"
        longest = 0
        for reply, after in node.replies.items():
            board.push(reply)
            try:
                longest = max(longest, 1 + replay(board, after, attacker, plies - 2))
            finally:
                board.pop()
        return 1 + longest
    finally:
        board.pop()


# --- the solver ------------------------------------------------------------------------


def random_positions(count: int, seed: int, rules: str = "standard") -> list[Board]:
    """Running positions from random games, late enough for short wins to be common."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        board = Board(rules)
        stop = rng.randrange(30, 81)
        while not board.is_game_over() and board.ply < stop:
            board.push(rng.choice(list(board.legal_moves)))
        if not board.is_game_over():
            found.append(board)
    return found


@pytest.mark.parametrize("rules", list(PRESETS))
def test_the_solver_agrees_with_plain_search_for_both_sides(rules: str) -> None:
    """Within 1 and 3 plies, for the side to move whether X or O, and for the side not
    to move, under every preset."""
    solver = Solver(PRESETS[rules].flags)
    sides = set()
    wins = 0
    for board in random_positions(40, 7, rules):
        s = kernel.from_board(board)
        sides.add(board.turn)
        for attacker in (Mark.X, Mark.O):
            for plies in (1, 2, 3):
                expected = board_wins(board.copy(), attacker, plies, {})
                wins += expected
                assert solver.wins(s, int(attacker), plies) == expected, \
                    (board.position(), attacker, plies)
    assert sides == {Mark.X, Mark.O} and wins > 0


def test_colours_swapped_is_the_same_game() -> None:
    board = random_positions(1, 3)[0]
    s = kernel.from_board(board)
    t = as_x(s, 1)
    assert (t[0:9] == s[9:18]).all() and t[kernel.SIDE] == 1 - s[kernel.SIDE]
    assert (as_x(t, 1) == s).all()


def made(x: dict[int, list[int]], o: dict[int, list[int]], owners: str, turn: Mark,
         target: int | None = None) -> Board:
    """A position set square by square (boards and cells 0-8): X's and O's cells per
    board, the owners (``x``, ``o`` or ``.`` for each board)."""
    board = Board("standard")
    for mark, cells in ((Mark.X, x), (Mark.O, o)):
        for b, cs in cells.items():
            for c in cs:
                board.cells[9 * b + c] = mark
    board.owners = [None if ch == "." else Mark.X if ch == "x" else Mark.O for ch in owners]
    board.turn, board.target = turn, target
    return board


# X owns boards 0 and 1 and holds cells 0, 1, 4 of board 2; O owns 3 and 4 and holds
# cells 3 and 4 of board 5 (a free move for the side to move)
THREATS = ({0: [0, 1, 2], 1: [3, 4, 5], 2: [0, 1, 4]},
           {3: [0, 4, 8], 4: [2, 4, 6], 5: [3, 4], 6: [0]}, "xx.oo....")


def test_winning_moves_lists_every_move_that_wins_soon_enough() -> None:
    """X wins at once on three squares of board 2 (its row, column and diagonal)."""
    board = made(*THREATS, Mark.X)
    solver = Solver(board.rules.flags)
    moves = solver.winning_moves(kernel.from_board(board), 1)
    expected = []
    for move in board.legal_moves:
        after = board.copy()
        after.push(move)
        if after.outcome() is not None and after.outcome().winner is Mark.X:  # type: ignore[union-attr]
            expected.append(move.action)
    assert moves == expected == [9 * 2 + 2, 9 * 2 + 7, 9 * 2 + 8]
    assert solver.winning_moves(kernel.from_board(made(*THREATS, Mark.O)), 1) == [9 * 5 + 5]


# --- the maker --------------------------------------------------------------------------


def random_game(rng: random.Random) -> list[str]:
    board = Board("standard")
    while not board.is_game_over():
        board.push(rng.choice(list(board.legal_moves)))
    return [str(m) for m in board.move_stack]


def test_make_cuts_puzzles_from_games_and_counts_who_missed_them(tmp_path: Path) -> None:
    """Random players miss short wins: the games hold puzzles, each solution wins against
    every defence, and the games where the mover missed the win are counted."""
    rng = random.Random(5)
    lines = [json.dumps({"match": {"rules": "standard"}})]
    lines += [json.dumps({"game": i, "moves": random_game(rng)}) for i in range(4)]
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(lines) + "\n")
    games = list(read_stored(path))
    assert [maker.where(g) for g in games] == [{"file": path.as_posix(), "game": i}
                                                for i in range(4)]
    puzzles = maker.make(iter(games), max_plies=3)
    assert puzzles and sum(p.missed for p in puzzles) > 0
    for puzzle in puzzles:
        board = puzzle.board()
        assert replay(board, puzzle.tree, board.turn, puzzle.plies) <= puzzle.plies
        assert puzzle.seen >= 1 and 0 <= puzzle.missed <= puzzle.seen
        assert puzzle.source["file"] == path.as_posix()
        _others_fail(puzzle)


def test_a_defence_that_ends_the_game_on_the_count_is_no_puzzle() -> None:
    """Under codingame rules O wins within 3 plies by c9, but two of X's replies fill the
    grid and lose on the count of boards: such a defence has no answer to store."""
    board = Board.from_position(
        "codingame oxxxo1x1o/oo1x1x1xo/o1xoxx1xo/1ox2xxxo/o1xooo1xo/2xxx1x1o/xooooooox/"
        "ooxx2ox1/xx2o1xxo o 6 o.oxoo.ox")
    assert Solver(board.rules.flags).soonest(kernel.from_board(board), 9) == 3
    assert maker.Maker(9, 200_000).puzzle(maker._Seen(board, {})) is None


def test_an_arena_database_and_a_set_up_web_game_are_read_for_puzzles(tmp_path: Path) -> None:
    """The arena's games table keys its games by `key` (the maker asked for `id` before),
    and a web game set up from a position starts there, not on the empty board."""
    import sqlite3

    from ninefold.web.store import SCHEMA as WEB

    arena = arena_database(tmp_path / "arena.db")
    (game,) = read_stored(arena)
    assert maker.where(game) == {"file": arena.as_posix(), "game": "[1]"}
    start = Board()
    start.push_text("e5")
    web = tmp_path / "web.sqlite"
    db = sqlite3.connect(web)
    db.executescript(WEB)
    db.execute("INSERT INTO web_games (id, created, mode, rules, moves, ply, seats, start) "
               "VALUES ('g', 0, 'local', 'standard', 'e4', 1, '{}', ?)", (start.position(),))
    db.commit()
    db.close()
    (game,) = read_stored(web)
    seen = maker.gather(iter([game]))
    assert [s.board.position() for s in seen.values()] == [start.position()]


def test_a_malformed_games_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"match": {}}\n{"moves": ["e5", "zz"]}\n')
    with pytest.raises(StoredGamesError, match=r"bad.jsonl line 2: cannot read move 'zz'"):
        list(read_stored(path))


def test_a_malformed_puzzle_line_is_one_line() -> None:
    good = shipped()[0].to_json()
    with pytest.raises(InvalidPuzzleError, match=r"^p.jsonl line 2: not JSON"):
        list(read_puzzles([good, "{oops"], "p.jsonl"))
    broken = json.loads(good)
    del broken["tree"]
    with pytest.raises(InvalidPuzzleError, match=r"line 1: a puzzle needs the field 'tree'"):
        list(read_puzzles([json.dumps(broken)], "p.jsonl"))
    broken = json.loads(good)
    broken["line"] = ["z9"]
    with pytest.raises(InvalidPuzzleError, match=r"cannot read move 'z9'"):
        list(read_puzzles([json.dumps(broken)], "p.jsonl"))


# --- the shipped puzzles ----------------------------------------------------------------


def test_at_least_500_puzzles_ship_with_distinct_positions() -> None:
    puzzles = shipped()
    assert len(puzzles) >= 500
    assert len({p.id for p in puzzles}) == len(puzzles)
    assert len({p.position for p in puzzles}) == len(puzzles)


def test_every_shipped_solution_wins_against_every_defence() -> None:
    """With `Board` alone: each attacker move legal, every legal reply answered, the
    attacker wins within the puzzle's plies, and the main line is the longest defence."""
    for puzzle in shipped():
        board = puzzle.board()
        longest = replay(board, puzzle.tree, board.turn, puzzle.plies)
        assert longest == len(puzzle.line) <= puzzle.plies, puzzle.id
        node = puzzle.tree
        for i in range(1, len(puzzle.line) - 1, 2):  # the line is a path of the tree
            node = node.replies[puzzle.line[i]]
            assert node.move == puzzle.line[i + 1], puzzle.id


def _others_fail(puzzle: Puzzle) -> None:
    board = puzzle.board()
    attacker = board.turn
    seen: dict[tuple[object, ...], bool] = {}
    for move in list(board.legal_moves):
        if move == puzzle.tree.move:
            continue
        board.push(move)
        assert not board_wins(board, attacker, puzzle.plies - 1, seen), (puzzle.id, str(move))
        board.pop()
    board.push(puzzle.tree.move)
    assert board_wins(board, attacker, puzzle.plies - 1, seen), puzzle.id


def test_no_other_first_move_wins_as_soon_sampled() -> None:
    """The uniqueness, by plain search with `Board` alone: every puzzle of 5 plies or
    fewer, and a sample of the longer ones (all of them: the slow test below; plain
    search takes a tenth of a second for a 7-ply puzzle, a second or two for a 9-ply one)."""
    puzzles = shipped()
    rng = random.Random(1)
    short = [p for p in puzzles if p.plies <= 5]
    seven = rng.sample([p for p in puzzles if p.plies == 7], 5)
    nine = rng.sample([p for p in puzzles if p.plies == 9], 1)
    assert {p.plies for p in short} == {1, 3, 5}
    for puzzle in short + seven + nine:
        _others_fail(puzzle)


@pytest.mark.slow
def test_no_other_first_move_of_a_long_puzzle_wins_as_soon() -> None:
    """Every shipped puzzle of 7 or 9 plies, by plain search with `Board` alone."""
    for puzzle in shipped():
        if puzzle.plies >= 7:
            _others_fail(puzzle)


def test_no_other_first_move_wins_as_soon_with_the_solver() -> None:
    """Every shipped puzzle: its first move wins within its plies, it wins no sooner,
    and no other first move wins that soon (the solver, which the test above checks
    against plain search)."""
    for puzzle in shipped():
        board = puzzle.board()
        solver = Solver(board.rules.flags, budget=2_000_000)
        s = kernel.from_board(board)
        assert solver.soonest(s, puzzle.plies) == puzzle.plies, puzzle.id
        assert solver.winning_moves(s, puzzle.plies) == [puzzle.tree.move.action], puzzle.id


def test_themes_and_ratings_follow_their_definitions() -> None:
    for puzzle in shipped()[:200]:
        board = puzzle.board()
        assert maker.themes(board, puzzle.line, puzzle.plies) == puzzle.themes
        assert puzzle.rating == maker.rating(puzzle.plies, puzzle.seen, puzzle.missed)
    kinds = {t for p in shipped() for t in p.themes}
    assert {"middle", "end", "win-at-once", "two-threats", "send-to-full"} <= kinds


def test_the_two_threats_theme_counts_boards_that_win_the_game() -> None:
    s = kernel.from_board(made(*THREATS, Mark.X))
    assert maker.threat_boards(s, 0, 0) == 1 << 2  # X: board 2 completes its top row
    assert maker.threat_boards(s, 1, 0) == 1 << 5  # O: board 5 completes its middle row
    x, o, _ = THREATS
    s = kernel.from_board(made({**x, 8: [0, 1]}, o, "xx.oo....", Mark.X))
    assert maker.threat_boards(s, 0, 0) == 1 << 2  # board 8 would not make a line of boards
    s = kernel.from_board(made({0: [0, 1, 2], 1: [3, 4, 5], 3: [0, 3, 6], 2: [0, 1], 6: [4, 5]},
                               {4: [2, 4, 6], 5: [3, 4], 7: [0]}, "xx.xo....", Mark.X))
    assert maker.threat_boards(s, 0, 0) == 1 << 2 | 1 << 6  # two threats: a row and a column
