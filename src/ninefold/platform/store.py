"""The platform's database: SQLAlchemy Core tables and the `Store` that queries them.

One code path for both backends: a SQLite file by default
(``sqlite:///platform.sqlite``), PostgreSQL for a larger contest
(``postgresql+psycopg://user@/db?host=/socket/dir``). Opening a `Store`
upgrades the database to the newest schema (Alembic, in ``migrations/``) and
refuses a database whose schema is newer than this code.

Several processes use the database at once (the web server, the scheduler,
match workers), so every change is one transaction that cannot interleave
badly with another:

- on SQLite a writing transaction starts with ``BEGIN IMMEDIATE`` (it takes
  the write lock before it reads), readers never wait (WAL);
- on PostgreSQL a transaction that reads before it writes first locks the
  row it depends on (``FOR NO KEY UPDATE``), and `Store.claim` skips rows
  other workers hold (``FOR UPDATE SKIP LOCKED``).

The games table is the work queue. A worker takes a queued game with
`claim` (a lease and a random claim token), extends the lease with `renew`
while it plays, and hands the result in with `finish`, which keeps it only if
the token is still the game's: a game whose worker vanished goes back to the
queue (`requeue_expired`), and the old worker's late result is dropped.
`rate` marks a game rated in the same transaction that moves the ratings.
So no game is lost and none is counted twice.

Times are float epoch seconds, passed in as ``now`` (the tests choose them).

>>> import tempfile, os
>>> with Store("sqlite:///" + os.path.join(tempfile.mkdtemp(), "p.sqlite")) as store:
...     ann = store.add_user("Ann", "$argon2id$...")
...     store.user_by_name("ANN") == ann
True
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from ninefold.files import sqlite_wal
from ninefold.protocols.clock import PROTOCOLS

MIGRATIONS = Path(__file__).with_name("migrations")
WRITE = "ninefold_write"  # execution option: on SQLite, begin with BEGIN IMMEDIATE
MIGRATION_LOCK = 0x9F01D  # PostgreSQL advisory lock: one process migrates at a time
BUSY_TIMEOUT_MS = 30_000  # how long SQLite waits for another writer
TOUCH_S = 60.0  # a session's last_used is written at most once a minute

SESSION_KINDS = ("cookie", "api")
VERSION_STATUSES = ("uploaded", "compiling", "compile_failed", "testing", "test_failed",
                    "active", "retired")
GAME_STATUSES = ("queued", "running", "done")
RESULTS = ("1-0", "0-1", "1/2-1/2")
UNFINISHED = ("uploaded", "compiling", "testing")  # a version not yet built (or failed)
FAIR_SHARE_S = 24 * 3600.0  # builds started this recently decide whose build is next
BUILDING = ("compiling", "testing")  # a version a builder holds (under a lease)
BLOBS = ("archive", "build")
HOUSE = "house"  # the language of a house bot's versions: one of ninefold's players

Row = TypeVar("Row")
INITIAL_MU, INITIAL_SIGMA = 25.0, 25.0 / 3  # openskill's defaults (`ladder.INITIAL`)
MAX_ATTEMPTS = 3  # a game whose lease ran out this often is given up
CONTEST_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}\Z")


class StoreError(Exception):
    """A request the database refuses (one line)."""


class NameTaken(StoreError):
    """A user, contest or bot name already in use."""


class NotFound(StoreError, LookupError):
    """No such row."""


class TooManyBots(StoreError):
    """The user has as many bots in the contest as it allows."""


class TooManyUploads(StoreError):
    """The user has as many builds waiting, or uploads today, as they may."""


class AlreadyQueued(StoreError):
    """The same pair of test games is queued or under way already."""


class FutureSchema(StoreError):
    """The database was migrated by a newer ninefold than this one."""


# --- the tables ---------------------------------------------------------------------------

metadata = sa.MetaData(naming_convention={
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s",
    "pk": "pk_%(table_name)s",
})


class Real(sa.TypeDecorator[float]):
    """A float column that reads back as a float (SQLite's RETURNING can hand out the
    integer it stored for 1.0)."""

    impl = sa.Float
    cache_ok = True

    def process_result_value(self, value: Any, dialect: Any) -> float | None:
        return None if value is None else float(value)


def _one_of(column: str, values: Sequence[str]) -> sa.CheckConstraint:
    listed = ", ".join(f"'{v}'" for v in values)
    return sa.CheckConstraint(f"{column} IN ({listed})", name=column)


users = sa.Table(
    "users", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("password_hash", sa.Text, nullable=False),
    sa.Column("is_admin", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("is_organiser", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("created", Real, nullable=False),
)
sa.Index("uq_users_name_lower", sa.func.lower(users.c.name), unique=True)

sessions = sa.Table(
    "sessions", metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),  # sha256 hex of the token
    sa.Column("user_id", sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False,
              index=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("created", Real, nullable=False),
    sa.Column("expires", Real, nullable=False, index=True),
    sa.Column("last_used", Real, nullable=False),
    _one_of("kind", SESSION_KINDS),
)

contests = sa.Table(
    "contests", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(40), nullable=False, unique=True),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("rules", sa.String(64), nullable=False),
    sa.Column("protocol", sa.String(16), nullable=False),
    sa.Column("time_control", sa.String(64), nullable=False),
    sa.Column("openings", sa.String(64), nullable=False),
    sa.Column("max_bots_per_user", sa.Integer, nullable=False),
    sa.Column("created", Real, nullable=False),
    sa.Column("created_by", sa.ForeignKey("users.id", ondelete="SET NULL")),
    sa.Column("active", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("opens", Real),  # uploads and ranked games from then (None: from the start)
    sa.Column("closes", Real),  # until then (None: never)
    sa.Column("frozen", Real),  # when the final standings were stored
)

bots = sa.Table(
    "bots", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("contest_id", sa.ForeignKey("contests.id"), nullable=False),
    sa.Column("owner_id", sa.ForeignKey("users.id"), nullable=False, index=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("created", Real, nullable=False),
    sa.UniqueConstraint("contest_id", "name"),
)

versions = sa.Table(
    "versions", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("bot_id", sa.ForeignKey("bots.id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("created", Real, nullable=False),
    sa.Column("filename", sa.Text, nullable=False),
    sa.Column("archive", sa.LargeBinary, nullable=False),
    sa.Column("language", sa.String(32)),
    sa.Column("status", sa.String(16), nullable=False, index=True),
    sa.Column("compile_log", sa.Text),
    sa.Column("test_log", sa.Text),
    sa.Column("build", sa.LargeBinary),  # a tar of the compiled folder
    sa.Column("mu", Real, nullable=False),
    sa.Column("sigma", Real, nullable=False),
    sa.Column("games", sa.Integer, nullable=False, server_default="0"),  # games rated
    sa.Column("spec", sa.String(200)),  # a house bot's player spec (None: an upload)
    sa.Column("claim", sa.String(32)),  # its build's claim token (`Store.claim_build`)
    sa.Column("worker", sa.Text),  # the worker that took its build last
    sa.Column("lease_until", Real),  # that build's lease
    sa.UniqueConstraint("bot_id", "number"),
    _one_of("status", VERSION_STATUSES),
)

games = sa.Table(
    "games", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("contest_id", sa.ForeignKey("contests.id"), nullable=False),
    sa.Column("pair", sa.Integer, nullable=False),  # the id of the pair's first game
    sa.Column("x_version", sa.ForeignKey("versions.id"), nullable=False, index=True),
    sa.Column("o_version", sa.ForeignKey("versions.id"), nullable=False, index=True),
    sa.Column("opening", sa.Text),
    sa.Column("status", sa.String(8), nullable=False),
    sa.Column("claim", sa.String(32)),  # the current claim's random token
    sa.Column("worker", sa.Text),
    sa.Column("lease_until", Real),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("result", sa.String(8)),
    sa.Column("reason", sa.Text),
    sa.Column("moves", sa.Text),  # space separated
    sa.Column("times_ms", sa.Text),  # JSON list, one a move
    sa.Column("x_log", sa.Text),  # each bot's stderr, for its author only
    sa.Column("o_log", sa.Text),
    sa.Column("turn_logs", sa.Text),  # JSON: each turn's stderr (its tail), for its author
    sa.Column("created", Real, nullable=False),
    sa.Column("started", Real),
    sa.Column("finished", Real),
    sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("ranked", sa.Boolean, nullable=False, server_default=sa.true()),  # else a test
    _one_of("status", GAME_STATUSES),
    _one_of("result", RESULTS),
)
sa.Index(None, games.c.status, games.c.id)  # the queue, oldest first
sa.Index(None, games.c.contest_id, games.c.status)

rating_history = sa.Table(
    "rating_history", metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("version_id", sa.ForeignKey("versions.id"), nullable=False, index=True),
    sa.Column("game_id", sa.ForeignKey("games.id"), nullable=False),
    sa.Column("mu", Real, nullable=False),
    sa.Column("sigma", Real, nullable=False),
    sa.Column("at", Real, nullable=False),
)

final_standings = sa.Table(  # a closed contest's leaderboard, stored once (`Store.freeze`)
    "final_standings", metadata,
    sa.Column("contest_id", sa.ForeignKey("contests.id"), primary_key=True),
    sa.Column("rank", sa.Integer, primary_key=True),
    sa.Column("version_id", sa.ForeignKey("versions.id"), nullable=False),
    sa.Column("mu", Real, nullable=False),
    sa.Column("sigma", Real, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
)


# --- the rows the store hands out ---------------------------------------------------------


@dataclass(frozen=True)
class User:
    """An account. An admin may do everything; an organiser (made one by an admin) may
    create contests, and organises the ones they created."""

    id: int
    name: str
    password_hash: str
    is_admin: bool
    created: float
    is_organiser: bool = False

    @property
    def may_create_contests(self) -> bool:
        return self.is_admin or self.is_organiser


@dataclass(frozen=True)
class Session:
    """A log-in: the token itself is never stored, only its sha256."""

    token_hash: str
    user_id: int
    kind: str
    created: float
    expires: float
    last_used: float


@dataclass(frozen=True)
class Contest:
    id: int
    name: str
    title: str
    rules: str
    protocol: str
    time_control: str
    openings: str
    max_bots_per_user: int
    created: float
    created_by: int | None
    active: bool
    opens: float | None
    closes: float | None
    frozen: float | None

    def is_open(self, now: float) -> bool:
        """Whether uploads are taken and ranked games played at `now`.

        >>> c = Contest(1, "c", "", "standard", "riddles", "", "none", 1, 0.0, None, True,
        ...             opens=10.0, closes=20.0, frozen=None)
        >>> [c.is_open(t) for t in (5.0, 10.0, 19.9, 20.0)]
        [False, True, True, False]
        """
        return (self.opens is None or self.opens <= now) and not self.is_closed(now)

    def is_closed(self, now: float) -> bool:
        """Whether the contest has closed by `now` (its standings are final then)."""
        return self.closes is not None and self.closes <= now

    def organised_by(self, user: User) -> bool:
        """Whether `user` may change the contest (its times, its house bots): the
        account that created it, or an admin."""
        return user.is_admin or (self.created_by is not None and self.created_by == user.id)


@dataclass(frozen=True)
class Bot:
    id: int
    contest_id: int
    owner_id: int
    name: str
    created: float


@dataclass(frozen=True)
class Version:
    """A bot's upload, without its archive and build (`Store.version_blob`)."""

    id: int
    bot_id: int
    number: int
    created: float
    filename: str
    language: str | None
    status: str
    compile_log: str | None
    test_log: str | None
    mu: float
    sigma: float
    games: int
    spec: str | None
    worker: str | None = None  # the worker that built it (`Store.claim_build`)


