"""Many games stepped together on the kernel: `BatchedEnv`, and its numba functions.

The state of N games is the kernel's state (`ninefold.kernel`), one int64 row
of 24 per game. Everything that touches the games is a numba function on
those rows, so numba code (self-play, a search) calls them directly; the
`BatchedEnv` class only holds the arrays and checks what Python gives it.

>>> env = BatchedEnv(4, seed=1)
>>> obs, masks = env.reset()
>>> obs.shape, masks.shape, int(masks[0].sum())
((4, 9, 9, 10), (4, 81), 81)
>>> obs, rewards, dones, masks = env.step(env.sample_actions())
>>> rewards.shape, bool(dones.any()), int(masks[0].sum()) < 81
((4, 2), False, True)

**Observations** (`PLANES`, channels last, int8 0/1) are seen by the side to
move: its marks, the opponent's, the legal cells, the small boards each side
owns, the closed boards, whether the side to move is O, and the three rules
flags. Rows and columns are the 9x9 grid as drawn (row 0 at the top); the
action of the cell at ``(row, col)`` is ``ACTION_AT[row, col]``. `obs="state"`
gives the kernel rows themselves instead (24 int64 a game, no copying).

**Rewards** are ``(N, 2)`` float32, column p for player p (0 = X, who moves
first): +1 for the winner, -1 for the loser, 0 for a draw or a game going on,
as the rules score the end (the board count of ``codingame``, Tic-Tac-Ku's
five boards). **Auto-reset**: a game that ends in a step has ``dones`` True
and its reward, and is already replaced by a new game (with a new opening,
if drawn at random) in the observation and masks returned.
"""

from __future__ import annotations

import numpy as np

from ninefold.jitcache import njit
from ninefold.kernel import (
    BIG,
    CLOSED,
    FORCED,
    NTH,
    RESULT,
    SIDE,
    STATE_SIZE,
    below,
    empty_cells,
    make_rng,
    new_state,
    play,
    playable_boards,
    random_move,
    xorshift,
)
from ninefold.moves import InvalidOpeningError, opening_moves
from ninefold.players import warmup
from ninefold.rules import FLAG_COUNT_FULL, FLAG_OPEN_BOARDS, FLAG_WIN_FIVE, Rules

# --- the observation -------------------------------------------------------------------

PLANES = (
    "own marks",  # the side to move's (or the observer's) marks
    "opponent marks",
    "legal cells",  # empty when the observer is not to move
    "own boards",  # every cell of a small board the observer owns
    "opponent boards",
    "closed boards",  # every cell of a small board where no move may go any more
    "plays O",  # all ones when the observer moves second
    "open boards",  # the rules flags, all ones when set
    "win by five",
    "count full grid",
)
N_PLANES = len(PLANES)
OBS_SHAPE = (9, 9, N_PLANES)


