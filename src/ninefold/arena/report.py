"""Views of a run: the standings table, PNG plots, and export to game records."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TextIO

from rich.table import Table

from ninefold.arena.match import RunConfig, Standings
from ninefold.arena.storage import Storage
from ninefold.records import write_games


def load(db_path: str | Path) -> tuple[RunConfig | None, Standings]:
    with Storage(db_path, readonly=True) as db:
        stored = db.config()
        games = db.games()
    cfg = RunConfig.from_dict(stored) if stored else None
    names = [p.name for p in cfg.players] if cfg else sorted({g.x for g in games} |
                                                            {g.o for g in games})
    return cfg, Standings.of(names, games)


def standings_table(st: Standings, title: str = "standings", total: int | None = None) -> Table:
    """A Rich table: rank, player, games, W/D/L, score %, rating ± (Bradley-Terry Elo,
    mean 0, 95 %). The match line (`head_to_head_text`) gives the Elo *difference*
    estimated from the score of the pairs instead."""
    done = len(st.games)
    caption = (f"{done} games" + (f" of {total}" if total else "")
               + "; rating: Bradley-Terry Elo, mean 0, 95% interval")
    table = Table(title=title, caption=caption)
    for col, justify in (("#", "right"), ("player", "left"), ("games", "right"),
                         ("W-D-L", "right"), ("score", "right"), ("rating", "right")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    order = sorted(st.names, key=lambda n: -st.ratings.get(n, (0.0, 0.0))[0])
    for rank, name in enumerate(order, 1):
        played = st.played.get(name, 0)
        w, d, l = st.wdl.get(name, [0, 0, 0])  # noqa: E741
        pct = f"{100 * st.points.get(name, 0) / played:.1f}%" if played else "-"
        elo, err = st.ratings.get(name, (0.0, math.inf))
        table.add_row(str(rank), name, str(played), f"{w}-{d}-{l}", pct,
                      f"{elo:+.0f} ± {err:.0f}" if played else "-")
    return table


def head_to_head_text(st: Standings) -> str:
    """The match line: Elo of the first player against the second, pentanomial, LOS."""
    est = st.head_to_head()
    if not est.games:
        return "no games yet"
    a, b = st.names[0], st.names[1]
    if est.score >= 1.0 or est.score <= 0.0:
        elo = f"not bounded: {a if est.score >= 1.0 else b} scored 100%"
    else:
        elo = str(est)
    text = (f"{a} vs {b}: {est.score * 100:.1f}% of {est.games} games  "
            f"Elo difference (from the score) {elo}  LOS {est.los * 100:.1f}%")
    if est.pentanomial:
        text += f"  pentanomial {list(est.pentanomial)}"
    return text


def terminations_text(st: Standings) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(st.terminations.items(), key=lambda kv: -kv[1]))


def plot(st: Standings, out_dir: str | Path, stem: str = "arena") -> list[Path]:
    """Write ratings.png (Elo with 95 % error bars) and matrix.png (pairwise scores)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    order = sorted(st.names, key=lambda n: st.ratings.get(n, (0.0, 0.0))[0])
    elos = [st.ratings.get(n, (0.0, 0.0))[0] for n in order]
    errs = [min(st.ratings.get(n, (0.0, 0.0))[1], 2000) for n in order]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(order) + 1.5))
    ax.errorbar(elos, range(len(order)), xerr=errs, fmt="o", capsize=4)
    ax.set_yticks(range(len(order)), order)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("Elo (Bradley-Terry, mean 0), 95% interval")
    ax.set_title(f"Ratings after {len(st.games)} games")
    fig.tight_layout()
    path = out / f"{stem}-ratings.png"
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    paths.append(path)

    matrix = st.matrix()
    n = len(st.names)
    grid = [[math.nan if v is None else v for v in row] for row in matrix]
    side = max(4.5, 0.9 * n + 3)
    fig, ax = plt.subplots(figsize=(side + 1, side), layout="constrained")
    im = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(n), st.names, rotation=45, ha="right")
    ax.set_yticks(range(n), st.names)
    for i in range(n):
        for j in range(n):
            if matrix[i][j] is not None:
                ax.text(j, i, f"{100 * matrix[i][j]:.0f}%", ha="center", va="center")
    ax.set_title(f"Score of row against column ({len(st.games)} games)")
    fig.colorbar(im, ax=ax, shrink=0.8)
    path = out / f"{stem}-matrix.png"
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    paths.append(path)
    return paths


def export(db_path: str | Path, out: TextIO) -> int:
    """Write every stored game as a game record; returns how many."""
    with Storage(db_path, readonly=True) as db:
        games = db.games()
    write_games((g.to_game(Game=g.key) for g in games), out)
    return len(games)


def live_run(cfg: RunConfig, db_path: str | Path, *, jobs: int = 1,
             log_dir: str | Path | None = None, console=None, quiet: bool = False):
    """`ninefold.arena.match.run` with a live Rich view: progress and standings."""
    from rich.console import Console, Group
    from rich.live import Live
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from ninefold.arena.match import run, schedule

    console = console or Console()
    total = len(schedule(cfg))
    _, st = load(db_path)
    progress = Progress("[progress.description]{task.description}", BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=console)
    task = progress.add_task(cfg.name or cfg.format, total=total, completed=len(st.games))

    def view(st: Standings) -> Group:
        parts = [progress, standings_table(st, total=total)]
        if cfg.format == "match":
            parts.append(head_to_head_text(st))
        return Group(*parts)

    if quiet:
        return run(cfg, db_path, jobs=jobs, log_dir=log_dir)
    with Live(view(st), console=console, refresh_per_second=4) as live:
        def on_game(result, standings: Standings) -> None:
            progress.update(task, completed=len(standings.games))
            live.update(view(standings))

        report = run(cfg, db_path, jobs=jobs, log_dir=log_dir, on_game=on_game)
    if not console.is_terminal:  # Rich ends the last frame with a newline only on a terminal
        console.line()
    return report
