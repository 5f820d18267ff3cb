"""Moves per second of ninefold's RL environments against the kernel and OpenSpiel.

    .venv/bin/python benchmarks/env_speed.py [--seconds S] [--rounds N] [--json PATH]

Every row plays uniformly random legal moves from the empty board of the
standard rules, on one core, and counts moves (plies of the real game, both
sides'). The rows are measured one after the other in each round, for
`--rounds` rounds, so that every row sees the same machine load; the table
shows the medians.

- kernel: `ninefold.kernel.bench`, random playouts inside numba (the reference);
- OpenSpiel ``ultimate_tic_tac_toe`` driven from Python: ``random.choice`` of
  ``state.legal_actions()``, ``apply_action``, a new initial state when a game
  ends. A move to a free board costs OpenSpiel two actions (choose the board,
  then the cell), so it has both actions/s and moves/s: the moves of a game
  are the marks on its final board, which the run checks, game by game on a
  sample, against the actions OpenSpiel itself names as marks (``x(r,c)``);
- the same with observations: each step also reads ``observation_tensor()``
  and ``legal_actions_mask()``, what an RL loop needs (and what ninefold's
  environments return at every step);
- PettingZoo AEC, ``ninefold_uttt_v0.env()`` (PettingZoo's wrappers) and
  ``raw_env()``: ``agent_iter`` games, a random action from the observation's
  mask;
- Gymnasium (`UTTTEnv(opponent="random")`, made directly, without the checking
  wrappers of ``gymnasium.make``): a random action from ``info["action_mask"]``;
  the opponent's moves count too (``len(env.game.moves)`` at each game's end);
- `BatchedEnv` (``copy=False``) with ``obs="planes"`` and ``obs="state"``:
  ``env.step(env.sample_actions())``, N moves a step;
- numba loop: an ``@njit`` function calling `random_actions` then
  `step_games` on the states of N games, with no Python between steps.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from ninefold import kernel
from ninefold.env.batch import BatchedEnv, random_actions, step_games

try:
    import pyspiel
except ImportError:
    sys.exit("env_speed.py needs OpenSpiel: pip install open_spiel")
try:
    from ninefold.env import ninefold_uttt_v0
    from ninefold.env.single import UTTTEnv
except ImportError as error:
    sys.exit(f"env_speed.py needs the rl extra (pip install ninefold[rl]): {error}")

BATCH_SIZES = (1, 64, 4096)
NUMBA_N = 4096
NUMBA_CHUNK = 8  # steps of the numba loop between two looks at the clock
OPENSPIEL_CHECKED = 20  # games a round whose move count is checked action by action

KERNEL = "kernel random playouts"
OPENSPIEL = "OpenSpiel (Python loop)"
OPENSPIEL_OBS = "OpenSpiel + observations"
AEC = "PettingZoo AEC env()"
AEC_RAW = "PettingZoo AEC raw_env()"
GYM = "Gymnasium vs random"
NUMBA = f"numba loop N={NUMBA_N}"


def batched_row(obs: str, n: int) -> str:
    return f"BatchedEnv {obs} N={n}"


# --- the measurements: each returns (moves/s, actions/s) --------------------------------


def kernel_rate(seconds: float) -> tuple[float, float]:
    rate = kernel.bench(seconds)["moves_per_s"]
    return rate, rate


def openspiel_marks(state: Any) -> int:
    """The marks on a state's board: the lines of `str(state)` before "Current player"."""
    text = str(state).split("Current player")[0]
    return text.count("x") + text.count("o")


def openspiel_named_marks(game: Any, history: list[int]) -> int:
    """The actions of `history` that OpenSpiel names as a mark (not "Choose local board")."""
    state = game.new_initial_state()
    marks = 0
    for action in history:
        if not state.action_to_string(state.current_player(), action).startswith("Choose"):
            marks += 1
        state.apply_action(action)
    return marks


