"""Training in rounds: self-play with the best network so far, train, keep the new
network only if it wins a gating match.

Round 0 plays pure MCTS against itself (there is no network yet), or the
search of `Plan.start`'s network when a run goes on from one; each later
round plays the best network's search. Training runs on `Plan.device`
(``cuda``: a GPU; the search itself never needs one). The training set is the last
`Plan.window` rounds' positions; a round's new network starts from random
weights (on this little data that measured better: trained so on rounds 0-3 of
the first run for 12 epochs, a network beat round 2's by 41 Elo at equal
simulations, where round 3, trained on from round 2's weights, gained 14).
The candidate then plays the best network (round 0's: pure MCTS) over
`Plan.gate_pairs` paired games at equal simulations, and replaces it if it
scores at least `Plan.gate_score`;
every candidate also plays pure MCTS, for the strength curve. Everything a
round makes stays in the output directory: ``data_R.npz``, ``net_R.npz``,
``rounds.jsonl`` (losses, scores, times) and ``rounds.png``. Run again on the
same directory with more rounds, a run goes on after its last finished round.

Self-play and the matches run as tasks of `ninefold.learn.tasks`: `Plan.workers`
processes here, or Ray tasks on the cluster at `Plan.ray`; each network's
``meta`` records where (the runner's layout: the Ray address, its nodes and
CPUs) and how the work was cut (games a task, pairs a task).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ninefold.arena.ratings import match_elo
from ninefold.learn import selfplay
from ninefold.learn.selfplay import Positions, Searcher
from ninefold.learn.tasks import Runner, runner
from ninefold.learn.train import Dataset, PolicyValue, evaluate_losses, fit, to_net
from ninefold.players.net import save_net, sha256

PURE = Searcher()  # pure MCTS at ninefold.players.mcts's defaults


@dataclass
class Plan:
    """What a training run does (every field is recorded with the networks)."""

    rounds: int = 4
    games: int = 4000  # self-play games a round
    first_games: int = 10000  # self-play games of round 0 (pure MCTS, cheaper)
    sims: int = 800  # simulations a move in self-play with a network
    pure_sims: int = 1600  # simulations a move of round 0's pure MCTS self-play
    c: float = 1.0  # PUCT exploration of the network's search
    mix: float = 0.5  # the playout's share of a leaf's value in the network's search
    window: int = 5  # rounds of positions trained on
    epochs: int = 12
    lr: float = 2e-3
    gate_pairs: int = 100  # paired games of the gating match (twice as many games)
    gate_sims: int = 400
    gate_score: float = 0.55
    seed: int = 1
    workers: int = 2  # self-play and match processes on this machine
    ray: str = ""  # a Ray cluster's address: self-play and matches run there instead
    start: str = ""  # a network to start from: round 0 plays its search (not pure MCTS)
    device: str = "cpu"  # where PyTorch trains: "cpu", "cuda" or "auto" (cuda if there is one)


def say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def train_rounds(plan: Plan, out: Path, command: str) -> Path | None:
    """Run `plan`, writing into `out`; returns the best network's file."""
    tasks = runner(plan.ray, plan.workers)  # first: a cluster that is not there makes no folder
    out.mkdir(parents=True, exist_ok=True)
    try:
        return _rounds(plan, out, command, tasks)
    finally:
        tasks.close()


