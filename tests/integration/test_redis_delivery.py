"""The distributed ports' Redis adapters on a real Redis: the shared contracts."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis

from tests.delivery_ports_contract import DeliveryPorts, DeliveryPortsContract
from workers.stores.redis_facts import RedisFactStore
from workers.stores.redis_ledger import RedisDeliveryLedger
from workers.stores.redis_turns import RedisTurnContext

pytestmark = pytest.mark.integration


class TestRedisPorts(DeliveryPortsContract):
    @pytest.fixture
    def ports(self, redis_url: str) -> Iterator[DeliveryPorts]:
        prefix = f"fr-test-{uuid.uuid4().hex}"
        client = redis.Redis.from_url(redis_url)
        yield DeliveryPorts(
            RedisFactStore(client, prefix),
            RedisDeliveryLedger(client, prefix),
            RedisTurnContext(client, prefix),
        )
        for key in client.scan_iter(match=f"{prefix}:*", count=1000):
            client.delete(key)
        client.close()
