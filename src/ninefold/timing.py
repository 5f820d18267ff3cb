"""Time budgets: how long to think about one move, every number named and in one place.

Four users, each with its own policy for now (the numbers were chosen by
measurement, docs/players.md; a later issue unifies them):

- the MCTS player (`ninefold.players.mcts`): a per-move deadline less a
  safety, a plan for a time bank that depends on how many moves are left,
  and a margin for recent stalls (time the process was off the CPU);
- the alpha-beta player (`ninefold.players.alphabeta`): a per-move deadline
  less a safety, a simpler bank plan;
- ninefold as a bot (`ninefold.protocols.runner`): a think time and a hard
  limit, after which a legal move is sent anyway, for a time bank (AI Games,
  Riddles) and for a fixed time per turn (CodinGame).

Everything here is a pure function of numbers (milliseconds).

>>> search_ms(100.0, MCTS_SAFETY_MS)
96.0
>>> search_ms(4.0, MCTS_SAFETY_MS)   # never less than half the time
2.0
>>> [round(ms) for ms in runner_turn_plan(100.0)]   # CodinGame: think 40 ms, answer by 75
[40, 75]

This module imports nothing of ninefold: every floor may use it.
"""

from __future__ import annotations

from typing import NamedTuple

# --- a player's per-move deadline ---------------------------------------------------------

MCTS_SAFETY_MS = 4.0  # MCTS stops this long before a per-move deadline (Python after the search)
ALPHABETA_SAFETY_MS = 3.0  # alpha-beta's share of the same
LEAST_SHARE = 0.5  # a search never stops before this share of its time
LEAST_EXTENDED_MS = 0.5  # an extended search (MCTS, unclear choice) runs at least this long
DEFAULT_PLAYER_MS = 1000.0  # a player with no limit at all thinks this long

# --- MCTS: planning a time bank -----------------------------------------------------------

BANK_RESERVE_MS = 60.0  # never plan to use the last part of a time bank
EMPTY_COUNTED = 60  # empty squares counted at most when guessing the moves left
MOVES_PER_EMPTY = 0.5 * 0.6  # our moves still to play per empty square: half are ours,
# and games end with about 40 % of the counted squares still empty
LEAST_MOVES_LEFT = 4.0  # plan as if at least this many of our moves were to come
PLAN_INCREMENT_SHARE = 0.9  # a move plans this share of the increment ...
PLAN_BANK_SHARE = 0.4  # ... plus its share of the rest, but never this share of the bank
MOST_BANK_SHARE = 0.5  # an extended search never takes more than this share of the bank
EXTEND_FACTOR = 2.5  # an unclear choice may think this many times the planned time
FLAT_MOVES = 20.0  # ``tm=flat``: the increment plus a twentieth of the rest

# --- MCTS: stalls --------------------------------------------------------------------------

STALL_DECAY = 0.7  # per move: how fast the memory of a stall fades
STALL_SHARE = 0.25  # never give more than this share of a move's time to stalls

# --- alpha-beta: a time bank ---------------------------------------------------------------

ALPHABETA_INCREMENT_SHARE = 0.9  # this share of the increment ...
ALPHABETA_BANK_MOVES = 25.0  # ... plus this fraction of the bank ...
ALPHABETA_BANK_SHARE = 0.25  # ... but never more than this share of it

# --- ninefold as a bot ---------------------------------------------------------------------

RUNNER_SAFETY_MS = 30.0  # kept back for reading, writing and the pipe
RUNNER_HARD_SHARE = 0.6  # the hard limit: at most this share of the bank
RUNNER_INCREMENT_SHARE = 0.8  # think: this share of the increment ...
RUNNER_BANK_MOVES = 12.0  # ... plus this fraction of the bank beyond two increments ...
RUNNER_THINK_OF_HARD = 0.7  # ... but at most this share of the hard limit, less the safety
TURN_THINK_SHARE = 0.55  # a fixed time per turn: think this share of it, less half the safety
TURN_HARD_SHARE = 0.8  # and answer by this share of it ...
TURN_HARD_MARGIN_MS = 5.0  # ... less this


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


