"""The theorem by machine (issue 37): the open-boards rules against the paper's, the
search that finds X's forced win, and the certificate check that refuses a broken one."""

from __future__ import annotations

import random

import numpy as np
import pytest
from typer.testing import CliRunner

from ninefold import kernel
from ninefold.cli import app
from ninefold.moves import LINES, SYMMETRIES, has_line
from ninefold.proof import dfpn
from ninefold.proof.certificate import CertificateError, check, plies_to_win, read, write
from ninefold.proof.dfpn import key
from ninefold.proof.search import NotProved, prove, soonest
from ninefold.proof.stored import Stored, StoredError, board_key, from_bytes, make
from ninefold.proof.stored import check as check_stored
from ninefold.proof.walk import exact_key, walked
from ninefold.rules import Board, Move, X

# X to move, a forced win 11 plies deep (found from the end of a random game)
NEAR_END = ("open-boards 1x1o3x1/1ox1oo1xo/ox1oo2x1/3o1oxxx/2ooxxooo/x1xxxxxxo/ox1xoo1x1/"
            "xoo1xx1ox/4oo1o1 x 1 ..x.xx...")

runner = CliRunner()


# --- 1. the rules are the paper's ------------------------------------------------------


def _paper_target(board: Board, cell: int) -> int | None:
    """Where the paper sends the next player after a move on square `cell`: that board
    while it has an empty square (won or not), else anywhere."""
    full = all(board.cells[9 * cell + c] is not None for c in range(9))
    return None if full else cell


def test_open_boards_are_the_papers_rules_in_random_games() -> None:
    """Sent to a won board with room: play there; a full board: anywhere with an empty
    square, won boards included; owners fixed at the first line; the game ends at once
    on three boards in a line; a full grid without one is a draw."""
    rng = random.Random(37)
    sent_to_won = 0
    for _ in range(150):
        board = Board("open-boards")
        while not board.is_game_over():
            owners = list(board.owners)
            move = rng.choice(list(board.legal_moves))
            board.push(move)
            first_line = owners[move.board] is None and has_line(
                board.small_board(move.board), board.turn.other)
            expected_owners = list(owners)
            if first_line:
                expected_owners[move.board] = board.turn.other
            assert board.owners == expected_owners  # a later line never changes an owner
            mover = board.turn.other
            if has_line(board.owners, mover):
                assert board.outcome() is not None and board.outcome().winner is mover
                break
            if all(c is not None for c in board.cells):
                assert board.outcome() is not None and board.outcome().winner is None
                break
            assert board.outcome() is None
            target = _paper_target(board, move.cell)
            assert board.target == target
            sent_to_won += target is not None and board.owners[target] is not None
            allowed = [target] if target is not None else [
                b for b in range(9) if any(board.cells[9 * b + c] is None for c in range(9))]
            assert sorted({m.board for m in board.legal_moves}) == sorted(allowed)
    assert sent_to_won > 100  # the case the paper's rules differ from the standard ones


def test_the_kernel_plays_the_same_open_boards_rules() -> None:
    board = Board.from_position(NEAR_END)
    s = kernel.from_board(board)
    assert sorted(kernel.legal_actions(s).tolist()) == sorted(m.action for m in board.legal_moves)


# --- 2. the search ----------------------------------------------------------------------


def test_symmetric_positions_share_one_key() -> None:
    board = Board("open-boards")
    for move in (Move(4, 4), Move(4, 0), Move(0, 4), Move(4, 2)):
        board.push(move)
    for sq in SYMMETRIES:
        image = Board("open-boards")
        for move in board.move_stack:
            image.push(Move(sq[move.board], sq[move.cell]))
        assert key(kernel.from_board(image)) == key(kernel.from_board(board))
    assert sorted(sorted(line) for line in LINES) == sorted(
        sorted(SYMMETRIES[5][i] for i in line) for line in LINES)


def _guided(board: Board, guide: int) -> list[Move]:
    out = np.empty(81, np.int64)
    n = dfpn.guided_moves(kernel.from_board(board), board.rules.flags, guide, out)
    return [Move.from_action(int(a)) for a in out[:n]]


def test_the_paper_guide_sends_o_to_the_centre_board_first() -> None:
    board = Board("open-boards")
    board.push(Move(4, 4))
    board.push(Move(4, 2))
    assert _guided(board, dfpn.GUIDE_PAPER) == [Move(2, 4)]
    assert len(_guided(board, dfpn.GUIDE_NONE)) == 9


