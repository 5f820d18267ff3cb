"""Accounts: argon2 password hashes, names and passwords that are allowed, sessions.

A log-in makes a session: a random token for the browser's cookie (14 days)
or for a bot author's scripts (an API token, a year). The database keeps
only the token's sha256, so a stolen copy of it logs no one in. A wrong
name and a wrong password get the same answer, after the same work.
A user lists their sessions and ends any of them (`Accounts.sessions`,
`Accounts.revoke`) by its id, the first digits of the hash (`session_id`);
expired sessions are deleted at the platform's start and at each log-in
(`Accounts.purge`).

>>> check_name("ann_42")
'ann_42'
>>> verify_password(hash_password("correct horse"), "correct horse")
True
>>> verify_password("not a hash", "correct horse")
False
>>> token, digest = new_token()
>>> token_hash(token) == digest and len(digest) == 64
True
"""

from __future__ import annotations

import functools
import re
import secrets
import time
from collections.abc import Callable

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ninefold.platform import token_hash
from ninefold.platform.limits import (
    BoundedPool,
    PlatformLimits,
    RateLimit,
    RateLimited,
    wait_text,
)
from ninefold.platform.store import NameTaken, Session, Store, User

DAY = 24 * 3600.0
LIFETIMES = {"cookie": 14 * DAY, "api": 365 * DAY}  # a session's life by kind, in seconds
NAME = re.compile(r"[A-Za-z0-9_-]{3,32}\Z")
PASSWORD_LENGTHS = range(8, 257)
TOKEN_BYTES = 32
SESSION_ID_DIGITS = 16  # a session's public id: this many hex digits of its token's hash
WRONG = "wrong name or password"

HASHER = PasswordHasher()  # argon2id with the library's current defaults


class AuthError(ValueError):
    """A sign-up or log-in refused (one line)."""


def check_name(name: str) -> str:
    """`name` if it is allowed as a user name, else ValueError.

    >>> check_name("a b")
    Traceback (most recent call last):
    ValueError: 'a b' is not a name: use 3 to 32 letters, digits, - and _
    """
    if not NAME.match(name):
        raise ValueError(f"{name!r} is not a name: use 3 to 32 letters, digits, - and _")
    return name


def check_password(password: str) -> str:
    """`password` if its length is allowed, else ValueError."""
    if len(password) not in PASSWORD_LENGTHS:
        raise ValueError(f"a password has {PASSWORD_LENGTHS.start} to "
                         f"{PASSWORD_LENGTHS.stop - 1} characters")
    return password


def hash_password(password: str) -> str:
    return HASHER.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """Whether `password` matches `password_hash`; False for a hash that is no argon2
    hash at all."""
    try:
        return HASHER.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


@functools.cache
def _dummy_hash() -> str:
    """What an unknown name's password is checked against, to take as long as a known one."""
    return hash_password(secrets.token_urlsafe(16))


