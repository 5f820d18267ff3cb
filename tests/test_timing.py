"""The time budgets of `ninefold.timing`: pure functions of milliseconds (no clock is read)."""

from __future__ import annotations

import itertools
import statistics

import pytest

from ninefold import timing
from ninefold.timing import (
    MoveBudget,
    Plan,
    bank_plan,
    bank_reserve_ms,
    extension_ms,
    move_budget,
    moves_left,
    overflow_ms,
    quantile,
    runner_bank_hard_ms,
    runner_turn_plan,
    search_ms,
    stall_margin_ms,
    turn_safety_ms,
)

BANKS = [1.0, 10.0, 50.0, 60.0, 61.0, 100.0, 500.0, 1000.0, 5000.0, 10000.0, 60000.0]


def test_search_keeps_the_safety_back_but_never_more_than_half() -> None:
    assert search_ms(100.0, 4.0) == 96.0
    assert search_ms(1000.0, timing.ALPHABETA_SAFETY_MS) == 997.0
    assert search_ms(6.0, 4.0) == 3.0  # half of 6, not 2
    assert search_ms(0.5, 4.0) == 0.25
    assert timing.extended_ms(2.0, 4.0) == timing.LEAST_EXTENDED_MS


def test_moves_left_counts_our_share_of_the_empty_squares() -> None:
    assert moves_left(81) == moves_left(60) == pytest.approx(18.0)
    assert moves_left(40) == pytest.approx(12.0)
    assert moves_left(0) == moves_left(10) == timing.LEAST_MOVES_LEFT


def test_bank_plan_numbers() -> None:
    plan = bank_plan(10000.0, 500.0, 10000.0, 81)
    reserve = 60.0 + 0.1 * 10000.0
    usable = 10000.0 - reserve
    assert bank_reserve_ms(10000.0, 10000.0) == reserve
    assert plan.think_ms == pytest.approx(450.0 + (usable - 500.0) / timing.BANK_HORIZON_MOVES)
    assert plan.most_ms == pytest.approx(0.5 * usable)
    assert plan.least_ms == timing.LEAST_THINK_SHARE * plan.think_ms  # a clear choice
    assert bank_plan(10000.0, 4000.0, 10000.0, 81).least_ms == 4000.0  # else it overflows
    late = bank_plan(10000.0, 500.0, 10000.0, 5)  # few moves left: a larger share ...
    assert late.think_ms == pytest.approx(450.0 + (usable - 500.0) / timing.LEAST_MOVES_LEFT)
    assert late.think_ms > plan.think_ms and late.most_ms == plan.most_ms
    flat = bank_plan(10000.0, 500.0, 10000.0, 81, flat=True)
    assert flat.think_ms == pytest.approx(500.0 + 9500.0 / 20.0) and flat.least_ms == 0.0
    assert extension_ms(plan) == pytest.approx(min(2.5 * plan.think_ms, plan.most_ms))
    assert extension_ms(late) == late.most_ms


def test_overflow_is_what_the_cap_would_throw_away() -> None:
    assert overflow_ms(10000.0, 500.0, 10000.0) == 500.0
    assert overflow_ms(9800.0, 500.0, 10000.0) == 300.0
    assert overflow_ms(6000.0, 500.0, 10000.0) == 0.0
    assert overflow_ms(10000.0, 500.0, None) == 0.0  # no cap known
    # a plan that thinks clearly less than the increment at the cap would waste it
    for empty in (81, 40, 3):
        assert bank_plan(10000.0, 500.0, 10000.0, empty).least_ms >= 500.0
    low = bank_plan(10000.0, 4000.0, 10000.0, 81)
    assert low.least_ms == 4000.0 and low.think_ms >= 4000.0
    assert bank_plan(9000.0, 2000.0, 10000.0, 81).least_ms >= 1000.0


@pytest.mark.parametrize("bank", BANKS)
@pytest.mark.parametrize("empty", [81, 40, 3])
@pytest.mark.parametrize("increment", [0.0, 100.0, 500.0])
def test_bank_plan_stays_within_the_bank(bank: float, empty: int, increment: float) -> None:
    cap = max(1.0, bank - timing.BANK_RESERVE_MS)
    inc = min(increment, bank)
    for top in (None, bank, 2 * bank):
        plan = bank_plan(bank, inc, top, empty)
        assert 0.0 <= plan.least_ms <= plan.think_ms <= plan.most_ms <= cap
        assert plan.think_ms >= 1.0
        flat = bank_plan(bank, inc, top, empty, flat=True)
        assert 1.0 <= flat.think_ms <= cap


