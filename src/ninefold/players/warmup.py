"""Compiling the searches before any clock runs, in one place, and saying so.

The searches are numba functions compiled with ``cache=True``. The first run
on a computer (an empty cache) compiles them, which takes 10-20 s; later runs
load them from the cache in well under a second. `compile_searches` does either,
once per process, before a player's clock starts: the players' constructors
call it with their part (``mcts``, ``alphabeta``), and a program may call it
with no part, to warm everything early.

When something has to be compiled, `compile_searches` reports progress through a
callback, ``progress(done, total, seconds)``: first with ``done == 0`` before
compiling starts (``seconds`` is the rough time it will take), then after
each compiled function. The default, `stderr_progress`, writes one line on
stderr ("compiling the search (first run, about 17 s)"), with a dot per
function when stderr is a terminal. Nothing is ever written on stdout: bots
speak their protocol there.

Modules register what to compile with `add` when they are imported.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

Progress = Callable[[int, int, float], None]


@dataclass(frozen=True)
class Part:
    """What one search compiles: numba functions and the arguments of a tiny call of each."""

    steps: tuple[tuple[Any, Callable[[], tuple[Any, ...]]], ...]
    seconds: float  # roughly how long compiling them takes


_PARTS: dict[str, Part] = {}
_warm: set[str] = set()
_LOCK = threading.Lock()
_progress: list[Progress] = []  # `reporting`'s callbacks, the innermost last


def add(part: str, seconds: float,
        steps: Iterable[tuple[Any, Callable[[], tuple[Any, ...]]]]) -> None:
    """Register `part`: each step is a numba function and a callable making its arguments."""
    _PARTS[part] = Part(tuple(steps), seconds)


def parts() -> list[str]:
    """The parts registered so far."""
    return list(_PARTS)


def _cached(function: Any) -> bool:
    """True if numba's on-disk cache holds a compiled `function` for its current source.

    Reads the cache's index as numba does (it is empty when the file was
    changed since); when that cannot be read, says True: better no message
    than a wrong one.
    """
    try:
        return bool(function._cache._cache_file._load_index())
    except Exception:  # numba internals: any failure means "cannot tell"
        return True


def needs_compiling(names: Iterable[str] | None = None) -> bool:
    """True if warming `names` (default: every part) will compile rather than load.

    Parts already warm in this process need nothing.
    """
    chosen = _PARTS if names is None else names
    return any(
        not _cached(function)
        for name in chosen if name not in _warm
        for function, _ in _PARTS[name].steps
    )


def compile_searches(names: Iterable[str] | str | None = None,
                     progress: Progress | None = None) -> None:
    """Compile (or load from the cache) the parts `names`, default all, once per process.

    `progress` (default: the one given to `reporting`, else `stderr_progress`) hears
    about it only when something is compiled.
    """
    chosen = [names] if isinstance(names, str) else list(_PARTS if names is None else names)
    for name in chosen:
        if name not in _PARTS:
            raise ValueError(f"no search part {name!r} to warm up (parts: {', '.join(_PARTS)})")
    with _LOCK:
        todo = [name for name in chosen if name not in _warm]
        if not todo:
            return
        report = None
        if needs_compiling(todo):
            report = progress or (_progress[-1] if _progress else stderr_progress)
        steps = [step for name in todo for step in _PARTS[name].steps]
        if report is not None:
            report(0, len(steps), sum(_PARTS[name].seconds for name in todo))
        for done, (function, arguments) in enumerate(steps, 1):
            function(*arguments())
            if report is not None:
                report(done, len(steps), 0.0)
        _warm.update(todo)


@contextlib.contextmanager
def reporting(progress: Progress) -> Iterator[None]:
    """Within the block, `compile_searches` called with no `progress` reports to this one
    (a player's constructor warms up its search after checking its options)."""
    _progress.append(progress)
    try:
        yield
    finally:
        _progress.remove(progress)


def stderr_progress(done: int, total: int, seconds: float, stream: TextIO | None = None) -> None:
    """Report compilation on stderr: a line, and on a terminal a dot per function."""
    out = stream if stream is not None else sys.stderr
    tty = out.isatty()
    if done == 0:
        line = f"ninefold: compiling the search (first run, about {seconds:.0f} s)"
        out.write(line + (" " if tty else "\n"))
    elif tty:
        out.write("." if done < total else ". done\n")
    out.flush()
