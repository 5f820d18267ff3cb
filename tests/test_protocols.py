"""The three bot protocols, both ends: exact lines, parsing, time banks, and real
subprocess bots (well-behaved and misbehaving, in tests/bots/) refereed to the end."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ninefold import timing
from ninefold.arena.checkbot import SITUATIONS, Check, check_bot, passed, verdict
from ninefold.arena.referee import Seat, play_game
from ninefold.players import make_player
from ninefold.protocols import (
    AIGamesConnection,
    AIGamesRunner,
    BotCommand,
    Clock,
    CodinGameConnection,
    CodinGameRunner,
    RiddlesConnection,
    TimeControl,
    runner,
)
from ninefold.protocols.fields import (
    AIGAMES,
    RIDDLES,
    decode_position,
    encode_field,
    encode_macroboard,
)
from ninefold.rules import Board, Mark, Move

BOTS = Path(__file__).parent / "bots"
PY = sys.executable


def bot(protocol: str, mode: str = "good", **kw) -> Seat:
    return Seat.parse(f"{PY} {BOTS / (protocol + '_bot.py')} {mode}", protocol,
                      name=f"{protocol}-{mode}", **kw)


# --- the lines, exactly as protocols.md -------------------------------------------------


def test_riddles_example_lines_exactly() -> None:
    """The example of protocols.md: riddles, ninefold moves second after (5, 2)."""
    board = Board()
    board.push(Move.from_xy(5, 2))
    conn = RiddlesConnection(BotCommand("true", "riddles"))
    conn.seat = Mark.O
    assert conn.setup_lines(TimeControl()) == [
        "settings player_names player0,player1",
        "settings your_bot player1",
        "settings timebank 10000",
        "settings time_per_move 500",
        "settings your_botid 1",
    ]
    field = ["."] * 81
    field[23] = "0"
    assert conn.request_lines(board, None, 10000) == [
        "update game round 1",
        "update game field " + ",".join(field),
        "update game macroboard .,.,.,.,.,.,.,.,-1",
        "action move 10000",
    ]
    assert conn.parse_answer("place_move 7 6") == (7, 6)
    assert Move.from_xy(7, 6) in board.legal_moves
    assert Move.from_xy(7, 6).cell == 1


def test_aigames_lines_exactly() -> None:
    board = Board()
    conn = AIGamesConnection(BotCommand("true", "aigames"))
    conn.seat = Mark.X
    assert conn.setup_lines(TimeControl()) == [
        "settings timebank 10000",
        "settings time_per_move 500",
        "settings player_names player1,player2",
        "settings your_bot player1",
        "settings your_botid 1",
    ]
    assert conn.request_lines(board, None, 10000) == [
        "update game round 1",
        "update game move 1",
        "update game field " + ",".join(["0"] * 81),
        "update game macroboard " + ",".join(["-1"] * 9),
        "action move 10000",
    ]
    board.push(Move.from_xy(4, 4))
    board.push(Move.from_xy(3, 3))
    lines = conn.request_lines(board, None, 9000)
    assert lines[:2] == ["update game round 2", "update game move 3"]


def test_codingame_lines() -> None:
    board = Board("codingame")
    conn = CodinGameConnection(BotCommand("true", "codingame"), seed=1)
    lines = conn.request_lines(board, None, 1000)
    assert lines[0] == "-1 -1" and lines[1] == "81" and len(lines) == 83
    board.push(Move.from_xy(5, 2))  # row 2, col 5
    lines = conn.request_lines(board, board.move_stack[-1], 100)
    assert lines[0] == "2 5" and lines[1] == "9"
    assert sorted(lines[2:]) == sorted(f"{y} {x}" for x in (6, 7, 8) for y in (6, 7, 8))


def test_macroboard_won_drawn_and_free() -> None:
    board = Board()
    # X wins board 0 (cells 0, 4, 8); O plays in board 4 cells that send X back.
    for b, c in [(4, 0), (0, 4), (4, 4), (4, 8), (8, 4), (4, 0 + 1), (1, 4), (4, 2),
                 (2, 4), (4, 3), (3, 4), (4, 5), (5, 4), (4, 6), (6, 4), (4, 7), (7, 4)]:
        if Move(b, c) in board.legal_moves:
            board.push(Move(b, c))
    macro = encode_macroboard(board, AIGAMES).split(",")
    for b in range(9):
        if board.owners[b] is not None:
            assert macro[b] == AIGAMES.id_of(board.owners[b])
        elif b in board.open_boards():
            assert macro[b] == "-1"
        else:
            assert macro[b] == "0"


@pytest.mark.parametrize("enc", [AIGAMES, RIDDLES])
def test_decode_round_trip_random_positions(enc) -> None:
    rng = random.Random(5)
    for _ in range(150):
        board = Board()
        for _ in range(rng.randrange(0, 70)):
            if board.is_game_over():
                break
            board.push(rng.choice(list(board.legal_moves)))
        if board.is_game_over():
            continue
        back = decode_position(encode_field(board, enc), encode_macroboard(board, enc), enc,
                               enc.id_of(board.turn))
        assert set(back.legal_moves) == set(board.legal_moves)
        assert back.cells == board.cells and back.owners == board.owners


def test_answer_parsing() -> None:
    aig = AIGamesConnection(BotCommand("true", "aigames"))
    assert aig.parse_answer("place_move 3.7 4") == (3, 4)  # (int) Double.parseDouble
    assert aig.parse_answer("place_move 3 4 trailing words") == (3, 4)
    for bad in ("place_disc 3 4", "place_move 3", "place_move  3 4", "place_move x 4"):
        with pytest.raises((ValueError, IndexError)):
            aig.parse_answer(bad)
    rid = RiddlesConnection(BotCommand("true", "riddles"))
    assert rid.parse_answer("anything 7 6") == (7, 6)  # the verb is not checked
    for bad in ("place_move 7 6 x", "place_move 7.0 6", "place_move 7"):
        with pytest.raises(ValueError):
            rid.parse_answer(bad)
    cg = CodinGameConnection(BotCommand("true", "codingame"))
    assert cg.parse_answer("4 5") == (5, 4)
    assert cg.parse_answer("4 5 winrate 0.61 sims 9000") == (5, 4)
    with pytest.raises(ValueError):
        cg.parse_answer("45")


# --- time -----------------------------------------------------------------------------


def test_time_bank_arithmetic() -> None:
    clock = Clock(TimeControl())
    assert clock.told_ms() == 10000
    clock.charge(300)
    assert clock.told_ms() == 10000  # min(9700 + 500, 10000)
    clock.charge(10000)
    assert clock.told_ms() == 500  # max(10000 - 10000, 0) + 500
    tc = TimeControl.parse("bank=1000,inc=200,startup=3000,slack=50")
    clock = Clock(tc)
    assert clock.deadline_ms() == 1000 + 3000 + 50
    clock.charge(3200)  # start-up is not charged to the bank
    assert clock.told_ms() == 1000 and clock.deadline_ms() == 1050
    cg = Clock(TimeControl.for_protocol("codingame"))
    assert cg.told_ms() == 1000
    cg.charge(500)
    assert cg.told_ms() == 100
    with pytest.raises(ValueError):
        TimeControl.parse("bank=-5")
    with pytest.raises(ValueError):
        TimeControl.parse("speed=3")


@pytest.mark.parametrize(("text", "words"), [
    ("slack=-100", "slack=-100 must be at least 0"),
    ("startup=-5000", "startup=-5000 must be at least 0"),
    ("bank=100000000", "must be at most"),
    ("inc=-1", "inc=-1 must be at least 0"),
    ("turn=0", "turn=0 must be at least 1"),
    ("bank=1,bank=2", "given twice"),
    ("speed=3", "no option 'speed'"),
    ("bank=ten", "not a whole number"),
])
def test_time_control_text_is_refused_with_the_reason(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        TimeControl.parse(text)


@pytest.mark.parametrize("changes", [
    {"slack_ms": -100}, {"first_move_ms": -5000}, {"bank_ms": 0}, {"increment_ms": -1},
    {"bank_ms": 10**9}, {"slack_ms": 2 * 86_400_000}, {"turn_ms": 0},
])
def test_time_control_checks_itself_on_every_path(changes) -> None:
    """The dataclass refuses bad values however it is made: the CLI's allowances,
    TOML, storage all end in the constructor."""
    with pytest.raises(ValueError, match="time control"):
        TimeControl(**changes)
    first, slack = changes.get("first_move_ms"), changes.get("slack_ms")
    if first is not None or slack is not None:
        with pytest.raises(ValueError, match=r"first-move|slack"):
            TimeControl().with_allowances(first, slack)


def test_time_control_round_trips_through_text() -> None:
    for tc in (TimeControl(), TimeControl.for_protocol("codingame"),
               TimeControl(bank_ms=1000, increment_ms=0, max_bank_ms=2000, slack_ms=5)):
        assert TimeControl.parse(str(tc), TimeControl(increment_ms=0) if not tc.increment_ms
                                 else None) == tc


def test_runner_budget_never_exceeds_bank() -> None:
    r = runner("aigames", make_player("random"), inp=io.StringIO(""), out=io.StringIO())
    for bank in (10000, 5000, 1000, 500, 200, 50, 10):
        limit, hard = r.bank_budget(bank, 500, 10000)
        assert limit.bank_ms is not None and limit.max_bank_ms == 10000
        assert (0 < limit.bank_ms < bank and 0 < hard < bank) or bank <= 60
        plan = timing.bank_plan(limit.bank_ms, 500, 10000, 81)  # what MCTS will plan
        assert plan.most_ms <= hard or bank <= 60


# --- ninefold's own end, in-process --------------------------------------------------------


def _run(protocol: str, text: str, rules: str | None = None) -> str:
    out = io.StringIO()
    kw = {"rules": rules} if rules else {}
    r = runner(protocol, make_player("random:seed=3"), inp=io.StringIO(text), out=out,
               log=io.StringIO(), **kw)
    assert r.run() == 0
    return out.getvalue()


def test_runner_riddles_example() -> None:
    field = ["."] * 81
    field[23] = "0"
    text = "\n".join([
        "settings player_names player0,player1", "settings your_bot player1",
        "settings timebank 10000", "settings time_per_move 500", "settings your_botid 1",
        "update game round 1", "update game field " + ",".join(field),
        "update game macroboard .,.,.,.,.,.,.,.,-1", "action move 10000",
    ]) + "\n"
    verb, x, y = _run("riddles", text).split()
    assert verb == "place_move" and Move.from_xy(int(x), int(y)).board == 8


def test_runner_aigames_first_move_and_garbage_lines() -> None:
    text = "\n".join([
        "settings timebank 10000", "settings time_per_move 500",
        "settings player_names player1,player2", "settings your_bot player1",
        "settings your_botid 1", "some nonsense line", "update game round 1",
        "update game move 1", "update game field " + ",".join(["0"] * 81),
        "update game macroboard " + ",".join(["-1"] * 9), "action move 10000",
    ]) + "\n"
    verb, x, y = _run("aigames", text).split()
    assert verb == "place_move" and 0 <= int(x) <= 8 and 0 <= int(y) <= 8


def test_runner_codingame_two_turns() -> None:
    all_moves = [f"{r} {c}" for r in range(9) for c in range(9)]
    first = "-1 -1\n81\n" + "\n".join(all_moves) + "\n"
    out = _run("codingame", first)
    row, col = map(int, out.split())
    assert f"{row} {col}" in all_moves
    # As O: the opponent played the centre; the answer must be in the centre board.
    centre = [f"{r} {c}" for r in (3, 4, 5) for c in (3, 4, 5) if (r, c) != (4, 4)]
    out = _run("codingame", "4 4\n8\n" + "\n".join(centre) + "\n")
    assert out.strip() in centre


# --- external bots, refereed --------------------------------------------------------------

FAST = "bank=1000,inc=200"


@pytest.mark.parametrize("protocol", ["aigames", "riddles", "codingame"])
def test_good_bots_finish_games(protocol: str) -> None:
    opening = None if protocol == "codingame" else "53271"
    for colour in (0, 1):
        seats = [bot(protocol, tc=FAST), Seat.builtin("random:seed=4")]
        x, o = seats if colour == 0 else seats[::-1]
        rules = "codingame" if protocol == "codingame" else "standard"
        result = play_game(x, o, rules=rules, opening=opening, first_move_ms=3000, slack_ms=100)
        assert str(result.termination) in ("line", "no-moves", "board-count"), result.reason
        assert len(result.times_ms) == len(result.moves) - (4 if opening else 0)


def test_riddles_bot_meets_codingame_bot() -> None:
    result = play_game(bot("riddles", tc=FAST), bot("codingame"), rules="standard",
                       first_move_ms=3000, slack_ms=100)
    assert str(result.termination) in ("line", "no-moves"), result.reason


def _alive(pid: int, wait_s: float = 3.0) -> bool:
    """Whether `pid` still runs (not a zombie) after up to `wait_s`: SIGKILL is
    delivered at once, but a process on a busy machine takes a moment to die."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            with open(f"/proc/{pid}/stat") as f:
                running = f.read().split(")")[-1].split()[0] != "Z"
        except FileNotFoundError:
            running = False
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.02)