def test_bank_plan_grows_with_the_bank() -> None:
    plans = [bank_plan(bank, 200.0, 60000.0, 60) for bank in BANKS if bank >= 200]
    assert all(a.think_ms <= b.think_ms and a.most_ms <= b.most_ms
               for a, b in itertools.pairwise(plans))


def _bank_by_move(increment: float, top: float, moves: int) -> list[float]:
    """The bank told at each move of a game in which every move takes its plan
    (the referee's rule: ``min(max(bank - used, 0) + increment, top)``)."""
    bank, told = top, []
    for move in range(moves):
        told.append(bank)
        used = bank_plan(bank, increment, top, max(0, 81 - 2 * move - 1)).think_ms
        assert used < bank
        bank = min(max(bank - used, 0.0) + increment, top)
    return told


def test_a_game_on_plan_spends_the_bank_in_the_middle_and_keeps_a_reserve() -> None:
    """Riddles' 10 s + 500 ms: from the 10th move the bank is under half its maximum,
    yet never below the reserve, and the last moves still get the increment."""
    told = _bank_by_move(500.0, 10000.0, 35)
    assert statistics.median(told[9:]) < 5000.0
    assert min(told) > bank_reserve_ms(10000.0, 10000.0)
    # the old plan (a twelfth of the bank beyond two increments, +80 % of the increment)
    # kept more than 7 s at move 10
    assert told[9] < 7000.0


def test_stall_margin_is_capped_by_a_share_of_the_budget() -> None:
    assert stall_margin_ms(3.0, 100.0) == 3.0
    assert stall_margin_ms(300.0, 100.0) == timing.STALL_SHARE * 100.0


@pytest.mark.parametrize("bank", BANKS)
def test_a_bank_move_budget_is_the_plan(bank: float) -> None:
    plan = bank_plan(bank, min(500.0, bank), bank, 81)
    budget = move_budget(bank_ms=bank, increment_ms=min(500.0, bank), max_bank_ms=bank)
    assert budget == MoveBudget(plan.think_ms, min(plan.least_ms, plan.think_ms), None)
    assert 1.0 <= budget.think_ms <= max(1.0, bank - timing.BANK_RESERVE_MS)
    smart = move_budget(bank_ms=bank, increment_ms=min(500.0, bank), max_bank_ms=bank,
                        extend=True)
    assert smart.extend_ms == extension_ms(plan)
    flat = move_budget(bank_ms=bank, increment_ms=min(500.0, bank), max_bank_ms=bank,
                       flat=True)
    assert flat.think_ms == bank_plan(bank, min(500.0, bank), bank, 81, flat=True).think_ms


def test_a_move_budget_is_the_least_of_the_times_given() -> None:
    assert move_budget(own_ms=50.0, move_ms=100.0) == MoveBudget(50.0)
    assert move_budget(move_ms=100.0, counted=True) == MoveBudget(100.0)
    assert move_budget() == MoveBudget(timing.DEFAULT_PLAYER_MS)
    assert move_budget(counted=True) == MoveBudget(None)
    bank = {"bank_ms": 10000.0, "increment_ms": 500.0, "max_bank_ms": 10000.0}
    short = move_budget(own_ms=100.0, extend=True, **bank)
    assert short == MoveBudget(100.0, 100.0, 100.0)  # never past the player's own time
    assert move_budget(move_ms=50.0, **bank).think_ms == 50.0


@pytest.mark.parametrize("bank", BANKS)
@pytest.mark.parametrize("increment", [0.0, 100.0, 500.0])
def test_runner_hard_limit_leaves_the_player_its_plan(bank: float, increment: float) -> None:
    """The bot's hard limit is a net: above what the player plans from the bank the
    runner hands it (the bank less the runner's safety), inside the bank."""
    hard = runner_bank_hard_ms(bank, increment)
    handed = max(1.0, bank - timing.RUNNER_SAFETY_MS)
    for empty in (81, 40, 3):
        plan = bank_plan(handed, min(increment, handed), bank, empty)
        if bank > 4 * timing.RUNNER_SAFETY_MS:
            assert plan.most_ms < hard < bank
    assert hard >= 1.0


def test_quantile_is_the_nearest_rank_from_above() -> None:
    values = [float(v) for v in range(1, 101)]
    assert quantile(values, 0.95) == 95.0 and quantile(values, 1.0) == 100.0
    assert quantile(values, 0.0) == 1.0 and quantile([7.0], 0.95) == 7.0


