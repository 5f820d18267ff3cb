"""The competition platform's service on the web board's server (`Platform`).

``ninefold serve --platform URL`` opens one (`Platform.open`) and keeps it on
``app.state.platform`` for the routes of `ninefold.web.routes_platform`; the
platform's database is at URL (SQLite by default, or PostgreSQL), and the same
server builds uploads (`ninefold.platform.uploads.Builder`) and, with
``--workers N``, runs the scheduler and N match workers
(`ninefold.platform.pool.Pool`): the app's lifespan starts and stops them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ninefold.platform.accounts import Accounts
from ninefold.platform.archive import ArchiveLimits
from ninefold.platform.pool import Pool
from ninefold.platform.store import Store
from ninefold.platform.uploads import Builder

MAX_UPLOAD_BYTES = ArchiveLimits().max_upload_bytes


@dataclass
class Platform:
    """What the routes use: the store, the accounts, the builder and the workers."""

    store: Store
    accounts: Accounts
    builder: Builder
    pool: Pool | None = None

    @classmethod
    def open(cls, url: str, workers: int = 0, cache: Path | None = None) -> Platform:
        store = Store(url)
        pool = Pool(url, workers, cache or Path(".ninefold-cache")) if workers else None
        return cls(store, Accounts(store), Builder(store), pool)

    def start(self) -> None:
        self.accounts.purge()  # the sessions that expired while the server was down
        self.builder.start()
        if self.pool is not None:
            self.pool.start()

    def close(self) -> None:
        self.builder.close()
        if self.pool is not None:
            self.pool.close()