def _after_the_opening() -> Board:
    board = Board("open-boards")
    board.push(Move(4, 4))
    for j in (0, 1, 2, 3, 5, 6, 7, 8):  # the opening: O fills the centre board
        board.push(Move(4, j))
        board.push(Move(j, 4))
    return board


def test_the_diagonal_guide_keeps_to_the_diagonal_x_has_begun() -> None:
    board = _after_the_opening()
    board.push(Move(1, 3))  # O sends X to board 3, X has no corner yet: all four
    assert [m.cell for m in _guided(board, dfpn.GUIDE_DIAGONAL)] == [0, 2, 6, 8]
    board.push(Move(3, 8))
    board.push(Move(8, 5))  # X has a corner of the main diagonal: its two corners only
    assert [m.cell for m in _guided(board, dfpn.GUIDE_DIAGONAL)] == [0, 8]
    assert [m.cell for m in _guided(board, dfpn.GUIDE_PAPER)] == [0, 2, 6, 8]


def _refilling(k: int) -> Board:
    """The paper's opening, O's last move in the centre board on square `k`: X to move in
    board `k`, whose centre it does not hold."""
    board = Board("open-boards")
    board.push(Move(4, 4))
    for j in [j for j in range(9) if j not in (4, k)] + [k]:
        board.push(Move(4, j))
        if j != k:
            board.push(Move(j, 4))
    return board


def test_the_refill_guide_sends_o_into_board_k_to_fill_it_again() -> None:
    board = _refilling(1)  # the centre board is full: its centre square would set O free
    assert [m.cell for m in _guided(board, dfpn.GUIDE_REFILL)] == [0, 1, 2, 3, 5, 6, 7, 8]
    assert len(_guided(board, dfpn.GUIDE_PAPER)) == 1  # the old reading: the centre, e1 ... e2
    board.push(Move(1, 1))  # X takes square k of board k: O must play in board k
    board.push(Move(1, 3))  # O sends X to board 3: squares 1 (back to board k) and 7
    assert _guided(board, dfpn.GUIDE_REFILL) == [Move(3, 1), Move(3, 7)]


def test_the_race_to_a_line_never_asks_more_marks_than_the_winner_places() -> None:
    """`game_need` is a lower bound (the ply bound prunes by it): in random games, the
    winner places at least that many marks from any position to its win."""
    rng = random.Random(43)
    checked = 0
    for _ in range(60):
        board = Board("open-boards")
        needs: list[tuple[int, int]] = []  # (X's need, O's need) before each move
        while not board.is_game_over():
            s = kernel.from_board(board)
            needs.append((int(dfpn.game_need(s, 0)), int(dfpn.game_need(s, 1))))
            board.push(rng.choice(list(board.legal_moves)))
        outcome = board.outcome()
        if outcome is None or outcome.winner is None:
            continue
        side = 0 if outcome.winner is X else 1
        for ply, need in enumerate(needs):  # ply: marks on the board before the move
            placed = sum(1 for p in range(ply, len(needs)) if p % 2 == side)
            assert need[side] <= placed
            checked += 1
    assert checked > 1000


def test_the_safe_guide_adds_the_squares_that_send_o_to_a_board_it_cannot_gain() -> None:
    board = _after_the_opening()
    for move in (Move(1, 3), Move(3, 0), Move(0, 3), Move(3, 8)):  # X owns board 3
        board.push(move)
    board.push(Move(8, 5))  # X sent to board 5: its corners, and square 3 (to X's board)
    assert [m.cell for m in _guided(board, dfpn.GUIDE_SAFE)] == [0, 2, 3, 6, 8]
    assert [m.cell for m in _guided(board, dfpn.GUIDE_PAPER)] == [0, 2, 6, 8]


def test_the_race_to_a_line_counts_the_marks_each_side_still_needs() -> None:
    board = _after_the_opening()  # O owns the centre board
    s = kernel.from_board(board)
    # X: two marks in each of three outer boards; O: three in each of two opposite boards
    assert (dfpn.game_need(s, 0), dfpn.game_need(s, 1)) == (6, 6)
    # 17 plies played, O to move: X's sixth mark comes at ply 29 at the soonest
    assert dfpn.leaf_numbers(s, board.rules.flags, 28) == (dfpn.INFINITE, 0)
    assert dfpn.leaf_numbers(s, board.rules.flags, 29)[1] > 0
    s[dfpn.BIG + 1] |= 0b111_000_000  # O owns the bottom row of boards,
    s[dfpn.BIG + 1] |= 0b001_001_001  # the left column
    s[dfpn.BIG + 1] |= 0b000_000_111  # and the top row: every line of X's is blocked
    assert dfpn.game_need(s, 0) == dfpn.NO_LINE
    assert dfpn.leaf_numbers(s, board.rules.flags, 81) == (dfpn.INFINITE, 0)