def _grid_tables() -> tuple[np.ndarray, np.ndarray]:
    at = np.empty((9, 9), np.int64)  # at[row, col] = action
    where = np.empty(81, np.int64)  # where[action] = row * 9 + col
    for b in range(9):
        for c in range(9):
            row, col = 3 * (b // 3) + c // 3, 3 * (b % 3) + c % 3
            at[row, col] = 9 * b + c
            where[9 * b + c] = 9 * row + col
    return at, where


ACTION_AT, GRID_INDEX = _grid_tables()
ACTION_AT.flags.writeable = False

NO_OPENING, FIXED_OPENING, RANDOM_OPENING = 0, 1, 2


@njit(cache=True)
def observe(s: np.ndarray, observer: int, flags: int, out: np.ndarray) -> None:
    """Write the planes of state `s` as `observer` (0 = X, 1 = O) sees it into `out`.

    `out` is an int8 array of 81 * N_PLANES, the (9, 9, N_PLANES) observation
    flattened.
    """
    mine_big = s[BIG + observer]
    theirs_big = s[BIG + 1 - observer]
    closed = s[CLOSED]
    legal_boards = playable_boards(s) if s[SIDE] == observer else 0
    open_boards = 1 if flags & FLAG_OPEN_BOARDS else 0
    win_five = 1 if flags & FLAG_WIN_FIVE else 0
    count_full = 1 if flags & FLAG_COUNT_FULL else 0
    for b in range(9):
        mine = s[9 * observer + b]
        theirs = s[9 * (1 - observer) + b]
        legal = empty_cells(s, b) if legal_boards >> b & 1 else 0
        own_board = mine_big >> b & 1
        their_board = theirs_big >> b & 1
        closed_board = closed >> b & 1
        for c in range(9):
            o = GRID_INDEX[9 * b + c] * N_PLANES
            out[o] = mine >> c & 1
            out[o + 1] = theirs >> c & 1
            out[o + 2] = legal >> c & 1
            out[o + 3] = own_board
            out[o + 4] = their_board
            out[o + 5] = closed_board
            out[o + 6] = observer
            out[o + 7] = open_boards
            out[o + 8] = win_five
            out[o + 9] = count_full


@njit(cache=True)
def legal_mask(s: np.ndarray, out: np.ndarray) -> None:
    """Write the 81 legal-action flags of state `s` (action order) into `out`."""
    boards = playable_boards(s)
    for b in range(9):
        legal = empty_cells(s, b) if boards >> b & 1 else 0
        for c in range(9):
            out[9 * b + c] = legal >> c & 1


@njit(cache=True)
def is_legal(s: np.ndarray, action: int) -> bool:
    """True if `action` (0-80) may be played in state `s`."""
    if action < 0 or action >= 81:
        return False
    b, c = action // 9, action % 9
    return (playable_boards(s) >> b & 1) == 1 and (empty_cells(s, b) >> c & 1) == 1


# --- openings ---------------------------------------------------------------------------


@njit(cache=True)
def _random_four(rng: np.uint64) -> tuple[np.ndarray, np.uint64]:
    """A random-four code's five digits (0-8), uniform over the legal codes.

    A code is legal when its four moves are four different cells: four moves
    cannot win a small board, so nothing else can go wrong.
    """
    digits = np.empty(5, np.int64)
    while True:
        for k in range(5):
            rng = xorshift(rng)
            digits[k] = below(rng, 9)
        ok = True
        for i in range(4):
            for j in range(i + 1, 4):
                if digits[i] == digits[j] and digits[i + 1] == digits[j + 1]:
                    ok = False
        if ok:
            return digits, rng


@njit(cache=True)
def start_game(s: np.ndarray, mode: int, code: np.ndarray, flags: int, rng: np.ndarray) -> None:
    """Set `s` to a new game: the empty board, or after an opening (fixed `code`, or drawn)."""
    for k in range(STATE_SIZE):
        s[k] = 0
    s[FORCED] = -1
    s[RESULT] = -1
    if mode == NO_OPENING:
        return
    digits = code
    if mode == RANDOM_OPENING:
        digits, x = _random_four(rng[0])
        rng[0] = x
    for k in range(4):
        play(s, digits[k], digits[k + 1], flags)


# --- stepping -----------------------------------------------------------------------------


@njit(cache=True)
def first_illegal(states: np.ndarray, actions: np.ndarray) -> int:
    """The index of the first game whose action is illegal, or -1."""
    for i in range(states.shape[0]):
        if not is_legal(states[i], actions[i]):
            return i
    return -1


@njit(cache=True)
def step_games(
    states: np.ndarray, actions: np.ndarray, flags: int, mode: int, code: np.ndarray,
    rng: np.ndarray, rewards: np.ndarray, dones: np.ndarray,
) -> None:
    """Play ``actions[i]`` in game i for every game (all legal: see `first_illegal`).

    Fills ``rewards`` (N, 2) and ``dones`` (N,); a game that ends starts again
    (`start_game` with `mode` and `code`).
    """
    for i in range(states.shape[0]):
        s = states[i]
        a = actions[i]
        play(s, a // 9, a % 9, flags)
        result = s[RESULT]
        if result < 0:
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
            dones[i] = False
            continue
        dones[i] = True
        if result == 0:
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
        else:
            winner = result - 1
            rewards[i, winner] = 1.0
            rewards[i, 1 - winner] = -1.0
        start_game(s, mode, code, flags, rng)


@njit(cache=True, inline="always")
def _write_mask(s: np.ndarray, mask: np.ndarray, clear: bool) -> None:
    """Write the legal flags of the boards `s` may play in (or zeros, if `clear`)."""
    boards = playable_boards(s)
    while boards:
        b = NTH[boards, 0]
        boards &= boards - 1
        e = 0 if clear else empty_cells(s, b)
        for c in range(9):
            mask[9 * b + c] = e >> c & 1


@njit(cache=True)
def step_games_masked(
    states: np.ndarray, masks: np.ndarray, actions: np.ndarray, flags: int, mode: int,
    code: np.ndarray, rng: np.ndarray, rewards: np.ndarray, dones: np.ndarray,
) -> None:
    """`step_games` that also keeps `masks` (N, 81), the legal flags of `states`, up to date.

    Only the boards whose flags change are written (usually two small boards'
    worth), not all 81 flags; even so it costs about as much as the move.
    The step's lines repeat `step_games` on purpose: sharing them through an
    inlined helper measured 19 M instead of 28 M moves/s (N = 4096).
    """
    for i in range(states.shape[0]):
        s = states[i]
        m = masks[i]
        _write_mask(s, m, True)
        a = actions[i]
        play(s, a // 9, a % 9, flags)
        result = s[RESULT]
        if result < 0:
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
            dones[i] = False
        else:
            dones[i] = True
            if result == 0:
                rewards[i, 0] = 0.0
                rewards[i, 1] = 0.0
            else:
                winner = result - 1
                rewards[i, winner] = 1.0
                rewards[i, 1 - winner] = -1.0
            start_game(s, mode, code, flags, rng)
        _write_mask(s, m, False)


@njit(cache=True)
def observe_games(states: np.ndarray, flags: int, obs: np.ndarray) -> None:
    """The planes of every game, seen by its side to move, into `obs`.

    `obs` is (N, 81 * N_PLANES) int8: a reshaped (N, 9, 9, N_PLANES) array.
    """
    for i in range(states.shape[0]):
        s = states[i]
        observe(s, s[SIDE], flags, obs[i])


@njit(cache=True)
def mask_games(states: np.ndarray, masks: np.ndarray) -> None:
    """The legal masks alone."""
    for i in range(states.shape[0]):
        legal_mask(states[i], masks[i])


@njit(cache=True)
def random_actions(states: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """A uniformly random legal action for every game (each game is running)."""
    x = rng[0]
    for i in range(states.shape[0]):
        b, c, x = random_move(states[i], x)
        out[i] = 9 * b + c
    rng[0] = x


# --- the environment ------------------------------------------------------------------------


class IllegalActionError(ValueError):
    """An action that the rules do not allow in that position (or not in 0-80)."""


def opening_mode(opening: str | None) -> tuple[int, np.ndarray]:
    """`opening` (None, a random-four code, or ``"random"``) as the kernel's mode and digits."""
    if opening is not None and not isinstance(opening, str):
        raise InvalidOpeningError(f"opening must be a code, 'random' or None, not {opening!r}")
    code = np.zeros(5, np.int64)
    if opening is None:
        return NO_OPENING, code
    if opening == "random":
        return RANDOM_OPENING, code
    opening_moves(opening)  # InvalidOpeningError with the reason
    code[:] = [int(ch) - 1 for ch in opening.strip()]
    return FIXED_OPENING, code


def _generator(seed: int | None) -> np.ndarray:
    """The kernel's generator state from a seed (None: fresh entropy), via numpy's SeedSequence."""
    return make_rng(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0].item())


class BatchedEnv:
    """`num_envs` games stepped together; see the module's documentation.

    `rules` is a preset or option string; `opening` None (the empty board), a
    random-four code played at the start of every game, or ``"random"`` (a
    random-four code drawn for each game). `obs` is ``"planes"`` or
    ``"state"``. With ``copy=False`` the arrays returned are the environment's
    own and the next call overwrites them (faster; copy what you keep).
    """

    def __init__(self, num_envs: int, rules: str | Rules = "standard", opening: str | None = None,
                 *, obs: str = "planes", seed: int | None = None, copy: bool = True) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        if obs not in ("planes", "state"):
            raise ValueError(f"obs must be 'planes' or 'state', not {obs!r}")
        self.num_envs = num_envs
        self.rules = Rules.parse(rules)
        self.flags = self.rules.flags
        self.opening = opening
        self.mode, self.code = opening_mode(opening)
        self.obs_kind = obs
        self.copy = copy
        self.states = np.empty((num_envs, STATE_SIZE), np.int64)
        self.rng = _generator(seed)
        self._obs = np.zeros((num_envs, 81 * N_PLANES), np.int8)
        self._masks = np.zeros((num_envs, 81), np.bool_)
        self._rewards = np.zeros((num_envs, 2), np.float32)
        self._dones = np.zeros(num_envs, np.bool_)
        self._actions = np.zeros(num_envs, np.int64)
        self._started = False

    @property
    def current_player(self) -> np.ndarray:
        """The side to move in each game (0 = X, 1 = O)."""
        return self.states[:, SIDE].copy()

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Start every game again: (observations, masks). `seed` restarts the generator."""
        if seed is not None:
            self.rng = _generator(seed)
        for i in range(self.num_envs):
            start_game(self.states[i], self.mode, self.code, self.flags, self.rng)
        mask_games(self.states, self._masks)
        self._started = True
        obs, masks = self._observe()
        return obs, masks

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Play one action in every game: (observations, rewards, dones, masks).

        Raises `IllegalActionError` (naming the game) and changes nothing if
        any action is illegal.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {self.num_envs} integers (shape ({self.num_envs},)), "
                f"not an array of shape {acts.shape} and type {acts.dtype}")
        if acts.dtype != np.int64:
            acts = acts.astype(np.int64)
        bad = first_illegal(self.states, acts)
        if bad >= 0:
            action = int(acts[bad])
            if not 0 <= action < 81:
                raise IllegalActionError(f"game {bad}: action {action} is not in 0-80")
            raise IllegalActionError(f"game {bad}: action {action} (board {action // 9}, "
                                     f"cell {action % 9}) is not legal there")
        step_games_masked(self.states, self._masks, acts, self.flags, self.mode, self.code,
                          self.rng, self._rewards, self._dones)
        obs, masks = self._observe()
        if self.copy:
            return obs, self._rewards.copy(), self._dones.copy(), masks
        return obs, self._rewards, self._dones, masks

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game."""
        if not self._started:
            raise RuntimeError("call reset() before sample_actions()")
        random_actions(self.states, self.rng, self._actions)
        return self._actions.copy() if self.copy else self._actions

    def _observe(self) -> tuple[np.ndarray, np.ndarray]:
        obs: np.ndarray
        if self.obs_kind == "state":
            obs = self.states
        else:
            observe_games(self.states, self.flags, self._obs)
            obs = self._obs.reshape((self.num_envs, *OBS_SHAPE))
        if self.copy:
            return obs.copy(), self._masks.copy()
        return obs, self._masks


def _start_args() -> tuple[object, ...]:
    return (new_state(), RANDOM_OPENING, np.zeros(5, np.int64), 0, make_rng(1))


def _step_args() -> tuple[object, ...]:
    states = new_state().reshape(1, STATE_SIZE).copy()
    return (states, np.array([40], np.int64), 0, NO_OPENING, np.zeros(5, np.int64), make_rng(1),
            np.zeros((1, 2), np.float32), np.zeros(1, np.bool_))


def _masked_args() -> tuple[object, ...]:
    states, actions, *rest = _step_args()
    return (states, np.zeros((1, 81), np.bool_), actions, *rest)


def _observe_args() -> tuple[object, ...]:
    return (new_state().reshape(1, STATE_SIZE).copy(), 0, np.zeros((1, 81 * N_PLANES), np.int8))


warmup.add("env", 8.0, [
    (start_game, _start_args),
    (first_illegal, lambda: (new_state().reshape(1, STATE_SIZE).copy(), np.array([0], np.int64))),
    (step_games, _step_args),
    (step_games_masked, _masked_args),
    (observe_games, _observe_args),
    (mask_games, lambda: (new_state().reshape(1, STATE_SIZE).copy(), np.zeros((1, 81), np.bool_))),
    (random_actions, lambda: (new_state().reshape(1, STATE_SIZE).copy(), make_rng(1),
                              np.zeros(1, np.int64))),
    (observe, lambda: (new_state(), 0, 0, np.zeros(81 * N_PLANES, np.int8))),
    (legal_mask, lambda: (new_state(), np.zeros(81, np.bool_))),
])
