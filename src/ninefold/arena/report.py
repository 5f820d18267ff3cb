"""Views of a stored run, which they only read: the standings table, the match
line, PNG plots, and export to game records."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from rich.console import JustifyMethod
from rich.table import Table

from ninefold.arena.config import ArenaError, RunConfig
from ninefold.arena.standings import Standings
from ninefold.arena.storage import Storage
from ninefold.files import atomic_file
from ninefold.records import write_games

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def load(db_path: str | Path) -> tuple[RunConfig | None, Standings]:
    """The run stored in `db_path` (None if it holds only games) and its standings."""
    with Storage(db_path, readonly=True) as db:
        cfg = db.config()
        games = db.games()
    names = [p.name for p in cfg.players] if cfg else sorted({g.x for g in games} |
                                                            {g.o for g in games})
    return cfg, Standings.of(names, games)


@dataclass(frozen=True)
class Row:
    """One player's line of the standings."""

    rank: int
    name: str
    played: int
    wdl: tuple[int, int, int]
    score: float | None  # the share of points, None before a game
    elo: float
    err: float  # the 95% interval's half width (inf: not bounded)


def standings_rows(st: Standings) -> list[Row]:
    """The players best first (by Bradley-Terry rating)."""
    order = sorted(st.names, key=lambda n: -st.ratings.get(n, (0.0, 0.0))[0])
    rows = []
    for rank, name in enumerate(order, 1):
        played = st.played.get(name, 0)
        w, d, l = st.wdl.get(name, [0, 0, 0])  # noqa: E741
        elo, err = st.ratings.get(name, (0.0, math.inf))
        rows.append(Row(rank, name, played, (w, d, l),
                        st.points.get(name, 0) / played if played else None, elo, err))
    return rows


def standings_table(st: Standings, title: str = "standings", total: int | None = None) -> Table:
    """A Rich table: rank, player, games, W/D/L, score %, rating ± (Bradley-Terry Elo,
    mean 0, 95 %). The match line (`head_to_head_text`) gives the Elo *difference*
    estimated from the score of the pairs instead."""
    done = len(st.games)
    caption = (f"{done} games" + (f" of {total}" if total else "")
               + "; rating: Bradley-Terry Elo, mean 0, 95% interval")
    table = Table(title=title, caption=caption)
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("#", "right"), ("player", "left"), ("games", "right"), ("W-D-L", "right"),
        ("score", "right"), ("rating", "right"))
    for col, justify in columns:
        table.add_column(col, justify=justify)
    for row in standings_rows(st):
        w, d, l = row.wdl  # noqa: E741
        table.add_row(str(row.rank), row.name, str(row.played), f"{w}-{d}-{l}",
                      "-" if row.score is None else f"{100 * row.score:.1f}%",
                      f"{row.elo:+.0f} ± {row.err:.0f}" if row.played else "-")
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


def plot(st: Standings, out_dir: str | Path, stem: str = "arena") -> list[Path]:
    """Write ratings.png (Elo with 95 % error bars) and matrix.png (pairwise scores)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ArenaError(f"--out {out} is a file, not a folder for the plots")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ArenaError(f"cannot make the folder {out}: {exc.strerror}") from None
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
    _save(fig, path)
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
            score = matrix[i][j]
            if score is not None:
                ax.text(j, i, f"{100 * score:.0f}%", ha="center", va="center")
    ax.set_title(f"Score of row against column ({len(st.games)} games)")
    fig.colorbar(im, ax=ax, shrink=0.8)
    path = out / f"{stem}-matrix.png"
    _save(fig, path)
    paths.append(path)
    return paths


def _save(fig: Figure, path: Path) -> None:
    import matplotlib.pyplot as plt

    try:
        with atomic_file(path, binary=True) as file:
            fig.savefig(file, format="png", dpi=100, bbox_inches="tight")
    except OSError as exc:
        raise ArenaError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)


def export(db_path: str | Path, out: IO[str]) -> int:
    """Write every stored game as a game record; returns how many."""
    with Storage(db_path, readonly=True) as db:
        games = db.games()
    write_games((g.to_game(Game=str(g.key)) for g in games), out)
    return len(games)


def export_file(db_path: str | Path, output: str | Path, *, force: bool = False) -> int:
    """`export` into the file `output`, never onto the database itself, nor onto
    an existing file unless `force`. Written to a temporary file in the same
    folder, then renamed: a failure leaves no partial file. Returns how many games."""
    db, out = Path(db_path), Path(output)
    if out.exists() and (out.resolve() == db.resolve() or os.path.samefile(out, db)):
        raise ArenaError(f"-o {out} is the results database itself: choose another file")
    if out.exists() and not force:
        raise ArenaError(f"{out} already exists: choose another file, or --force to replace it")
    if out.is_dir():
        raise ArenaError(f"{out} is a folder: give a file name")
    try:
        with atomic_file(out) as f:
            return export(db, f)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise ArenaError(f"cannot write {out}: {exc.strerror or exc}") from None