def test_a_forced_win_near_the_end_is_proved_and_its_certificate_checks() -> None:
    board = Board.from_position(NEAR_END)
    strategy = prove(board)
    assert strategy.root == NEAR_END and len(strategy.moves) == 69
    report = check(write(strategy.moves, strategy.root).splitlines())
    assert (report.root, report.positions, report.longest, report.unused) == (NEAR_END, 69, 13, 0)


# Board k = 1 half refilled: 26 plies played (X holds squares 4 and 1 of boards 0, 2, 3
# and 6), X to move; a position of the paper's strategy (from its certificate)
REFILLING = ("open-boards 1x1ox2x1/1x1oo2x1/4o4/3ooo3/1x1oxo1x1/3ooo3/4xo3/1x2x2x1/4x4 "
             "x 3 ....o..x.")


def test_the_papers_strategy_wins_by_ply_43_from_the_middle_of_the_refill() -> None:
    board = Board.from_position(REFILLING)
    strategy = prove(board, "refill", max_plies=43)
    report = check(write(strategy.moves, strategy.root).splitlines())
    assert (report.root, report.positions, report.longest) == (REFILLING, 839, 17)  # ply 43
    with pytest.raises(NotProved):
        prove(board, "refill", max_plies=41)


@pytest.mark.slow
def test_the_theorem_x_wins_from_the_empty_board_by_ply_43() -> None:
    """The full proof (about 15 s CPU for the search and the check)."""
    strategy = prove(Board("open-boards"), "refill", max_plies=43)
    report = check(write(strategy.moves, strategy.root).splitlines())
    assert (report.positions, report.longest, report.unused) == (131_501, 43, 0)
    assert strategy.moves[strategy.root] == Move(4, 4)


def test_a_table_too_small_to_keep_the_proof_is_searched_again() -> None:
    board = Board.from_position(NEAR_END)
    strategy = prove(board, table_bits=3)  # 8 slots: entries are lost all the time
    report = check(write(strategy.moves, strategy.root).splitlines())  # a win all the same
    assert report.root == NEAR_END and report.positions >= 69


def test_the_soonest_win_is_searched_two_plies_at_a_time() -> None:
    board = Board.from_position(NEAR_END)
    marks = sum(c is not None for c in board.cells)
    strategy, plies = soonest(board, within=marks + 15)
    assert plies == 11
    assert check(write(strategy.moves, strategy.root).splitlines()).longest == 11
    with pytest.raises(NotProved):
        prove(board, max_plies=marks + 9)


def test_no_proof_where_o_holds() -> None:
    with pytest.raises(NotProved):
        prove(Board("open-boards"), max_expansions=50)
    with pytest.raises(ValueError, match="one of paper, diagonal, none, safe, refill"):
        prove(Board.from_position(NEAR_END), "corners")
    with pytest.raises(ValueError, match="X to move"):
        board = Board("open-boards")
        board.push(Move(4, 4))
        prove(board)


# --- 3. the check ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate() -> str:
    strategy = prove(Board.from_position(NEAR_END))
    return write(strategy.moves, strategy.root, ["a test certificate"])


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("#")]


def test_a_certificate_with_one_o_reply_removed_is_refused_naming_the_position(
        certificate: str) -> None:
    lines = _lines(certificate)
    for removed in (lines[1], lines[-1]):
        position = removed.rpartition(" ")[0]
        with pytest.raises(CertificateError, match="not covered") as info:
            check([line for line in lines if line != removed])
        assert repr(position) in str(info.value)


def test_a_certificate_with_one_x_move_changed_is_refused_naming_the_position(
        certificate: str) -> None:
    root, strategy = read(certificate.splitlines())
    board = Board.from_position(root)
    changed = 0
    for position, move in strategy.items():
        board = Board.from_position(position)
        for other in board.legal_moves:
            if other == move:
                continue
            lines = [f"{p} {other if p == position else m}" for p, m in strategy.items()]
            try:
                check(lines)
            except CertificateError as exc:
                assert repr(position) in str(exc) or "not covered" in str(exc)
                changed += 1
                continue
            # another winning move is no error: the changed certificate is still a proof
            assert check(lines).root == root
    assert changed > 10


