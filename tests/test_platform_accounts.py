"""Accounts on a real SQLite store: argon2 hashes, log-in, sessions that expire."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from argon2 import PasswordHasher
from platform_fixtures import Clock

from ninefold.platform.accounts import (
    DAY,
    WRONG,
    Accounts,
    AuthError,
    check_name,
    check_password,
    hash_password,
    session_id,
    token_hash,
    verify_password,
)
from ninefold.platform.store import Store
from ninefold.web.platform import Platform


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def accounts(tmp_path, clock: Clock) -> Iterator[Accounts]:
    with Store(f"sqlite:///{tmp_path / 'platform.sqlite'}") as store:
        yield Accounts(store, clock)


def test_sign_up_stores_an_argon2id_hash(accounts: Accounts):
    ann = accounts.sign_up("Ann", "correct horse")
    assert ann.password_hash.startswith("$argon2id$") and "correct" not in ann.password_hash
    assert verify_password(ann.password_hash, "correct horse")
    assert not verify_password(ann.password_hash, "wrong horse")


def test_a_name_is_taken_in_any_letter_case(accounts: Accounts):
    accounts.sign_up("Ann", "correct horse")
    with pytest.raises(AuthError, match="'aNN' is taken"):
        accounts.sign_up("aNN", "another horse")


@pytest.mark.parametrize("name", ["ab", "x" * 33, "ann smith", "ann!", "änn", ""])
def test_names_not_allowed(name: str):
    with pytest.raises(ValueError, match="is not a name: use 3 to 32"):
        check_name(name)


def test_passwords_not_allowed(accounts: Accounts):
    assert check_password("8 chars!") == "8 chars!" and check_password("x" * 256)
    for password in ("short", "x" * 257):
        with pytest.raises(ValueError, match="a password has 8 to 256 characters"):
            accounts.sign_up("ann", password)


def test_a_wrong_password_and_an_unknown_name_get_one_answer(accounts: Accounts):
    accounts.sign_up("ann", "correct horse")
    answers = []
    for name, password in (("ann", "wrong horse"), ("bob", "correct horse")):
        with pytest.raises(AuthError) as refused:
            accounts.log_in(name, password)
        answers.append(str(refused.value))
    assert answers == [WRONG, WRONG]


def test_a_session_lasts_until_log_out_or_expiry(accounts: Accounts, clock: Clock):
    ann = accounts.sign_up("ann", "correct horse")
    user, cookie = accounts.log_in("ANN", "correct horse")
    assert user == ann and accounts.user_for(cookie) == ann
    _, api = accounts.log_in("ann", "correct horse", kind="api")
    assert accounts.user_for("") is None and accounts.user_for(cookie + "x") is None
    clock.now += 14 * DAY - 1
    assert accounts.user_for(cookie) == ann
    clock.now += 1
    assert accounts.user_for(cookie) is None and accounts.user_for(api) == ann
    accounts.log_out(api)
    assert accounts.user_for(api) is None
    with pytest.raises(ValueError, match="session kind 'ssh'"):
        accounts.log_in("ann", "correct horse", kind="ssh")


def test_an_old_hash_is_replaced_on_log_in(accounts: Accounts):
    weak = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)
    accounts.store.add_user("ann", weak.hash("correct horse"))
    user, _ = accounts.log_in("ann", "correct horse")
    assert user.password_hash.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert accounts.store.user(user.id) == user
    assert verify_password(user.password_hash, "correct horse")
    assert hash_password("x") != hash_password("x")  # salted


def test_sessions_are_listed_and_revoked_by_their_owner_only(accounts: Accounts,
                                                             clock: Clock):
    ann, bob = accounts.sign_up("ann", "correct horse"), accounts.sign_up("bob", "bob's horse")
    _, cookie = accounts.log_in("ann", "correct horse")
    clock.now += 10
    api = accounts.api_token(ann)
    _, bobs = accounts.log_in("bob", "bob's horse")
    listed = accounts.sessions(ann)
    assert [s.kind for s in listed] == ["api", "cookie"]  # newest first
    ids = [session_id(s.token_hash) for s in listed]
    assert ids == [session_id(token_hash(api)), session_id(token_hash(cookie))]
    assert all(len(i) == 16 and i not in (api, cookie) for i in ids)
    bob_id = session_id(accounts.sessions(bob)[0].token_hash)
    assert not accounts.revoke(ann, bob_id) and accounts.user_for(bobs) == bob  # not hers
    assert not accounts.revoke(ann, "0" * 16)
    assert accounts.revoke(ann, ids[0])
    assert accounts.user_for(api) is None and accounts.user_for(cookie) == ann
    assert not accounts.revoke(ann, ids[0])  # gone already
    clock.now += 14 * DAY
    assert accounts.sessions(ann) == []  # the cookie has expired


def test_expired_sessions_are_deleted_at_each_log_in(accounts: Accounts, clock: Clock):
    ann = accounts.sign_up("ann", "correct horse")
    accounts.sign_up("bob", "bob's horse")
    accounts.log_in("ann", "correct horse")
    api = accounts.api_token(ann)
    clock.now += 14 * DAY
    assert len(accounts.store.sessions(ann.id)) == 2  # expired, still stored
    accounts.log_in("bob", "bob's horse")  # anyone's log-in
    assert [s.token_hash for s in accounts.store.sessions(ann.id)] == [token_hash(api)]
    clock.now += 365 * DAY
    assert accounts.purge() == 2  # ann's token and bob's cookie
    assert accounts.store.sessions(ann.id) == []


def test_the_platform_deletes_expired_sessions_when_it_starts(tmp_path):
    url = f"sqlite:///{tmp_path / 'platform.sqlite'}"
    with Store(url) as store:
        ann = store.add_user("ann", hash_password("correct horse"))
        now = time.time()
        store.add_session(ann.id, "a" * 64, "cookie", now - 1, now=now - 100)
        store.add_session(ann.id, "b" * 64, "api", now + 3600, now=now - 100)
    platform = Platform.open(url)
    platform.start()
    try:
        assert [s.token_hash for s in platform.store.sessions(ann.id)] == ["b" * 64]
    finally:
        platform.close()
