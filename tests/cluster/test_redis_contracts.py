"""The Redis adapters on a Redis Cluster (3 masters + 3 replicas, deploy/local/with-cluster.sh):
the same `SlotIndex`, delivery-port and API key store contracts as on fakeredis (tests/unit)
and on one server (tests/integration), through the client `connect` makes of a
`redis+cluster://` URL;
then what only a cluster can show: users spread over every master, all of them found.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from redis.cluster import RedisCluster

from frecall.access.redis_keys import RedisKeyStore
from tests.conftest import scratch_prefix
from tests.delivery_ports_contract import DeliveryPorts, DeliveryPortsContract, fact, turn
from tests.key_store_contract import KeyStoreContract
from tests.slot_index_contract import RedisSlotIndexContract, edge
from workers.ports import SlotIndex
from workers.stores.redis_client import RedisClient, connect
from workers.stores.redis_facts import RedisFactStore
from workers.stores.redis_keys import UserKeys
from workers.stores.redis_ledger import RedisDeliveryLedger
from workers.stores.redis_slots import RedisSlotIndex
from workers.stores.redis_turns import RedisTurnContext

pytestmark = pytest.mark.cluster


@pytest.fixture
def client(redis_cluster_url: str) -> Iterator[RedisClient]:
    client = connect(redis_cluster_url)
    assert isinstance(client, RedisCluster) and len(client.get_primaries()) == 3
    yield client
    client.close()


@pytest.fixture
def prefix(redis_cluster_url: str) -> Iterator[str]:
    with scratch_prefix(redis_cluster_url) as prefix:
        yield prefix


class TestSlotIndexOnACluster(RedisSlotIndexContract):
    @pytest.fixture
    def index(self, redis_cluster_url: str, prefix: str) -> Iterator[SlotIndex]:
        index = RedisSlotIndex(connect(redis_cluster_url), prefix=prefix)
        yield index
        index.close()


class TestKeyStoreOnACluster(KeyStoreContract):
    """API keys (frecall/access/redis_keys.py): one hash, its revoke script on one slot."""

    @pytest.fixture
    def store(self, redis_cluster_url: str, prefix: str) -> Iterator[RedisKeyStore]:
        store = RedisKeyStore(connect(redis_cluster_url), prefix)
        yield store
        store.close()


class TestDeliveryPortsOnACluster(DeliveryPortsContract):
    @pytest.fixture
    def ports(self, client: RedisClient, prefix: str) -> DeliveryPorts:
        return DeliveryPorts(
            RedisFactStore(client, prefix),
            RedisDeliveryLedger(client, prefix),
            RedisTurnContext(client, prefix),
        )


def test_users_on_every_master_are_all_found_and_erased(client: RedisClient, prefix: str) -> None:
    assert isinstance(client, RedisCluster)
    users = [f"user-{n}" for n in range(30)]
    facts, slots = RedisFactStore(client, prefix), RedisSlotIndex(client, prefix)
    turns = RedisTurnContext(client, prefix)
    for user in users:
        slots.add(user, "s", edge("e", user=user))
        assert facts.commit(user, facts.snapshot(user), [fact("e", user)], {})
        turns.add(turn("t", 0, user))
    masters = {client.get_node_from_key(UserKeys(prefix)(u, "facts")).name for u in users}
    assert len(masters) == 3  # the users really are spread over the cluster
    assert facts.users() == sorted(users)  # a scan of every master, not of one node
    for user in users:
        turns.forget_user(user)  # scans for the user's session keys
        slots.delete_user(user)
        facts.delete_user(user)
    left = {k.decode() for k in client.scan_iter(match=f"{prefix}:*", count=1000)}
    assert left == {UserKeys(prefix)(u, "version") for u in users}  # the counter stays