# (protocol, mode, termination, words in the reason); the bot plays X against random.
MISBEHAVIOUR = [
    ("aigames", "crash", "bot-failure", "exited with status 3"),
    ("aigames", "crash-late", "bot-failure", "crashed"),
    ("aigames", "garbage", "bot-failure", "second failure"),
    ("aigames", "illegal", "illegal-move", "out of range"),
    ("aigames", "occupied", "illegal-move", "illegal move"),
    ("aigames", "hang", "time-forfeit", "time-out"),
    ("aigames", "flood", "bot-failure", "unreadable"),
    ("aigames", "skip-alternate", "time-forfeit", "shut off after 3 time-outs"),
    ("riddles", "extra", "bot-failure", "3 tokens"),
    ("riddles", "decimal", "bot-failure", "not an integer"),
    ("riddles", "illegal", "illegal-move", "place_disc 6 1756"),
    ("riddles", "slow-once", "time-forfeit", "time-out"),
    ("riddles", "longline", "time-forfeit", "time-out"),
    ("riddles", "silent-exit", "bot-failure", "status 0"),
    ("codingame", "illegal", "illegal-move", "out of range"),
    ("codingame", "occupied", "illegal-move", "illegal move"),
    ("codingame", "garbage", "bot-failure", "unreadable"),
    ("codingame", "hang", "time-forfeit", "time-out"),
]