def openspiel_rate(seconds: float, rng: random.Random,
                   observe: bool = False) -> tuple[float, float]:
    """With `observe`, each step also reads what an RL agent needs: the observation tensor
    and the legal-actions mask, as the ninefold environments return them every step."""
    game = pyspiel.load_game("ultimate_tic_tac_toe")
    choice = rng.choice
    finals = []
    actions = 0
    t0 = time.perf_counter()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if observe:
                np.asarray(state.observation_tensor(), np.float32)
                np.asarray(state.legal_actions_mask(), np.int8)
            state.apply_action(choice(state.legal_actions()))
            actions += 1
        finals.append(state)
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    moves = 0
    for k, state in enumerate(finals):  # counted after the clock stopped
        marks = openspiel_marks(state)
        if k < OPENSPIEL_CHECKED and marks != openspiel_named_marks(game, state.history()):
            sys.exit(f"OpenSpiel game {k}: {marks} marks on the board but "
                     f"{openspiel_named_marks(game, state.history())} mark actions")
        moves += marks
    return moves / elapsed, actions / elapsed


def aec_rate(seconds: float, rng: random.Random, raw: bool = False) -> tuple[float, float]:
    env = ninefold_uttt_v0.raw_env() if raw else ninefold_uttt_v0.env()
    env.reset(seed=rng.randrange(2**31))
    choice = rng.choice
    moves = 0
    t0 = time.perf_counter()
    while True:
        env.reset()
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
            else:
                env.step(int(choice(np.flatnonzero(observation["action_mask"]))))
                moves += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    return moves / elapsed, moves / elapsed


def gym_rate(seconds: float, rng: random.Random) -> tuple[float, float]:
    env = UTTTEnv(opponent="random")
    env.reset(seed=rng.randrange(2**31))
    choice = rng.choice
    moves = 0
    t0 = time.perf_counter()
    while True:
        _, info = env.reset()
        done = False
        while not done:
            action = int(choice(np.flatnonzero(info["action_mask"])))
            _, _, done, truncated, info = env.step(action)
            done = done or truncated
        moves += len(env.game.moves)  # both sides' moves (no opening: all played here)
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    return moves / elapsed, moves / elapsed


def batched_rate(seconds: float, obs: str, n: int, seed: int) -> tuple[float, float]:
    env = BatchedEnv(n, obs=obs, seed=seed, copy=False)
    env.reset()
    step, sample = env.step, env.sample_actions
    steps = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(8):
            step(sample())
        steps += 8
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    return n * steps / elapsed, n * steps / elapsed


@njit(cache=True)
def random_steps(states: np.ndarray, rng: np.ndarray, actions: np.ndarray, flags: int,
                 mode: int, code: np.ndarray, rewards: np.ndarray, dones: np.ndarray,
                 steps: int) -> None:
    """`steps` random moves in every game, as numba code would step the batch."""
    for _ in range(steps):
        random_actions(states, rng, actions)
        step_games(states, actions, flags, mode, code, rng, rewards, dones)


def numba_args(n: int, seed: int) -> tuple[Any, ...]:
    env = BatchedEnv(n, obs="state", seed=seed)
    env.reset()
    return (env.states, env.rng, np.zeros(n, np.int64), env.flags, env.mode, env.code,
            np.zeros((n, 2), np.float32), np.zeros(n, np.bool_))


def numba_rate(seconds: float, n: int, seed: int) -> tuple[float, float]:
    args = numba_args(n, seed)
    steps = 0
    t0 = time.perf_counter()
    while True:
        random_steps(*args, NUMBA_CHUNK)
        steps += NUMBA_CHUNK
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    return n * steps / elapsed, n * steps / elapsed


def measurements(seconds: float, seed: int) -> dict[str, Callable[[], tuple[float, float]]]:
    """The rows in the order they are measured in a round."""
    rng = random.Random(seed)
    rows: dict[str, Callable[[], tuple[float, float]]] = {
        KERNEL: lambda: kernel_rate(seconds),
        OPENSPIEL: lambda: openspiel_rate(seconds, rng),
        OPENSPIEL_OBS: lambda: openspiel_rate(seconds, rng, observe=True),
        AEC: lambda: aec_rate(seconds, rng),
        AEC_RAW: lambda: aec_rate(seconds, rng, raw=True),
        GYM: lambda: gym_rate(seconds, rng),
    }
    for obs in ("planes", "state"):
        for n in BATCH_SIZES:
            rows[batched_row(obs, n)] = (
                lambda obs=obs, n=n: batched_rate(seconds, obs, n, rng.randrange(2**31)))
    rows[NUMBA] = lambda: numba_rate(seconds, NUMBA_N, rng.randrange(2**31))
    return rows


