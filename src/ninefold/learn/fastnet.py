"""``python -m ninefold.learn.fastnet``: the fast network (`ninefold.players.fastnet`),
trained on self-play positions.

    python -m ninefold.learn.fastnet runs/fast/data_*.npz --out runs/fast/fast.npz

The positions are self-play's (`ninefold.learn.selfplay.Positions`, the
``data_K.npz`` files of ``ninefold train rounds`` or ``distill``). The network
is `ninefold.players.fastnet`'s: 383 plain inputs, one hidden layer of 256
clipped ReLU, a value and 81 move logits. The policy is trained towards the
search's visit shares (its loss weighted ``--policy-weight``; 0: no policy).
The value's target for a position blends the game's result
(``--result-share``), the policy-value network's own value of it
(``--teacher-share``, the shipped network unless ``--teacher``) and the rest
the search's value of it; the policy's blends the search's visit shares and
that network's policy in the same teacher's share. Each batch is seen under one
of the board's eight symmetries. The last tenth of the last file is held out; the loss on it (binary
cross-entropy against the search's value alone, and against the blended target)
is printed after each epoch and kept in the network's ``meta``, with the
command, the data files' checksums and the teacher's. ``--start FILE`` trains on
from a fast network's weights (its hidden size, and the policy on as many units)
instead of random ones: a network moved towards new targets, such as the values of
deeper searches, at a lower ``--lr``.
"""

from __future__ import annotations

import hashlib
import platform
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer

from ninefold.learn.commands import (
    DEVICE,
    DEVICE_HELP,
    TrainingError,
    given_command,
    module_app,
    need_torch,
)
from ninefold.players.fastnet import (
    FEATURES,
    HIDDEN,
    FastNet,
    FastNetError,
    action_maps,
    encode,
    load_fast_net,
    save_fast_net,
    symmetries,
)
from ninefold.players.fastnet import policy_units as read_units

if TYPE_CHECKING:
    from ninefold.learn.selfplay import Positions
    from ninefold.players.net import Net


