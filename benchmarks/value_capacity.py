"""Would a fast network with more capacity learn a deeper search's values? An offline
probe, no search: a fast network's first layer (trained on) and its value, plus a second
layer of K clipped-ReLU units added to the value (0: none, the one-layer network), trained
on `deep_labels.py`'s files (value target: 0.8 the search's value, 0.2 the result) and
scored against the search's values on the last tenth of the last file.

    .venv/bin/python benchmarks/value_capacity.py runs/wide/w1024p256.npz runs/deep 32 4 1e-3

Needs PyTorch (``pip install 'ninefold[train]'``).
"""

import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ninefold.learn.selfplay import Positions
from ninefold.players.fastnet import encode, load_fast_net, symmetries

NET, DEEP = sys.argv[1], Path(sys.argv[2])
K, EPOCHS, LR = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
BATCH = 2048


def features(pos: Positions) -> torch.Tensor:
    return torch.from_numpy(encode(pos.states.astype(np.int64), pos.flags.astype(np.int64)))


class Probe(nn.Module):
    """The fast network's first layer and value, plus K second-layer units on the value."""

    def __init__(self, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray) -> None:
        super().__init__()
        hidden = len(b1)
        self.l1 = nn.Linear(w1.shape[0], hidden)
        self.value = nn.Linear(hidden, 1)
        with torch.no_grad():
            self.l1.weight.copy_(torch.from_numpy(np.ascontiguousarray(w1.T)))
            self.l1.bias.copy_(torch.from_numpy(b1))
            self.value.weight.copy_(torch.from_numpy(w2[None].copy()))
            self.value.bias.copy_(torch.from_numpy(b2))
        self.l2 = nn.Linear(hidden, K) if K else None
        self.out = nn.Linear(K, 1) if K else None
        if self.out is not None:  # starts as the one-layer network
            nn.init.zeros_(self.out.weight)
            nn.init.zeros_(self.out.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.clamp(self.l1(x), 0, 1)
        v = self.value(h)[:, 0]
        if self.l2 is not None and self.out is not None:
            v = v + self.out(torch.clamp(self.l2(h), 0, 1))[:, 0]
        return v


def main() -> None:
    torch.manual_seed(1)
    files = sorted(DEEP.glob("deep_*.npz"), key=lambda p: int(p.stem.split("_")[1]))
    parts = [Positions.load(p) for p in files]
    cut = len(parts[-1]) - len(parts[-1]) // 10
    held = parts[-1].rows(slice(cut, None))
    parts[-1] = parts[-1].rows(slice(None, cut))
    data = Positions.concat(parts)
    x, hx = features(data), features(held).float()
    y = torch.from_numpy(0.8 * data.value + 0.2 * data.result).float()
    hv = torch.from_numpy(held.value).float()
    net = load_fast_net(NET)
    model = Probe(net.w1, net.b1, net.w2, net.b2)
    fmaps = torch.from_numpy(symmetries())
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=1e-4)
    steps = EPOCHS * ((len(y) + BATCH - 1) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LR, total_steps=steps)
    gen = torch.Generator().manual_seed(1)
    bce = nn.functional.binary_cross_entropy_with_logits

    def held_loss() -> float:
        with torch.no_grad():
            return float(bce(model(hx), hv))

    print(f"{len(y)} positions, {len(hv)} held out; K={K} before training: {held_loss():.4f}")
    t0 = time.time()
    for epoch in range(EPOCHS):
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), BATCH):
            ids = order[i:i + BATCH]
            k = int(torch.randint(8, (1,), generator=gen))
            xb = torch.empty_like(x[ids])
            xb[:, fmaps[k]] = x[ids]
            loss = bce(model(xb.float()), y[ids])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"K={K} epoch {epoch + 1}: held-out loss against the search's values "
              f"{held_loss():.4f} ({time.time() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
