"""A Gymnasium environment: one agent against any ninefold player.

>>> import gymnasium
>>> game = gymnasium.make("ninefold.env:ninefold/UTTT-v0", opponent="naive", play_as="o")
>>> observation, info = game.reset(seed=3)
>>> observation["observation"].shape, int(info["action_mask"].sum()) < 81  # naive moved first
((9, 9, 10), True)
>>> action = int(info["action_mask"].nonzero()[0][0])
>>> observation, reward, terminated, truncated, info = game.step(action)

The spaces are those of the PettingZoo environment (`ninefold.env.aec`):
``Discrete(81)`` actions and ``{"observation", "action_mask"}`` observations,
seen from the agent's side. The mask is also in ``info["action_mask"]``
(Gymnasium's convention) and returned by `UTTTEnv.action_masks` (the one
sb3-contrib's maskable PPO calls). The reward is +1 for a win, -1 for a loss
and 0 otherwise, given when the game ends, as the rules score it.

`opponent` is a player spec (``random``, ``naive``, ``mcts:sims=200``...),
played under `opponent_limit` (a `ninefold.players.Limit`; None: the
player's own default); a seeded `reset` seeds it too when it takes a seed.
`play_as` is ``"x"`` (move first), ``"o"`` or ``"random"`` (drawn at each
reset). An illegal action raises `IllegalActionError` and changes nothing;
with ``illegal="penalty"`` it ends the game instead, with reward -1 and
``info["illegal"]`` True.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ninefold.env.batch import IllegalActionError
from ninefold.env.game import Game
from ninefold.env.render import ansi, rgb_array
from ninefold.extras import require
from ninefold.players import Limit, Player, make_player, parse_spec, player_kind
from ninefold.rules import Move, Rules

require("rl", "ninefold.env.single")  # Gymnasium: else one line that says how to install it
import gymnasium  # noqa: E402
from gymnasium import spaces  # noqa: E402

from ninefold.env.aec import observation_space  # noqa: E402

PLAY_AS = ("x", "o", "random")


class UTTTEnv(gymnasium.Env):
    """Ultimate Tic-Tac-Toe against a ninefold player; see the module's documentation."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012

    def __init__(self, opponent: str = "random", rules: str | Rules = "standard",
                 opening: str | None = None, play_as: str = "random",
                 opponent_limit: Limit | None = None, illegal: str = "raise",
                 render_mode: str | None = None) -> None:
        if play_as not in PLAY_AS:
            raise ValueError(f"play_as must be one of {', '.join(PLAY_AS)}, not {play_as!r}")
        if illegal not in ("raise", "penalty"):
            raise ValueError(f"illegal must be 'raise' or 'penalty', not {illegal!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} "
                             f"or None, not {render_mode!r}")
        self.game = Game(rules, opening)
        self.opponent_spec = opponent
        self.opponent: Player = make_player(opponent)
        self.opponent_limit = opponent_limit
        self.play_as = play_as
        self.illegal = illegal
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(81)
        self.side = 0
        self._board = self.game.board()
        self._done = True

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray],
                                                              dict[str, Any]]:
        """A new game (the opponent's first moves played if it moves first): the
        observation and the info. `seed` seeds the opening, the side and the opponent;
        `options` is not used."""
        super().reset(seed=seed)
        if seed is not None:
            self._seed_opponent(int(self.np_random.integers(2**62)))
        self.game.reset(self.np_random)
        if self.play_as == "random":
            self.side = int(self.np_random.integers(2))
        else:
            self.side = PLAY_AS.index(self.play_as)
        self.opponent.new_game()
        self._board = self.game.board()
        self._done = False
        self._opponent_moves()
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool,
                                         dict[str, Any]]:
        """Play `action` (``9 * board + cell``) and the opponent's replies: the
        observation, the reward, whether the game ended, False (never truncated) and
        the info."""
        if self._done:
            raise RuntimeError("the game is over: call reset() before step()")
        try:
            self.game.play(action)
        except IllegalActionError:
            if self.illegal == "raise":
                raise
            self._done = True
            return self._observation(), -1.0, True, False, {**self._info(), "illegal": True}
        self._board.push(Move.from_action(int(action)))
        self._opponent_moves()
        reward = 0.0
        if self.game.over():
            self._done = True
            reward = self.game.rewards()[self.side]
        return self._observation(), reward, self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions as 81 booleans (what sb3-contrib's `MaskablePPO` asks for)."""
        return self._mask().astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The board as text (``render_mode="ansi"``), as an RGB array (``"rgb_array"``),
        or None."""
        if self.render_mode is None:
            return None
        return ansi(self._board) if self.render_mode == "ansi" else rgb_array(self._board)

    def _opponent_moves(self) -> None:
        while not self.game.over() and self.game.player != self.side:
            move = self.opponent.play(self._board, self.opponent_limit).move
            self.game.play(move.action)
            self._board.push(move)

    def _mask(self) -> np.ndarray:
        if self.game.over() or self.game.player != self.side:
            return np.zeros(81, np.int8)
        return self.game.mask()

    def _observation(self) -> dict[str, np.ndarray]:
        return {"observation": self.game.observation(self.side), "action_mask": self._mask()}

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask(), "player": self.side}

    def _seed_opponent(self, seed: int) -> None:
        name, options = parse_spec(self.opponent_spec)
        kind = player_kind(name)
        if kind is None or "seed" in options or "seed" not in kind.schema:
            return
        self.opponent = kind.factory(**{**options, "seed": seed})  # its schema has a seed
        self.opponent.spec = self.opponent_spec