BLOCK = 500_000  # positions turned into tensors at a time


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def targets(positions: Positions, legal: np.ndarray, result_share: float,
            teacher_share: float, teacher: Net | None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the blended value targets, the search's values, the policy targets) of
    `positions` (`legal`: their legal moves; `teacher`: the network whose share is
    `teacher_share`, None when that is 0)."""
    from ninefold.learn.distill import teacher_outputs

    value = positions.value.astype(np.float32)
    result = positions.result.astype(np.float32)
    target = (1.0 - result_share - teacher_share) * value + result_share * result
    policy = positions.policy.astype(np.float32)
    if teacher is not None and teacher_share > 0:
        states, flags = positions.states.astype(np.int64), positions.flags.astype(np.int64)
        logits = np.zeros((len(flags), 81), np.float32)
        own = np.zeros(len(flags), np.float32)
        teacher_outputs(teacher, states, flags, logits, own)
        target += teacher_share * own
        logits = np.where(legal, logits, -np.inf)
        shares = np.exp(logits - logits.max(axis=1, keepdims=True))
        shares /= shares.sum(axis=1, keepdims=True)
        policy = (1.0 - teacher_share) * policy + teacher_share * shares.astype(np.float32)
    return target.astype(np.float32), value, policy


def legal_masks(states: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """(n, 81) bool: the legal moves of each position."""
    from ninefold.learn.train import encode as encode_all
    from ninefold.players.net_inputs import LEGAL

    return encode_all(states, flags)[:, LEGAL:LEGAL + 81].astype(bool)


def arrays(pos: Positions, result_share: float, teacher_share: float, teacher: str,
           block: int = BLOCK) -> tuple[np.ndarray, ...]:
    """What training needs of `pos`: the features (uint8), the blended value targets, the
    search's values, the legal moves and the policy targets (float16). Built `block`
    positions at a time, so that tens of millions of positions fit in memory (about 630
    bytes a position)."""
    from ninefold.players.net import load_net

    net = load_net(teacher) if teacher_share > 0 else None
    n = len(pos)
    x = np.empty((n, FEATURES), np.uint8)
    t, v = np.empty(n, np.float32), np.empty(n, np.float32)
    legal, p = np.empty((n, 81), bool), np.empty((n, 81), np.float16)
    for i in range(0, n, block):
        part = pos.rows(slice(i, i + block))
        states, flags = part.states.astype(np.int64), part.flags.astype(np.int64)
        legal[i:i + block] = legal_masks(states, flags)
        x[i:i + block] = encode(states, flags)
        t[i:i + block], v[i:i + block], p[i:i + block] = targets(
            part, legal[i:i + block], result_share, teacher_share, net)
    return x, t, v, legal, p


def train(files: list[Path], out: Path, epochs: int, hidden: int, lr: float, batch: int,
          result_share: float, teacher_share: float, teacher: str, policy_weight: float,
          seed: int, device: str, command: str, policy_units: int | None = None,
          start: Path | None = None) -> dict[str, object]:
    """Train and save the network (from the weights of `start` if given); returns its
    meta."""
    import torch
    from torch import nn

    from ninefold.learn.selfplay import Positions

    torch.manual_seed(seed)
    parts = [Positions.load(p) for p in files]
    last = parts[-1]
    cut = len(last) - len(last) // 10
    held = last.rows(slice(cut, None))
    parts[-1] = last.rows(slice(None, cut))
    data = Positions.concat(parts)
    print(f"{len(data)} positions to train on, {len(held)} held out", file=sys.stderr)

    def tensors(pos: Positions) -> tuple[torch.Tensor, ...]:
        return tuple(torch.from_numpy(a).to(device)
                     for a in arrays(pos, result_share, teacher_share, teacher))

    x, y, _, legal, policy = tensors(data)
    hx, hy, hv, hlegal, hpolicy = tensors(held)
    positions = len(data)
    del parts, data  # the tensors hold what training needs

    units = hidden if policy_units is None else policy_units

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l1 = nn.Linear(FEATURES, hidden)
            self.value = nn.Linear(hidden, 1)
            self.policy = nn.Linear(units, 81)  # from the first `units` hidden units

        def forward(self, xs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = torch.clamp(self.l1(xs), 0.0, 1.0)
            return self.value(h)[:, 0], self.policy(h[:, :units])

    model = Model().to(device)
    if start is not None:
        begin = load_fast_net(start)
        with torch.no_grad():
            for param, array in ((model.l1.weight, begin.w1.T), (model.l1.bias, begin.b1),
                                 (model.value.weight[0], begin.w2), (model.value.bias, begin.b2),
                                 (model.policy.weight, begin.wp[:units].T),
                                 (model.policy.bias, begin.bp)):
                param.copy_(torch.from_numpy(np.ascontiguousarray(array)))
    if policy_weight == 0:
        nn.init.zeros_(model.policy.weight)
        nn.init.zeros_(model.policy.bias)
        model.policy.requires_grad_(False)
    fmaps = torch.from_numpy(symmetries()).to(device)
    amaps = torch.from_numpy(action_maps()).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(y) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(steps, 1))
    gen = torch.Generator().manual_seed(seed)
    bce = nn.functional.binary_cross_entropy_with_logits

    def policy_loss(logits: torch.Tensor, lg: torch.Tensor, pol: torch.Tensor) -> torch.Tensor:
        lp = torch.log_softmax(logits.masked_fill(~lg, -1e9), 1)
        return -(pol * lp).sum(1).mean()

    def held_losses() -> tuple[float, float, float]:
        with torch.no_grad():
            value_logit, logits = model(hx.float())
            return (float(bce(value_logit, hv)), float(bce(value_logit, hy)),
                    float(policy_loss(logits, hlegal, hpolicy.float())))

    history = []
    t0 = time.perf_counter()
    for epoch in range(epochs):
        order = torch.randperm(len(y), generator=gen).to(device)
        for i in range(0, len(y), batch):
            ids = order[i:i + batch]
            k = int(torch.randint(8, (1,), generator=gen))
            xb = torch.empty_like(x[ids])
            xb[:, fmaps[k]] = x[ids]
            value_logit, logits = model(xb.float())
            loss = bce(value_logit, y[ids])
            if policy_weight > 0:
                lg = torch.empty_like(legal[ids])
                lg[:, amaps[k]] = legal[ids]
                pol = torch.empty(len(ids), 81, device=device)
                pol[:, amaps[k]] = policy[ids].float()
                loss = loss + policy_weight * policy_loss(logits, lg, pol)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        search_loss, target_loss, move_loss = held_losses()
        history.append([round(search_loss, 5), round(target_loss, 5), round(move_loss, 5)])
        print(f"epoch {epoch + 1}/{epochs}: held-out loss {search_loss:.4f} against the "
              f"search's values, {target_loss:.4f} against the targets, policy "
              f"{move_loss:.4f} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    wp = torch.zeros(hidden, 81, device=device)  # the units the policy does not read: 0
    wp[:units] = model.policy.weight.T
    net = FastNet(*(a.detach().cpu().numpy().astype(np.float32) for a in (
        model.l1.weight.T.contiguous(), model.l1.bias, model.value.weight[0], model.value.bias,
        wp, model.policy.bias)))
    # the floor of the held-out loss: the search values' own entropy
    v = np.clip(held.value.astype(np.float64), 1e-6, 1 - 1e-6)
    floor = float(-(v * np.log(v) + (1 - v) * np.log(1 - v)).mean())
    meta: dict[str, object] = {
        "kind": "value", "command": command, "seed": seed, "hidden": hidden, "epochs": epochs,
        "lr": lr, "batch": batch, "result_share": result_share,
        "teacher_share": teacher_share, "policy_weight": policy_weight,
        "policy_units": units,
        "teacher": _sha(Path(teacher)) if teacher_share > 0 else None,
        "start": None if start is None else {str(start): _sha(start)},
        "data": {str(p): _sha(p) for p in files}, "positions": positions,
        "held_out": len(held), "held_out_losses": history, "held_out_floor": round(floor, 5),
        "machine": platform.node(), "torch": torch.__version__,
    }
    save_fast_net(net, out, meta)
    return meta


def main(
    ctx: typer.Context,
    data: Annotated[list[Path], typer.Argument(help="Self-play positions (data_K.npz files).")],
    out: Annotated[Path, typer.Option(help="The network file to write.")] = Path(
        "runs/fast.npz"),
    epochs: int = typer.Option(8, min=1, help="Training passes over the data."),
    hidden: int = typer.Option(HIDDEN, min=1, help="Hidden units."),
    lr: float = typer.Option(2e-3, min=1e-6, max=1.0, help="Peak learning rate."),
    batch: int = typer.Option(2048, min=1, help="Positions a step."),
    result_share: float = typer.Option(0.5, min=0.0, max=1.0,
                                       help="The game's result's share of a target."),
    teacher_share: float = typer.Option(0.0, min=0.0, max=1.0,
                                        help="The policy-value network's share of a target."),
    teacher: str = typer.Option("default", help="That network's weights file."),
    policy_weight: float = typer.Option(1.0, min=0.0, help="The policy loss's weight "
                                        "(0: no policy head, the search's priors are equal)."),
    policy_units: int | None = typer.Option(
        None, min=1, help="Hidden units the policy reads, the first ones (default: all): "
        "a move's logit costs the search a product of this size."),
    seed: int = typer.Option(1, help="Seed of everything random."),
    device: str = typer.Option("cpu", metavar=DEVICE, help=DEVICE_HELP),
    start: Annotated[Path | None, typer.Option(help="A fast network to train on from (its "
                                               "hidden size; the policy on as many units).")
                     ] = None,
) -> None:
    """Train the fast network (for the search's speed) on self-play positions."""
    from ninefold.learn.distill import positions_problem
    from ninefold.players.net_inputs import net_path

    if result_share + teacher_share > 1:
        raise typer.BadParameter("--result-share and --teacher-share add up to more than 1")
    if policy_units is not None and policy_units > hidden:
        raise typer.BadParameter(f"--policy-units {policy_units} is more than the "
                                 f"{hidden} hidden units")
    if start is not None:
        try:
            begin = load_fast_net(start)
        except FastNetError as exc:
            raise typer.BadParameter(str(exc), param_hint="--start") from None
        read = read_units(begin)
        if begin.b1.shape[0] != hidden or read > (policy_units or hidden):
            raise typer.BadParameter(
                f"{str(start)!r} has {begin.b1.shape[0]} hidden units, the policy on {read}: "
                "give --hidden and --policy-units to match", param_hint="--start")
    for path in data:
        problem = positions_problem(path)
        if problem:
            raise typer.BadParameter(f"{str(path)!r}: {problem}", param_hint="DATA")
    need_torch(ctx)
    from ninefold.learn.rounds import device_option

    device_option(device)
    teacher_file = str(net_path(teacher))
    if teacher_share > 0 and not Path(teacher_file).is_file():
        raise TrainingError(f"--teacher: no network file {teacher_file!r}")
    meta = train(list(data), out, epochs, hidden, lr, batch, result_share, teacher_share,
                 teacher_file, policy_weight, seed, device, given_command(ctx), policy_units,
                 start)
    print(f"{out}: held-out loss {meta['held_out_losses'][-1]}")  # type: ignore[index]


if __name__ == "__main__":
    module_app(main, "ninefold.learn.fastnet")()