def new_token() -> tuple[str, str]:
    """A new random session token and its hash."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, token_hash(token)


def session_id(digest: str) -> str:
    """The id by which a session is listed and revoked: the first 16 hex digits of its
    token's hash (`digest`), never the token itself.

    >>> session_id(token_hash("abc"))
    'ba7816bf8f01cfea'
    """
    return digest[:SESSION_ID_DIGITS]


class Accounts:
    """Sign-up, log-in and sessions on a `Store`; `clock` tells the time (epoch seconds).

    Within `limits` (`ninefold.platform.limits.PlatformLimits`): sign-ups and log-ins
    are counted per client `address` and wrong passwords per account name, and refused
    past their rate (`RateLimited`) before any password is hashed; `hashing` is the
    pool the web routes hash passwords in (`BoundedPool`: a full queue is refused at
    once, `Busy`)."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time,
                 limits: PlatformLimits | None = None) -> None:
        self.store, self.clock = store, clock
        self.limits = limits = limits or PlatformLimits()
        self.signups = RateLimit(limits.signups_per_hour_per_address, 3600.0,
                                 keys=limits.rate_keys, clock=clock)
        self.logins = RateLimit(limits.logins_per_minute_per_address, 60.0,
                                keys=limits.rate_keys, clock=clock)
        self.wrong = RateLimit(limits.logins_per_minute_per_account, 60.0,
                               keys=limits.rate_keys, clock=clock)
        self.hashing = BoundedPool(limits.hash_threads, limits.hash_queue, "argon2")

    def sign_up(self, name: str, password: str, address: str | None = None) -> User:
        """A new user; ValueError for a name or password not allowed, `AuthError` for a
        name taken (in any letter case), `RateLimited` past the sign-ups allowed from
        `address` (the client's; None: not counted)."""
        check_name(name)
        check_password(password)
        if address is not None and (wait := self.signups.take(address)):
            raise RateLimited("too many sign-ups from your address: try again in "
                              f"{wait_text(wait)}", wait)
        try:
            return self.store.add_user(name, hash_password(password), now=self.clock())
        except NameTaken as exc:
            raise AuthError(str(exc)) from None

    def log_in(self, name: str, password: str, kind: str = "cookie",
               address: str | None = None) -> tuple[User, str]:
        """The user and a new session token of `kind` (``cookie`` or ``api``); `AuthError`
        with one message whether the name or the password was wrong. `RateLimited`,
        before any hashing, past the log-ins allowed from `address` (the client's; None:
        not counted) or the wrong passwords allowed for the name (from any address:
        more than one address may try, so that one alone never locks an account)."""
        if kind not in LIFETIMES:
            raise ValueError(f"no session kind {kind!r}: cookie or api")
        if address is not None and (wait := self.logins.take(address)):
            raise RateLimited("too many log-ins from your address: try again in "
                              f"{wait_text(wait)}", wait)
        account = name.lower()
        if wait := self.wrong.wait(account):
            raise RateLimited(f"too many wrong passwords for {name!r}: try again in "
                              f"{wait_text(wait)}", wait)
        user = self.store.user_by_name(name)
        ok = verify_password(user.password_hash if user else _dummy_hash(), password)
        if user is None or not ok:
            self.wrong.add(account)
            raise AuthError(WRONG)
        if HASHER.check_needs_rehash(user.password_hash):  # hashed with older parameters
            self.store.set_password(user.name, hash_password(password))
            user = self.store.user(user.id) or user
        self.store.drop_expired_sessions(self.clock())  # everyone's: kept no longer than they work
        return user, self.session(user, kind)

    def api_token(self, user: User) -> str:
        """A new API token for `user` (already signed in), for scripts and the CLI."""
        return self.session(user, "api")

    def session(self, user: User, kind: str) -> str:
        """A new session token of `kind` for `user`, who has just proved who they are
        (signed up, or signed in)."""
        now = self.clock()
        token, digest = new_token()
        self.store.add_session(user.id, digest, kind, now + LIFETIMES[kind], now=now)
        return token

    def user_for(self, token: str) -> User | None:
        """The user of a session token still valid, or None."""
        return self.store.session_user(token_hash(token), self.clock()) if token else None

    def log_out(self, token: str) -> None:
        self.store.drop_session(token_hash(token))

    def sessions(self, user: User) -> list[Session]:
        """`user`'s sessions still valid (browser log-ins and API tokens), newest first."""
        now = self.clock()
        return [s for s in self.store.sessions(user.id) if s.expires > now]

    def revoke(self, user: User, session: str) -> bool:
        """End `user`'s session whose `session_id` is `session` (it logs no one in from
        now on); False if `user` has no such session."""
        for s in self.store.sessions(user.id):
            if session_id(s.token_hash) == session:
                self.store.drop_session(s.token_hash)
                return True
        return False

    def purge(self) -> int:
        """Delete every expired session; how many there were."""
        return self.store.drop_expired_sessions(self.clock())
