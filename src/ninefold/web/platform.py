"""The competition platform's service on the web board's server (`Platform`).

``ninefold serve --platform URL`` opens one (`Platform.open`) and keeps it on
``app.state.platform`` for the routes of `ninefold.web.routes_platform`; the
platform's database is at URL (SQLite by default, or PostgreSQL). The server
compiles and plays nothing: uploads are built and games played by worker processes
(``ninefold platform worker``), which it starts only when asked, with
``--workers N`` (`ninefold.platform.pool.Pool`, with the scheduler): the
app's lifespan starts and stops them. Without them an upload waits,
``uploaded``, until a worker elsewhere takes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ninefold.platform.accounts import Accounts
from ninefold.platform.archive import ArchiveLimits
from ninefold.platform.limits import LatestCache, PlatformLimits
from ninefold.platform.pool import Pool
from ninefold.platform.store import Store

MAX_UPLOAD_BYTES = ArchiveLimits().max_upload_bytes


@dataclass
class Platform:
    """What the routes use: the store and the accounts; and the worker processes
    started with the server, if any."""

    store: Store
    accounts: Accounts
    pool: Pool | None = None
    plots: LatestCache = field(default_factory=lambda: LatestCache(0))  # rating plots

    @classmethod
    def open(cls, url: str, workers: int = 0, cache: Path | None = None,
             limits: PlatformLimits | None = None) -> Platform:
        """The platform at `url`, within `limits` (by default: the environment's,
        `PlatformLimits.from_env`)."""
        limits = limits or PlatformLimits.from_env()
        store = Store(url)
        pool = Pool(url, workers, cache or Path(".ninefold-cache")) if workers else None
        return cls(store, Accounts(store, limits=limits), pool, LatestCache(limits.plot_cache))

    def start(self) -> None:
        self.accounts.purge()  # the sessions that expired while the server was down
        if self.pool is not None:
            self.pool.start()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
