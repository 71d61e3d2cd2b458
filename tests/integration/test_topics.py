"""The deployment's topics on a real broker: created once, co-partitioned, the log kept
forever, replicated as `FR_KAFKA_REPLICATION` says (-1: the broker's default)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from streams.topics import Topics, client_config, ensure_topics
from workers.errors import StorageError

pytestmark = pytest.mark.integration


@pytest.fixture
def topics(kafka_bootstrap: str) -> Iterator[Topics]:
    topics = Topics(f"topics{uuid.uuid4().hex[:8]}.")
    yield topics
    admin = AdminClient(client_config(kafka_bootstrap))
    mine = [t for t in admin.list_topics(timeout=15).topics if t.startswith(topics.prefix)]
    for future in admin.delete_topics(mine, operation_timeout=15).values() if mine else ():
        future.result(30)


def test_topics_are_created_once_with_the_brokers_default_replication(
    kafka_bootstrap: str, topics: Topics
) -> None:
    ensure_topics(kafka_bootstrap, topics, 3)
    ensure_topics(kafka_bootstrap, topics, 5)  # they exist: left as they are
    admin = AdminClient(client_config(kafka_bootstrap))
    metadata = admin.list_topics(timeout=15).topics
    for name in topics.all():
        partitions = metadata[name].partitions.values()
        assert len(partitions) == 3 and {len(p.replicas) for p in partitions} == {1}, name
        resource = ConfigResource(ResourceType.TOPIC, name)
        retention = admin.describe_configs([resource])[resource].result(15)["retention.ms"]
        assert (retention.value == "-1") == (name in topics.log()), name


def test_more_replicas_than_brokers_is_a_storage_error(
    kafka_bootstrap: str, topics: Topics
) -> None:
    with pytest.raises(StorageError) as info:
        ensure_topics(kafka_bootstrap, topics, 1, replication=2)
    assert info.value.operation == "create_topics"
    assert "INVALID_REPLICATION_FACTOR" in info.value.detail