def test_unreadable_certificates_are_refused_with_the_line() -> None:
    with pytest.raises(CertificateError, match="line 2: expected a position"):
        check(["# c", "not a certificate"])
    with pytest.raises(CertificateError, match=r"line 2: .*given twice"):
        check([f"{NEAR_END} e1", f"{NEAR_END} e1"])
    with pytest.raises(CertificateError, match="no position lines"):
        check(["# only a comment"])
    with pytest.raises(CertificateError, match="not a position"):
        check(["open-boards 9/9/9/9/9/9/9/9/9 o - ......... e5"])
    with pytest.raises(CertificateError, match="illegal"):
        check([f"{NEAR_END} a1"])


# --- the command --------------------------------------------------------------------------


def test_prove_writes_a_certificate_that_prove_check_accepts(tmp_path) -> None:
    out = tmp_path / "win.txt"
    result = runner.invoke(app, ["prove", "--position", NEAR_END, "--guide", "paper", "--out",
                                 str(out)])
    text = " ".join(result.output.split())
    assert result.exit_code == 0, text
    assert "positions 69, longest forced line 13 plies" in text
    result = runner.invoke(app, ["prove", "--check", str(out)])
    assert result.exit_code == 0 and "longest forced line 13 plies" in result.output
    result = runner.invoke(app, ["prove", "--position", NEAR_END, "--guide", "paper",
                                 "--shortest"])
    assert "the soonest found within 11" in " ".join(result.output.split())
    result = runner.invoke(app, ["prove", "--position", NEAR_END, "--guide", "paper",
                                 "--max-plies", "59"])
    assert result.exit_code == 2 and "X has no forced win here" in result.output
    result = runner.invoke(app, ["prove", "--position", REFILLING, "--max-plies", "43"])
    text = " ".join(result.output.split())  # the paper's strategy: the default guide
    assert result.exit_code == 0 and "positions 839, longest forced line 17 plies" in text, text
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:4] + lines[5:]) + "\n")  # one O reply's line removed
    result = runner.invoke(app, ["prove", "--check", str(out)])
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "is refused: not covered" in text, text
    assert "Traceback" not in text


def test_prove_check_of_a_broken_file_is_one_line(tmp_path) -> None:
    broken = tmp_path / "broken.txt"
    broken.write_bytes(b"\xff\xfe garbage")
    for path in (broken, tmp_path / "missing.txt"):
        result = runner.invoke(app, ["prove", "--check", str(path)])
        assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
        assert "Traceback" not in result.output


# --- 5. the strategy stored: one walk checks it, a Board finds its move ----------------


def test_a_stored_strategy_keeps_every_move_and_the_longest_defence_of_the_certificate(
) -> None:
    strategy = prove(Board.from_position(REFILLING), "refill", max_plies=43)
    stored = check_stored(from_bytes(make(strategy).to_bytes()))
    assert stored.root == REFILLING and len(stored) == 839
    longest = plies_to_win(Board.from_position(REFILLING), strategy.moves)
    for position, move in strategy.moves.items():
        board = Board.from_position(position)
        assert stored.move(board) == move and stored.plies_left(board) == longest[position]
    assert stored.plies_left(Board.from_position(REFILLING)) == 17
    board = Board.from_position(REFILLING)
    board.push(stored.move(board))
    assert stored.move(board) is None  # O to move: not a position of X's
    assert stored.move(Board("open-boards")) is None


def test_a_boards_key_is_the_kernels_in_random_games() -> None:
    rng = random.Random(5)
    for rules in ("open-boards", "standard"):
        for _ in range(20):
            board = Board(rules)
            while not board.is_game_over():
                assert board_key(board) == exact_key(kernel.from_board(board))
                board.push(rng.choice(list(board.legal_moves)))


def test_a_stored_strategy_with_a_move_changed_or_cut_short_is_refused() -> None:
    stored = make(prove(Board.from_position(NEAR_END)))
    changed = stored.actions.copy()
    changed[3] = next(a for a in range(81) if a != changed[3])
    problems = []
    for actions in (changed, stored.actions[:-1], np.append(stored.actions, 0)):
        with pytest.raises(CertificateError, match=r"not a win for X") as refused:
            walked(stored.root, actions)
        problems.append(str(refused.value))
    assert len(set(problems)) == 3, problems
    tampered = Stored(stored.root, stored.keys, stored.actions, stored.plies + 1)
    with pytest.raises(StoredError, match="not those of its moves' walk"):
        check_stored(tampered)
    for data in (b"", b"not a zip", stored.to_bytes()[:100]):
        with pytest.raises(StoredError, match="not a stored strategy"):
            from_bytes(data)
