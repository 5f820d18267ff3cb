"""Matches and tournaments: a deterministic schedule of games, run concurrently,
stored as they finish, resumable after any crash.

A run is described by a `RunConfig` (players, pairings, games per pairing,
openings, rules, time allowances, SPRT). Its schedule is a list of games,
each with a key ``A|B|round|colour``: the two games of a round share one
opening with the colours swapped. The configuration is stored in the
database with the results, so ``--resume`` rebuilds the same keys and plays
only the missing ones.

>>> cfg = RunConfig(players=[Seat.builtin("random:seed=1", "a"),
...                          Seat.builtin("random:seed=2", "b")], games=4, openings="none")
>>> [g.key for g in schedule(cfg)]
['a|b|0|0', 'a|b|0|1', 'a|b|1|0', 'a|b|1|1']
"""

from __future__ import annotations

import concurrent.futures as cf
import random
import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ninefold.arena.ratings import Sprt, bradley_terry, match_elo
from ninefold.arena.referee import Aborted, GameResult, Seat, play_game
from ninefold.arena.storage import Storage
from ninefold.rules import Rules, opening_moves, random_opening


class ArenaError(ValueError):
    """A run that cannot start: bad configuration, a database of another run, a bot
    that fails its input test."""


@dataclass
class RunConfig:
    """Everything that decides a run's schedule and its games."""

    players: list[Seat]
    games: int = 2  # per pairing
    format: str = "match"  # match, round-robin, gauntlet
    rules: str = "standard"
    openings: str | list[str | None] = "random4"  # random4, none, a file, or the list itself
    seed: int = 1
    first_move_ms: int | None = 3000
    slack_ms: int | None = 50
    sprt: str | None = None
    name: str = ""

    def __post_init__(self) -> None:
        names = [p.name for p in self.players]
        if len(set(names)) != len(names):
            raise ArenaError(f"player names must differ: {names}")
        if len(self.players) < 2:
            raise ArenaError("a run needs at least two players")
        if self.format == "match" and len(self.players) != 2:
            raise ArenaError("a match has exactly two players; use a tournament for more")
        if self.format not in ("match", "round-robin", "gauntlet"):
            raise ArenaError(f"unknown format {self.format!r}: match, round-robin or gauntlet")
        if self.games < 1:
            raise ArenaError("games must be at least 1")
        try:
            self.rules = Rules.parse(self.rules).name
        except ValueError as exc:
            raise ArenaError(str(exc)) from None
        if self.sprt:
            if self.format != "match":
                raise ArenaError("SPRT is for a match between two players")
            self.sprt = str(Sprt.parse(self.sprt))
        self.openings = self._opening_list()

    @property
    def rounds(self) -> int:
        return (self.games + 1) // 2

    def _opening_list(self) -> list[str | None]:
        spec = self.openings
        if isinstance(spec, list):
            return spec
        codingame = any(p.protocol == "codingame" for p in self.players)
        text = str(spec).strip()
        if text == "none":
            return [None]
        if codingame:
            raise ArenaError(
                "a CodinGame bot is told only the last move, so it cannot start from an "
                "opening: use --openings none"
            )
        if text == "random4":
            rng = random.Random(self.seed)
            return [random_opening(rng) for _ in range(self.rounds)]
        path = Path(text)
        if not path.exists():
            raise ArenaError(f"openings must be random4, none or a file of codes: {text!r}")
        codes: list[str | None] = []
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0].strip()
            if not code:
                continue
            try:
                opening_moves(code)
            except ValueError as exc:
                raise ArenaError(f"{path}:{n}: {exc}") from None
            codes.append(code)
        if not codes:
            raise ArenaError(f"no opening codes in {path}")
        return codes

    def pairings(self) -> list[tuple[int, int]]:
        n = len(self.players)
        if self.format == "gauntlet":
            return [(0, j) for j in range(1, n)]
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": [p.to_dict() for p in self.players], "games": self.games,
            "format": self.format, "rules": self.rules, "openings": self.openings,
            "seed": self.seed, "first_move_ms": self.first_move_ms,
            "slack_ms": self.slack_ms, "sprt": self.sprt, "name": self.name,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        data = dict(data)
        data["players"] = [Seat.from_dict(p) for p in data["players"]]
        return cls(**data)

    @classmethod
    def from_toml(cls, path: str | Path, **overrides: Any) -> RunConfig:
        """A tournament file: top-level options and one ``[[player]]`` table per player
        (``spec`` for a built-in player, or ``command`` + ``protocol`` [+ ``cwd``,
        ``memory_mb``, ``cpu_s``], and optionally ``name`` and ``tc``)."""
        try:
            data = tomllib.loads(Path(path).read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ArenaError(f"cannot read {path}: {exc}") from None
        players = []
        for i, p in enumerate(data.pop("player", []), 1):
            try:
                if "command" in p:
                    cwd = p.get("cwd")
                    if cwd and not Path(cwd).is_absolute():
                        cwd = str((Path(path).parent / cwd).resolve())
                    players.append(Seat.external(
                        p["command"], p.get("protocol", ""), name=p.get("name"), cwd=cwd,
                        memory_mb=p.get("memory_mb"), cpu_s=p.get("cpu_s"), tc=p.get("tc")))
                else:
                    players.append(Seat.builtin(p["spec"], name=p.get("name"), tc=p.get("tc")))
            except (KeyError, ValueError) as exc:
                raise ArenaError(f"{path}: player {i}: {exc}") from None
        data.setdefault("format", "round-robin")
        known = set(cls.__dataclass_fields__) - {"players"}
        unknown = set(data) - known
        if unknown:
            raise ArenaError(f"{path}: unknown options {sorted(unknown)}")
        data.update({k: v for k, v in overrides.items() if v is not None})
        return cls(players=players, **data)


@dataclass(frozen=True)
class ScheduledGame:
    key: str
    seq: int
    a: int  # the pairing's players (indices into the config)
    b: int
    x: int  # who plays X
    o: int
    opening: str | None


def schedule(cfg: RunConfig) -> list[ScheduledGame]:
    """Every game of the run, in order: rounds outside, pairings inside, so that a
    partial run is balanced."""
    games = []
    openings = cfg.openings
    assert isinstance(openings, list)
    for r in range(cfg.rounds):
        opening = openings[r % len(openings)]
        for a, b in cfg.pairings():
            for colour in (0, 1):
                if 2 * r + colour >= cfg.games:
                    break
                x, o = (a, b) if colour == 0 else (b, a)
                key = f"{cfg.players[a].name}|{cfg.players[b].name}|{r}|{colour}"
                games.append(ScheduledGame(key, len(games), a, b, x, o, opening))
    return games


# --- statistics over stored games ------------------------------------------------------


@dataclass
class Standings:
    """Scores and ratings of the players of a run, from its games."""

    names: list[str]
    games: list[GameResult]
    points: dict[str, float] = field(default_factory=dict)
    played: dict[str, int] = field(default_factory=dict)
    wdl: dict[str, list[int]] = field(default_factory=dict)
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)
    terminations: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, names: list[str], games: list[GameResult]) -> Standings:
        st = cls(list(names), list(games))
        for n in names:
            st.points[n], st.played[n], st.wdl[n] = 0.0, 0, [0, 0, 0]
        results = []
        for g in games:
            sx = 1.0 if g.winner == "x" else 0.0 if g.winner == "o" else 0.5
            for name, s in ((g.x, sx), (g.o, 1 - sx)):
                st.points[name] = st.points.get(name, 0.0) + s
                st.played[name] = st.played.get(name, 0) + 1
                st.wdl.setdefault(name, [0, 0, 0])[0 if s == 1 else 1 if s == 0.5 else 2] += 1
            results.append((g.x, g.o, sx))
            st.terminations[g.termination] = st.terminations.get(g.termination, 0) + 1
        if games:
            st.ratings = bradley_terry(st.names, results)
        return st

    def pair_scores(self, a: str, b: str) -> tuple[list[float], bool]:
        """a's scores against b: per pair of games when they come in pairs, else per game."""
        by_round: dict[str, list[float]] = {}
        singles = []
        for g in self.games:
            if {g.x, g.o} != {a, b}:
                continue
            s = 1.0 if g.winner == ("x" if g.x == a else "o") else 0.5 if g.winner is None else 0.0
            singles.append(s)
            by_round.setdefault(g.key.rsplit("|", 1)[0], []).append(s)
        pairs = [sum(v) for v in by_round.values() if len(v) == 2]
        if pairs and len(pairs) * 2 >= len(singles) - 1:
            return pairs, True
        return singles, False

    def matrix(self) -> list[list[float | None]]:
        """Score fraction of row player against column player (None: never met)."""
        n = len(self.names)
        idx = {name: i for i, name in enumerate(self.names)}
        pts = [[0.0] * n for _ in range(n)]
        cnt = [[0] * n for _ in range(n)]
        for g in self.games:
            sx = 1.0 if g.winner == "x" else 0.0 if g.winner == "o" else 0.5
            i, j = idx[g.x], idx[g.o]
            pts[i][j] += sx
            pts[j][i] += 1 - sx
            cnt[i][j] += 1
            cnt[j][i] += 1
        return [[pts[i][j] / cnt[i][j] if cnt[i][j] else None for j in range(n)]
                for i in range(n)]

    def head_to_head(self):
        """The Elo estimate of the first player against the second (pairs when possible)."""
        scores, paired = self.pair_scores(self.names[0], self.names[1])
        return match_elo(scores, paired)