@dataclass(frozen=True)
class GameRow:
    """A game of the queue. `times_ms` is decoded from its JSON; the bots' logs are
    loaded by `Store.game` only (listings leave them None)."""

    id: int
    contest_id: int
    pair: int
    x_version: int
    o_version: int
    opening: str | None
    status: str
    claim: str | None
    worker: str | None
    lease_until: float | None
    attempts: int
    result: str | None
    reason: str | None
    moves: str | None
    times_ms: tuple[float, ...] | None
    created: float
    started: float | None
    finished: float | None
    rated: bool
    ranked: bool
    x_log: str | None = None
    o_log: str | None = None
    turn_logs: str | None = None  # JSON (`ninefold.platform.jobs.TurnLogs`)


@dataclass(frozen=True)
class Standing:
    """A row of a contest's final standings."""

    contest_id: int
    rank: int
    version_id: int
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class RatingPoint:
    id: int
    version_id: int
    game_id: int
    mu: float
    sigma: float
    at: float


LOGS = ("x_log", "o_log", "turn_logs")


def _cols(cls: type, table: sa.Table, skip: Sequence[str] = ()) -> list[sa.Column[Any]]:
    """The columns of `table` that make a `cls` (a dataclass named after them)."""
    return [table.c[f.name] for f in fields(cls) if f.name not in skip]