def test_turn_safety_starts_from_the_prior_and_adapts() -> None:
    prior = timing.TURN_SAFETY_PRIOR_MS + timing.TURN_UNSEEN_MS
    assert turn_safety_ms(100.0, []) == prior
    quiet = [-3.0] * 64  # the player stops before its deadline: the floor
    assert turn_safety_ms(100.0, quiet) == timing.TURN_SAFETY_FLOOR_MS
    # a loaded machine: some answers 12 ms late; the safety grows to cover them
    loaded = [-3.0] * 54 + [12.0] * 10
    assert turn_safety_ms(100.0, loaded) == 12.0 + timing.TURN_UNSEEN_MS
    # a few late answers among the first turns count at once, the prior fades
    assert turn_safety_ms(100.0, [20.0]) == 20.0 + timing.TURN_UNSEEN_MS
    assert turn_safety_ms(100.0, [-3.0] * 20) == timing.TURN_SAFETY_FLOOR_MS
    # never more than the cap, and old turns are forgotten
    assert turn_safety_ms(100.0, [500.0] * 64) == timing.TURN_SAFETY_CAP_SHARE * 100.0
    assert turn_safety_ms(100.0, [50.0] * 10 + quiet) == timing.TURN_SAFETY_FLOOR_MS


def test_turn_safety_covers_the_wake_ups_it_cannot_see() -> None:
    """The referee's write and the pipe back wait for the scheduler like the thread
    wake-ups the bot measures: slow wake-ups mean a larger safety, even when the
    player itself stops early."""
    quiet = [-3.0] * 64
    assert turn_safety_ms(100.0, quiet, [0.1] * 64) == timing.TURN_SAFETY_FLOOR_MS
    slow = [0.1] * 54 + [6.0] * 10
    assert turn_safety_ms(100.0, quiet, slow) == pytest.approx(
        timing.TURN_UNSEEN_MS + timing.TURN_WAKE_FACTOR * 6.0)
    assert turn_safety_ms(100.0, [5.0] * 64, slow) == pytest.approx(
        5.0 + timing.TURN_UNSEEN_MS + timing.TURN_WAKE_FACTOR * 6.0)
    assert runner_turn_plan(100.0, quiet, slow).think_ms == pytest.approx(
        100.0 - timing.TURN_UNSEEN_MS - timing.TURN_WAKE_FACTOR * 6.0)


def test_turn_safety_covers_the_longest_recent_stall() -> None:
    """On a busy machine the bot's process is kept off the CPU for tens of ms now and
    then (its stall probe sees it); a stall that hits the end of a turn makes the
    answer late, whatever the overshoots so far: the safety covers the longest recent
    one, up to the cap. A quiet machine's short stalls change nothing."""
    quiet = [-3.0] * 64
    assert turn_safety_ms(100.0, quiet, stall_ms=1.0) == timing.TURN_SAFETY_FLOOR_MS
    assert turn_safety_ms(100.0, quiet, stall_ms=30.0) == 30.0 + timing.TURN_UNSEEN_MS
    assert turn_safety_ms(100.0, [40.0] * 64, stall_ms=30.0) == 40.0 + timing.TURN_UNSEEN_MS
    assert turn_safety_ms(100.0, quiet, stall_ms=90.0) == timing.TURN_SAFETY_CAP_SHARE * 100.0
    assert runner_turn_plan(100.0, quiet, stall_ms=30.0).think_ms == pytest.approx(
        100.0 - 30.0 - timing.TURN_UNSEEN_MS)


@pytest.mark.parametrize("turn", [1.0, 5.0, 20.0, 100.0, 1000.0])
@pytest.mark.parametrize("seen", [[], [-3.0] * 64, [15.0] * 64, [1e6]])
def test_runner_turn_plan_uses_the_turn_less_the_safety(turn: float, seen: list[float]) -> None:
    think, hard = runner_turn_plan(turn, seen)
    assert 1.0 <= think <= hard
    assert think == max(1.0, turn - turn_safety_ms(turn, seen))
    if turn >= 20.0:
        assert hard == turn - timing.TURN_HARD_MARGIN_MS and think < hard
        assert think >= (1 - timing.TURN_SAFETY_CAP_SHARE) * turn


def test_runner_turn_plan_for_codingame() -> None:
    first, later = runner_turn_plan(1000.0, []), runner_turn_plan(100.0, [-3.0] * 64)
    assert first.think_ms == pytest.approx(994.0) and first.hard_ms == pytest.approx(997.0)
    assert later.think_ms == pytest.approx(96.0) and later.hard_ms == pytest.approx(97.0)
    assert runner_turn_plan(1.0, []) == Plan(1.0, 1.0)


def test_the_players_use_these_numbers() -> None:
    from ninefold.players import mcts
    from ninefold.protocols.runner import BotRunner

    assert mcts.SAFETY_MS == timing.MCTS_SAFETY_MS
    assert mcts.STALL_DECAY == timing.STALL_DECAY
    assert BotRunner.safety_ms == timing.RUNNER_SAFETY_MS
