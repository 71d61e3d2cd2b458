"""API keys (frecall/access/keys.py): creation, hashing, authentication, revocation; the
`KeyStore` contract on the in-memory fake, SQLite and Redis on fakeredis; rate limits."""

from __future__ import annotations

from pathlib import Path

import fakeredis
import pytest

from frecall.access.key_stores import InMemoryKeyStore, SqliteKeyStore
from frecall.access.keys import Keyring, key_id_of
from frecall.access.ratelimit import RateLimiter, retry_after
from frecall.access.redis_keys import RedisKeyStore
from frecall.access.tenants import TenantError
from tests.key_store_contract import KeyStoreContract


class TestInMemoryKeyStore(KeyStoreContract):
    @pytest.fixture
    def store(self) -> InMemoryKeyStore:
        return InMemoryKeyStore()


class TestSqliteKeyStore(KeyStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> SqliteKeyStore:
        return SqliteKeyStore(tmp_path / "data" / "keys.sqlite")


class TestRedisKeyStoreOnFakeredis(KeyStoreContract):
    @pytest.fixture
    def store(self) -> RedisKeyStore:
        return RedisKeyStore(fakeredis.FakeRedis(), "t")


def test_sqlite_keys_are_seen_by_another_process_handle(tmp_path: Path) -> None:
    # `frecall keys create` writes while `frecall serve` holds its own connection.
    server, cli = SqliteKeyStore(tmp_path / "k.sqlite"), SqliteKeyStore(tmp_path / "k.sqlite")
    assert not Keyring(server).required()
    new = Keyring(cli).create("acme")
    assert Keyring(server).authenticate(new.key) is not None
    Keyring(cli).revoke(new.record.key_id)
    assert Keyring(server).authenticate(new.key) is None
    server.close()
    cli.close()


def test_a_store_that_never_held_a_key_creates_no_file(tmp_path: Path) -> None:
    store = SqliteKeyStore(tmp_path / "keys.sqlite")
    assert not store.any()
    assert not (tmp_path / "keys.sqlite").exists()


def test_keys_are_high_entropy_and_distinct() -> None:
    ring = Keyring(InMemoryKeyStore())
    keys = [ring.create("acme").key for _ in range(50)]
    assert len(set(keys)) == 50
    for key in keys:
        prefix, key_id, secret = key.split("_", 2)
        assert prefix == "frk" and len(key_id) == 12 and len(secret) >= 43


@pytest.mark.parametrize(
    "presented",
    [
        "",
        "frk",
        "frk__secret",
        "frk_0123456789ab_",
        "Bearer frk_0123456789ab_x",
        "frk_0123456789AB_x",
        "xyz_0123456789ab_secret",
    ],
)
def test_malformed_keys_are_refused(presented: str) -> None:
    ring = Keyring(InMemoryKeyStore())
    ring.create("acme")
    assert ring.authenticate(presented) is None


def test_a_known_key_id_with_a_wrong_secret_is_refused() -> None:
    ring = Keyring(InMemoryKeyStore())
    new = ring.create("acme")
    assert key_id_of(new.key) is not None
    forged = new.key[:-4] + ("AAAA" if not new.key.endswith("AAAA") else "BBBB")
    assert ring.authenticate(forged) is None


def test_the_pepper_is_part_of_the_hash() -> None:
    store = InMemoryKeyStore()
    new = Keyring(store, b"one").create("acme")
    assert Keyring(store, b"one").authenticate(new.key) is not None
    assert Keyring(store, b"two").authenticate(new.key) is None


def test_admin_keys_carry_their_tenant() -> None:
    ring = Keyring(InMemoryKeyStore())
    principal = ring.authenticate(ring.create("ops", admin=True, name="ops team").key)
    assert principal is not None and principal.admin and principal.tenant == "ops"
    assert principal.label == principal.key_id


def test_bad_tenant_names_are_refused_at_creation() -> None:
    with pytest.raises(TenantError):
        Keyring(InMemoryKeyStore()).create("Not A Tenant")


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_allows_a_burst_then_the_rate() -> None:
    clock = _Clock()
    limiter = RateLimiter(rate=2.0, burst=3, clock=clock)
    assert [limiter.take("k") for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = limiter.take("k")
    assert wait == pytest.approx(0.5)
    assert limiter.take("other") == 0.0  # buckets are per key
    clock.now += 0.5
    assert limiter.take("k") == 0.0
    assert limiter.take("k") > 0
    clock.now += 100  # idle: the bucket is full again (and may have been dropped)
    assert [limiter.take("k") for _ in range(3)] == [0.0, 0.0, 0.0]


def test_a_rate_of_zero_turns_limiting_off() -> None:
    limiter = RateLimiter(rate=0, burst=1)
    assert all(limiter.take("k") == 0.0 for _ in range(100))


@pytest.mark.parametrize(("wait", "header"), [(0.01, "1"), (1.0, "1"), (1.2, "2"), (7.9, "8")])
def test_retry_after_is_whole_seconds(wait: float, header: str) -> None:
    assert retry_after(wait) == header
