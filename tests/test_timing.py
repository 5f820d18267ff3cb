"""The time budgets of `ninefold.timing`: pure functions of milliseconds (no clock is read)."""

from __future__ import annotations

import itertools

import pytest

from ninefold import timing
from ninefold.timing import (
    Plan,
    alphabeta_bank_ms,
    extension_ms,
    mcts_bank_plan,
    moves_left,
    runner_bank_plan,
    runner_turn_plan,
    search_ms,
    stall_margin_ms,
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


def test_mcts_bank_plan_numbers() -> None:
    plan = mcts_bank_plan(10000.0, 500.0, 81)
    assert plan.think_ms == pytest.approx(450.0 + 9500.0 / 18.0)
    assert plan.hard_ms == pytest.approx(0.5 * 9940.0)
    late = mcts_bank_plan(10000.0, 500.0, 5)  # few moves left: a larger share ...
    assert late.think_ms == pytest.approx(450.0 + 9500.0 / 4.0)
    assert mcts_bank_plan(10000.0, 5000.0, 5).think_ms == pytest.approx(0.4 * 9940.0)  # capped
    flat = mcts_bank_plan(10000.0, 500.0, 81, flat=True)
    assert flat.think_ms == pytest.approx(500.0 + 9500.0 / 20.0)
    assert extension_ms(plan) == pytest.approx(2.5 * plan.think_ms)
    assert extension_ms(late) == late.hard_ms


@pytest.mark.parametrize("bank", BANKS)
@pytest.mark.parametrize("empty", [81, 40, 3])
def test_mcts_bank_plan_stays_within_the_bank(bank: float, empty: int) -> None:
    usable = max(1.0, bank - timing.BANK_RESERVE_MS)
    plan = mcts_bank_plan(bank, min(500.0, bank), empty)
    assert 1.0 <= plan.think_ms <= plan.hard_ms <= usable
    flat = mcts_bank_plan(bank, min(500.0, bank), empty, flat=True)
    assert 1.0 <= flat.think_ms <= usable


def test_mcts_bank_plan_grows_with_the_bank() -> None:
    plans = [mcts_bank_plan(bank, 200.0, 60) for bank in BANKS if bank >= 200]
    assert all(a.think_ms <= b.think_ms and a.hard_ms <= b.hard_ms
               for a, b in itertools.pairwise(plans))


def test_stall_margin_is_capped_by_a_share_of_the_budget() -> None:
    assert stall_margin_ms(3.0, 100.0) == 3.0
    assert stall_margin_ms(300.0, 100.0) == timing.STALL_SHARE * 100.0


@pytest.mark.parametrize("bank", BANKS)
def test_alphabeta_bank_time(bank: float) -> None:
    ms = alphabeta_bank_ms(bank, 500.0)
    assert ms == max(1.0, min(0.9 * 500.0 + bank / 25.0, bank / 4.0))
    assert 1.0 <= ms <= max(1.0, bank / 4.0)


def test_runner_bank_plan_numbers() -> None:
    assert runner_bank_plan(10000.0, 500.0) == Plan(1150.0, 6000.0)
    assert runner_bank_plan(1000.0, 500.0) == Plan(max(1.0, 0.7 * 600.0 - 30.0), 600.0)


@pytest.mark.parametrize("bank", BANKS)
def test_runner_never_plans_past_its_bank(bank: float) -> None:
    think, hard = runner_bank_plan(bank, 500.0)
    assert 1.0 <= think <= hard
    if bank > 2 * timing.RUNNER_SAFETY_MS:
        assert hard < bank


def test_runner_turn_plan_for_codingame() -> None:
    first, later = runner_turn_plan(1000.0), runner_turn_plan(100.0)
    assert first.think_ms == pytest.approx(535.0) and first.hard_ms == pytest.approx(795.0)
    assert later.think_ms == pytest.approx(40.0) and later.hard_ms == pytest.approx(75.0)
    assert runner_turn_plan(1.0) == Plan(1.0, 1.0)


def test_the_players_use_these_numbers() -> None:
    from ninefold.players import mcts
    from ninefold.protocols.runner import BotRunner

    assert mcts.SAFETY_MS == timing.MCTS_SAFETY_MS
    assert mcts.STALL_SHARE == timing.STALL_SHARE and mcts.STALL_DECAY == timing.STALL_DECAY
    assert BotRunner.safety_ms == timing.RUNNER_SAFETY_MS
