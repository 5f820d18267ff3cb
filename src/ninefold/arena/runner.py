"""Running a match or tournament: a deterministic schedule of games, played
concurrently, stored as they finish, resumable after any crash or Ctrl-C.

Each game has a key (`GameKey`: the pairing's two names, the round, the
colour): the two games of a round share one opening with the colours
swapped. The configuration is stored with the results, so ``--resume``
rebuilds the same keys and plays only the missing ones; more games per
pairing extend a run. The schedule is generated lazily: a long run costs no
memory before its first game.

>>> from ninefold.arena.config import Openings
>>> from ninefold.arena.referee import Seat
>>> cfg = RunConfig(players=[Seat.builtin("random:seed=1", "a"),
...                          Seat.builtin("random:seed=2", "b")], games=4,
...                 openings=Openings.parse("none"))
>>> [str(g.key) for g in schedule(cfg)][:2]
['["a", "b", 0, 0]', '["a", "b", 0, 1]']
"""

from __future__ import annotations

import concurrent.futures as cf
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ninefold.arena.config import ArenaError, RunConfig
from ninefold.arena.referee import Abort, Aborted, GameKey, GameResult, play_game
from ninefold.arena.standings import Standings
from ninefold.arena.storage import Storage


@dataclass(frozen=True)
class ScheduledGame:
    key: GameKey
    seq: int  # position in the schedule
    x: int  # who plays X and O (indices into the config's players)
    o: int
    opening: str | None


def schedule(cfg: RunConfig) -> Iterator[ScheduledGame]:
    """Every game of the run, in order: rounds outside, pairings inside, so that a
    partial run is balanced and a longer run extends a shorter one."""
    pairings = cfg.pairings()
    seq = 0
    for r in range(cfg.rounds):
        opening = cfg.openings.for_round(r, cfg.seed)
        for a, b in pairings:
            for colour in (0, 1):
                if 2 * r + colour >= cfg.games:
                    break
                x, o = (a, b) if colour == 0 else (b, a)
                key = GameKey(cfg.players[a].name, cfg.players[b].name, r, colour)
                yield ScheduledGame(key, seq, x, o, opening)
                seq += 1


@dataclass
class RunReport:
    total: int
    played_now: int
    stored: int
    sprt: str | None = None
    stopped_early: bool = False


def plan_run(cfg: RunConfig | None, db_path: str | Path, resume: bool,
             changes: dict[str, Any] | None = None, games_given: bool = True) -> RunConfig:
    """The configuration to run in `db_path`, refused with `ArenaError` when it cannot
    be: a database of another run without `resume`, a resume with other settings
    (more games per pairing extend the run), nothing to resume. `changes` apply to
    the stored configuration when `cfg` is None; unless `games_given`, a resumed
    run keeps its stored number of games. Writes nothing."""
    path = Path(db_path)
    stored, count = None, 0
    if path.exists():
        if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
            raise ArenaError(f"cannot write to {path}: the file or its folder is read-only")
        with Storage(path) as db:
            stored, count = db.config(), db.count()
    elif cfg is not None and not path.parent.is_dir():
        raise ArenaError(f"cannot create {path}: no folder {path.parent}")
    elif cfg is not None and not os.access(path.parent, os.W_OK):
        raise ArenaError(f"cannot create {path}: the folder {path.parent} is read-only")
    if stored is None:
        if cfg is None:
            raise ArenaError(f"nothing to resume: {path} " + (
                "holds no run" if path.exists() else "does not exist"))
        return cfg
    if not resume:
        if count:
            raise ArenaError(f"{path} already holds {count} games of a run: pass --resume "
                             "to continue it, or choose another database")
        return cfg or stored
    if cfg is None:
        cfg = replace(stored, **changes) if changes else stored
    elif not games_given:
        cfg = replace(cfg, games=stored.games)
    diffs = stored.differences(cfg)
    if diffs:
        raise ArenaError(f"--resume: the settings differ from the run stored in {path}: "
                         + "; ".join(diffs) + " (resume with the stored settings, or start "
                         "a new run in another database)")
    if cfg.games < stored.games:
        raise ArenaError(f"--resume: {path} holds a run of {stored.games} games per pairing; "
                         f"{cfg.games} would drop some: give --games {stored.games} or more "
                         "to extend it")
    return cfg


def open_run(cfg: RunConfig | None, db_path: str | Path, resume: bool) -> RunConfig:
    """`plan_run`, then store the configuration (creating the database)."""
    cfg = plan_run(cfg, db_path, resume)
    start_run(cfg, db_path)
    return cfg