# --- running --------------------------------------------------------------------------


@dataclass
class RunReport:
    total: int
    played_now: int
    stored: int
    sprt: str | None = None
    stopped_early: bool = False


def open_run(cfg: RunConfig | None, db_path: str | Path, resume: bool) -> RunConfig:
    """The configuration to run: stored with the database (resume) or new."""
    with Storage(db_path) as db:
        stored = db.config()
        count = db.count()
    if stored is not None and count and not resume:
        raise ArenaError(
            f"{db_path} already holds {count} games of a run: pass --resume to continue it, "
            "or choose another database"
        )
    if stored is not None and resume:
        return RunConfig.from_dict(stored)
    if cfg is None:
        raise ArenaError(f"{db_path} holds no run to resume")
    with Storage(db_path) as db:
        db.set_config(cfg.to_dict())
    return cfg


def run(cfg: RunConfig, db_path: str | Path, *, jobs: int = 1, log_dir: str | Path | None = None,
        on_game: Callable[[GameResult, Standings], None] | None = None,
        max_games: int | None = None) -> RunReport:
    """Play the games of `cfg` that `db_path` does not hold yet, `jobs` at a time,
    storing each as it finishes. Stops early when the SPRT decides."""
    games = schedule(cfg)
    names = [p.name for p in cfg.players]
    sprt = Sprt.parse(cfg.sprt) if cfg.sprt else None
    db = Storage(db_path)
    abort = threading.Event()
    played = 0
    decision = None
    try:
        done = db.done_keys()
        todo = [g for g in games if g.key not in done]
        if max_games is not None:
            todo = todo[:max_games]
        stored = db.games()
        standings = Standings.of(names, stored)
        if sprt and stored:
            decision = sprt.decision(*standings.pair_scores(names[0], names[1]))
        pending = iter(todo if decision is None else [])
        running: dict[cf.Future[GameResult], ScheduledGame] = {}
        with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            def submit() -> None:
                while len(running) < max(1, jobs) and decision is None:
                    game = next(pending, None)
                    if game is None:
                        return
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
                        game = running.pop(fut)
                        result = fut.result()
                        if db.save(result, game.seq):
                            played += 1
                            stored.append(result)
                        standings = Standings.of(names, stored)
                        if sprt and decision is None:
                            decision = sprt.decision(*standings.pair_scores(names[0], names[1]))
                        if on_game:
                            on_game(result, standings)
                    submit()
            except BaseException:
                abort.set()
                for fut in running:
                    fut.cancel()
                raise
    except Aborted:
        pass
    finally:
        total_stored = db.count()
        db.close()
    early = decision is not None and total_stored < len(games)
    return RunReport(total=len(games), played_now=played, stored=total_stored,
                     sprt=decision, stopped_early=early)
