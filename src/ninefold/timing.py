"""Time budgets: how long to think about one move, every number named and in one place.

Three users (the numbers were chosen by measurement, docs/research/search-choices.md):

- the players: one function, `move_budget`, turns a move's clock into its
  time (`MoveBudget`), for the MCTS player (`ninefold.players.mcts`), the
  alpha-beta player (`ninefold.players.alphabeta`) and the bot's engine
  waiting for its search to load (`ninefold.protocols.engine`). On a time bank
  it plans with `bank_plan`, which knows the bank's maximum and the increment:
  spend what would overflow at the cap, keep a reserve for the end; MCTS
  thinks longer when the choice is unclear (`extension_ms`) and stops early
  when it is decided (never before `MoveBudget.least_ms`). MCTS stops a
  safety before its time, less a margin for recent stalls (time the process
  was off the CPU, `stall_margin_ms`);
- ninefold as a bot (`ninefold.protocols.runner`): with a fixed time per
  turn (CodinGame) it thinks until the turn less a safety that adapts to the
  overshoot and the stalls this process has measured (`turn_safety_ms`); with a time bank
  (AI Games, Riddles) it lets the player plan and keeps only a hard limit
  (`runner_bank_hard_ms`), after which a legal move is sent anyway; on a
  bank its search gets a tree for the longest moves (`BANK_TREE_NODES`,
  `ninefold.protocols.botmain`).

Everything here is a number or a pure function of numbers (milliseconds, but
for the tree's nodes and memory).

>>> search_ms(100.0, MCTS_SAFETY_MS)
96.0
>>> search_ms(4.0, MCTS_SAFETY_MS)   # never less than half the time
2.0
>>> [round(ms) for ms in runner_turn_plan(100.0, [])]   # CodinGame, nothing measured yet
[94, 97]

This module imports nothing of ninefold: every floor may use it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

# --- a player's per-move deadline ---------------------------------------------------------

MCTS_SAFETY_MS = 4.0  # MCTS stops this long before a per-move deadline (Python after the search)
ALPHABETA_SAFETY_MS = 3.0  # alpha-beta's share of the same
LEAST_SHARE = 0.5  # a search never stops before this share of its time
LEAST_EXTENDED_MS = 0.5  # an extended search (MCTS, unclear choice) runs at least this long
DEFAULT_PLAYER_MS = 1000.0  # a player with no limit at all thinks this long

# --- planning a time bank (MCTS, alpha-beta) ---------------------------------------------

BANK_RESERVE_MS = 60.0  # never plan to use the last part of a time bank ...
BANK_RESERVE_SHARE = 0.1  # ... nor this share of its maximum: a reserve for the end
EMPTY_COUNTED = 60  # empty squares counted at most when guessing the moves left
MOVES_PER_EMPTY = 0.5 * 0.6  # our moves still to play per empty square: half are ours,
# and games end with about 40 % of the counted squares still empty
LEAST_MOVES_LEFT = 4.0  # plan as if at least this many of our moves were to come
BANK_HORIZON_MOVES = 5.0  # spend the bank above the reserve over at most this many moves
# (8 kept a median of 5.3 s of a 10 s bank from the 10th move on through the bot, and
# games ended with 4.3-4.6 s unused: the last moves are proven and take no time; 5
# spends that in the first moves instead, leaving 3.8 s, measured: docs/research/search-choices.md)
PLAN_INCREMENT_SHARE = 0.9  # a move plans this share of the increment plus its share of
# the rest ...
MOST_BANK_SHARE = 0.5  # ... but never more than this share of the usable bank
LEAST_THINK_SHARE = 0.75  # a clear choice stops early, but not before this share of the plan
EXTEND_FACTOR = 2.5  # an unclear choice may think this many times the planned time
FLAT_MOVES = 20.0  # ``tm=flat``: the increment plus a twentieth of the rest

# --- MCTS: stalls --------------------------------------------------------------------------

STALL_DECAY = 0.7  # per move: how fast the memory of a stall fades
STALL_SHARE = 0.25  # never give more than this share of a move's time to stalls

# --- ninefold as a bot ---------------------------------------------------------------------

RUNNER_SAFETY_MS = 30.0  # a bank: kept back for reading, writing and the pipe
RUNNER_HARD_SHARE = 0.6  # a bank: the hard limit is at most this share of it
# A fixed time per turn: think until the turn less a safety measured as this
# process plays. A turn's overshoot is the time from the request's first line
# to the answer written, less the time it planned to think; the safety is a
# high quantile of the recent overshoots plus what the bot cannot see (the
# referee's write, the pipe back), within a floor and a cap.
TURN_SAFETY_PRIOR_MS = 4.0  # the overshoot assumed before any is measured ...
TURN_SAFETY_PRIOR_WEIGHT = 16  # ... as if seen this many times (it fades as turns are seen)
TURN_SAFETY_WINDOW = 64  # the overshoots of this many recent turns count
TURN_SAFETY_QUANTILE = 0.95  # the safety covers this share of them
TURN_UNSEEN_MS = 2.0  # added: the referee's write and the pipe back, which the bot cannot time
TURN_WAKE_FACTOR = 2.0  # ... and each of them waits for a wake-up like the ones measured
TURN_SAFETY_FLOOR_MS = 4.0  # never aim closer to the end of a turn than this
TURN_SAFETY_CAP_SHARE = 0.5  # nor keep back more than this share of the turn
# A busy machine keeps the bot's process off the CPU for tens of ms now and then, and
# a stall that hits the end of a turn makes the answer late: a thread of the bot sleeps
# `STALL_PROBE_MS` over and over and notes how late it wakes; the safety covers the
# longest stall of the last `STALL_WINDOW_S` of at least `STALL_COUNTED_MS` (shorter
# ones, a few ms on a quiet machine while the search keeps both cores busy, are what
# the overshoots measure already)
STALL_PROBE_MS = 5.0
STALL_WINDOW_S = 10.0
STALL_COUNTED_MS = 10.0
TURN_HARD_MARGIN_MS = 3.0  # a legal move is sent anyway this long before the turn ends

class Plan(NamedTuple):
    """How long to think about one move (`think_ms`) and the most it may take (`hard_ms`)."""

    think_ms: float
    hard_ms: float


def search_ms(ms: float, safety_ms: float) -> float:
    """The time to search for a per-move limit of `ms`, keeping `safety_ms` back
    (but never less than `LEAST_SHARE` of `ms`).

    >>> search_ms(1000.0, ALPHABETA_SAFETY_MS)
    997.0
    """
    return max(ms - safety_ms, LEAST_SHARE * ms)


def extended_ms(ms: float, safety_ms: float) -> float:
    """The same for an extended search: `safety_ms` back, at least `LEAST_EXTENDED_MS`."""
    return max(ms - safety_ms, LEAST_EXTENDED_MS)


def share_ms(increment_ms: float, rest_ms: float, moves: float,
             increment_share: float = 1.0) -> float:
    """A share of the increment plus an even share of the rest of a bank over `moves` moves.

    >>> share_ms(500.0, 9500.0, 19.0, 0.9)
    950.0
    """
    return increment_share * increment_ms + max(rest_ms, 0.0) / moves


def moves_left(empty: int) -> float:
    """Roughly how many moves the side to move still plays, with `empty` empty squares.

    >>> moves_left(81), moves_left(5)
    (18.0, 4.0)
    """
    return max(LEAST_MOVES_LEFT, MOVES_PER_EMPTY * min(empty, EMPTY_COUNTED))


class BankPlan(NamedTuple):
    """A move's plan from a time bank, in ms: think at least `least_ms` (less would let
    the bank overflow at its cap, or keep back what the plan means to spend), about
    `think_ms`, at most `most_ms`."""

    least_ms: float
    think_ms: float
    most_ms: float


def bank_reserve_ms(bank_ms: float, max_bank_ms: float | None) -> float:
    """The part of a bank no move plans to use: kept for the end of the game.

    >>> bank_reserve_ms(10000.0, 10000.0), bank_reserve_ms(300.0, None)
    (1060.0, 90.0)
    """
    top = bank_ms if max_bank_ms is None else max_bank_ms
    return BANK_RESERVE_MS + BANK_RESERVE_SHARE * top


def overflow_ms(bank_ms: float, increment_ms: float, max_bank_ms: float | None) -> float:
    """How long this move must think for the next increment not to overflow the cap
    (the referee's bank after a move: ``min(bank - used + increment, max)``).

    >>> overflow_ms(10000.0, 500.0, 10000.0), overflow_ms(6000.0, 500.0, 10000.0)
    (500.0, 0.0)
    """
    if max_bank_ms is None:
        return 0.0
    return max(0.0, bank_ms + increment_ms - max_bank_ms)


def bank_plan(bank_ms: float, increment_ms: float, max_bank_ms: float | None,
              empty: int, flat: bool = False) -> BankPlan:
    """A move's plan from a time bank holding `bank_ms` (this move's increment
    included) that refills by `increment_ms` up to `max_bank_ms` (None: no cap).

    Plan a share of the increment plus an even share of the bank above the
    reserve over the moves still to come (at most `BANK_HORIZON_MOVES`, so the
    bank is spent in the middle game, where thinking pays, rather than kept
    to overflow at the cap), and at least what would overflow; never past
    `MOST_BANK_SHARE` of the bank above the reserve. A clear choice may stop
    early, but not before `least_ms`: what would overflow, and at least
    `LEAST_THINK_SHARE` of the plan. `flat` plans the increment plus a fixed
    fraction of the rest (and may stop whenever the choice is clear).

    >>> bank_plan(10000.0, 500.0, 10000.0, 81)
    BankPlan(least_ms=1603.5, think_ms=2138.0, most_ms=4470.0)
    >>> [round(ms) for ms in bank_plan(2000.0, 500.0, 10000.0, 20)]   # low: about the increment
    [404, 538, 538]
    """
    cap = max(bank_ms - BANK_RESERVE_MS, 1.0)  # never plan past the bank's last part
    usable = max(bank_ms - bank_reserve_ms(bank_ms, max_bank_ms), 0.0)
    if flat:
        planned = share_ms(increment_ms, bank_ms - increment_ms, FLAT_MOVES)
    else:
        moves = min(moves_left(empty), BANK_HORIZON_MOVES)
        planned = share_ms(increment_ms, usable - increment_ms, moves, PLAN_INCREMENT_SHARE)
    overflow = 0.0 if flat else min(overflow_ms(bank_ms, increment_ms, max_bank_ms), cap)
    think = max(1.0, min(max(planned, overflow), cap))
    least = 0.0 if flat else max(overflow, LEAST_THINK_SHARE * think)
    most = min(max(MOST_BANK_SHARE * usable, think), cap)
    return BankPlan(least, think, most)


def extension_ms(plan: BankPlan) -> float:
    """How long MCTS may think in all when the choice is unclear."""
    return max(plan.think_ms, min(plan.most_ms, EXTEND_FACTOR * plan.think_ms))


def stall_margin_ms(stall_ms: float, budget_ms: float) -> float:
    """The time kept back for a recent stall of `stall_ms`, at most `STALL_SHARE` of the budget.

    >>> stall_margin_ms(30.0, 100.0), stall_margin_ms(3.0, 100.0)
    (25.0, 3.0)
    """
    return min(stall_ms, STALL_SHARE * budget_ms)


class MoveBudget(NamedTuple):
    """A player's time for one move, in ms from when its search starts: about
    `think_ms` (None: no time limit, a count of work ends the search); never less
    than `least_ms` (a time bank: less would let it overflow); on to `extend_ms`
    when the choice is unclear (None: never)."""

    think_ms: float | None
    least_ms: float = 0.0
    extend_ms: float | None = None


def move_budget(*, own_ms: float | None = None, move_ms: float | None = None,
                bank_ms: float | None = None, increment_ms: float = 0.0,
                max_bank_ms: float | None = None, empty: int = 81, counted: bool = False,
                flat: bool = False, extend: bool = False) -> MoveBudget:
    """The one budget of a move, for every player and the bot's engine: the least of
    the player's own time (`own_ms`), the move's (`move_ms`) and, on a time bank
    (`bank_ms`, refilled by `increment_ms` up to `max_bank_ms`, `empty` squares on
    the board), `bank_plan`'s (`flat`: ``tm=flat``); `DEFAULT_PLAYER_MS` when none is
    set and the player counts no work (`counted`: ``sims=``, ``depth=``). On a bank
    it may stop early, not before the plan's least (within the time), and, with
    `extend`, think on to `extension_ms` (never past `own_ms`).

    >>> move_budget(move_ms=100.0)
    MoveBudget(think_ms=100.0, least_ms=0.0, extend_ms=None)
    >>> move_budget(bank_ms=10000.0, increment_ms=500.0, max_bank_ms=10000.0, extend=True)
    MoveBudget(think_ms=2138.0, least_ms=1603.5, extend_ms=4470.0)
    >>> move_budget().think_ms, move_budget(counted=True).think_ms   # the default; sims= only
    (1000.0, None)
    """
    options = [ms for ms in (own_ms, move_ms) if ms is not None]
    plan = None
    if bank_ms is not None:
        plan = bank_plan(bank_ms, increment_ms, max_bank_ms, empty, flat)
        options.append(plan.think_ms)
    if not options:
        return MoveBudget(None if counted else DEFAULT_PLAYER_MS)
    think = min(options)
    if plan is None:
        return MoveBudget(think)
    most = None
    if extend:
        most = extension_ms(plan) if own_ms is None else min(extension_ms(plan), own_ms)
    return MoveBudget(think, min(plan.least_ms, think), most)


def runner_bank_hard_ms(bank_ms: float, increment_ms: float,
                        safety_ms: float = RUNNER_SAFETY_MS) -> float:
    """ninefold as a bot with `bank_ms` left: the hard limit, after which a legal move
    is sent whatever the player is doing. The player plans its own time well inside:
    at most half the bank above the reserve, or about the increment when the bank is
    low, so the limit is `RUNNER_HARD_SHARE` of the bank or the increment, whichever
    is more, but never past the bank less twice the safety.

    >>> runner_bank_hard_ms(10000.0, 500.0), runner_bank_hard_ms(500.0, 500.0)
    (6000.0, 440.0)
    """
    room = max(bank_ms * RUNNER_HARD_SHARE, increment_ms + safety_ms)
    return max(1.0, min(room, bank_ms - 2 * safety_ms))


def quantile(values: Sequence[float], q: float) -> float:
    """The `q` quantile of `values` (nearest rank, the higher one).

    >>> quantile([5.0, 1.0, 3.0, 2.0, 4.0], 0.95), quantile([2.0], 0.5)
    (5.0, 2.0)
    """
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def turn_safety_ms(turn_ms: float, overshoots: Sequence[float],
                   wakes: Sequence[float] = (), stall_ms: float = 0.0) -> float:
    """What to keep back of a `turn_ms` turn, given this process's recent overshoots
    (ms past its planned thinking time, from the request's first line to the answer
    written; the newest last).

    A high quantile of the overshoots (`TURN_SAFETY_PRIOR_MS` stands in for turns not
    yet seen; none below 0: a player that stops early keeps that time for its own
    stalls) plus `TURN_UNSEEN_MS` and `TURN_WAKE_FACTOR` times the same quantile of
    `wakes` (ms a thread of this process took to wake up when it could run: the
    scheduler's latency, which the write of the request and the read of the answer
    suffer too, unseen), or the longest recent stall of the process (`stall_ms`) plus
    `TURN_UNSEEN_MS` if that is more, between `TURN_SAFETY_FLOOR_MS` and
    `TURN_SAFETY_CAP_SHARE` of the turn.

    >>> turn_safety_ms(100.0, [])          # the prior
    6.0
    >>> turn_safety_ms(100.0, [-10.0] * 64)  # the player stops early: the floor
    4.0
    >>> turn_safety_ms(100.0, [15.0] * 64)   # a loaded machine: more
    17.0
    >>> turn_safety_ms(100.0, [-10.0] * 64, stall_ms=25.0)  # a busy machine's stall
    27.0
    >>> turn_safety_ms(100.0, [90.0] * 64)   # never more than the cap
    50.0
    """
    seen = list(overshoots)[-TURN_SAFETY_WINDOW:]
    prior = [TURN_SAFETY_PRIOR_MS] * max(0, TURN_SAFETY_PRIOR_WEIGHT - len(seen))
    high = max(quantile(seen + prior, TURN_SAFETY_QUANTILE), 0.0)
    recent = list(wakes)[-TURN_SAFETY_WINDOW:]
    wake = quantile(recent, TURN_SAFETY_QUANTILE) if recent else 0.0
    cap = max(TURN_SAFETY_CAP_SHARE * turn_ms, TURN_SAFETY_FLOOR_MS)
    seen_ms = max(high + TURN_WAKE_FACTOR * wake, stall_ms)
    return min(max(seen_ms + TURN_UNSEEN_MS, TURN_SAFETY_FLOOR_MS), cap)


def runner_turn_plan(turn_ms: float, overshoots: Sequence[float],
                     wakes: Sequence[float] = (), stall_ms: float = 0.0) -> Plan:
    """ninefold as a bot with a fixed `turn_ms` for this turn (CodinGame): think until
    the turn less `turn_safety_ms` (of the overshoots, wake-ups and stall measured),
    answer anyway by the turn less `TURN_HARD_MARGIN_MS` (both counted from the
    request's first line).

    >>> runner_turn_plan(1000.0, [])
    Plan(think_ms=994.0, hard_ms=997.0)
    """
    think = max(1.0, turn_ms - turn_safety_ms(turn_ms, overshoots, wakes, stall_ms))
    return Plan(think, max(think, turn_ms - TURN_HARD_MARGIN_MS))


# --- a bot on a time bank: the search's tree there (`ninefold.protocols.botmain`) -------------

BANK_TREE_NODES = 8_000_000  # room for the longest moves (two buffers: 384 MB): at Riddles'
# clock the default 2 M held 1.2-1.9 M nodes after most moves and was full after some
# (docs/research/search-choices.md, "The tree at this clock")
BANK_TREE_LEAST_MEMORY_MB = 1536  # ... where the process may use this much memory (its
# search process peaked at 848 MB of address space with it, measured); else the default


# --- a bot whose search is still loading (`ninefold.protocols.engine`) -----------------------

LOADING_MARGIN_MS = 30.0  # a request that waits for the search to load stops waiting this
# long before its think time, for the fallback to answer: the search's process loads on
# the same CPUs, and answers at the end of the think time came up to 15 ms late beside
# two busy processes (measured, with no margin)
BOOK_WAIT_SHARE = 0.9  # on a clock per turn, a position the book knows waits at most this
# share of the think time for the search to load (and for less, the margin above): its
# move is known, so a late answer from the fallback gains nothing and risks the limit; at
# CodinGame's first turn the search is then ready for the next turns (docs/research/bot-timing.md),
# and searches on after the book's move until the margin (`SEARCH_ON_LEAST_MS`)
SEARCH_ON_LEAST_MS = 20.0  # a search ready during a turn the book answers searches on
# after the book's move for the rest of the turn (the next turns keep its tree), unless
# less than this is left: then the book's move goes at once
SPEC_VERDICT_WAIT_S = 5.0  # a bot whose input ends while the search process is still
# checking the player's options waits this long for the verdict (0.5-1.2 s measured; not
# while it compiles): a bad spec then still ends it with one line and status 2
