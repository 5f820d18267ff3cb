"""Training the policy-value network on self-play positions (needs ``ninefold[train]``).

The network is `ninefold.players.net`'s perceptron, written here in PyTorch
for training only: `to_net` turns it into the plain arrays the numba search
reads, and `from_net` back, so a round can start from the last network. Each
batch is seen under one of the board's eight symmetries (rotations and
reflections of the 9x9 grid map small boards and cells alike), drawn at
random. Losses: cross-entropy of the move probabilities against the search's
visit shares, and binary cross-entropy of the value against the mean of the
game's result and the search's value of the root.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ninefold.jitcache import njit
from ninefold.learn.selfplay import Positions
from ninefold.moves import SYMMETRIES
from ninefold.players.net import MAX_ACTIVE, Net, features
from ninefold.players.net_inputs import BOARD_GROUPS, CELL_GROUPS, FEATURES, HIDDEN, LEGAL

VALUE_RESULT_SHARE = 0.5  # the value target: this share of the game's result, the rest the search's


class PolicyValue(nn.Module):
    """The network of `ninefold.players.net`, dense, for training."""

    def __init__(self, h1: int = HIDDEN[0], h2: int = HIDDEN[1]) -> None:
        super().__init__()
        self.l1 = nn.Linear(FEATURES, h1)
        self.l2 = nn.Linear(h1, h2)
        self.policy = nn.Linear(h2, 81)
        self.value = nn.Linear(h2, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(move logits, value logit) of a batch of feature rows."""
        h = torch.relu(self.l2(torch.relu(self.l1(x))))
        return self.policy(h), self.value(h).squeeze(1)


def to_net(model: PolicyValue) -> Net:
    """The model's weights as the search's plain arrays."""
    def a(t: torch.Tensor) -> np.ndarray:
        return np.ascontiguousarray(t.detach().cpu().numpy(), np.float32)
    return Net(a(model.l1.weight.T), a(model.l1.bias), a(model.l2.weight.T), a(model.l2.bias),
               a(model.policy.weight.T), a(model.policy.bias), a(model.value.weight[0]),
               a(model.value.bias))


def from_net(net: Net) -> PolicyValue:
    """A model holding `net`'s weights."""
    model = PolicyValue(net.b1.shape[0], net.b2.shape[0])
    with torch.no_grad():
        for param, array in ((model.l1.weight, net.w1.T), (model.l1.bias, net.b1),
                             (model.l2.weight, net.w2.T), (model.l2.bias, net.b2),
                             (model.policy.weight, net.wp.T), (model.policy.bias, net.bp),
                             (model.value.weight, net.wv[None, :]), (model.value.bias, net.bv)):
            param.copy_(torch.from_numpy(np.ascontiguousarray(array)))
    return model


@njit(cache=True)
def encode(states: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """The features of each position as a dense (n, FEATURES) uint8 array."""
    n = states.shape[0]
    out = np.zeros((n, FEATURES), np.uint8)
    idx = np.empty(MAX_ACTIVE, np.int64)
    s = np.empty(states.shape[1], np.int64)
    for i in range(n):
        for k in range(s.shape[0]):
            s[k] = states[i, k]
        m = features(s, flags[i], idx)
        for k in range(m):
            out[i, idx[k]] = 1
    return out


def symmetries() -> tuple[np.ndarray, np.ndarray]:
    """(feature maps (8, FEATURES), action maps (8, 81)): feature j goes to map[j]."""
    fmaps = np.tile(np.arange(FEATURES), (8, 1))
    amaps = np.zeros((8, 81), np.int64)
    for k, sq in enumerate(SYMMETRIES):
        for a in range(81):
            amaps[k, a] = 9 * sq[a // 9] + sq[a % 9]
        for base in CELL_GROUPS:
            fmaps[k, base:base + 81] = base + amaps[k]
        for base in BOARD_GROUPS:
            fmaps[k, base:base + 9] = base + np.array(sq)
    return fmaps, amaps


@dataclass
class Losses:
    policy: float  # cross-entropy against the visit shares
    value: float  # binary cross-entropy against the value target
    policy_entropy: float  # of the targets: the policy loss's floor

    def __str__(self) -> str:
        return (f"policy {self.policy:.3f} (targets' entropy {self.policy_entropy:.3f}), "
                f"value {self.value:.4f}")


class Dataset:
    """Positions as tensors: features, legal masks, policy and value targets."""

    def __init__(self, pos: Positions, device: str = "cpu") -> None:
        x = encode(pos.states.astype(np.int64), pos.flags.astype(np.int64))
        self.x = torch.from_numpy(x).to(device)
        self.legal = self.x[:, LEGAL:LEGAL + 81].bool()
        self.policy = torch.from_numpy(pos.policy.astype(np.float32)).to(device)
        value = VALUE_RESULT_SHARE * pos.result + (1 - VALUE_RESULT_SHARE) * pos.value
        self.value = torch.from_numpy(value.astype(np.float32)).to(device)

    def __len__(self) -> int:
        return len(self.value)


def _losses(model: PolicyValue, x: torch.Tensor, legal: torch.Tensor, policy: torch.Tensor,
            value: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    logits, v = model(x.float())
    logits = logits.masked_fill(~legal, -1e9)
    lp = torch.log_softmax(logits, 1)
    policy_loss = -(policy * lp).sum(1).mean()
    value_loss = nn.functional.binary_cross_entropy_with_logits(v, value)
    return policy_loss, value_loss


def evaluate_losses(model: PolicyValue, data: Dataset, batch: int = 4096) -> Losses:
    """The mean losses over `data`, with no symmetry."""
    total_p = total_v = 0.0
    with torch.no_grad():
        for i in range(0, len(data), batch):
            sl = slice(i, i + batch)
            p, v = _losses(model, data.x[sl], data.legal[sl], data.policy[sl], data.value[sl])
            n = len(data.value[sl])
            total_p += float(p) * n
            total_v += float(v) * n
        ent = -(data.policy * torch.log(data.policy.clamp_min(1e-12))).sum(1).mean()
    n = max(len(data), 1)
    return Losses(total_p / n, total_v / n, float(ent))


def fit(model: PolicyValue, data: Dataset, epochs: int, seed: int, batch: int = 1024,
        lr: float = 1e-3, report: Callable[[int, int], object] | None = None) -> None:
    """Train `model` on `data` for `epochs` passes (Adam, a random symmetry per batch),
    on the device `data` is on (`model` must be there too)."""
    gen = torch.Generator().manual_seed(seed)
    device = data.x.device
    fmaps, amaps = (torch.from_numpy(m).to(device) for m in symmetries())
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(data) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(steps, 1))
    step = 0
    for epoch in range(epochs):
        order = torch.randperm(len(data), generator=gen).to(device)
        for i in range(0, len(data), batch):
            ids = order[i:i + batch]
            k = int(torch.randint(8, (1,), generator=gen))
            x = torch.empty_like(data.x[ids])
            x[:, fmaps[k]] = data.x[ids]
            policy = torch.empty_like(data.policy[ids])
            policy[:, amaps[k]] = data.policy[ids]
            legal = x[:, LEGAL:LEGAL + 81].bool()
            p, v = _losses(model, x, legal, policy, data.value[ids])
            opt.zero_grad()
            (p + v).backward()
            opt.step()
            sched.step()
            step += 1
        if report is not None:
            report(epoch + 1, epochs)
