"""A bot answers at once when cold: the lean path to the first answer, the search
loading in the background with a fallback answering meanwhile, an empty numba cache,
a bot killed while compiling, `ninefold warmup`, and the opening book.

The time bounds are the platforms' own limits (CodinGame: 1,000 ms for the first
turn, counted from the write of the request to the read of the answer), the
behaviour under test; the bots are real subprocesses.
"""

from __future__ import annotations

import inspect
import io
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import search_players

from ninefold import timing
from ninefold.arena.referee import Seat, play_game
from ninefold.players import Limit, book, make_player
from ninefold.players.book import (
    BOOK_PATH,
    DEEP_PATH,
    LINES_RULES,
    BookPlayer,
    book_move,
    book_positions,
    canonical,
    deep_move,
    key,
    line_key,
    line_positions,
    read_book,
)
from ninefold.protocols.engine import Engine
from ninefold.rules import Board, Mark, Move

PY = sys.executable
BOT = [PY, "-m", "ninefold", "bot", "--protocol", "codingame"]
# A first answer that waited for the search to compile (about 40 s here) comes later than
# this; one that did not, sooner, however busy the machine (CodinGame's limit is 1,000 ms)
NO_COMPILE_MS = 15_000.0
FIRST_REQUEST = "-1 -1\n81\n" + "".join(f"{r} {c}\n" for r in range(9) for c in range(9))
HEAVY = ("typer", "rich", "numpy", "numba")


def start_bot(cache: Path | None, stderr_path: Path) -> subprocess.Popen:
    env = dict(os.environ)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    with open(stderr_path, "w") as err:
        return subprocess.Popen(BOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=err, text=True, bufsize=1, env=env,
                                start_new_session=True)


def first_answer(proc: subprocess.Popen) -> tuple[float, str]:
    """Write the first request as a platform does, right after the start; the time
    (ms) from the write to the read of the answer, and the answer."""
    t0 = time.monotonic()
    proc.stdin.write(FIRST_REQUEST)
    proc.stdin.flush()
    line = proc.stdout.readline()
    return (time.monotonic() - t0) * 1000.0, line.strip()


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    for stream in (proc.stdin, proc.stdout):
        stream.close()


def legal_first(answer: str) -> bool:
    row, col = map(int, answer.split()[:2])
    return Move.from_xy(col, row) in Board("codingame").legal_moves


# --- the lean path -------------------------------------------------------------------------


