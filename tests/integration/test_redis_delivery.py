"""The distributed ports' Redis adapters on a real Redis: the shared contracts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import scratch_prefix
from tests.delivery_ports_contract import DeliveryPorts, DeliveryPortsContract
from workers.stores.redis_client import connect
from workers.stores.redis_facts import RedisFactStore
from workers.stores.redis_ledger import RedisDeliveryLedger
from workers.stores.redis_turns import RedisTurnContext

pytestmark = pytest.mark.integration


class TestRedisPorts(DeliveryPortsContract):
    @pytest.fixture
    def ports(self, redis_url: str) -> Iterator[DeliveryPorts]:
        with scratch_prefix(redis_url) as prefix, connect(redis_url) as client:
            yield DeliveryPorts(
                RedisFactStore(client, prefix),
                RedisDeliveryLedger(client, prefix),
                RedisTurnContext(client, prefix),
            )