def start_run(cfg: RunConfig, db_path: str | Path) -> None:
    """Store `cfg` in `db_path`: a database that cannot be written fails here, before
    any game is played."""
    with Storage(db_path) as db:
        db.set_config(cfg)


def run(cfg: RunConfig, db_path: str | Path, *, jobs: int = 1, log_dir: str | Path | None = None,
        on_game: Callable[[GameResult, Standings], None] | None = None,
        max_games: int | None = None) -> RunReport:
    """Play the games of `cfg` that `db_path` does not hold yet, `jobs` at a time,
    storing each as it finishes. Stops early when the SPRT decides.

    On KeyboardInterrupt every bot is closed at once (external bots' processes
    killed), the games that finished are kept, and the interrupt goes on."""
    names = [p.name for p in cfg.players]
    jobs = max(1, jobs)
    db = Storage(db_path)
    abort = Abort()
    played = 0
    decision = None
    try:
        done = db.done_keys()
        todo: Iterator[ScheduledGame] = (g for g in schedule(cfg) if g.key not in done)
        stored = db.games()
        standings = Standings.of(names, stored)
        if cfg.sprt and stored:
            decision = cfg.sprt.decision(*standings.pair_scores(names[0], names[1]))
        running: dict[cf.Future[GameResult], ScheduledGame] = {}

        def keep(fut: cf.Future[GameResult], game: ScheduledGame) -> None:
            nonlocal played, standings, decision
            try:
                result = fut.result()
            except Aborted:
                return
            if db.save(result, game.seq):
                played += 1
                stored.append(result)
            standings = Standings.of(names, stored)
            if cfg.sprt and decision is None:
                decision = cfg.sprt.decision(*standings.pair_scores(names[0], names[1]))
            if on_game:
                on_game(result, standings)

        with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
            def submit() -> None:
                nonlocal max_games
                while len(running) < jobs and decision is None and max_games != 0:
                    game = next(todo, None)
                    if game is None:
                        return
                    if max_games is not None:
                        max_games -= 1
                    fut = pool.submit(
                        play_game, cfg.players[game.x], cfg.players[game.o], rules=cfg.rules,
                        opening=game.opening, first_move_ms=cfg.first_move_ms,
                        slack_ms=cfg.slack_ms, log_dir=log_dir, key=game.key, abort=abort)
                    running[fut] = game
            try:
                submit()
                while running:
                    finished, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                    for fut in finished:
                        keep(fut, running.pop(fut))
                    submit()
            except BaseException:
                abort.set()
                for fut in running:
                    fut.cancel()
                for fut in cf.as_completed(running):  # quick: their bots are closed
                    if not fut.cancelled() and fut.exception() is None:
                        db.save(fut.result(), running[fut].seq)
                raise
    finally:
        total_stored = db.count()
        db.close()
    early = decision is not None and total_stored < cfg.total_games
    return RunReport(total=cfg.total_games, played_now=played, stored=total_stored,
                     sprt=decision, stopped_early=early)


def live_run(cfg: RunConfig, db_path: str | Path, *, jobs: int = 1,
             log_dir: str | Path | None = None, console: Any = None,
             quiet: bool = False) -> RunReport:
    """`run` with a live Rich view: progress and standings."""
    from rich.console import Console, Group
    from rich.live import Live
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from ninefold.arena.report import head_to_head_text, load, standings_table

    if quiet:
        return run(cfg, db_path, jobs=jobs, log_dir=log_dir)
    console = console or Console()
    total = cfg.total_games
    _, st = load(db_path)
    progress = Progress("[progress.description]{task.description}", BarColumn(),
                        MofNCompleteColumn(), TimeElapsedColumn(), console=console)
    task = progress.add_task(cfg.name or cfg.format, total=total, completed=len(st.games))

    def view(st: Standings) -> Group:
        parts: list[Any] = [progress, standings_table(st, total=total)]
        if cfg.format == "match":
            parts.append(head_to_head_text(st))
        return Group(*parts)

    with Live(view(st), console=console, refresh_per_second=4) as live:
        def on_game(result: GameResult, standings: Standings) -> None:
            progress.update(task, completed=len(standings.games))
            live.update(view(standings))

        report = run(cfg, db_path, jobs=jobs, log_dir=log_dir, on_game=on_game)
    if not console.is_terminal:  # Rich ends the last frame with a newline only on a terminal
        console.line()
    return report