def test_the_bot_path_imports_no_typer_rich_numpy_or_numba() -> None:
    code = ("import sys, ninefold.command, ninefold.protocols.botmain, ninefold.players.book;"
            "from ninefold import Board; from ninefold.players import make_player;"
            "make_player('book:then=policy').play(Board('codingame', opening='53271'));"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_bot_help_lists_the_same_options_as_the_typer_command() -> None:
    from ninefold.cli import app

    shown = subprocess.run([PY, "-m", "ninefold", "bot", "--help"], capture_output=True,
                           text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    typer_bot = next(c for c in app.registered_commands if c.name == "bot")
    names = list(inspect.signature(typer_bot.callback).parameters)
    assert names == ["protocol", "player", "rules"]
    for name in names:
        assert f"--{name}" in shown.stdout
    typer_help = subprocess.run([PY, "-m", "ninefold.cli", "--help"], capture_output=True,
                                text=True, timeout=60).stdout
    assert "bot" in typer_help and "warmup" in typer_help


def test_bot_usage_errors_are_one_line() -> None:
    for args, words in ((["--protocol", "smoke"], "unknown protocol"),
                        ([], "--protocol"),
                        (["--protocol", "codingame", "--rules", "boards=shut"], "boards")):
        out = subprocess.run([PY, "-m", "ninefold", "bot", *args], capture_output=True,
                             text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert out.returncode == 2 and out.stderr.startswith("error:"), out.stderr
        assert words in out.stderr and out.stderr.count("\n") == 1 and not out.stdout


@pytest.mark.parametrize("spec, words", [("chess", "unknown player 'chess'"),
                                         ("mcts:speed=3", "no option 'speed'")])
def test_a_bad_player_spec_ends_the_bot_with_one_line(tmp_path, spec, words) -> None:
    with open(tmp_path / "err.txt", "w") as err:
        proc = subprocess.Popen([*BOT, "--player", spec], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        proc.wait(timeout=60)  # stdin left open: the error alone ends the bot
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdin.close()
        proc.stdout.close()
    shown = (tmp_path / "err.txt").read_text()
    assert proc.returncode == 2 and words in shown, shown
    assert [line for line in shown.splitlines() if line.startswith("error:")]


@pytest.mark.parametrize("spec, words, empty_cache", [
    ("mcts:speed=3", "no option 'speed'", False),
    ("mcts:threads=64", "threads=64 is not possible", False),
    ("mcts:threads=64", "threads=64 is not possible", True),  # checked before compiling
])
def test_a_bad_player_spec_is_reported_when_the_input_ends_at_once(
        tmp_path, spec, words, empty_cache) -> None:
    """The options are checked in the search process; input that ends before its
    verdict (here: none at all) still gets the one-line error and status 2, also with
    an empty numba cache (the values are checked before anything is compiled)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)} if empty_cache else None
    out = subprocess.run([*BOT, "--player", spec], capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL, env=env)
    assert out.returncode == 2 and words in out.stderr, out.stderr
    assert [line for line in out.stderr.splitlines() if line.startswith("error:")]
    assert "Traceback" not in out.stderr


# --- the fallback and the book -------------------------------------------------------------


@pytest.mark.parametrize("rules", ["standard", "codingame", "open-boards", "tic-tac-ku"])
def test_the_fallback_only_plays_legal_moves(rules) -> None:
    rng = random.Random(5)
    fallback = BookPlayer(seed=3)
    for _ in range(40):
        board = Board(rules)
        while not board.is_game_over():
            move = fallback.play(board).move
            assert move in board.legal_moves, (board.position(), move)
            board.push(move if rng.random() < 0.5 else rng.choice(list(board.legal_moves)))


@pytest.fixture
def engines():
    """Make `Engine`s whose search processes know the test players; all closed after."""
    made = []

    def make(spec: str, compiling: bool = False) -> Engine:
        engine = Engine(spec, "codingame", log=io.StringIO(),
                        command=search_players.command(compiling))
        made.append(engine)
        return engine

    yield make
    for engine in made:
        engine.close()


def test_the_engine_answers_from_the_fallback_until_the_player_is_ready(engines) -> None:
    engine = engines("slowload-test:delay=3.0")
    for board in list(book_positions())[:3]:  # not started: the fallback, at once
        result = engine.play(board, Limit(move_ms=1000))
        assert result.move == read_book()[key(board)] and result.info["engine"] == "loading"
    engine.start()
    t0 = time.monotonic()
    result = engine.play(Board("codingame"), Limit(move_ms=1000))
    waited_ms = (time.monotonic() - t0) * 1000
    # waited at most its share of the time for the player (900 ms), then the fallback
    # answered: long before the player's 3 s (a margin no load crosses; how close to the
    # turn's end the answer comes on a busy machine is benchmarks/bot_clock.py's)
    assert result.info["engine"] == "loading" and waited_ms < 2000, waited_ms
    assert engine.wait(30) and engine.ready
    assert "engine ready after" in engine.log.getvalue()
    assert engine.play(Board("codingame"), Limit(move_ms=50)).info == {"slow": True}


def test_a_book_position_on_a_turn_clock_waits_for_the_search_then_plays_the_book(
        engines) -> None:
    """At CodinGame's first turn (1,000 ms) the book's move went out at once and the
    search, loading for 1.3-1.6 s, missed the next three or four turns (the naive
    player's, measured): on a clock per turn a book position waits for the search
    too, and then plays the book's move."""
    engine = engines("slowload-test:delay=0.5")
    engine.start()
    t0 = time.monotonic()
    # a turn of 5 s: the search (its process started, then 0.5 s) is ready within the
    # book's share of it (4.5 s) however busy the machine
    result = engine.play(Board("codingame"), Limit(move_ms=5000))
    waited_ms = (time.monotonic() - t0) * 1000
    assert result.move == read_book()[key(Board())] and result.info["reason"] == "book"
    # it waited until ready (and then searched on to the turn's end: the next test)
    assert engine.ready and 300 <= waited_ms < 10_000, waited_ms


def test_a_search_ready_during_a_book_turn_searches_on_after_the_book_s_move(
        engines) -> None:
    """CodinGame's first turn: the search was ready after about 0.4 s of its 1,000 ms
    and the book's move went out then, the rest of the turn lost. Now the search
    searches on after the book's move until the turn's wait ends, the answer waiting
    for it, and stops there (not on the opponent's time): the next move keeps it."""
    engine = engines("ponders-test:delay=0.3")
    engine.start()
    board = Board("codingame")
    t0 = time.monotonic()
    # a turn of 5 s: the search (its process started, then 0.3 s) is ready well within it
    # however busy the machine. The margins below are seconds: no load crosses them
    result = engine.play(board, Limit(move_ms=5000))
    waited_ms = (time.monotonic() - t0) * 1000
    book_move = read_book()[key(board)]
    assert result.move == book_move and result.info["reason"] == "book"
    # the answer waited for the turn's wait to end (and not for the search's own end, 30 s)
    assert 5000 - timing.LOADING_MARGIN_MS - 5 <= waited_ms < 10_000, waited_ms
    assert result.info["searched_on_ms"] >= 400, result.info
    time.sleep(3.0)  # the opponent's turn: the search has stopped at the turn's end
    board.push(book_move)
    after = board.position()
    board.push(next(iter(board.legal_moves)))
    pondered = engine.play(board, Limit(move_ms=50)).info["pondered"]
    assert pondered[0] == after, pondered
    # it searched on as long as the answer waited, not through the opponent's 3 s too
    assert abs(pondered[1] - result.info["searched_on_ms"]) < 1000, (pondered, result.info)


def test_a_book_position_on_a_time_bank_is_answered_at_once(engines) -> None:
    """On a bank the time a wait takes is the bank's: the book answers at once."""
    engine = engines("slowload-test:delay=1.5")
    engine.start()
    t0 = time.monotonic()
    result = engine.play(Board("codingame"), Limit(bank_ms=10000, increment_ms=500))
    waited_ms = (time.monotonic() - t0) * 1000
    assert result.info["reason"] == "book" and result.info["engine"] == "loading"
    # at once: not after the search's 1.5 s load (nor the bank's share)
    assert waited_ms < 1000 and not engine.ready, waited_ms


def _deep_lines() -> dict[str, Move]:
    return read_book(DEEP_PATH)


def test_the_deep_lines_are_the_second_player_s_legal_moves_under_every_symmetry() -> None:
    """Each entry is a CodinGame position where O is to move, stored as the least of its
    symmetric copies, with a legal move; every copy gets the move turned to it (or,
    where the position is symmetric itself, a move as good: one to the same position)."""
    lines = _deep_lines()
    assert len(lines) >= 8
    for text, move in lines.items():
        board = Board.from_position(text)
        assert board.rules.name == "codingame" and board.turn is Mark.O
        assert canonical(board) == (text, 0) and move in board.legal_moves
        goes_to = canonical(_after(board, move))[0]
        asymmetric = len({board.transform(k).position() for k in range(8)}) == 8
        for k in range(8):
            turned = board.transform(k)
            assert canonical(_after(turned, deep_move(turned)))[0] == goes_to
            if asymmetric:  # else some copies have two ways back
                assert deep_move(turned) == move.transform(k)
    # they start from the book's first move, which the bots play
    first = Board("codingame")
    first.push(read_book()[key(first)])
    assert deep_move(first) is not None
    assert deep_move(Board("codingame")) is None and deep_move(Board("standard")) is None


def test_the_deep_lines_follow_the_games_of_two_searches_from_the_empty_board() -> None:
    """Played out, the lines reach the deepest position they hold: from each, the
    first player's replies (the grower's own searches) lead to another entry."""
    lines = _deep_lines()
    deepest = max(81 - Board.from_position(t).cells.count(None) for t in lines)
    board = Board("codingame")
    board.push(read_book()[key(board)])
    reached = 0
    while deep_move(board) is not None:
        reached = 81 - board.cells.count(None)
        board.push(deep_move(board))
        replies = [b for b in board.legal_moves if deep_move(_after(board, b)) is not None]
        if not replies:
            break
        board.push(replies[0])
    assert reached == deepest, (reached, deepest, board.position())


def _after(board: Board, move: Move) -> Board:
    after = board.copy()
    after.push(move)
    return after


def test_the_engine_reads_the_deep_lines_when_made_not_on_a_turn(engines) -> None:
    """Read at the first lookup, they took 20 ms on a quiet machine and more on a busy
    one, in the turn after the first one the search played: five games lost on time
    at that turn in 400 at CodinGame's clock. The engine reads them when made."""
    book._deep_book.cache_clear()
    engines("ponders-test:delay=0.3")
    assert book._deep_book.cache_info().currsize == 1
    t0 = time.perf_counter()
    board = Board.from_position(next(iter(_deep_lines())))
    assert deep_move(board) is not None and time.perf_counter() - t0 < 0.5


def test_a_deep_lines_position_gets_their_move_and_the_search_searches_on(engines) -> None:
    """Once the search is ready it plays every move but the deep lines': there the
    lines' move goes out at the turn's end (on a clock per turn; at once on a bank),
    the search having searched on after it, so the next turn keeps that tree."""
    engine = engines("ponders-test:delay=0.3")
    engine.start()
    assert engine.wait(30)
    text, move = next(iter(_deep_lines().items()))
    board = Board.from_position(text).transform(5)  # a mirrored copy
    t0 = time.monotonic()
    result = engine.play(board, Limit(move_ms=3000))
    waited_ms = (time.monotonic() - t0) * 1000
    assert result.move == move.transform(5) and result.info["engine"] == "deep lines"
    assert 3000 - timing.LOADING_MARGIN_MS - 5 <= waited_ms < 8000, waited_ms
    board.push(result.move)
    after = board.position()
    board.push(next(iter(board.legal_moves)))
    pondered = engine.play(board, Limit(move_ms=50)).info["pondered"]
    assert pondered[0] == after and pondered[1] >= 1000, pondered
    t0 = time.monotonic()
    banked = engine.play(Board.from_position(text), Limit(bank_ms=10000, increment_ms=500))
    assert banked.move == move and banked.info["engine"] == "deep lines"
    assert (time.monotonic() - t0) * 1000 < 1000


def test_a_request_stops_waiting_once_the_search_must_be_compiled(engines) -> None:
    """A request that came while the search process started waited its whole turn when
    the cache then proved empty (a first answer at 977 ms of CodinGame's 1,000,
    measured): it answers as soon as the search says it must compile."""
    engine = engines("slowload-test:delay=1.5", compiling=True)
    engine.start()
    t0 = time.monotonic()
    # a turn of 20 s: waiting it out would take 20 s; the search's process says it must
    # compile as soon as it has started (seconds at most, however busy the machine)
    result = engine.play(_past_the_book(), Limit(move_ms=20_000))
    waited_ms = (time.monotonic() - t0) * 1000
    assert result.info["engine"] == "loading" and waited_ms < 10_000, waited_ms
    assert "compiling" in engine.log.getvalue()
    assert engine.wait(30)


def test_the_book_is_legal_and_complete() -> None:
    book = read_book()
    boards = list(book_positions())
    lines = {line_key(board): board for board in line_positions(book)}
    assert len(boards) == 82 and len(lines) == 1283 and len(book) == 82 + 1283
    for board in boards:
        assert book[key(board)] in board.legal_moves
    for text, board in lines.items():
        assert text.startswith(LINES_RULES) and book[text] in board.legal_moves


def test_the_book_plays_its_lines_for_both_sides_where_the_naive_player_would() -> None:
    """The games that open with the book's first move: each side's moves to the seventh
    come from the book, whatever the other side plays; other rules get the first moves
    only."""
    rng = random.Random(5)
    player = BookPlayer()
    for game in range(40):
        board = Board(LINES_RULES)
        side = game % 2  # the book's side: X's moves in even games, O's in odd ones
        for ply in range(8):
            if ply % 2 == side or ply == 0:
                result = player.play(board)
                assert result.info["reason"] == "book", (game, ply, board.position())
                board.push(result.move)
            else:
                board.push(rng.choice(list(board.legal_moves)))
    standard = Board("standard")
    standard.push(book_move(read_book(), standard))
    standard.push(next(iter(standard.legal_moves)))
    assert book_move(read_book(), standard) is None


@pytest.mark.slow  # seven searches at the book's own depth: `make test-all` and CI run it
def test_the_book_script_reproduces_the_book() -> None:
    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
    try:
        from make_book import book_entries
    finally:
        sys.path.pop(0)
    stored = {line.rpartition(" ")[0]: line.rpartition(" ")[2]
              for line in BOOK_PATH.read_text().splitlines() if not line.startswith("#")}
    some = [key(b) for b in book_positions()][:: 27]  # the empty board and three replies
    some += [line_key(b) for b in line_positions(read_book())][:: 500]  # and three lines
    assert len(some) == 7
    assert book_entries(only=some) == {k: stored[k] for k in some}


@pytest.mark.slow  # a benchmark script end to end: `make test-all` and CI run it
def test_the_deep_lines_script_grows_lines_and_goes_on_from_them(tmp_path) -> None:
    script = Path(__file__).parents[1] / "benchmarks" / "grow_book.py"
    out = tmp_path / "deep.txt"
    spec = "mcts:sims=300,seed=2,threads=1"

    def grow(plies: int) -> dict[str, Move]:
        done = subprocess.run([sys.executable, str(script), "--spec", spec, "--reply-spec",
                               "mcts:threads=1", "--plies", str(plies), "--out", str(out),
                               "--jobs", "2"], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert out.read_text().splitlines()[1].endswith(spec)
        return read_book.__wrapped__(out)

    short = grow(3)
    marks = sorted(81 - Board.from_position(text).cells.count(None) for text in short)
    assert marks[0] == 1 and marks[-1] == 3 and set(marks) == {1, 3}
    for text, move in short.items():
        board = Board.from_position(text)
        assert canonical(board) == (text, 0) and move in board.legal_moves
    longer = grow(5)
    assert longer.items() >= short.items() and max(
        81 - Board.from_position(text).cells.count(None) for text in longer) == 5


@pytest.mark.slow  # a benchmark script end to end: `make test-all` and CI run it
def test_the_deep_lines_script_follows_the_replies_met_in_games(tmp_path) -> None:
    """`--games`: where recorded games left the lines (a first player's reply the
    search did not make, met in at least `--min-games` games), the lines go on from
    there; a reply met once does not count, and a file that cannot be read is one line."""
    script = Path(__file__).parents[1] / "benchmarks" / "grow_book.py"
    out = tmp_path / "deep.txt"

    def grow(*more: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(script), "--spec",
                               "mcts:sims=300,seed=2,threads=1", "--reply-spec",
                               "mcts:threads=1", "--plies", "3", "--out", str(out), *more],
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "COLUMNS": "1000"})  # an error on one line

    assert grow().returncode == 0
    lines = read_book.__wrapped__(out)
    first = Board("codingame")
    first.push(Move.parse("e5"))
    text, k = canonical(first)
    board = first.transform(k)  # the copy the lines' move is for
    board.push(lines[text])
    unknown = [m for m in board.legal_moves
               if canonical(_pushed(board, m))[0] not in lines]
    often, once = _pushed(board, unknown[0]), _pushed(board, unknown[-1])
    games = tmp_path / "games.jsonl"
    games.write_text("\n".join(['{"match": {"rules": "codingame"}}'] + [
        json.dumps({"game": i, "moves": [str(m) for m in b.move_stack]})
        for i, b in enumerate([often, often, once])]) + "\n")
    done = grow("--games", str(games))
    assert done.returncode == 0, done.stderr[-2000:]
    grown = read_book.__wrapped__(out)
    assert grown.items() >= lines.items()
    assert set(grown) - set(lines) == {canonical(often)[0]}
    assert grown[canonical(often)[0]] in Board.from_position(canonical(often)[0]).legal_moves
    assert "games.jsonl" in out.read_text().splitlines()[3]
    games.write_text('{"match": {"rules": "codingame"}}\n{"game": 1, "moves": ["e5", "z9"]}\n')
    bad = grow("--games", str(games))
    assert bad.returncode == 2 and "games.jsonl line 2: cannot read move 'z9'" in bad.stderr
    assert "Traceback" not in bad.stderr and read_book.__wrapped__(out) == grown


def _pushed(board: Board, move: Move) -> Board:
    after = board.copy()
    after.push(move)
    return after


@pytest.mark.slow  # a benchmark script end to end: `make test-all` and CI run it
def test_the_book_script_writes_another_book_with_another_search(tmp_path) -> None:
    script = Path(__file__).parents[1] / "benchmarks" / "make_book.py"
    out = tmp_path / "book.txt"
    spec = "mcts:sims=30,seed=2,threads=1"
    done = subprocess.run([sys.executable, str(script), "--spec", spec, "--lines-spec", spec,
                           "--plies", "3", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.read_text().splitlines()[0].endswith(spec)
    assert out.read_text().splitlines()[1].endswith(spec)
    book = read_book(out)
    assert len(book) == 82 + 17
    assert all(book[key(b)] in b.legal_moves for b in book_positions())
    assert all(book[line_key(b)] in b.legal_moves for b in line_positions(book, plies=3))
    bad = subprocess.run([sys.executable, str(script), "--spec", "mcts:bogus=1", "--out",
                          str(tmp_path / "bad.txt")], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "no option 'bogus'" in bad.stderr
    assert "Traceback" not in bad.stderr and not (tmp_path / "bad.txt").exists()


# --- real bots, warm and cold --------------------------------------------------------------


def test_a_warm_bot_answers_its_first_request_within_the_turn(tmp_path) -> None:
    subprocess.run([PY, "-m", "ninefold", "warmup"], check=True, capture_output=True,
                   timeout=300)
    proc = start_bot(None, tmp_path / "err.txt")
    try:
        ms, answer = first_answer(proc)
    finally:
        stop(proc)
    assert legal_first(answer), answer
    # the book's move, sent when the search is ready or, loading longer, at the turn's end
    # less the margins: CodinGame's first turn is a clock per turn (a bank: at once).
    # Within the 1,000 ms is benchmarks/bot_clock.py's to measure (its warm starts): on a
    # busy machine the interpreter's own start takes seconds. Here: never after a compile
    assert ms < NO_COMPILE_MS, f"{ms:.0f} ms"


def test_an_empty_cache_still_answers_within_the_first_turn_limit(tmp_path) -> None:
    proc = start_bot(tmp_path / "cache", tmp_path / "err.txt")
    try:
        ms, answer = first_answer(proc)
    finally:
        stop(proc)
    assert legal_first(answer), answer
    # within the 1,000 ms: bot_clock.py's cold starts; here, never after the compile
    assert ms < NO_COMPILE_MS, f"{ms:.0f} ms"


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_a_bot_killed_while_compiling_leaves_no_broken_cache(tmp_path) -> None:
    cache = tmp_path / "cache"
    proc = start_bot(cache, tmp_path / "err1.txt")
    try:
        ms, answer = first_answer(proc)
        assert legal_first(answer) and ms < NO_COMPILE_MS, (ms, answer)  # see above
        deadline = time.monotonic() + 120
        while not list(cache.rglob("*.nbc")) and time.monotonic() < deadline:
            time.sleep(0.05)  # killed once the first functions are written, mid-compile
        time.sleep(0.3)
        assert "engine ready" not in (tmp_path / "err1.txt").read_text()
    finally:
        stop(proc)
    assert list(cache.rglob("*.nbc")), "nothing was compiled before the kill"
    # started again on that cache: it answers and plays whole games at the platform's limits
    command = f"env NUMBA_CACHE_DIR={cache} {' '.join(BOT)}"
    for colour in (0, 1):
        me = Seat.external(command, "codingame", name="ninefold")
        seats = (me, Seat.builtin("naive:seed=2"))
        x, o = seats if colour == 0 else seats[::-1]
        # slack: a half-written cache must not make the bot compile on a request (that
        # takes seconds); the time it keeps on a busy machine is test_bot_time's to test
        result = play_game(x, o, rules="codingame", first_move_ms=0, slack_ms=200,
                           log_dir=tmp_path)
        assert str(result.termination) in ("line", "no-moves", "board-count"), result.reason
    # and the cache it completes is sound: the search loads from it and plays
    out = subprocess.run([PY, "-m", "ninefold", "warmup"], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    assert out.returncode == 0, out.stderr
    code = ("from ninefold import Board; from ninefold.players import make_player, Limit;"
            "print(make_player('mcts:threads=2').play(Board(), Limit(move_ms=50)).move)")
    played = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    assert played.returncode == 0 and "compiling" not in played.stderr, played.stderr
    assert Move.parse(played.stdout.strip()) in Board().legal_moves


@pytest.mark.slow  # `make test-all` and CI run it; `make test` leaves it out
def test_warmup_fills_the_cache_and_says_so(tmp_path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([PY, "-m", "ninefold", "warmup"], capture_output=True, text=True,
                           timeout=300, env=env)
    assert first.returncode == 0 and not first.stdout, first.stderr
    assert "compiled the searches" in first.stderr
    again = subprocess.run([PY, "-m", "ninefold", "warmup"], capture_output=True, text=True,
                           timeout=300, env=env)
    assert again.returncode == 0 and "already in numba's cache" in again.stderr
    assert make_player("naive") is not None


def _past_the_book() -> Board:
    """A position the opening book does not know (two moves in, X's first not the book's:
    the book's lines follow its own first move)."""
    board = Board("codingame")
    board.push(Move.parse("a1"))
    board.push(next(iter(board.legal_moves)))
    assert not BookPlayer().knows(board)
    return board


def test_a_request_while_the_search_loads_waits_for_it_most_of_its_time(engines) -> None:
    """The time of a turn is lost if unused: the request waits for the search until
    its time less the loading margin, then the fallback answers."""
    engine = engines("slowload-test:delay=1.5")
    engine.start()
    t0 = time.monotonic()
    result = engine.play(_past_the_book(), Limit(move_ms=300))
    waited_ms = (time.monotonic() - t0) * 1000
    assert result.info["engine"] == "loading"
    # until its time less the margin, and not for the search (1.5 s): a margin no load
    # crosses (how close to the turn's end a busy machine answers: bot_clock.py's)
    assert 300 - timing.LOADING_MARGIN_MS - 15 <= waited_ms < 1000, waited_ms


def test_out_of_the_book_the_network_s_policy_answers_while_the_search_loads(engines) -> None:
    """Past the book, a request the search is not ready for gets the network's first
    guess (`ninefold.players.policy`), not the naive player's; a move given too late
    is still rescued with the book and the naive player, the cheapest."""
    engine = engines("slowload-test:delay=1.5")
    engine.start()
    result = engine.play(_past_the_book(), Limit(move_ms=100))
    assert result.info == {"reason": "policy", "engine": "loading"}
    assert engine.quick.play(_past_the_book()).info["reason"] != "policy"


def test_an_unreadable_network_leaves_the_naive_player_after_the_book(monkeypatch) -> None:
    import ninefold.players.net_inputs as net_inputs
    import ninefold.players.policy as policy

    monkeypatch.setattr(net_inputs, "DEFAULT_PATH", Path("/nonexistent/net.npz"))
    policy.read_net.cache_clear()
    log = io.StringIO()
    try:
        engine = Engine("mcts:net=default", "codingame", log=log)
    finally:
        policy.read_net.cache_clear()
    assert "is not readable" in log.getvalue() and len(log.getvalue().splitlines()) == 1
    assert engine.fallback.play(_past_the_book()).info["reason"] != "policy"


def test_a_search_ready_within_the_turn_plays_the_rest_of_it(engines) -> None:
    engine = engines("slowload-test:delay=0.2")
    engine.start()
    t0 = time.monotonic()
    # a turn of 20 s: the search's process starts and loads within it however busy the
    # machine
    result = engine.play(_past_the_book(), Limit(move_ms=20_000))
    assert result.info == {"slow": True}  # the player's move, not the fallback's
    assert (time.monotonic() - t0) * 1000 < 20_000


def test_a_search_that_holds_its_interpreter_lock_while_loading_delays_no_answer(
        engines) -> None:
    """numba, loading, holds the interpreter lock for up to hundreds of ms at a time; when
    the search loaded in the bot's own process, the bot's answers waited for the lock
    (250 and 394 ms of a 100 ms turn, measured beside two busy processes). The search
    loads in a process of its own: each request is answered on time meanwhile."""
    engine = engines("lockload-test:seconds=4,hold=1.0")
    engine.start()
    time.sleep(0.5)  # the search process is loading, holding its lock
    late = []
    for _ in range(10):
        t0 = time.monotonic()
        result = engine.play(_past_the_book(), Limit(move_ms=50))
        waited_ms = (time.monotonic() - t0) * 1000
        assert result.info["engine"] == "loading"
        # a lock held 1 s at a time would hold some answer up by more than half of it;
        # a busy machine's own delays stay well under that
        late += [waited_ms] if waited_ms > 50 + 500 else []
    assert not late, late
    assert engine.wait(30)
    assert engine.play(_past_the_book(), Limit(move_ms=50)).info == {"held": True}


def test_the_search_process_ends_with_the_bot(tmp_path) -> None:
    """The bot killed by SIGKILL (a platform ending it) takes its search process along."""
    proc = start_bot(None, tmp_path / "err.txt")
    try:
        _, answer = first_answer(proc)
        assert legal_first(answer)
        deadline = time.monotonic() + 30  # a thread starts it: the book may answer first
        while not (children := _children(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(children) == 1, children  # the search process
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{children[0]}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not Path(f"/proc/{children[0]}").exists() or _zombie(children[0])
    finally:
        stop(proc)


def _children(pid: int) -> list[int]:
    tasks = Path(f"/proc/{pid}/task")
    found: list[int] = []
    for task in tasks.iterdir():
        text = (task / "children").read_text().split()
        found += [int(c) for c in text]
    return found


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_a_search_process_that_dies_leaves_the_fallback_playing(engines) -> None:
    engine = engines("slowload-test:delay=0.1")
    engine.start()
    assert engine.wait(30)
    os.kill(engine.search.child.pid, signal.SIGKILL)
    result = engine.play(_past_the_book(), Limit(move_ms=50))
    assert result.move in _past_the_book().legal_moves and result.info["engine"] == "fallback"
    end = time.monotonic() + 30  # the loading thread notes the end when it reads it
    while "has ended" not in engine.log.getvalue() and time.monotonic() < end:
        time.sleep(0.01)
    assert "has ended" in engine.log.getvalue()


def test_the_search_loads_without_importing_scipy_linalg() -> None:
    """numba, loading its first compiled function, checks for a BLAS by importing
    scipy.linalg: 0.37 s of a 1.05 s load on the test machine, for searches that use no
    linear algebra. The search process skips it, and scipy.linalg still imports later.
    Here its end runs on pipes given as files; the defaults sent with the spec hold
    where the spec says nothing (a tree of 1,000 nodes)."""
    code = """if True:
        import io, sys, time
        from ninefold.players import Limit
        from ninefold.protocols.child import Parent, read_messages, write_message
        from ninefold.protocols.search_process import serve
        from ninefold.rules import Board, Rules
        inp = io.BytesIO()
        write_message(inp, ("load", "mcts", Rules.parse("standard"), {"nodes": 1000}))
        write_message(inp, ("play", 1, Board(), Limit(sims=2000), time.monotonic()))
        inp.seek(0)
        out = io.BytesIO()
        serve(Parent(inp, out))
        out.seek(0)
        # (a "compiling" note first when the cache is cold: other code changed since)
        said = [m for m in read_messages(out) if m[0] != "compiling"]
        print("scipy.linalg" in sys.modules)
        info = said[-1][2].info
        print([m[0] for m in said], said[0][2], info["nodes"] == 1000)
        import scipy.linalg
        print(scipy.linalg.__name__)
    """
    done = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == \
        ["False", "['ready', 'result'] nodes=1000 True", "scipy.linalg"], done.stdout


def test_the_search_process_loads_without_defaults_that_do_not_fit() -> None:
    """Defaults the player cannot take (a tree too big for the memory, say; here one
    too small to be allowed) give way to the player's own, with a line in the log; a
    spec that is bad by itself is still an error."""
    from ninefold.protocols.child import Parent, read_messages, write_message
    from ninefold.protocols.search_process import serve
    from ninefold.rules import Rules

    def said(spec: str) -> tuple:
        inp, out = io.BytesIO(), io.BytesIO()
        write_message(inp, ("load", spec, Rules.parse("standard"), {"nodes": 1}))
        inp.seek(0)
        serve(Parent(inp, out))
        out.seek(0)
        return next(read_messages(out))

    kind, _, defaulted = said("mcts:sims=10")
    assert (kind, defaulted) == ("ready", "")
    kind, text = said("mcts:speed=3")
    assert kind == "error" and "speed" in text


def test_the_search_process_ponders_between_requests_and_stops_for_each() -> None:
    """With ``ponder=on`` the child searches on the opponent's time; the next request
    finds that search stopped and its tree kept, and the child still ends with its input."""
    from ninefold.protocols.child import Parent, read_messages, write_message
    from ninefold.protocols.search_process import serve
    from ninefold.rules import Rules

    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    inp, to_child = os.fdopen(r1, "rb"), os.fdopen(w1, "wb")
    from_child, out = os.fdopen(r2, "rb"), os.fdopen(w2, "wb")
    child = threading.Thread(target=serve, args=(Parent(inp, out),), daemon=True)
    child.start()

    def send(message: tuple) -> None:
        write_message(to_child, message)

    said: queue.Queue = queue.Queue()

    def read() -> None:
        for message in read_messages(from_child):
            said.put(message)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def answer() -> tuple:  # fails, rather than hangs, if the child never answers
        while (message := said.get(timeout=120))[0] == "compiling":
            pass
        return message

    send(("load", "mcts:ponder=on,seed=1", Rules.parse("standard"), {}))
    assert answer()[0] == "ready"
    board = Board()
    send(("play", 1, board, Limit(move_ms=50), time.monotonic()))
    board.push(answer()[2].move)
    time.sleep(0.5)  # the opponent thinks
    board.push(next(iter(board.legal_moves)))
    send(("play", 2, board, Limit(sims=1), time.monotonic()))
    kind, number, second = answer()
    assert (kind, number) == ("result", 2)
    # well over a thousand simulations in the 0.5 s on a quiet machine, and over a hundred
    # on a busy one's share of the CPU (a search that did not ponder: 0 and 1)
    assert second.info["pondered"] > 100
    assert second.info["visits"] > 10  # one simulation of its own, the rest pondered
    send(("new_game",))
    send(("play", 3, Board(), Limit(sims=1), time.monotonic()))
    assert answer()[2].info["pondered"] == 0  # a new game: nothing of the old one's
    to_child.close()
    child.join(timeout=10)
    assert not child.is_alive()  # pondering stopped when the input ended
    out.close()  # the reader sees the end
    reader.join(timeout=10)
    for f in (inp, from_child):
        f.close()


@pytest.mark.parametrize(("address_mb", "defaults"), [
    (4096, "; defaults nodes=8000000"),
    (1200, ""),  # too little room for the big tree: the player's own default
])
def test_a_bot_on_a_time_bank_gets_a_tree_that_fits(
        tmp_path: Path, address_mb: int, defaults: str) -> None:
    """On Riddles' bank the bot's search gets an 8-million-node tree where the process
    may use the memory (``ulimit -v`` here); its log says what it loaded."""
    import resource

    from ninefold.players import strongest_spec
    from ninefold.system import memory_limit_mb

    if memory_limit_mb() < address_mb:
        pytest.skip(f"this machine lets a process use {memory_limit_mb():.0f} MB")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_mb * 2**20, address_mb * 2**20))

    err = tmp_path / "err.txt"
    with open(err, "w") as log:
        bot = subprocess.Popen([PY, "-m", "ninefold", "bot", "--protocol", "riddles"],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log,
                               preexec_fn=limit)
    try:
        end = time.monotonic() + 120  # loads in the background: the log says when ready
        while "engine ready" not in err.read_text() and bot.poll() is None \
                and time.monotonic() < end:
            time.sleep(0.05)
        bot.stdin.close()
        assert bot.wait(30) == 0, err.read_text()
    finally:
        bot.kill()
        bot.wait()
    text = err.read_text()
    assert f"({strongest_spec()}{defaults})" in text, text
