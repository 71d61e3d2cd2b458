"""The `KeyStore` contract (frecall/access/keys.py), run against every adapter: in memory
and SQLite (tests/unit/test_keys.py), Redis on fakeredis (unit) and on a real Redis
(tests/integration/test_redis_keys.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from frecall.access.keys import KeyRecord, Keyring, KeyStore, key_id_of

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def record(key_id: str, tenant: str = "acme", at: datetime = T0) -> KeyRecord:
    return KeyRecord(key_id=key_id, tenant=tenant, created_at=at, digest="ab" * 32)


class KeyStoreContract:
    """Subclasses provide a `store` fixture: an empty store."""

    def test_empty(self, store: KeyStore) -> None:
        assert not store.any()
        assert store.all() == []
        assert store.get("0123456789ab") is None
        assert store.revoke("0123456789ab", T0) is None

    def test_add_get_list_in_creation_order(self, store: KeyStore) -> None:
        store.add(record("bbbbbbbbbbbb", at=T0 + timedelta(seconds=1)))
        store.add(record("aaaaaaaaaaaa", "beta", T0))
        assert store.any()
        assert store.get("bbbbbbbbbbbb") == record("bbbbbbbbbbbb", at=T0 + timedelta(seconds=1))
        assert [r.key_id for r in store.all()] == ["aaaaaaaaaaaa", "bbbbbbbbbbbb"]

    def test_revoke_keeps_the_record_and_its_first_time(self, store: KeyStore) -> None:
        store.add(record("aaaaaaaaaaaa"))
        first = store.revoke("aaaaaaaaaaaa", T0 + timedelta(hours=1))
        assert first is not None and first.revoked_at == T0 + timedelta(hours=1)
        again = store.revoke("aaaaaaaaaaaa", T0 + timedelta(hours=2))
        assert again is not None and again.revoked_at == T0 + timedelta(hours=1)
        stored = store.get("aaaaaaaaaaaa")
        assert stored is not None and not stored.active and stored.digest == "ab" * 32
        assert store.any()  # a revoked key still counts: revoking the last one opens nothing

    def test_keyring_round_trip(self, store: KeyStore) -> None:
        ring = Keyring(store, b"pepper")
        new = ring.create("acme", name="ci")
        assert key_id_of(new.key) == new.record.key_id
        principal = ring.authenticate(new.key)
        assert principal is not None and (principal.tenant, principal.admin) == ("acme", False)
        assert ring.required()
        assert ring.revoke(new.record.key_id) is not None
        assert ring.authenticate(new.key) is None

    @pytest.mark.parametrize("admin", [True, False])
    def test_only_the_hash_is_stored(self, store: KeyStore, admin: bool) -> None:
        ring = Keyring(store)
        new = ring.create("acme", admin=admin)
        stored = store.get(new.record.key_id)
        assert stored is not None and stored.admin is admin
        secret = new.key.split("_", 2)[2]
        assert secret not in stored.model_dump_json()
        assert stored.digest == ring.digest(new.key)