def _rounds(plan: Plan, out: Path, command: str, tasks: Runner) -> Path | None:
    layout = {**tasks.layout(), "games_per_task": selfplay.GAMES_PER_TASK, "pairs_per_task": 1}
    say(f"tasks: {layout}")
    log = out / "rounds.jsonl"
    finished = rounds_done(log)
    best: Path | None = Path(plan.start) if plan.start else None
    device = training_device(plan.device)
    say(f"training on {device}")
    for r in range(plan.rounds):
        candidate = out / f"net_{r}.npz"
        if r in finished and candidate.exists():
            accepted = bool(finished[r]["accepted"])
            say(f"round {r}: done in an earlier run ({'kept' if accepted else 'dropped'})")
            best = candidate if accepted else best
            continue
        t0 = time.perf_counter()
        data_path = out / f"data_{r}.npz"
        player = Searcher(str(best), plan.c, plan.mix) if best else PURE
        sims = plan.sims if best else plan.pure_sims
        games = plan.games if r or best else plan.first_games
        if data_path.exists():
            say(f"round {r}: self-play data already in {data_path}")
        else:
            say(f"round {r}: self-play, {games} games at {sims} simulations a move, {player}")
            pos = selfplay.generate(games, sims, player, plan.seed + 1000 * r, tasks,
                                    selfplay.print_progress)
            pos.save(data_path)
        t_play = time.perf_counter() - t0
        parts = [Positions.load(out / f"data_{k}.npz")
                 for k in range(max(0, r - plan.window + 1), r + 1)]
        newest = parts[-1]
        held = max(1, len(newest) // 20)  # the newest positions, kept out of training
        val = newest.rows(slice(-held, None))
        parts[-1] = newest.rows(slice(None, -held))
        train = Dataset(Positions.concat(parts), device)
        valid = Dataset(val, device)
        torch.manual_seed(plan.seed * 100 + r)  # the same weights whether resumed or not
        model = PolicyValue().to(device)
        say(f"round {r}: training on {len(train)} positions (x8 symmetries), {plan.epochs} "
            f"epochs")
        t1 = time.perf_counter()
        def report(e: int, n: int, model: PolicyValue = model, valid: Dataset = valid) -> None:
            say(f"  epoch {e}/{n}: held-out {evaluate_losses(model, valid)}")

        fit(model, train, plan.epochs, plan.seed * 100 + r, lr=plan.lr, report=report)
        losses = evaluate_losses(model, valid)
        t_train = time.perf_counter() - t1
        meta = {"command": command, "round": r, "plan": asdict(plan),
                "played_by": str(player),
                "played_by_sha256": sha256(player.net) if player.net else None,
                "data": [f"data_{k}.npz" for k in range(max(0, r - plan.window + 1), r + 1)],
                "positions": len(train), "torch": torch.__version__, "tasks": layout}
        save_net(to_net(model), candidate, meta)
        new = Searcher(str(candidate), plan.c, plan.mix)
        say(f"round {r}: gating match, {2 * plan.gate_pairs} games at {plan.gate_sims} "
            f"simulations, against {player}")
        gate = selfplay.match(new, player, plan.gate_sims, plan.gate_pairs, plan.seed * 100 + r,
                              tasks)
        gate_score = float(np.mean(gate)) / 2
        if best is None:
            pure = gate
        else:
            say(f"round {r}: against pure MCTS, {2 * plan.gate_pairs} games")
            pure = selfplay.match(new, PURE, plan.gate_sims, plan.gate_pairs,
                                  plan.seed * 100 + r, tasks)
        pure_elo = match_elo(pure, paired=True)
        accepted = gate_score >= plan.gate_score
        if accepted:
            best = candidate
        row = {"round": r, "positions": len(train), "policy_loss": losses.policy,
               "policy_entropy": losses.policy_entropy, "value_loss": losses.value,
               "gate_score": gate_score, "accepted": accepted,
               "pure_score": float(np.mean(pure)) / 2, "pure_elo": pure_elo.elo,
               "pure_elo_low": pure_elo.low, "pure_elo_high": pure_elo.high,
               "selfplay_s": t_play, "train_s": t_train,
               "total_s": time.perf_counter() - t0}
        with open(log, "a") as f:
            f.write(json.dumps(row) + "\n")
        say(f"round {r}: {losses}; gate {gate_score:.1%} ({'kept' if accepted else 'dropped'}); "
            f"against pure MCTS {pure_elo}")
        plot(log, out / "rounds.png")
    return best


def training_device(name: str) -> str:
    """The PyTorch device `name` stands for (``auto``: cuda when there is one)."""
    if name not in ("cpu", "cuda", "auto"):
        raise ValueError(f"{name!r}: not cpu, cuda or auto")
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("PyTorch sees no CUDA device here")
    return name


def device_option(name: str) -> str:
    """`training_device` for a command's ``--device``: a bad name is the option's error."""
    import typer

    try:
        return training_device(name)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--device") from None


def rounds_done(log: Path) -> dict[int, dict[str, Any]]:
    """The rounds an earlier run into the same directory finished (from its log)."""
    if not log.exists():
        return {}
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return {int(row["round"]): row for row in rows}


def plot(log: Path, path: Path) -> None:
    """Losses and strength per round, from the run's log."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    rows = [row for _, row in sorted(rounds_done(log).items())]
    r = [row["round"] for row in rows]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    a1.plot(r, [row["policy_loss"] for row in rows], "o-", label="policy (cross-entropy)")
    a1.plot(r, [row["policy_entropy"] for row in rows], ":",
            label="policy floor (targets' entropy)")
    a1.plot(r, [row["value_loss"] for row in rows], "s-", label="value (binary cross-entropy)")
    a1.set_xlabel("round")
    a1.set_ylabel("held-out loss")
    a1.legend()
    elo = [row["pure_elo"] for row in rows]
    err = [[row["pure_elo"] - row["pure_elo_low"] for row in rows],
           [row["pure_elo_high"] - row["pure_elo"] for row in rows]]
    a2.errorbar(r, elo, yerr=err, fmt="o-", capsize=3)
    for row in rows:
        a2.annotate("kept" if row["accepted"] else "dropped", (row["round"], row["pure_elo"]),
                    textcoords="offset points", xytext=(5, -12), fontsize=8)
    a2.set_xlabel("round")
    a2.set_ylabel("Elo against pure MCTS, equal simulations")
    a2.axhline(0, color="grey", lw=0.5)
    for ax in (a1, a2):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
