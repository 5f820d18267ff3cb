"""What one client or one account may ask of the platform, so that no one starves the rest.

`PlatformLimits` holds every such limit, each a setting with a safe default,
read from the environment by `PlatformLimits.from_env` (``NINEFOLD_`` and the
field's name in capitals: ``NINEFOLD_LOGINS_PER_MINUTE_PER_ADDRESS=20``). The
accounts count sign-ups and log-ins with a `RateLimit` (a sliding window per
client address and per account name) and hash passwords in a `BoundedPool`
(a thread or two of their own with a short queue: a full queue is refused at
once, it never makes the other routes wait); uploads count each user's
unfinished builds and the day's uploads (`ninefold.platform.uploads.submit`);
the web side caps paging and caches the rating plots (`ninefold.web.routes_platform`).

>>> limit = RateLimit(2, 60.0, clock=lambda: 0.0)
>>> limit.take("10.0.0.1"), limit.take("10.0.0.1"), limit.take("10.0.0.1")
(0.0, 0.0, 60.0)
>>> limit.take("10.0.0.2")
0.0
"""

from __future__ import annotations

import asyncio
import math
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, fields
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")
ENV_PREFIX = "NINEFOLD_"


class RateLimited(Exception):
    """A request refused because its client or account asked too often (one line);
    `retry_after`: seconds until it may ask again."""

    def __init__(self, text: str, retry_after: float) -> None:
        super().__init__(text)
        self.retry_after = retry_after


def wait_text(seconds: float) -> str:
    """How long to wait, as a refusal says it.

    >>> wait_text(0.2), wait_text(59.5), wait_text(3599.0)
    ('1 s', '60 s', '60 min')
    """
    whole = max(1, math.ceil(seconds))
    return f"{whole} s" if whole <= 90 else f"{math.ceil(whole / 60)} min"


class Busy(Exception):
    """A `BoundedPool` whose queue is full: the request is refused at once (one line)."""


@dataclass(frozen=True)
class PlatformLimits:
    """Every limit a client or an account meets on the platform (a frozen value; the
    defaults are safe for a public server). A count of 0 is no limit (no cache, for
    `plot_cache`)."""

    logins_per_minute_per_address: int = 10  # log-in tries from one client address
    logins_per_minute_per_account: int = 20  # wrong passwords for one name, any address
    signups_per_hour_per_address: int = 5  # sign-up tries from one client address
    rate_keys: int = 100_000  # addresses and names remembered by each rate limit at most
    hash_threads: int = 2  # threads hashing passwords (argon2), apart from every route's
    hash_queue: int = 16  # hashes waiting for them at most; past that, 503 at once
    unfinished_builds_per_user: int = 3  # versions uploaded, compiling or testing
    uploads_per_day_per_user: int = 50  # versions uploaded in the last 24 hours
    max_offset: int = 100_000  # a listing's offset (games?offset=)
    plot_cache: int = 256  # rating plots kept until their bot's ratings change

    def __post_init__(self) -> None:
        if self.hash_threads < 1:
            raise ValueError("hash_threads: at least 1")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> PlatformLimits:
        """The defaults, each replaced by its ``NINEFOLD_<NAME>`` variable where set;
        ValueError (one line) for a value that is not a number of the right kind, or
        is negative.

        >>> PlatformLimits.from_env({"NINEFOLD_HASH_THREADS": "1"}).hash_threads
        1
        >>> PlatformLimits.from_env({"NINEFOLD_MAX_OFFSET": "lots"})
        Traceback (most recent call last):
        ValueError: NINEFOLD_MAX_OFFSET='lots': a whole number, 0 or more
        """
        given: dict[str, int | float] = {}
        for f in fields(cls):
            name = ENV_PREFIX + f.name.upper()
            text = environ.get(name)
            if text is None:
                continue
            kind = float if f.type in (float, "float") else int
            try:
                value = kind(text)
            except ValueError:
                value = -1
            if not value >= 0:
                what = "a number" if kind is float else "a whole number"
                raise ValueError(f"{name}={text!r}: {what}, 0 or more")
            given[f.name] = value
        return cls(**given)  # type: ignore[arg-type]


