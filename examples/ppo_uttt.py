"""Learn Ultimate Tic-Tac-Toe with maskable PPO (sb3-contrib) on ninefold's Gymnasium env.

    pip install -e '.[rl-example]'
    python examples/ppo_uttt.py                     # the run in docs/research/rl.md
    python examples/ppo_uttt.py --timesteps 20000   # a quick look

The agent plays X or O at random against a mix of opponents (``random``
and ``naive``: win, else block, else random), sees the planes of
`ninefold.env` (flattened), and only ever picks legal actions (the env's
action mask). Every ``--eval-every`` steps it plays ``--curve-games`` games
against each opponent; at the end ``--eval-games`` games against each (half
as X, half as O), counted as wins, draws and losses, and the score
(win 1, draw 1/2). Writes, in ``--out``: the model, ``curve.csv``,
``curve.png`` (the learning curve) and ``result.json``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np

try:
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv
except ImportError:
    sys.exit("this example needs the rl-example extra: pip install -e '.[rl-example]'")

from ninefold.env.single import UTTTEnv

OPPONENTS = ("random", "naive")


class Planes(gymnasium.ObservationWrapper):
    """The env's planes alone, flattened to floats (the mask goes through `ActionMasker`)."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        size = int(np.prod(env.observation_space["observation"].shape))
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (size,), np.float32)

    def observation(self, observation: dict) -> np.ndarray:
        return observation["observation"].reshape(-1).astype(np.float32)


def make_env(opponent: str, rules: str, opening: str | None) -> gymnasium.Env:
    env = UTTTEnv(opponent=opponent, rules=rules, opening=opening, play_as="random")
    return ActionMasker(Planes(env), lambda e: e.unwrapped.action_masks())


def evaluate(model: MaskablePPO, opponent: str, games: int, rules: str, seed: int) -> dict:
    """`games` games against `opponent`, half as X and half as O: wins, draws, losses, score."""
    counts = {"wins": 0, "draws": 0, "losses": 0}
    for play_as in ("x", "o"):
        env = UTTTEnv(opponent=opponent, rules=rules, opening="random", play_as=play_as)
        for k in range(games // 2 if play_as == "x" else games - games // 2):
            observation, info = env.reset(seed=seed + k + (0 if play_as == "x" else 10**6))
            reward, done = 0.0, False
            while not done:
                planes = observation["observation"].reshape(-1).astype(np.float32)
                action, _ = model.predict(planes, action_masks=info["action_mask"].astype(bool),
                                          deterministic=True)
                observation, reward, done, _, info = env.step(int(action))
            counts["wins" if reward > 0 else "losses" if reward < 0 else "draws"] += 1
    counts["games"] = games
    counts["score"] = (counts["wins"] + 0.5 * counts["draws"]) / games
    return counts


class Curve(BaseCallback):
    """Evaluates the agent every `every` steps and keeps the rows of the learning curve."""

    def __init__(self, every: int, games: int, rules: str, seed: int) -> None:
        super().__init__()
        self.every, self.games, self.rules, self.seed = every, games, rules, seed
        self.rows: list[dict] = []
        self.next = 0
        self.start = time.monotonic()

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next:
            self.next += self.every
            row = {"timesteps": self.num_timesteps,
                   "minutes": round((time.monotonic() - self.start) / 60, 2)}
            for opponent in OPPONENTS:
                row[opponent] = evaluate(self.model, opponent, self.games, self.rules,
                                         self.seed + 7)["score"]
            self.rows.append(row)
            print(f"{row['timesteps']:>9} steps  {row['minutes']:6.1f} min  "
                  + "  ".join(f"vs {o} {row[o]:.1%}" for o in OPPONENTS), flush=True)
        return True


def plot(rows: list[dict], final: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    steps = [r["timesteps"] for r in rows]
    for opponent, target in (("random", 0.95), ("naive", 0.70)):
        line, = ax.plot(steps, [r[opponent] for r in rows], label=f"vs {opponent}")
        ax.axhline(target, color=line.get_color(), linestyle=":", linewidth=1)
        ax.plot([steps[-1]], [final[opponent]["score"]], "o", color=line.get_color())
    ax.set_xlabel("training steps (the agent's moves)")
    ax.set_ylabel("score (win 1, draw 1/2)")
    ax.set_ylim(0, 1)
    ax.set_title("Maskable PPO on ninefold/UTTT-v0 (dots: final 1,000-game evaluation)")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timesteps", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--envs", type=int, default=16, help="games played side by side")
    parser.add_argument("--naive-share", type=float, default=0.5,
                        help="share of the training games against naive (the rest: random)")
    parser.add_argument("--eval-every", type=int, default=100_000)
    parser.add_argument("--curve-games", type=int, default=200)
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=Path("runs/ppo_uttt"))
    args = parser.parse_args()

    torch.set_num_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    naive = round(args.envs * args.naive_share)
    opponents = ["naive"] * naive + ["random"] * (args.envs - naive)
    venv = DummyVecEnv([lambda o=o: make_env(o, args.rules, "random") for o in opponents])
    model = MaskablePPO("MlpPolicy", venv, seed=args.seed, n_steps=256, batch_size=1024,
                        n_epochs=4, learning_rate=3e-4, gamma=0.99, ent_coef=0.01,
                        policy_kwargs={"net_arch": [512, 256]}, verbose=0)
    curve = Curve(args.eval_every, args.curve_games, args.rules, args.seed)
    print(f"training {args.timesteps:,} steps against {naive} naive and "
          f"{args.envs - naive} random opponents (seed {args.seed})", flush=True)
    model.learn(args.timesteps, callback=curve)
    model.save(args.out / "model")

    final = {o: evaluate(model, o, args.eval_games, args.rules, args.seed + 1000)
             for o in OPPONENTS}
    final["command"] = " ".join(["python", *sys.argv])
    final["minutes"] = round((time.monotonic() - curve.start) / 60, 1)
    with open(args.out / "curve.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(curve.rows[0]))
        writer.writeheader()
        writer.writerows(curve.rows)
    (args.out / "result.json").write_text(json.dumps(final, indent=2) + "\n")
    plot(curve.rows, final, args.out / "curve.png")
    for opponent in OPPONENTS:
        r = final[opponent]
        print(f"vs {opponent}: {r['wins']} wins, {r['draws']} draws, {r['losses']} losses "
              f"of {r['games']}: score {r['score']:.1%}")
    print(f"wrote {args.out}/ (model.zip, curve.csv, curve.png, result.json)")


if __name__ == "__main__":
    main()
