"""The referee: one game between two seats, each a built-in player or an external bot.

The referee talks only to the `Bot` interface; each protocol's connection
applies its own rules for time-outs and bad answers and raises `BotFault`,
which ends the game with the reason recorded. Every external bot's processes
(its children included) are killed when the game ends, whatever happened.

>>> x, o = Seat.builtin("random:seed=1"), Seat.builtin("random:seed=2")
>>> result = play_game(x, o, rules="standard", opening="53271")
>>> result.result in ("1-0", "0-1", "1/2-1/2"), result.moves[:4]
(True, ['f4', 'h1', 'd3', 'a7'])
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ninefold.arena.local import LocalBot
from ninefold.players.registry import make_player
from ninefold.protocols import (
    Bot,
    BotCommand,
    BotFault,
    Clock,
    TimeControl,
    check_protocol,
    connect,
)
from ninefold.records import Game
from ninefold.rules import Board, Mark, Move, Outcome, Rules, Termination

# Programs that run a bot given as an argument: the bot is named after that argument.
_INTERPRETERS = {
    "python", "python2", "python3", "pypy", "pypy3", "java", "node", "nodejs", "deno",
    "ruby", "perl", "php", "lua", "luajit", "bash", "sh", "dotnet", "mono", "julia",
    "rscript", "elixir", "escript", "runghc", "scala", "kotlin", "bun", "uv", "exec", "env",
}
# Options of those programs that take a value (skipped with it).
_OPTIONS_WITH_VALUE = {"-cp", "-classpath", "--class-path", "-x", "--cwd"}
_SCRIPT_SUFFIXES = (".py", ".jar", ".js", ".mjs", ".rb", ".pl", ".php", ".lua", ".sh",
                    ".dll", ".exe", ".class")


def short_name(command: str) -> str:
    """A short default name for an external bot: its program, or the script or class
    an interpreter runs.

    >>> short_name("python3 /work/main/tests/bots/riddles_bot.py good")
    'riddles_bot'
    >>> short_name("java -cp bin bot.BotStarter"), short_name("java -jar /x/uttt.jar")
    ('bot.BotStarter', 'uttt')
    >>> short_name("./bot"), short_name("/usr/local/bin/ninefold bot --protocol riddles")
    ('bot', 'ninefold')
    """
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = command.split()
    if not argv:
        return command.strip() or "bot"

    def base(arg: str) -> str:
        name = Path(arg).name or arg
        for suffix in _SCRIPT_SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                return name[: -len(suffix)]
        return name

    program = base(argv[0])
    if re.sub(r"[\d.]+$", "", program.lower()) not in _INTERPRETERS:
        return program
    args = iter(argv[1:])
    for arg in args:
        if arg in ("-jar", "-m"):
            return base(next(args, program))
        if arg in _OPTIONS_WITH_VALUE:
            next(args, None)
        elif not arg.startswith("-") and "=" not in arg:
            return base(arg)
    return program


@dataclass(frozen=True)
class Seat:
    """Who plays: a built-in player spec, or an external bot's command and protocol.

    `tc` is this seat's time control; by default (None) its protocol's platform
    control (built-in players: the AI Games/Riddles bank, 10 s + 500 ms per move).
    """

    name: str
    spec: str | None = None
    command: str | None = None
    protocol: str | None = None
    cwd: str | None = None
    memory_mb: int | None = None
    cpu_s: int | None = None
    tc: TimeControl | None = None

    @classmethod
    def builtin(cls, spec: str, name: str | None = None, tc: TimeControl | None = None) -> Seat:
        make_player(spec)  # fail early on a bad spec
        return cls(name=name or spec, spec=spec, tc=tc)

    @classmethod
    def external(cls, command: str, protocol: str, name: str | None = None,
                 cwd: str | None = None, memory_mb: int | None = None,
                 cpu_s: int | None = None, tc: TimeControl | None = None) -> Seat:
        protocol = check_protocol(protocol)
        if not command.strip():
            raise ValueError("empty bot command")
        for what, value in (("memory_mb", memory_mb), ("cpu_s", cpu_s)):
            if value is not None and (isinstance(value, bool) or value < 1):
                raise ValueError(f"{what}={value} must be a whole number of at least 1")
        return cls(name=name or short_name(command), command=command, protocol=protocol,
                   cwd=cwd, memory_mb=memory_mb, cpu_s=cpu_s, tc=tc)

    @classmethod
    def parse(cls, text: str, protocol: str | None = None, *, tc: str | None = None,
              **kw: Any) -> Seat:
        """A built-in spec when no protocol is given, else an external command;
        `tc` is a time control's text (`TimeControl.parse`)."""
        base = TimeControl.for_protocol(protocol.strip().lower() if protocol else None)
        control = TimeControl.parse(tc, base) if tc else None
        if protocol is not None:
            return cls.external(text, protocol, tc=control, **kw)
        kw.pop("cwd", None), kw.pop("memory_mb", None), kw.pop("cpu_s", None)
        return cls.builtin(text, tc=control, **kw)

    @property
    def is_external(self) -> bool:
        return self.command is not None

    def time_control(self, first_move_ms: int | None = None,
                     slack_ms: int | None = None) -> TimeControl:
        tc = self.tc or TimeControl.for_protocol(self.protocol)
        return tc.with_allowances(first_move_ms, slack_ms)

    def bot_command(self) -> BotCommand:
        assert self.command is not None and self.protocol is not None
        return BotCommand(self.command, self.protocol, cwd=self.cwd,
                          memory_mb=self.memory_mb, cpu_s=self.cpu_s)

    def make_bot(self, log_path: str | Path | None = None) -> Bot:
        if self.is_external:
            return connect(self.bot_command(), name=self.name, log_path=log_path)
        assert self.spec is not None
        return LocalBot(make_player(self.spec), name=self.name)