@pytest.mark.parametrize(("protocol", "mode", "termination", "words"), MISBEHAVIOUR)
def test_misbehaving_bot_loses_by_the_protocol_rule(protocol, mode, termination, words,
                                                    tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PIDFILE", str(tmp_path / "pids"))
    monkeypatch.setenv("BOT_SLOW_S", "0.8")
    tc = "turn=300,first=300" if protocol == "codingame" else "bank=300,inc=200"
    result = play_game(bot(protocol, mode, tc=tc), Seat.builtin("random:seed=1"),
                       first_move_ms=1500, slack_ms=100, log_dir=tmp_path)
    assert (result.winner, str(result.termination)) == (Mark.O, termination), result.reason
    assert words in result.reason
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    assert not any(_alive(p) for p in pids)


def test_aigames_one_missed_answer_is_retried_not_lost(tmp_path) -> None:
    result = play_game(bot("aigames", "skip-once", tc="bank=300,inc=200"),
                       Seat.builtin("random:seed=1"), first_move_ms=1500, slack_ms=100,
                       log_dir=tmp_path)
    assert str(result.termination) in ("line", "no-moves"), result.reason
    log = next(tmp_path.rglob("*.log")).read_text()
    assert "asking once more" in log


@pytest.mark.parametrize("protocol", ["aigames", "codingame"])
def test_spinning_bot_and_its_children_are_killed(protocol, tmp_path, monkeypatch) -> None:
    for mode in ("spin", "children"):
        pidfile = tmp_path / f"{mode}.pids"
        monkeypatch.setenv("PIDFILE", str(pidfile))
        result = play_game(bot(protocol, mode, tc=FAST), Seat.builtin("random:seed=2"),
                           first_move_ms=3000, slack_ms=100)
        assert str(result.termination) in ("line", "no-moves", "board-count"), result.reason
        pids = [int(p) for p in pidfile.read_text().split()]
        assert len(pids) == (1 if mode == "spin" else 3)
        assert not any(_alive(p) for p in pids), pids


def test_stderr_goes_to_a_capped_log(tmp_path) -> None:
    result = play_game(bot("riddles", "stderr-spam", tc=FAST), Seat.builtin("random"),
                       first_move_ms=3000, slack_ms=100, log_dir=tmp_path)
    assert str(result.termination) in ("line", "no-moves"), result.reason
    logs = list(tmp_path.rglob("*.log"))
    assert logs and logs[0].read_text().startswith("debug debug")


def test_bot_that_cannot_start() -> None:
    seat = Seat.external("/nonexistent/bot --flag", "riddles", name="ghost")
    result = play_game(seat, Seat.builtin("random"))
    assert result.winner is Mark.O and str(result.termination) == "bot-failure"
    assert "cannot start" in result.reason


@pytest.mark.parametrize("protocol", ["aigames", "riddles", "codingame"])
def test_ninefold_bot_plays_whole_games_via_the_cli(protocol) -> None:
    """`ninefold bot` as a subprocess, refereed by the arena with the platform's own
    time control, against a test bot of the same protocol. With a second's slack: a
    loaded machine stalls a process longer than CodinGame's 100 ms turn, and how the bot
    keeps the clock is measured by benchmarks/bot_clock.py, not here."""
    me = Seat.external(f"{PY} -m ninefold.cli bot --protocol {protocol} --player random",
                       protocol, name="ninefold")
    opponent = bot(protocol)
    rules = "codingame" if protocol == "codingame" else "standard"
    env_ok = os.environ.get("NINEFOLD_SLOW_MACHINE") is None
    result = play_game(me, opponent, rules=rules, first_move_ms=10000 if env_ok else 30000,
                       slack_ms=1000)
    assert str(result.termination) in ("line", "no-moves", "board-count"), result.reason


# --- the input test (check-bot) -----------------------------------------------------------


@pytest.mark.parametrize("protocol", ["riddles", "aigames", "codingame"])
def test_check_bot_stops_at_the_first_time_out(protocol) -> None:
    """A silent bot is not waited for four times: the later checks are not run."""
    tc = "turn=300,first=300" if protocol == "codingame" else "bank=300,inc=100"
    checks = check_bot(bot(protocol, "hang", tc=tc), first_move_ms=200, slack_ms=50)
    assert [c.situation for c in checks] == list(SITUATIONS)
    assert checks[0].ok is False and "time-out" in checks[0].detail
    assert all(c.ok is None and c.detail.startswith("not run") for c in checks[1:]), checks
    assert verdict(checks).startswith("input test FAILED: 1 of 4 checks failed, 3 skipped")
    assert all(str(c).startswith("skipped") for c in checks[1:])


def test_a_skipped_check_is_not_a_pass() -> None:
    good = [Check(s, True, "legal") for s in SITUATIONS]
    assert passed(good) and verdict(good) == "input test passed"
    one_skipped = [*good[:3], Check(SITUATIONS[3], None, "did not come up")]
    assert not passed(one_skipped)
    assert verdict(one_skipped) == "input test not passed: 1 of 4 checks skipped"
    assert not passed(good[:3])  # a check missing altogether is not a pass either
    assert not passed([])


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "ninefold.cli", *args], capture_output=True, text=True,
                          timeout=120)


