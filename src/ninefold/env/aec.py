"""The PettingZoo AEC environment ``ninefold_uttt_v0``: two agents take turns on one board.

`env` wraps `raw_env` in PettingZoo's usual wrappers for board games (an
illegal action ends the game with -1 for its player and a warning; an action
outside 0-80 fails an assertion; calls out of order are refused), as
``pettingzoo.classic`` does. `raw_env` has no wrappers: an illegal action
raises `IllegalActionError` and changes nothing.

>>> from ninefold.env import ninefold_uttt_v0
>>> game = ninefold_uttt_v0.env(rules="codingame", opening="random")
>>> game.reset(seed=7)
>>> final = {}
>>> for agent in game.agent_iter():
...     observation, reward, termination, truncation, info = game.last()
...     if termination or truncation:
...         final[agent] = reward
...         action = None
...     else:
...         action = int(observation["action_mask"].nonzero()[0][0])  # a policy goes here
...     game.step(action)
>>> sorted(final.values()) in ([-1, 1], [0, 0])
True

Agents: ``player_0`` plays X and moves first, ``player_1`` plays O. An action
is ``9 * board + cell`` (boards and cells 0-8 in reading order). Each agent
observes ``{"observation": (9, 9, 10) int8 planes, "action_mask": 81 int8}``:
the planes are described in `ninefold.env.batch.PLANES`, seen from that
agent's side; the mask is all zeros for the agent not to move.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ninefold.env.batch import OBS_SHAPE
from ninefold.env.game import Game
from ninefold.env.render import ansi, rgb_array
from ninefold.extras import require
from ninefold.rules import Rules

require("rl", "ninefold.env.aec")  # Gymnasium, PettingZoo: else the line that installs them
from gymnasium import spaces  # noqa: E402
from gymnasium.utils import EzPickle, seeding  # noqa: E402
from pettingzoo import AECEnv  # noqa: E402
from pettingzoo.utils import AgentSelector, wrappers  # noqa: E402

AGENTS = ("player_0", "player_1")


def observation_space() -> spaces.Dict:
    """The observation space every ninefold environment uses."""
    return spaces.Dict({
        "observation": spaces.Box(0, 1, OBS_SHAPE, np.int8),
        "action_mask": spaces.Box(0, 1, (81,), np.int8),
    })


def env(**kwargs: Any) -> AECEnv:
    """`raw_env` in PettingZoo's standard wrappers for classic games."""
    game = raw_env(**kwargs)
    game = wrappers.TerminateIllegalWrapper(game, illegal_reward=-1)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)


class raw_env(AECEnv, EzPickle):  # type: ignore[misc]  # pettingzoo ships no types
    """Ultimate Tic-Tac-Toe for two agents; `rules` a preset or options, `opening` a
    random-four code, ``"random"`` (drawn at each reset from the seed) or None."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class
        "render_modes": ["ansi", "rgb_array"],
        "name": "ninefold_uttt_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, rules: str | Rules = "standard", opening: str | None = None,
                 render_mode: str | None = None) -> None:
        EzPickle.__init__(self, rules, opening, render_mode)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} "
                             f"or None, not {render_mode!r}")
        self.game = Game(rules, opening)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.action_spaces = {a: spaces.Discrete(81) for a in AGENTS}
        self.observation_spaces = {a: observation_space() for a in AGENTS}
        self._np_random, _ = seeding.np_random(None)
        self._start()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        side = AGENTS.index(agent)
        mask = self.game.mask() if side == self.game.player else np.zeros(81, np.int8)
        return {"observation": self.game.observation(side), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self.game.reset(self._np_random)
        self._start()

    def _start(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self._agent_selector = AgentSelector(self.agents)
        self._agent_selector.reset()
        if self.game.player == 1:  # an opening of an odd number of moves would leave O to move
            self._agent_selector.next()
        self.agent_selection = AGENTS[self.game.player]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: None is only for agents whose game is over")
        self.game.play(action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        if self.game.over():
            self.rewards = dict(zip(AGENTS, self.game.rewards(), strict=True))
            self.terminations = dict.fromkeys(AGENTS, True)
        self._accumulate_rewards()
        self.agent_selection = self._agent_selector.next()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        board = self.game.board()
        return ansi(board) if self.render_mode == "ansi" else rgb_array(board)

    def close(self) -> None:
        pass
