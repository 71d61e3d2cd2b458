"""The `KeyStore` contract on a real Redis (tests/key_store_contract.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from frecall.access.redis_keys import RedisKeyStore
from tests.conftest import scratch_prefix
from tests.key_store_contract import KeyStoreContract
from workers.stores.redis_client import connect

pytestmark = pytest.mark.integration


class TestRedisKeyStore(KeyStoreContract):
    @pytest.fixture
    def store(self, redis_url: str) -> Iterator[RedisKeyStore]:
        with scratch_prefix(redis_url) as prefix:
            store = RedisKeyStore(connect(redis_url), prefix)
            try:
                yield store
            finally:
                store.close()