def warm_up() -> None:
    """Compile (or load from numba's cache) everything timed, outside the clock."""
    kernel.bench(0.01)
    for obs in ("planes", "state"):
        env = BatchedEnv(2, obs=obs, seed=0, copy=False)
        env.reset()
        env.step(env.sample_actions())
    random_steps(*numba_args(2, 0), 1)
    gym_rate(0.0, random.Random(0))
    aec_rate(0.0, random.Random(0))


# --- the report ---------------------------------------------------------------------------


def half_kernel(medians: dict[str, dict[str, float]]) -> dict[str, Any]:
    """Which batched rows reach half the kernel's moves/s, the Python API and numba apart."""
    half = medians[KERNEL]["moves_per_s"] / 2
    api = [batched_row(obs, n) for obs in ("planes", "state") for n in BATCH_SIZES]
    best_api = max(api, key=lambda row: medians[row]["moves_per_s"])
    return {
        "half_kernel_moves_per_s": half,
        "python_api_rows": [row for row in api if medians[row]["moves_per_s"] >= half],
        "best_python_api_row": best_api,
        "numba_loop_reaches": medians[NUMBA]["moves_per_s"] >= half,
    }


def verdict(medians: dict[str, dict[str, float]], half: dict[str, Any]) -> str:
    def ratio(row: str) -> str:
        return f"{row} at {medians[row]['vs_kernel']:.2f}× the kernel"

    best = half["best_python_api_row"]
    if half["python_api_rows"]:
        api = "the Python API does (" + ", ".join(map(ratio, half["python_api_rows"])) + ")"
    else:
        api = f"the Python API does not (best: {ratio(best)})"
    numba = "does" if half["numba_loop_reaches"] else "does not"
    return (f"Half the kernel's random-playout moves/s ({half['half_kernel_moves_per_s']:,.0f}): "
            f"{api}; the numba-level loop {numba} ({ratio(NUMBA)}).")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    parser.add_argument("--seed", type=int, default=1, help="for every random choice")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the medians here")
    args = parser.parse_args()
    if not args.seconds > 0:
        parser.error(f"--seconds must be above 0, not {args.seconds}")
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, not {args.rounds}")
    if args.json is not None and not args.json.parent.is_dir():
        parser.error(f"--json: no folder {args.json.parent}")
    console = Console()
    rows = measurements(args.seconds, args.seed)
    samples: dict[str, list[tuple[float, float]]] = {row: [] for row in rows}
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("compiling / loading numba functions", total=None)
        warm_up()
        progress.update(task, total=args.rounds * len(rows), completed=0)
        for r in range(args.rounds):
            for row, measure in rows.items():
                progress.update(task, description=f"round {r + 1}/{args.rounds}: {row}")
                samples[row].append(measure())
                progress.advance(task)
    medians: dict[str, dict[str, float]] = {}
    for row, values in samples.items():
        medians[row] = {"moves_per_s": statistics.median(m for m, _ in values),
                        "actions_per_s": statistics.median(a for _, a in values)}
    del medians[KERNEL]["actions_per_s"]  # the kernel plays moves, it has no actions
    reference = medians[KERNEL]["moves_per_s"]
    openspiel = medians[OPENSPIEL]["moves_per_s"]
    for row in medians.values():
        row["vs_kernel"] = row["moves_per_s"] / reference
        row["vs_openspiel"] = row["moves_per_s"] / openspiel

    table = Table(title=f"random-play speed, one core, standard rules "
                        f"(median of {args.rounds} rounds of {args.seconds:g} s)",
                  caption="a move is a ply of the game; OpenSpiel spends two actions on a move "
                          "to a free board, ninefold one action a move")
    table.add_column("row")
    for col in ("actions/s", "moves/s", "× kernel", "× OpenSpiel"):
        table.add_column(col, justify="right")
    for name, row in medians.items():
        actions = f"{row['actions_per_s']:,.0f}" if "actions_per_s" in row else "—"
        table.add_row(name, actions, f"{row['moves_per_s']:,.0f}", f"{row['vs_kernel']:.3g}",
                      f"{row['vs_openspiel']:.3g}")
    console.print(table)
    half = half_kernel(medians)
    console.print(verdict(medians, half), highlight=False)
    if args.json is not None:
        report = {"seconds": args.seconds, "rounds": args.rounds, "seed": args.seed,
                  "rows": medians, "rounds_moves_per_s": {row: [m for m, _ in values]
                                                          for row, values in samples.items()},
                  **half}
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        console.print(f"medians written to {args.json}", highlight=False)


if __name__ == "__main__":
    main()
