"""The `KeyStore` contract on a real Redis (tests/key_store_contract.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis

from frecall.access.redis_keys import RedisKeyStore
from tests.key_store_contract import KeyStoreContract

pytestmark = pytest.mark.integration


class TestRedisKeyStore(KeyStoreContract):
    @pytest.fixture
    def store(self, redis_url: str) -> Iterator[RedisKeyStore]:
        prefix = "t" + uuid.uuid4().hex[:8]
        store = RedisKeyStore(redis.Redis.from_url(redis_url), prefix)
        try:
            yield store
        finally:
            cleanup = redis.Redis.from_url(redis_url)
            cleanup.delete(store.key)
            cleanup.close()
            store.close()