def _game(row: sa.Row[Any]) -> GameRow:
    data = dict(row._mapping)
    times = data["times_ms"]
    data["times_ms"] = tuple(json.loads(times)) if times is not None else None
    return GameRow(**data)


def existing(row: Row | None, what: str) -> Row:
    """`row`, or `NotFound` naming `what` if it is None: for a row that another row's id
    vouches for (a game's versions, a version's bot), which only a bug can make missing.

    >>> existing(None, "version 7")
    Traceback (most recent call last):
    ninefold.platform.store.NotFound: no version 7
    """
    if row is None:
        raise NotFound(f"no {what}")
    return row


def _check_times(opens: float | None, closes: float | None) -> None:
    if opens is not None and closes is not None and closes <= opens:
        raise ValueError("a contest closes after it opens")


def _check(value: str, allowed: Sequence[str], what: str) -> None:
    if value not in allowed:
        raise ValueError(f"{what} {value!r} is not one of {', '.join(allowed)}")


def _insert_version(conn: Connection, bot_id: int, **values: object) -> Version:
    """Insert a version of `bot_id`, numbered one past its newest and not yet rated;
    `values`: its other columns. The caller's transaction holds a lock that keeps
    another writer from numbering the bot's versions at the same time."""
    number = conn.execute(sa.select(sa.func.coalesce(sa.func.max(versions.c.number), 0))
                          .where(versions.c.bot_id == bot_id)).scalar_one() + 1
    row = conn.execute(versions.insert().values(
        bot_id=bot_id, number=number, mu=INITIAL_MU, sigma=INITIAL_SIGMA, games=0, **values,
    ).returning(*_cols(Version, versions))).one()
    return Version(**row._mapping)


def _check_uploads(conn: Connection, owner_id: int, now: float, max_unfinished: int,
                   max_per_day: int) -> None:
    """`Store.check_uploads`, in the transaction of `conn`."""
    row = conn.execute(
        sa.select(sa.func.count().filter(versions.c.status.in_(UNFINISHED)),
                  sa.func.count().filter(versions.c.created > now - 24 * 3600.0))
        .select_from(versions.join(bots, bots.c.id == versions.c.bot_id))
        .where(bots.c.owner_id == owner_id, versions.c.spec.is_(None))).one()
    unfinished, today = int(row[0]), int(row[1])
    if max_unfinished and unfinished >= max_unfinished:
        raise TooManyUploads(f"you have {unfinished} versions waiting to be built (at most "
                             f"{max_unfinished}): upload again when one is built")
    if max_per_day and today >= max_per_day:
        raise TooManyUploads(f"you have uploaded {today} versions in the last 24 hours (at "
                             f"most {max_per_day}): upload again later")


def _build_order(now: float) -> tuple[sa.ColumnElement[Any], ...]:
    """ORDER BY for the versions waiting to be built (in a query joined with their
    bots): round-robin across users. The owner with the fewest builds started in the
    last `FAIR_SHARE_S` (of versions uploaded since) goes first, then the oldest
    upload: a user with thirty versions queued delays another's first build by one
    build at most."""
    mine, my_bot = versions.alias("mine"), bots.alias("my_bot")
    started = (sa.select(sa.func.count())
               .select_from(mine.join(my_bot, my_bot.c.id == mine.c.bot_id))
               .where(my_bot.c.owner_id == bots.c.owner_id, mine.c.status != "uploaded",
                      mine.c.spec.is_(None), mine.c.created >= now - FAIR_SHARE_S)
               .scalar_subquery())
    return started, versions.c.id


def _next_build(conn: Connection, now: float) -> int | None:
    """The id of the version a builder should take next (round-robin across users:
    `_build_order`), locked for this transaction; None if none waits."""
    stale = sa.and_(versions.c.status.in_(BUILDING),
                    sa.or_(versions.c.lease_until.is_(None), versions.c.lease_until < now))
    return conn.execute(sa.select(versions.c.id)
                        .join(bots, bots.c.id == versions.c.bot_id)
                        .where(sa.or_(versions.c.status == "uploaded", stale))
                        .order_by(*_build_order(now)).limit(1)
                        .with_for_update(skip_locked=True, of=versions)).scalar()


def _now(now: float | None) -> float:
    return time.time() if now is None else now


# --- opening: the engine, SQLite's settings, the migrations -------------------------------


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    """Each new SQLite connection: SQLAlchemy, not the driver, begins transactions
    (`_sqlite_begin`); WAL, foreign keys, a busy timeout."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    sqlite_wal(cursor, BUSY_TIMEOUT_MS / 1000)
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    """SQLAlchemy's documented pysqlite recipe: emit BEGIN ourselves; a writer's is
    IMMEDIATE, so two writers queue for the lock instead of failing half-way."""
    write = conn.get_execution_options().get(WRITE, False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def make_engine(url: str) -> sa.Engine:
    """An engine for `url`, with SQLite's transaction handling when it is SQLite."""
    engine = sa.create_engine(url)
    if engine.dialect.name == "sqlite":
        sa.event.listen(engine, "connect", _sqlite_connect)
        sa.event.listen(engine, "begin", _sqlite_begin)
    return engine