def test_check_bot_messages_name_its_own_flags() -> None:
    command = f"{PY} {BOTS / 'riddles_bot.py'}"
    wrong = _cli("check-bot", command, "--protocol", "smoke-signals")
    assert wrong.returncode == 2
    message = " ".join(wrong.stderr.split())
    assert "unknown protocol 'smoke-signals'" in message and "--protocol" in message
    assert "--protocol1" not in message and "--bot1" not in message
    assert "Traceback" not in wrong.stderr


@pytest.mark.parametrize(("flag", "value", "words"), [
    ("--slack-ms", "-100", "slack"), ("--first-move-ms", "-5000", "first-move"),
    ("--tc", "bank=100000000000", "at most"), ("--tc", "slack=-1", "at least 0"),
])
def test_check_bot_refuses_bad_times_before_starting_the_bot(tmp_path, flag, value,
                                                             words) -> None:
    pids = tmp_path / "pids"
    env = dict(os.environ, PIDFILE=str(pids))
    result = subprocess.run([PY, "-m", "ninefold.cli", "check-bot", f"{PY} "
                             f"{BOTS / 'riddles_bot.py'}", "--protocol", "riddles", flag, value],
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 2, result.stdout
    assert words in " ".join(result.stderr.split()) and "Traceback" not in result.stderr
    assert not pids.exists()  # no bot was started


def test_the_time_spent_is_taken_off_once_where_the_search_runs() -> None:
    """`play_since`: an in-process player gets the clock less the time since the request
    came; a `Relay` gets the clock whole and the time it came, for its own process."""
    from ninefold.players.player import Limit, Player, PlayResult
    from ninefold.protocols.search_process import Relay, play_since

    seen: list[tuple[Limit, float | None]] = []

    class Recorder(Player):
        def _choose(self, board: Board, limit: Limit) -> PlayResult:
            seen.append((limit, None))
            return PlayResult(next(iter(board.legal_moves)))

    class Forward(Relay):
        def play_since(self, board: Board, limit: Limit, since: float) -> PlayResult:
            seen.append((limit, since))
            return PlayResult(next(iter(board.legal_moves)))

    since = time.monotonic() - 0.05  # the request came 50 ms ago
    play_since(Recorder(), Board(), Limit(move_ms=100), since)
    play_since(Forward(), Board(), Limit(move_ms=100), since)
    (mine, _), (handed, told) = seen
    assert mine.move_ms is not None and mine.move_ms <= 50.0
    assert handed == Limit(move_ms=100) and told == since


def test_the_platforms_time_controls_are_written_once() -> None:
    from ninefold.protocols.clock import PLATFORMS, PROTOCOLS

    assert PROTOCOLS == ("aigames", "riddles", "codingame") == tuple(PLATFORMS)
    assert CodinGameRunner(make_player("random")).turn_ms == 100.0
    assert AIGamesRunner(make_player("random")).settings == {"timebank": "10000",
                                                             "time_per_move": "500"}
