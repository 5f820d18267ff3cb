"""No one starves the rest: sign-ups and log-ins counted per address and per account,
password hashing in a bounded pool of its own, paging capped, request bodies small
except an upload's, read only after its author is known, and rating plots drawn once
per change of the ratings (the upload caps and the builders' turns:
tests/test_platform_uploads.py)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import pytest

from ninefold.platform import accounts as accounts_module
from ninefold.platform.accounts import Accounts, AuthError
from ninefold.platform.limits import BoundedPool, Busy, PlatformLimits, RateLimit, RateLimited
from ninefold.platform.store import Store

PASSWORD = "correct horse battery"


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def accounts(tmp_path, clock: Clock) -> Iterator[Accounts]:
    with Store(f"sqlite:///{tmp_path / 'platform.sqlite'}") as store:
        made = Accounts(store, clock)
        yield made
        made.hashing.close()


@pytest.fixture
def hashes(monkeypatch) -> list[str]:
    """The passwords checked against a hash (argon2's costly work), in order."""
    checked: list[str] = []
    verify = accounts_module.verify_password

    def counted(password_hash: str, password: str) -> bool:
        checked.append(password)
        return verify(password_hash, password)

    monkeypatch.setattr(accounts_module, "verify_password", counted)
    return checked


def test_fifty_quick_wrong_log_ins_are_refused_past_the_first_ten(accounts: Accounts,
                                                                  clock: Clock,
                                                                  hashes: list[str]):
    accounts.sign_up("ann", PASSWORD)
    answers = []
    for i in range(50):
        clock.now += 0.1
        try:
            accounts.log_in("ann", f"guess {i:02}", address="203.0.113.9")
        except AuthError:
            answers.append("wrong")
        except RateLimited as exc:
            assert 0 < exc.retry_after <= 60
            answers.append("429")
    assert answers == ["wrong"] * 10 + ["429"] * 40
    assert len(hashes) == 10  # a refused try costs no hash
    user, token = accounts.log_in("ann", PASSWORD, address="198.51.100.4")
    assert user.name == "ann" and accounts.user_for(token) == user
    with pytest.raises(RateLimited) as refused:
        accounts.log_in("ann", PASSWORD, address="203.0.113.9")
    clock.now += refused.value.retry_after
    assert accounts.log_in("ann", PASSWORD, address="203.0.113.9")[0] == user


def test_wrong_passwords_from_many_addresses_lock_the_name_for_a_minute(
        accounts: Accounts, clock: Clock, hashes: list[str]):
    accounts.sign_up("ann", PASSWORD)
    for i in range(20):
        with pytest.raises(AuthError):
            accounts.log_in("ANN", "wrong horse", address=f"10.0.0.{i}")
    hashed = len(hashes)
    with pytest.raises(RateLimited, match="too many wrong passwords for 'ann'") as refused:
        accounts.log_in("ann", PASSWORD, address="10.0.1.1")
    assert len(hashes) == hashed and 0 < refused.value.retry_after <= 60
    with pytest.raises(RateLimited):  # an unknown name is counted alike
        for i in range(21):
            with contextlib.suppress(AuthError):
                accounts.log_in("nobody", "wrong horse", address=f"10.1.0.{i}")
    clock.now += 60
    assert accounts.log_in("ann", PASSWORD, address="10.0.1.1")[0].name == "ann"


def test_sign_ups_from_one_address_are_counted_per_hour(accounts: Accounts, clock: Clock):
    for i in range(5):
        accounts.sign_up(f"user{i}", PASSWORD, address="192.0.2.1")
    with pytest.raises(RateLimited, match="too many sign-ups") as refused:
        accounts.sign_up("user5", PASSWORD, address="192.0.2.1")
    assert 3599 <= refused.value.retry_after <= 3600
    assert accounts.store.user_by_name("user5") is None
    accounts.sign_up("user5", PASSWORD, address="192.0.2.2")
    clock.now += 3600
    accounts.sign_up("user6", PASSWORD, address="192.0.2.1")


def test_limits_are_settings_with_safe_defaults():
    limits = PlatformLimits()
    assert (limits.logins_per_minute_per_address, limits.signups_per_hour_per_address) == (10, 5)
    assert limits.logins_per_minute_per_account > limits.logins_per_minute_per_address
    env = {"NINEFOLD_LOGINS_PER_MINUTE_PER_ADDRESS": "3", "NINEFOLD_OTHER": "x"}
    changed = PlatformLimits.from_env(env)
    assert changed.logins_per_minute_per_address == 3
    assert changed.hash_queue == limits.hash_queue
    for bad in ("-1", "1.5", ""):
        with pytest.raises(ValueError, match="NINEFOLD_HASH_QUEUE="):
            PlatformLimits.from_env({"NINEFOLD_HASH_QUEUE": bad})
    with pytest.raises(ValueError, match="hash_threads"):
        PlatformLimits(hash_threads=0)


def test_a_rate_limit_forgets_the_oldest_keys_past_its_size():
    now = [0.0]
    limit = RateLimit(1, 60.0, keys=3, clock=lambda: now[0])
    assert [limit.take(k) for k in "abc"] == [0.0] * 3
    assert limit.take("a") == 60.0  # still known
    limit.take("d")  # b, the least recently used, is forgotten
    assert limit.take("b") == 0.0 and len(limit._events) == 3
    assert RateLimit(0, 60.0).take("x") == 0.0  # 0: no limit


def test_a_bounded_pool_refuses_at_once_when_its_queue_is_full():
    pool = BoundedPool(threads=1, queue=1, name="test")
    go = threading.Event()
    try:
        running = pool.submit(go.wait, 30)
        waiting = pool.submit(lambda: "queued")
        with pytest.raises(Busy):
            pool.submit(lambda: "one too many")
        go.set()
        assert running.result(30) and waiting.result(30) == "queued"
        assert pool.submit(lambda: "room again").result(30) == "room again"
    finally:
        go.set()
        pool.close()