def alembic_config(connection: Connection) -> Config:
    """Alembic's configuration, built in code: our scripts, run on `connection`."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def migrate(engine: sa.Engine) -> None:
    """Upgrade the database to the newest schema, in one transaction; `FutureSchema` if
    it is at a revision this code does not know."""
    with engine.execution_options(**{WRITE: True}).begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        config = alembic_config(conn)
        script = ScriptDirectory.from_config(config)
        known = {s.revision for s in script.walk_revisions()}
        for revision in MigrationContext.configure(conn).get_current_heads():
            if revision not in known:
                raise FutureSchema(
                    f"the database is at schema revision {revision!r}, newer than this "
                    f"ninefold knows (its newest is {script.get_current_head()!r}): "
                    "upgrade ninefold")
        command.upgrade(config, "head")


# --- the store ----------------------------------------------------------------------------


class Store:
    """The platform's database at `url`, migrated to the newest schema on opening."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self._writer = self.engine.execution_options(**{WRITE: True})
        try:
            migrate(self.engine)
        except BaseException:
            self.engine.dispose()
            raise

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.begin() as conn:
            yield conn

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self._writer.begin() as conn:
            yield conn

    def _lock(self, conn: Connection, table: sa.Table, row_id: int, what: str) -> None:
        """Lock one row until the transaction ends (PostgreSQL; SQLite's write lock
        already covers the whole file); `NotFound` if it is missing."""
        found = conn.execute(sa.select(table.c.id).where(table.c.id == row_id)
                             .with_for_update(key_share=True)).first()
        if found is None:
            raise NotFound(f"no {what} {row_id}")

    # --- users and sessions ---------------------------------------------------------------

    def add_user(self, name: str, password_hash: str, *, now: float | None = None) -> User:
        """A new user; `NameTaken` if the name is in use in any letter case."""
        with self._write() as conn:
            try:
                row = conn.execute(users.insert().values(
                    name=name, password_hash=password_hash, is_admin=False,
                    created=_now(now)).returning(*_cols(User, users))).one()
            except sa.exc.IntegrityError:
                raise NameTaken(f"the name {name!r} is taken") from None
            return User(**row._mapping)

    def user(self, user_id: int) -> User | None:
        with self._read() as conn:
            row = conn.execute(sa.select(*_cols(User, users))
                               .where(users.c.id == user_id)).first()
        return User(**row._mapping) if row else None

    def user_by_name(self, name: str) -> User | None:
        """The user called `name`, in any letter case."""
        with self._read() as conn:
            row = conn.execute(sa.select(*_cols(User, users))
                               .where(sa.func.lower(users.c.name) == sa.func.lower(name))
                               ).first()
        return User(**row._mapping) if row else None

    def set_admin(self, name: str, admin: bool) -> None:
        self._update_user(name, is_admin=admin)

    def set_organiser(self, name: str, organiser: bool) -> None:
        """Let `name` create contests (or no longer)."""
        self._update_user(name, is_organiser=organiser)

    def set_password(self, name: str, password_hash: str) -> None:
        self._update_user(name, password_hash=password_hash)

    def _update_user(self, name: str, **values: Any) -> None:
        with self._write() as conn:
            done = conn.execute(users.update().values(**values)
                                .where(sa.func.lower(users.c.name) == sa.func.lower(name)))
            if done.rowcount != 1:
                raise NotFound(f"no user {name!r}")

    def add_session(self, user_id: int, token_hash: str, kind: str, expires: float, *,
                    now: float | None = None) -> None:
        _check(kind, SESSION_KINDS, "session kind")
        now = _now(now)
        with self._write() as conn:
            conn.execute(sessions.insert().values(
                token_hash=token_hash, user_id=user_id, kind=kind, created=now,
                expires=expires, last_used=now))

    def session_user(self, token_hash: str, now: float) -> User | None:
        """The user of an unexpired session (its last_used is brought up to date, at
        most once every `TOUCH_S`), or None."""
        with self._read() as conn:
            row = conn.execute(
                sa.select(*_cols(User, users), sessions.c.last_used)
                .join(sessions, sessions.c.user_id == users.c.id)
                .where(sessions.c.token_hash == token_hash, sessions.c.expires > now)).first()
        if row is None:
            return None
        if now - row.last_used >= TOUCH_S:
            with self._write() as conn:
                conn.execute(sessions.update().values(last_used=now).where(
                    sessions.c.token_hash == token_hash, sessions.c.last_used < now))
        return User(**{f.name: getattr(row, f.name) for f in fields(User)})

    def sessions(self, user_id: int) -> list[Session]:
        """A user's sessions (cookies and API tokens), newest first."""
        with self._read() as conn:
            rows = conn.execute(sa.select(*_cols(Session, sessions))
                                .where(sessions.c.user_id == user_id)
                                .order_by(sessions.c.created.desc()))
            return [Session(**r._mapping) for r in rows]

    def drop_session(self, token_hash: str) -> None:
        with self._write() as conn:
            conn.execute(sessions.delete().where(sessions.c.token_hash == token_hash))

    def drop_expired_sessions(self, now: float) -> int:
        with self._write() as conn:
            return conn.execute(sessions.delete().where(sessions.c.expires <= now)).rowcount

    # --- contests ---------------------------------------------------------------------------

    def add_contest(self, name: str, title: str, *, rules: str, protocol: str,
                    time_control: str = "", openings: str = "none",
                    max_bots_per_user: int = 1, created_by: int | None = None,
                    active: bool = True, opens: float | None = None,
                    closes: float | None = None, now: float | None = None) -> Contest:
        """A new contest; its `name` is a slug (a-z, 0-9, -); `NameTaken` if in use. It
        takes uploads and plays ranked games from `opens` until `closes` (None: no
        limit on that side)."""
        if not CONTEST_NAME.match(name):
            raise ValueError(f"a contest name is 1 to 40 of a-z, 0-9 and -, not {name!r}")
        _check(protocol, PROTOCOLS, "protocol")
        if protocol == "codingame" and openings != "none":
            raise ValueError("a CodinGame bot is told only the last move, so it cannot start "
                             "from an opening: a CodinGame contest needs openings none")
        _check_times(opens, closes)
        with self._write() as conn:
            try:
                row = conn.execute(contests.insert().values(
                    name=name, title=title, rules=rules, protocol=protocol,
                    time_control=time_control, openings=openings,
                    max_bots_per_user=max_bots_per_user, created=_now(now),
                    created_by=created_by, active=active, opens=opens, closes=closes,
                ).returning(*_cols(Contest, contests))).one()
            except sa.exc.IntegrityError:
                raise NameTaken(f"the contest name {name!r} is taken") from None
            return Contest(**row._mapping)

    def contest(self, contest_id: int) -> Contest | None:
        return self._contest(contests.c.id == contest_id)

    def contest_by_name(self, name: str) -> Contest | None:
        return self._contest(contests.c.name == name)

    def _contest(self, where: sa.ColumnElement[bool]) -> Contest | None:
        with self._read() as conn:
            row = conn.execute(sa.select(*_cols(Contest, contests)).where(where)).first()
        return Contest(**row._mapping) if row else None

    def contests(self) -> list[Contest]:
        with self._read() as conn:
            rows = conn.execute(sa.select(*_cols(Contest, contests)).order_by(contests.c.id))
            return [Contest(**r._mapping) for r in rows]

    def set_contest_active(self, contest_id: int, active: bool) -> None:
        """Open or pause a contest: workers claim no game of a paused one."""
        with self._write() as conn:
            done = conn.execute(contests.update().values(active=active)
                                .where(contests.c.id == contest_id))
            if done.rowcount != 1:
                raise NotFound(f"no contest {contest_id}")

    def set_contest_times(self, contest_id: int, opens: float | None,
                          closes: float | None) -> Contest:
        """Change when a contest opens and closes; `StoreError` once its standings are
        final (frozen)."""
        _check_times(opens, closes)
        with self._write() as conn:
            self._lock(conn, contests, contest_id, "contest")
            row = conn.execute(contests.update().values(opens=opens, closes=closes)
                               .where(contests.c.id == contest_id, contests.c.frozen.is_(None))
                               .returning(*_cols(Contest, contests))).first()
            if row is None:
                raise StoreError("the contest's final standings are stored: its times stay")
            return Contest(**row._mapping)

    def cancel_queued(self, contest_id: int, now: float) -> int:
        """Give up the contest's queued ranked games (it closed): done, no result."""
        with self._write() as conn:
            return conn.execute(games.update().values(
                status="done", reason="not played: the contest closed", finished=now,
            ).where(games.c.contest_id == contest_id, games.c.status == "queued",
                    games.c.ranked)).rowcount

    def freeze(self, contest_id: int, order: Sequence[int], now: float) -> bool:
        """Store the contest's final standings, the versions of `order` ranked in that
        order with their ratings now, in one transaction; False (nothing stored) if
        they are stored already or a ranked game is still to be played or rated."""
        with self._write() as conn:
            self._lock(conn, contests, contest_id, "contest")
            pending = conn.execute(sa.select(games.c.id).where(
                games.c.contest_id == contest_id, games.c.ranked,
                sa.or_(games.c.status != "done",
                       sa.and_(games.c.result.is_not(None), games.c.rated.is_(False))))
                .limit(1)).first()
            if pending is not None:
                return False
            marked = conn.execute(contests.update().values(frozen=now).where(
                contests.c.id == contest_id, contests.c.frozen.is_(None)))
            if marked.rowcount != 1:
                return False
            for rank, version_id in enumerate(order, 1):
                v = conn.execute(sa.select(versions.c.mu, versions.c.sigma, versions.c.games)
                                 .where(versions.c.id == version_id)).one()
                conn.execute(final_standings.insert().values(
                    contest_id=contest_id, rank=rank, version_id=version_id, mu=v.mu,
                    sigma=v.sigma, games=v.games))
            return True

    def standings(self, contest_id: int) -> list[Standing]:
        """A contest's final standings, by rank (empty until `freeze`)."""
        return self._rows(Standing, final_standings,
                          final_standings.c.contest_id == contest_id,
                          order=final_standings.c.rank)

    # --- bots and versions ------------------------------------------------------------------

    def add_bot(self, contest_id: int, owner_id: int, name: str, *,
                now: float | None = None) -> Bot:
        """A new bot; `TooManyBots` past the contest's limit per user (their house bots
        not counted), `NameTaken` if the contest has a bot of that name."""
        with self._write() as conn:
            self._lock(conn, contests, contest_id, "contest")  # one new bot at a time
            self._lock(conn, users, owner_id, "user")
            limit = conn.execute(sa.select(contests.c.max_bots_per_user)
                                 .where(contests.c.id == contest_id)).scalar_one()
            house = sa.exists().where(versions.c.bot_id == bots.c.id,
                                      versions.c.spec.is_not(None))
            have = conn.execute(sa.select(sa.func.count()).where(
                bots.c.contest_id == contest_id, bots.c.owner_id == owner_id, ~house)
            ).scalar_one()
            if have >= limit:
                raise TooManyBots(f"you have {have} bot{'s' if have != 1 else ''} in this "
                                  "contest, the most it allows")
            try:
                row = conn.execute(bots.insert().values(
                    contest_id=contest_id, owner_id=owner_id, name=name, created=_now(now),
                ).returning(*_cols(Bot, bots))).one()
            except sa.exc.IntegrityError:
                raise NameTaken(f"the contest has a bot called {name!r}") from None
            return Bot(**row._mapping)

    def add_house_version(self, contest_id: int, owner_id: int, name: str, spec: str, *,
                          now: float | None = None) -> Version:
        """Enter one of ninefold's own players (`spec`, e.g. ``level:3``) as the bot
        `name` of `owner_id` (the contest's organiser or an admin; the contest's limit
        of bots per user does not apply, and house bots do not count against it), active
        at once; a house bot entered again gets a new version.
        `NameTaken` if `name` is someone else's bot or an uploaded one."""
        now = _now(now)
        with self._write() as conn:
            self._lock(conn, contests, contest_id, "contest")
            bot_id = conn.execute(sa.select(bots.c.id).where(
                bots.c.contest_id == contest_id, bots.c.name == name)).scalar()
            if bot_id is None:
                bot_id = conn.execute(bots.insert().values(
                    contest_id=contest_id, owner_id=owner_id, name=name, created=now,
                ).returning(bots.c.id)).scalar_one()
            mine = versions.c.bot_id == bot_id
            uploaded = conn.execute(sa.select(versions.c.id).where(
                mine, versions.c.spec.is_(None)).limit(1)).first()
            owner = conn.execute(sa.select(bots.c.owner_id)
                                 .where(bots.c.id == bot_id)).scalar_one()
            if uploaded is not None or owner != owner_id:
                raise NameTaken(f"the contest has a bot called {name!r} that is not a "
                                "house bot of yours")
            conn.execute(versions.update().values(status="retired")
                         .where(mine, versions.c.status == "active"))
            return _insert_version(conn, bot_id, created=now, filename=spec, archive=b"",
                                   language=HOUSE, spec=spec, status="active")

    def bot(self, bot_id: int) -> Bot | None:
        bots_found = self._bots(bots.c.id == bot_id)
        return bots_found[0] if bots_found else None

    def bots(self, contest_id: int | None = None, owner_id: int | None = None) -> list[Bot]:
        """Bots, oldest first, of one contest and/or one owner (all when None)."""
        where: list[sa.ColumnElement[bool]] = [sa.true()]
        if contest_id is not None:
            where.append(bots.c.contest_id == contest_id)
        if owner_id is not None:
            where.append(bots.c.owner_id == owner_id)
        return self._bots(*where)

    def _bots(self, *where: sa.ColumnElement[bool]) -> list[Bot]:
        with self._read() as conn:
            rows = conn.execute(sa.select(*_cols(Bot, bots)).where(*where).order_by(bots.c.id))
            return [Bot(**r._mapping) for r in rows]

    def add_version(self, bot_id: int, filename: str, archive: bytes, *,
                    language: str | None = None, now: float | None = None,
                    max_unfinished: int = 0, max_per_day: int = 0) -> Version:
        """A new version of a bot, ``uploaded``, numbered one past its newest. Its
        `language` is stored with it: the builder may take it as soon as it is committed.
        With `max_unfinished` or `max_per_day`, `TooManyUploads` as `check_uploads`
        says, counted in the insert's transaction (nothing stored then)."""
        now = _now(now)
        with self._write() as conn:
            self._lock(conn, bots, bot_id, "bot")  # two uploads cannot take one number
            if max_unfinished or max_per_day:
                owner = conn.execute(sa.select(bots.c.owner_id)
                                     .where(bots.c.id == bot_id)).scalar_one()
                self._lock(conn, users, owner, "user")  # one count at a time per user
                _check_uploads(conn, owner, now, max_unfinished, max_per_day)
            return _insert_version(conn, bot_id, created=now, filename=filename,
                                   archive=archive, language=language, status="uploaded")

    def check_uploads(self, owner_id: int, *, max_unfinished: int, max_per_day: int,
                      now: float | None = None) -> None:
        """`TooManyUploads` (one line) if `owner_id` has `max_unfinished` versions
        `UNFINISHED`, or has uploaded `max_per_day` in the 24 hours before `now` (house
        bots not counted; 0: no limit)."""
        with self._read() as conn:
            _check_uploads(conn, owner_id, _now(now), max_unfinished, max_per_day)

    def version(self, version_id: int) -> Version | None:
        found = self._versions(versions.c.id == version_id)
        return found[0] if found else None

    def versions(self, bot_id: int) -> list[Version]:
        """A bot's versions, by number."""
        return self._versions(versions.c.bot_id == bot_id)

    def versions_in(self, statuses: Iterable[str]) -> list[Version]:
        """Every version in one of `statuses`, oldest first (the builder's to-do list)."""
        return self._versions(versions.c.status.in_(list(statuses)))

    def active_versions(self, contest_id: int) -> list[Version]:
        """The active version of each of the contest's bots."""
        return self._versions(versions.c.status == "active", bots.c.contest_id == contest_id)

    def _versions(self, *where: sa.ColumnElement[bool]) -> list[Version]:
        with self._read() as conn:
            rows = conn.execute(sa.select(*_cols(Version, versions))
                                .join(bots, bots.c.id == versions.c.bot_id)
                                .where(*where).order_by(versions.c.id))
            return [Version(**r._mapping) for r in rows]

    def version_blob(self, version_id: int, which: str) -> bytes | None:
        """A version's uploaded ``archive`` or compiled ``build`` (None if not built)."""
        _check(which, BLOBS, "blob")
        with self._read() as conn:
            return conn.execute(sa.select(versions.c[which])
                                .where(versions.c.id == version_id)).scalar()

    def set_version_status(self, version_id: int, status: str, *, expect: str | None = None,
                           compile_log: str | None = None, test_log: str | None = None,
                           build: bytes | None = None, language: str | None = None) -> bool:
        """Move a version to `status` and set the fields given; with `expect`, only if its
        status is that now (so two builders cannot both take it). False if nothing
        changed. ``active`` is `activate`'s alone."""
        _check(status, VERSION_STATUSES, "status")
        if status == "active":
            raise ValueError("a version becomes active through Store.activate")
        given = {"compile_log": compile_log, "test_log": test_log, "build": build,
                 "language": language}
        values = {k: v for k, v in given.items() if v is not None}
        where = [versions.c.id == version_id]
        if expect is not None:
            where.append(versions.c.status == expect)
        with self._write() as conn:
            done = conn.execute(versions.update().values(status=status, **values).where(*where))
            return done.rowcount == 1

    def claim_build(self, worker: str, lease_s: float, now: float) -> tuple[Version, str] | None:
        """Take the next version to build for `worker`, with a new claim token: an
        ``uploaded`` one, or one whose builder's lease ran out mid-way (``compiling`` or
        ``testing``: its worker died). It becomes ``compiling``, leased until ``now +
        lease_s``; None if there is none. Two builders never take the same version."""
        with self._write() as conn:
            version_id = _next_build(conn, now)
            if version_id is None:
                return None
            claim = secrets.token_hex(16)
            row = conn.execute(versions.update().values(
                status="compiling", claim=claim, worker=worker, lease_until=now + lease_s,
            ).where(versions.c.id == version_id).returning(*_cols(Version, versions))).one()
            return Version(**row._mapping), claim

    def renew_build(self, version_id: int, claim: str, lease_s: float, now: float) -> bool:
        """Extend the lease of a build we hold; False if the claim is no longer ours."""
        with self._write() as conn:
            done = conn.execute(versions.update().values(lease_until=now + lease_s).where(
                versions.c.id == version_id, versions.c.claim == claim,
                versions.c.status.in_(BUILDING)))
            return done.rowcount == 1

    def activate(self, version_id: int) -> bool:
        """Make a version its bot's active one and retire the one before, in one
        transaction. A version older than the bot's active one is retired instead
        (the newest that passed plays): False then."""
        with self._write() as conn:
            found = conn.execute(sa.select(versions.c.bot_id, versions.c.number)
                                 .where(versions.c.id == version_id)).first()
            if found is None:
                raise NotFound(f"no version {version_id}")
            self._lock(conn, bots, found.bot_id, "bot")
            mine = versions.c.bot_id == found.bot_id
            newer = conn.execute(sa.select(versions.c.id).where(
                mine, versions.c.status == "active", versions.c.number > found.number)).first()
            if newer is not None:
                conn.execute(versions.update().values(status="retired")
                             .where(versions.c.id == version_id))
                return False
            conn.execute(versions.update().values(status="retired").where(
                mine, versions.c.status == "active", versions.c.id != version_id))
            conn.execute(versions.update().values(status="active")
                         .where(versions.c.id == version_id))
            return True

    # --- games: the work queue --------------------------------------------------------------

    def queue_pair(self, contest_id: int, a_version: int, b_version: int,
                   opening: str | None, *, ranked: bool = True, once: bool = False,
                   now: float | None = None) -> tuple[int, int]:
        """Queue two games of one opening, `a_version` X in the first, O in the second;
        their ids. The pair's number is its first game's id. A test game (not
        `ranked`) is played like the others and never rated. `once`: `AlreadyQueued`
        (nothing queued) while a game of the same kind between the two versions is
        queued or running (a request sent twice)."""
        now = _now(now)
        game = {"contest_id": contest_id, "opening": opening, "status": "queued",
                "attempts": 0, "created": now, "rated": False, "ranked": ranked}
        with self._write() as conn:
            if once:
                self._lock(conn, versions, a_version, "version")  # one request at a time
                x, o = games.c.x_version, games.c.o_version
                waiting = conn.execute(sa.select(games.c.id).where(
                    games.c.ranked.is_(ranked), games.c.status.in_(("queued", "running")),
                    sa.or_(sa.and_(x == a_version, o == b_version),
                           sa.and_(x == b_version, o == a_version))).limit(1)).first()
                if waiting is not None:
                    raise AlreadyQueued("these two versions' games are waiting already "
                                        f"(game {waiting.id})")
            first = conn.execute(games.insert().values(
                **game, pair=0, x_version=a_version, o_version=b_version,
            ).returning(games.c.id)).scalar_one()
            conn.execute(games.update().values(pair=first).where(games.c.id == first))
            second = conn.execute(games.insert().values(
                **game, pair=first, x_version=b_version, o_version=a_version,
            ).returning(games.c.id)).scalar_one()
            return first, second

    def claim(self, worker: str, lease_s: float, now: float) -> GameRow | None:
        """Take the oldest queued game of an active contest for `worker`, leased until
        ``now + lease_s`` under a new claim token; None if there is none. Two workers
        never take the same game; none takes a ranked game of a closed contest."""
        still_open = sa.or_(games.c.ranked.is_(False), contests.c.closes.is_(None),
                            contests.c.closes > now)
        with self._write() as conn:
            game_id = conn.execute(
                sa.select(games.c.id).join(contests, contests.c.id == games.c.contest_id)
                .where(games.c.status == "queued", contests.c.active, still_open)
                .order_by(games.c.id).limit(1)
                .with_for_update(skip_locked=True, of=games)).scalar()
            if game_id is None:
                return None
            row = conn.execute(games.update().values(
                status="running", claim=secrets.token_hex(16), worker=worker,
                lease_until=now + lease_s, attempts=games.c.attempts + 1, started=now,
            ).where(games.c.id == game_id).returning(*_cols(GameRow, games, LOGS))).one()
            return _game(row)

    def _claimed(self, game_id: int, claim: str) -> sa.ColumnElement[bool]:
        return sa.and_(games.c.id == game_id, games.c.claim == claim,
                       games.c.status == "running")

    def renew(self, game_id: int, claim: str, lease_s: float, now: float) -> bool:
        """Extend the lease of a game we hold; False if the claim is no longer ours."""
        with self._write() as conn:
            done = conn.execute(games.update().values(lease_until=now + lease_s)
                                .where(self._claimed(game_id, claim)))
            return done.rowcount == 1

    def release(self, game_id: int, claim: str, *, max_attempts: int = MAX_ATTEMPTS) -> bool:
        """Give a game we hold back to the queue at once (its worker stopped or failed),
        or give it up after `max_attempts` claims; False if the claim is no longer ours."""
        with self._write() as conn:
            return _take_back(conn, self._claimed(game_id, claim), time.time(),
                              max_attempts) == 1

    def finish(self, game_id: int, claim: str, result: str, reason: str,
               moves: Sequence[str] | str, times_ms: Sequence[float], x_log: str,
               o_log: str, now: float, turn_logs: str | None = None) -> bool:
        """Store a game's result if `claim` still holds it (running, same token); a late
        result from a claim that was given up is dropped: False. `turn_logs`: each
        turn's stderr, as JSON."""
        _check(result, RESULTS, "result")
        with self._write() as conn:
            done = conn.execute(games.update().values(
                status="done", result=result, reason=reason,
                moves=moves if isinstance(moves, str) else " ".join(moves),
                times_ms=json.dumps(list(times_ms)), x_log=x_log, o_log=o_log,
                turn_logs=turn_logs, finished=now, lease_until=None,
            ).where(self._claimed(game_id, claim)))
            return done.rowcount == 1

    def requeue_expired(self, now: float, *, max_attempts: int = MAX_ATTEMPTS) -> int:
        """Take back running games whose lease ended: queued again, or given up (done,
        no result) after `max_attempts` claims; how many were taken back."""
        expired = sa.and_(games.c.status == "running", games.c.lease_until < now)
        with self._write() as conn:
            return _take_back(conn, expired, now, max_attempts)

    def unrated_games(self, contest_id: int) -> list[GameRow]:
        """The contest's finished ranked games with a result, not yet rated, in finish
        order."""
        return self._games(
            games.c.contest_id == contest_id, games.c.status == "done", games.c.ranked,
            games.c.result.is_not(None), games.c.rated.is_(False),
            order=(games.c.finished, games.c.id))

    def rate(self, game_id: int, updates: dict[int, tuple[float, float]], now: float) -> bool:
        """In one transaction: mark a finished game rated, set its versions' new
        ``(mu, sigma)``, count the game and keep the history. False (and nothing
        changed) if it was rated already or is a test game."""
        with self._write() as conn:
            marked = conn.execute(games.update().values(rated=True).where(
                games.c.id == game_id, games.c.status == "done", games.c.ranked,
                games.c.result.is_not(None), games.c.rated.is_(False)))
            if marked.rowcount != 1:
                return False
            for version_id, (mu, sigma) in updates.items():
                conn.execute(versions.update().values(mu=mu, sigma=sigma,
                                                      games=versions.c.games + 1)
                             .where(versions.c.id == version_id))
                conn.execute(rating_history.insert().values(
                    version_id=version_id, game_id=game_id, mu=mu, sigma=sigma, at=now))
            return True

    def game(self, game_id: int) -> GameRow | None:
        """One game, with the bots' logs."""
        with self._read() as conn:
            row = conn.execute(sa.select(*_cols(GameRow, games))
                               .where(games.c.id == game_id)).first()
        return _game(row) if row else None

    def games(self, contest_id: int | None = None, version_id: int | None = None,
              status: str | None = None, limit: int = 100, offset: int = 0,
              ranked: bool | None = None, bot_id: int | None = None) -> list[GameRow]:
        """Games newest first, of one contest, one version (as X or O), one bot (any of
        its versions), one status, ranked or test games only."""
        where: list[sa.ColumnElement[bool]] = [sa.true()]
        if ranked is not None:
            where.append(games.c.ranked.is_(ranked))
        if contest_id is not None:
            where.append(games.c.contest_id == contest_id)
        if version_id is not None:
            where.append(sa.or_(games.c.x_version == version_id,
                                games.c.o_version == version_id))
        if bot_id is not None:
            of_bot = sa.select(versions.c.id).where(versions.c.bot_id == bot_id)
            where.append(sa.or_(games.c.x_version.in_(of_bot), games.c.o_version.in_(of_bot)))
        if status is not None:
            where.append(games.c.status == status)
        return self._games(*where, order=(games.c.id.desc(),), limit=limit, offset=offset)

    def _games(self, *where: sa.ColumnElement[bool], order: Sequence[Any],
               limit: int | None = None, offset: int = 0) -> list[GameRow]:
        with self._read() as conn:
            rows = conn.execute(sa.select(*_cols(GameRow, games, LOGS)).where(*where)
                                .order_by(*order).limit(limit).offset(offset))
            return [_game(r) for r in rows]

    def counts(self, contest_id: int, ranked: bool = True, *,
               by_rating: bool = False) -> dict[str, int]:
        """How many of the contest's ranked (or test) games are in each status (every
        status listed); `by_rating` (the leaderboard's): a game with a result not rated
        yet counts as ``rating``, not ``done``, so that ``done`` never runs ahead of the
        ratings."""
        status: sa.ColumnElement[str] = games.c.status
        if by_rating:
            status = sa.case((sa.and_(games.c.status == "done", games.c.result.is_not(None),
                                      games.c.rated.is_(False)), "rating"), else_=status)
        keys = (*GAME_STATUSES, "rating") if by_rating else GAME_STATUSES
        with self._read() as conn:
            rows = conn.execute(sa.select(status, sa.func.count())
                                .where(games.c.contest_id == contest_id,
                                       games.c.ranked.is_(ranked))
                                .group_by(status))
            return {**dict.fromkeys(keys, 0), **{s: n for s, n in rows}}

    def waiting_test_games(self, owner_id: int) -> int:
        """How many test games of `owner_id`'s bots are queued or running."""
        theirs = sa.select(versions.c.id).join(bots, bots.c.id == versions.c.bot_id).where(
            bots.c.owner_id == owner_id)
        with self._read() as conn:
            return conn.execute(sa.select(sa.func.count()).where(
                games.c.ranked.is_(False), games.c.status.in_(("queued", "running")),
                sa.or_(games.c.x_version.in_(theirs), games.c.o_version.in_(theirs)))
            ).scalar_one()

    def in_flight(self, contest_id: int) -> dict[int, int]:
        """Queued and running games per version of the contest (the scheduler's)."""
        waiting = sa.and_(games.c.contest_id == contest_id,
                          games.c.status.in_(("queued", "running")))
        sides = sa.union_all(sa.select(games.c.x_version.label("v")).where(waiting),
                             sa.select(games.c.o_version.label("v")).where(waiting)).subquery()
        with self._read() as conn:
            rows = conn.execute(sa.select(sides.c.v, sa.func.count()).group_by(sides.c.v))
            return {v: n for v, n in rows}

    def last_rating(self, bot_id: int) -> int | None:
        """The id of the newest rating of any of the bot's versions (None: it has none):
        what its rating plot is drawn from changes exactly when this does."""
        with self._read() as conn:
            found: int | None = conn.execute(
                sa.select(sa.func.max(rating_history.c.id))
                .select_from(rating_history.join(
                    versions, versions.c.id == rating_history.c.version_id))
                .where(versions.c.bot_id == bot_id)).scalar()
            return found

    def rating_history(self, version_id: int) -> list[RatingPoint]:
        """A version's rating after each of its rated games, oldest first."""
        return self._rows(RatingPoint, rating_history,
                          rating_history.c.version_id == version_id, order=rating_history.c.id)

    def _rows(self, cls: type[Row], table: sa.Table, *where: sa.ColumnElement[bool],
              order: sa.ColumnElement[Any]) -> list[Row]:
        """The rows of `table` matching `where`, in `order`, as `cls` (a dataclass named
        after its columns)."""
        with self._read() as conn:
            rows = conn.execute(sa.select(*_cols(cls, table)).where(*where).order_by(order))
            return [cls(**r._mapping) for r in rows]


def _take_back(conn: sa.Connection, which: sa.ColumnElement[bool], now: float,
               max_attempts: int) -> int:
    """Running games matching `which` go back to the queue, or are given up (done, no
    result) after `max_attempts` claims; how many were taken back."""
    released = {"claim": None, "worker": None, "lease_until": None}
    given_up = conn.execute(games.update().values(
        status="done", reason=f"abandoned: no worker finished it in {max_attempts} attempts",
        finished=now, **released).where(which, games.c.attempts >= max_attempts)).rowcount
    requeued = conn.execute(games.update().values(status="queued", **released)
                            .where(which)).rowcount
    return given_up + requeued