def mcts_bank_plan(bank_ms: float, increment_ms: float, empty: int, flat: bool = False) -> Plan:
    """MCTS's plan for one move from a time bank: (planned, most) in ms.

    The bank already holds this move's increment. Plan the increment plus a
    share of the rest for the moves still to come (more early, when a game
    has many moves left; the bank refills by the increment anyway), and
    never plan past the bank minus a reserve. `flat` plans the increment
    plus a fixed fraction of the rest.

    >>> mcts_bank_plan(10000.0, 500.0, 81)
    Plan(think_ms=977.7777777777778, hard_ms=4970.0)
    """
    usable = max(bank_ms - BANK_RESERVE_MS, 0.0)
    if flat:
        planned = min(usable, share_ms(increment_ms, bank_ms - increment_ms, FLAT_MOVES))
    else:
        planned = min(PLAN_BANK_SHARE * usable,
                      share_ms(increment_ms, bank_ms - increment_ms, moves_left(empty),
                               PLAN_INCREMENT_SHARE))
    most = MOST_BANK_SHARE * usable
    return Plan(max(planned, 1.0), max(most, 1.0))


def extension_ms(plan: Plan) -> float:
    """How long MCTS may think in all when the choice is unclear."""
    return min(plan.hard_ms, EXTEND_FACTOR * plan.think_ms)


def stall_margin_ms(stall_ms: float, budget_ms: float) -> float:
    """The time kept back for a recent stall of `stall_ms`, at most `STALL_SHARE` of the budget.

    >>> stall_margin_ms(30.0, 100.0), stall_margin_ms(3.0, 100.0)
    (25.0, 3.0)
    """
    return min(stall_ms, STALL_SHARE * budget_ms)


def alphabeta_bank_ms(bank_ms: float, increment_ms: float) -> float:
    """Alpha-beta's time for one move from a time bank.

    >>> alphabeta_bank_ms(10000.0, 500.0)
    850.0
    """
    return max(1.0, min(share_ms(increment_ms, bank_ms, ALPHABETA_BANK_MOVES,
                                 ALPHABETA_INCREMENT_SHARE),
                        ALPHABETA_BANK_SHARE * bank_ms))


def runner_bank_plan(bank_ms: float, increment_ms: float,
                     safety_ms: float = RUNNER_SAFETY_MS) -> Plan:
    """ninefold as a bot with `bank_ms` left: think this long, answer by the hard limit.

    >>> runner_bank_plan(10000.0, 500.0)
    Plan(think_ms=1150.0, hard_ms=6000.0)
    """
    hard = max(1.0, min(bank_ms * RUNNER_HARD_SHARE, bank_ms - 2 * safety_ms))
    think = share_ms(increment_ms, bank_ms - 2 * increment_ms, RUNNER_BANK_MOVES,
                     RUNNER_INCREMENT_SHARE)
    think = max(1.0, min(think, hard * RUNNER_THINK_OF_HARD - safety_ms))
    return Plan(think, hard)


def runner_turn_plan(turn_ms: float, safety_ms: float = RUNNER_SAFETY_MS) -> Plan:
    """ninefold as a bot with a fixed `turn_ms` for this turn (CodinGame)."""
    return Plan(max(1.0, turn_ms * TURN_THINK_SHARE - safety_ms / 2),
                max(1.0, turn_ms * TURN_HARD_SHARE - TURN_HARD_MARGIN_MS))


# --- a bot whose search is still loading (`ninefold.protocols.engine`) -----------------------

ENGINE_WAIT_SHARE = 0.5  # a request that comes while the search loads waits for it this share
FALLBACK_MS = 50.0  # of its think time at most, keeping this much for the fallback's answer


def engine_wait_ms(think_ms: float) -> float:
    """How long a request may wait for a search that is still loading.

    >>> engine_wait_ms(400.0), engine_wait_ms(80.0), engine_wait_ms(30.0)
    (200.0, 30.0, 0.0)
    """
    return max(0.0, min(ENGINE_WAIT_SHARE * think_ms, think_ms - FALLBACK_MS))
