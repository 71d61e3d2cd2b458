"""The distributed ports' contracts in process: the in-memory fakes, and the Redis adapters
on fakeredis (which runs their Lua scripts); tests/integration/test_redis_delivery.py runs
the same contracts on a real Redis."""

from __future__ import annotations

import fakeredis
import pytest

from tests.delivery_ports_contract import DeliveryPorts, DeliveryPortsContract
from workers.stores.memory_facts import InMemoryFactStore
from workers.stores.memory_ledger import InMemoryDeliveryLedger
from workers.stores.memory_turns import InMemoryTurnContext
from workers.stores.redis_facts import RedisFactStore
from workers.stores.redis_ledger import RedisDeliveryLedger
from workers.stores.redis_turns import RedisTurnContext


class TestInMemoryPorts(DeliveryPortsContract):
    @pytest.fixture
    def ports(self) -> DeliveryPorts:
        ledger = InMemoryDeliveryLedger()
        return DeliveryPorts(InMemoryFactStore(ledger), ledger, InMemoryTurnContext())


class TestRedisPortsOnFakeredis(DeliveryPortsContract):
    @pytest.fixture
    def ports(self) -> DeliveryPorts:
        client = fakeredis.FakeRedis()
        return DeliveryPorts(
            RedisFactStore(client, "t"),
            RedisDeliveryLedger(client, "t"),
            RedisTurnContext(client, "t"),
        )