class GameKey(NamedTuple):
    """A game's place in a run's schedule: the pairing (its players' names), the
    round (one opening) and the colour (0: `a` plays X, 1: `b` does).

    Its text is a JSON list, unambiguous whatever the names hold:

    >>> key = GameKey("a|b", "c", 0, 1)
    >>> str(key), GameKey.parse(str(key)) == key
    ('["a|b", "c", 0, 1]', True)
    """

    a: str
    b: str
    round: int
    colour: int

    def __str__(self) -> str:
        return json.dumps(list(self), ensure_ascii=False)

    @classmethod
    def parse(cls, text: str) -> GameKey:
        """The key a `str(key)` wrote; ValueError for any other text."""
        try:
            a, b, r, c = json.loads(text)
        except (TypeError, ValueError):
            raise ValueError(f"not a game key: {text!r}") from None
        if not (isinstance(a, str) and isinstance(b, str) and isinstance(r, int)
                and c in (0, 1)):
            raise ValueError(f"not a game key: {text!r}")
        return cls(a, b, r, c)

    @property
    def stem(self) -> str:
        """A file name for this game's logs (`safe_name`, so not always unique)."""
        return safe_name(f"{self.a}_{self.b}_{self.round}_{self.colour}", 200)


@dataclass
class GameResult:
    """A finished game, as the arena stores it."""

    x: str
    o: str
    rules: Rules
    opening: str | None
    moves: list[str]
    times_ms: list[float]  # one per move played by the bots (after the opening)
    outcome: Outcome
    reason: str
    started: float = field(default_factory=time.time)
    seconds: float = 0.0
    key: GameKey | None = None

    @property
    def winner(self) -> Mark | None:
        return self.outcome.winner

    @property
    def termination(self) -> Termination:
        return self.outcome.termination

    @property
    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2``."""
        return self.outcome.result()

    def to_game(self, **tags: str) -> Game:
        """The game-record (`ninefold.records.Game`) of this game, times as comments."""
        board = Board(self.rules, opening=self.opening)
        first = board.ply
        for text in self.moves[first:]:
            board.push(Move.parse(text))
        game = Game.from_board(board, X=self.x, O=self.o)
        game.tags["Result"] = self.result
        game.tags["Termination"] = str(self.termination)
        if self.reason and self.reason != str(self.termination):
            game.tags["Reason"] = self.reason
        game.tags.update(tags)
        for i, ms in enumerate(self.times_ms):
            game.comments[first + i] = f"{ms:.0f} ms"
        return game


class Aborted(Exception):
    """The run was interrupted; the game is not recorded."""


class Abort:
    """Stops the games that share it at once: `set` closes every bot they have open
    (killing external bots' process groups), and `play_game` raises `Aborted`.

    >>> abort = Abort()
    >>> abort.is_set(), abort.set(), abort.is_set()
    (False, None, True)
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._bots: set[Bot] = set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def set(self) -> None:
        with self._lock:
            self._event.set()
            bots, self._bots = list(self._bots), set()
        for bot in bots:
            with contextlib.suppress(Exception):  # closing twice, or mid-read, is harmless
                bot.close()

    def watch(self, bot: Bot) -> None:
        """Close `bot` when the run is aborted (now, if it already is)."""
        with self._lock:
            if not self._event.is_set():
                self._bots.add(bot)
                return
        bot.close()
        raise Aborted("interrupted")

    def forget(self, bot: Bot) -> None:
        with self._lock:
            self._bots.discard(bot)


def safe_name(text: str, limit: int = 60) -> str:
    """`text` as one file name: no slashes, no leading dot (a hidden file)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:limit].lstrip(".") or "bot"


def log_path(log_dir: str | Path | None, key: GameKey | None, seat: str) -> Path | None:
    """Where a bot's stderr goes: ``<log_dir>/<seat>/<game>.log``."""
    if not log_dir:
        return None
    return Path(log_dir) / safe_name(seat) / ((key.stem if key else "game") + ".log")


def play_game(x: Seat, o: Seat, *, rules: Rules | str = "standard", opening: str | None = None,
              first_move_ms: int | None = None, slack_ms: int | None = None,
              log_dir: str | Path | None = None, key: GameKey | None = None,
              abort: Abort | None = None, settle_ms: int = 0,
              on_move: Callable[[Mark], None] | None = None) -> GameResult:
    """Play one game; a bot that breaks its protocol's rules loses, with the reason.
    Raises `Aborted` (and plays on no further) once `abort` is set. `on_move` is called
    after each move a bot plays, with its mark (the platform notes then how much each
    bot has written to its log).

    `settle_ms`: how long both bots, once started, wait for the first request, on no
    clock. No platform gives it; a bot that loads its search first (ninefold's, 0.4-2 s)
    then plays from its first turn, as a bot with nothing to load does."""
    board = Board(rules, opening=opening)
    seats = {Mark.X: x, Mark.O: o}
    bots: dict[Mark, Bot] = {}
    clocks: dict[Mark, Clock] = {}
    times: list[float] = []
    outcome: Outcome | None = None
    reason = ""
    t0 = time.time()
    try:
        for mark, seat in seats.items():
            tc = seat.time_control(first_move_ms, slack_ms)
            bots[mark] = seat.make_bot(log_path(log_dir, key, f"{seat.name}-{mark.name}"))
            if abort is not None:
                abort.watch(bots[mark])
            clocks[mark] = Clock(tc)
            try:
                bots[mark].start(mark, board, tc)
            except BotFault as fault:
                outcome = Outcome(mark.other, fault.termination)
                reason = f"{seat.name} ({mark}): {fault.reason}"
                break
        if outcome is None and settle_ms > 0:
            time.sleep(settle_ms / 1000.0)
        while outcome is None and not board.is_game_over():
            if abort is not None and abort.is_set():
                raise Aborted("interrupted")
            mark = board.turn
            last = board.move_stack[-1] if board.move_stack else None
            try:
                played = bots[mark].play(board, last, clocks[mark])
            except BotFault as fault:
                outcome = Outcome(mark.other, fault.termination)
                reason = f"{seats[mark].name} ({mark}): {fault.reason}"
                break
            board.push(played.move)
            times.append(float(played.info.get("ms", 0.0)))
            if on_move is not None:
                on_move(mark)
    except Exception:
        if abort is not None and abort.is_set():  # a bot closed under its reader
            raise Aborted("interrupted") from None
        raise
    finally:
        for bot in bots.values():
            if abort is not None:
                abort.forget(bot)
            bot.close()
    if abort is not None and abort.is_set():  # a fault caused by the abort itself
        raise Aborted("interrupted")
    if outcome is None:
        outcome = board.outcome()
        assert outcome is not None
        reason = str(outcome.termination)
    return GameResult(
        x=x.name, o=o.name, rules=board.rules, opening=opening,
        moves=[str(m) for m in board.move_stack], times_ms=times, outcome=outcome,
        reason=reason, started=t0, seconds=round(time.time() - t0, 3), key=key,
    )
