"""Draw docs/images/strength.png and print the table of docs/guide/strength.md: how the
default player (``mcts:net=default``, what ``ninefold play`` and ``ninefold bot`` use)
scored against other engines and its own past, at each clock.

    .venv/bin/python benchmarks/strength_figure.py [--out docs/images/strength.png]

The matches are the research record's (each row names its section and command);
this script only draws them. Where the record gives the Elo and its 95% interval from
paired openings, those are drawn; elsewhere (`interval` None) the interval comes from
the games' scores alone (`ninefold.arena.ratings.match_elo`, unpaired: a little wider).
A new default means new matches: the rows here change with them.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from ninefold.arena.ratings import match_elo


@dataclass(frozen=True)
class Match:
    opponent: str
    clock: str
    wins: int
    draws: int
    losses: int
    as_x: str  # the default's score as X and as O, as recorded
    as_o: str
    interval: tuple[float, float, float] | None  # (Elo, low, high) as recorded, paired
    source: str  # the research record's page and section
    command: str

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def elo(self) -> tuple[float, float, float]:
        if self.interval is not None:
            return self.interval
        e = match_elo([1.0] * self.wins + [0.5] * self.draws + [0.0] * self.losses)
        return e.elo, e.low, e.high


MATCHES = [
    Match("OpenSpiel's MCTSBot", "100 ms a move, in one process", 387, 12, 1, "", "",
          None, "network-rounds.md, A third round under every preset",
          "strength.py mcts:net=default openspiel --ms 100 --games 200 --jobs 2 --seed 108 "
          "(and --seed 109)"),
    Match("OpenSpiel's MCTSBot",
          "CodinGame's clock, both bots as processes, ninefold on two threads", 200, 0, 0,
          "100%", "100%", None,
          "fast-network.md, Third session (records/codingame_default_vs_openspiel.jsonl)",
          "strength.py @ openspiel --subprocess --protocol codingame --ms 100 --games 200 "
          "--jobs 1 --seed 110"),
    Match("ninefold of 2026-11-29, before the deep lines",
          "CodinGame's clock, both bots as processes, three runs", 181, 69, 152, "85.6%",
          "21.6%", (23.0, 2.0, 44.0),
          "fast-network.md, Sixth session (records/codingame_default_vs_5f11706_run*.jsonl)",
          "strength.py mcts:net=default mcts:net=default@5f11706 --subprocess --games 134 "
          "--jobs 2 --first-move-ms 3000 --settle-ms 3000, three times; compare_runs.py"),
    Match("ninefold of 2026-11-25", "CodinGame's clock, both bots as processes",
          141, 18, 41, "98.5%", "51.5%", (191.0, 152.0, 235.0),
          "network-rounds.md, A third round under every preset",
          "strength.py mcts:net=default mcts:net=default@e827b65 --subprocess --protocol "
          "codingame --games 200 --jobs 1 --seed 505 --first-move-ms 3000"),
    Match("ninefold of 2026-11-25", "100 ms a move, both bots as processes",
          159, 15, 26, "96.5%", "70.0%", (279.0, 227.0, 343.0),
          "network-rounds.md, A third round under every preset",
          "strength.py mcts:net=default,ms=100 mcts:net=default,ms=100@e827b65 --subprocess "
          "--protocol riddles --rules codingame --games 200 --seed 502 --first-move-ms 3000"),
    Match("ninefold of 2026-11-25", "Riddles' clock (10 s + 0.5 s a move)",
          77, 45, 31, "74.0%", "55.9%", (108.0, 62.0, 158.0),
          "network-rounds.md, A third round under every preset",
          "strength.py mcts:net=default mcts:net=default@e827b65 --subprocess --protocol "
          "riddles --games 200 --jobs 2 --seed 398 (stopped after 153 games)"),
    Match("the network before (shipped until 2026-11-29)",
          "CodinGame's clock, both bots as processes", 118, 9, 73, "96.5%", "26.0%",
          (80.0, 46.0, 114.0), "network-rounds.md, A third round under every preset",
          "strength.py mcts:net=NEW.npz mcts:net=default --subprocess --protocol codingame "
          "--games 200 --jobs 1 --seed 522 --first-move-ms 3000"),
    Match("the network before (shipped until 2026-11-29)",
          "Riddles' clock (10 s + 0.5 s a move)", 53, 97, 50, "56.0%", "45.5%",
          (5.0, -24.0, 35.0), "network-rounds.md, A third round under every preset",
          "strength.py mcts:net=default mcts:net=PREVIOUS.npz --subprocess --protocol "
          "riddles --games 200 --jobs 2 --seed 399"),
]


def elo_text(m: Match) -> str:
    """``+191 [+152, +235]``, or for a score of 100% its interval's lower end alone."""
    elo, low, high = m.elo()
    if not math.isfinite(high):
        return f"at least {low:+.0f} (no game lost)"
    return f"{elo:+.0f} [{low:+.0f}, {high:+.0f}]"


def table() -> str:
    """The matches as the guide's Markdown table."""
    lines = ["| against | clock | games | W-D-L | score | Elo (95% interval) | as X / as O |",
             "|---|---|---:|---|---:|---|---|"]
    for m in MATCHES:
        score = (m.wins + 0.5 * m.draws) / m.games
        side = f"{m.as_x} / {m.as_o}" if m.as_x else ""
        lines.append(f"| {m.opponent} | {m.clock} | {m.games} | {m.wins}-{m.draws}-{m.losses} "
                     f"| {100 * score:.1f}% | {elo_text(m)} | {side} |")
    return "\n".join(lines)


def draw(out: str) -> None:
    fig, ax = plt.subplots(figsize=(9, 4.2))
    labels, elos = [], []
    for i, m in enumerate(MATCHES):
        elo, low, high = m.elo()
        colour = "#2e7d32" if m.opponent.startswith("OpenSpiel") else (
            "#1f4fbf" if m.opponent.startswith("ninefold of") else "#8e44ad")
        if math.isfinite(high):
            ax.errorbar(elo, i, xerr=[[elo - low], [high - elo]], fmt="o", color=colour,
                        capsize=4, lw=1.8)
            ax.text(high + 15, i, f"{elo:+.0f}", va="center", fontsize=9)
            elos.append(high)
        else:  # no game lost: the interval's lower end, open to the right
            ax.annotate("", xy=(low + 160, i), xytext=(low, i),
                        arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.8})
            ax.plot([low], [i], "|", color=colour, ms=10, mew=1.8)
            ax.text(low + 175, i, f"at least {low:+.0f}", va="center", fontsize=9)
            elos.append(low + 160)
        threads = " (two threads)" if "two threads" in m.clock else ""
        labels.append(f"{m.opponent.split(' (')[0]}\n{m.clock.split(',')[0]}{threads}")
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks(range(len(MATCHES)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("Elo of ninefold's default player over the opponent (95% interval)")
    ax.set_xlim(-100, max(elos) + 200)
    ax.set_title("How strong is the default player (mcts:net=default)?", fontsize=11)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images/strength.png")
    args = parser.parse_args()
    draw(args.out)
    print(table())
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