class RateLimit:
    """At most `count` events per `window_s` seconds for each key (a client address, an
    account name): a sliding window of the events' times (a `count` of 0: no limit).
    Refused tries are not
    counted, so a client that keeps asking is let in again once its window has room.
    At most `keys` keys are remembered (the least recently used is forgotten first).
    Thread-safe; `clock` tells the time in seconds."""

    def __init__(self, count: int, window_s: float = 60.0, *, keys: int = 100_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.count, self.window_s, self.keys, self.clock = count, window_s, keys, clock
        self._events: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        events = self._events.get(key)
        if events is None:
            events = self._events[key] = deque()
            while len(self._events) > self.keys:
                self._events.popitem(last=False)
        else:
            self._events.move_to_end(key)
        while events and events[0] <= now - self.window_s:
            events.popleft()
        return events

    def wait(self, key: str) -> float:
        """Seconds until `key` may have one more event (0: now); counts nothing."""
        if self.count <= 0:
            return 0.0
        with self._lock:
            now = self.clock()
            events = self._recent(key, now)
            return 0.0 if len(events) < self.count else events[0] + self.window_s - now

    def add(self, key: str) -> None:
        """Count one event of `key` now (even past the limit)."""
        with self._lock:
            now = self.clock()
            self._recent(key, now).append(now)

    def take(self, key: str) -> float:
        """Count one event of `key` if its window has room: 0; else (nothing counted)
        the seconds until it has."""
        if self.count <= 0:
            return 0.0
        with self._lock:
            now = self.clock()
            events = self._recent(key, now)
            if len(events) >= self.count:
                return events[0] + self.window_s - now
            events.append(now)
            return 0.0


class BoundedPool:
    """Threads of their own for costly work (`threads` of them), with at most `queue`
    jobs waiting: `submit` past that raises `Busy` at once instead of queueing."""

    def __init__(self, threads: int, queue: int, name: str = "bounded") -> None:
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)
        self._slots = threading.BoundedSemaphore(threads + queue)

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Run `fn(*args, **kwargs)` in the pool; `Busy` if as many jobs as it takes are
        running or waiting."""
        if not self._slots.acquire(blocking=False):
            raise Busy("the server is busy: try again in a moment")
        try:
            future = self.executor.submit(fn, *args, **kwargs)
        except BaseException:
            self._slots.release()
            raise
        future.add_done_callback(lambda _: self._slots.release())
        return future

    async def run(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """`submit`, awaited (for a route: the event loop goes on meanwhile)."""
        return await asyncio.wrap_future(self.submit(fn, *args, **kwargs))

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


class LatestCache:
    """What was made last for each of up to `size` keys, kept while its `version` (what
    it was made from: a bot's last rating, say) is unchanged; the least recently used
    key is forgotten first; `size` 0 keeps nothing. Thread-safe.

    >>> cache, made = LatestCache(2), []
    >>> def make(): made.append(1); return len(made)
    >>> cache.get("bot 1", 7, make), cache.get("bot 1", 7, make), cache.get("bot 1", 8, make)
    (1, 1, 2)
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._made: OrderedDict[object, tuple[object, object]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: object, version: object, make: Callable[[], T]) -> T:
        """The value kept for `key` if it was made from `version`, else `make()`'s (kept
        in its place; two callers at once may both make it)."""
        with self._lock:
            kept = self._made.get(key)
            if kept is not None and kept[0] == version:
                self._made.move_to_end(key)
                return kept[1]  # type: ignore[return-value]
        value = make()
        if self.size > 0:
            with self._lock:
                self._made[key] = (version, value)
                self._made.move_to_end(key)
                while len(self._made) > self.size:
                    self._made.popitem(last=False)
        return value
