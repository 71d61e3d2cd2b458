"""Topic names and administration (confluent-kafka AdminClient).

Every topic is keyed by user id and has the same partition count, so that one user's
turns, edges, commands and transitions share a partition number (co-partitioned).
`prefix` namespaces a deployment (tests run side by side on one broker).
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

from schemas.streams import ALL_TOPICS, COMMANDS, EDGES
from workers.errors import StorageError

log = logging.getLogger(__name__)


#: The log topics keep everything: they are the source of truth, not a buffer.
KEEP_FOREVER = {"retention.ms": "-1", "retention.bytes": "-1"}


@dataclass(frozen=True, slots=True)
class Topics:
    prefix: str = ""

    def name(self, logical: str) -> str:
        """The broker's name for a logical topic (`fr.edges` → `<prefix>fr.edges`)."""
        return self.prefix + logical

    def all(self) -> list[str]:
        return [self.name(t) for t in ALL_TOPICS]

    def log(self) -> list[str]:
        """The source of truth (`replay --from-kafka` reads them from the beginning)."""
        return [self.name(EDGES), self.name(COMMANDS)]


def client_config(bootstrap: str) -> dict[str, str | int | float | bool]:
    # librdkafka logs every failed connection attempt; our errors say what failed, once.
    return {"bootstrap.servers": bootstrap, "log_level": 2}


def ensure_topics(
    bootstrap: str, topics: Topics, partitions: int, replication: int = -1, timeout: float = 15
) -> None:
    """Create the deployment's topics if missing, with `replication` replicas each (-1: the
    broker's default.replication.factor; `FR_KAFKA_REPLICATION`). Existing topics are kept
    as they are: Kafka changes a topic's replicas only by a partition reassignment."""
    admin = AdminClient(client_config(bootstrap))
    try:
        existing = admin.list_topics(timeout=timeout).topics
    except KafkaException as exc:
        raise StorageError("kafka", "metadata", f"{bootstrap}: {exc.args[0]}") from exc
    wanted = [
        NewTopic(
            name,
            num_partitions=partitions,
            replication_factor=replication,
            config=dict(KEEP_FOREVER) if name in topics.log() else {},
        )
        for name in topics.all()
        if name not in existing
    ]
    if not wanted:
        return
    for name, future in admin.create_topics(wanted, request_timeout=timeout).items():
        try:
            future.result(timeout)
        except Exception as exc:  # KafkaException carries the broker's error
            if "TOPIC_ALREADY_EXISTS" not in str(exc):
                raise StorageError("kafka", "create_topics", f"{name}: {exc}") from exc
    log.info("created topics %s", [t.topic for t in wanted])


def active_members(bootstrap: str, group: str, timeout: float = 15) -> int:
    """How many consumers are in `group` now (0 when the group is empty or unknown)."""
    admin = AdminClient(client_config(bootstrap))
    future = admin.describe_consumer_groups([group], request_timeout=timeout)[group]
    try:
        description = future.result(timeout)
    except Exception as exc:  # an unknown group is an empty one
        log.debug("describe %s: %s", group, exc)
        return 0
    return len(description.members or [])


def truncated(bootstrap: str, topics: list[str], timeout: float = 30) -> list[str]:
    """Partitions of `topics` whose first offset is no longer 0 (retention deleted data)."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({**client_config(bootstrap), "group.id": "frecall-check"})
    try:
        metadata = consumer.list_topics(timeout=timeout)
        out = []
        for topic in topics:
            if topic not in metadata.topics:
                continue
            for partition in metadata.topics[topic].partitions:
                low, _ = consumer.get_watermark_offsets(
                    TopicPartition(topic, partition), timeout=timeout
                )
                if low > 0:
                    out.append(f"{topic}/{partition} starts at offset {low}")
        return out
    finally:
        consumer.close()


def lag(
    bootstrap: str,
    group: str,
    topics: list[str],
    partitions: Collection[int] | None = None,
    timeout: float = 30,
) -> int:
    """Messages of `topics` (every partition, or those given) that `group` has not yet
    committed: 0 once it has processed everything produced before the call. For waits
    that must not guess with a sleep (tests, read-your-writes)."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(
        {**client_config(bootstrap), "group.id": group, "enable.auto.commit": False}
    )
    try:
        metadata = consumer.list_topics(timeout=timeout)
        wanted = [
            TopicPartition(topic, partition)
            for topic in topics
            if topic in metadata.topics
            for partition in metadata.topics[topic].partitions
            if partitions is None or partition in partitions
        ]
        if not wanted:
            return 0
        total = 0
        for tp in consumer.committed(wanted, timeout=timeout):
            low, high = consumer.get_watermark_offsets(
                TopicPartition(tp.topic, tp.partition), timeout=timeout
            )
            total += max(0, high - (tp.offset if tp.offset >= 0 else low))
        return total
    except KafkaException as exc:
        raise StorageError("kafka", "lag", f"{group}: {exc.args[0]}") from exc
    finally:
        consumer.close()


def partition_for(key: str, partitions: int) -> int:
    """The partition a keyed message goes to: murmur2 of the key, as the Java client,
    aiokafka (Faust) and our producers (`murmur2_random`) compute it."""
    return (_murmur2(key.encode("utf-8")) & 0x7FFF_FFFF) % partitions


def _murmur2(data: bytes) -> int:
    """Kafka's murmur2 (32-bit, seed 0x9747b28c), as an unsigned int."""
    m, mask = 0x5BD1E995, 0xFFFF_FFFF
    h = (0x9747B28C ^ len(data)) & mask
    whole = len(data) - len(data) % 4
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (k * m) & mask
        k ^= k >> 24
        k = (k * m) & mask
        h = ((h * m) & mask) ^ k
    tail = data[whole:]
    if len(tail) == 3:
        h ^= tail[2] << 16
    if len(tail) >= 2:
        h ^= tail[1] << 8
    if tail:
        h ^= tail[0]
        h = (h * m) & mask
    h ^= h >> 13
    h = (h * m) & mask
    return h ^ (h >> 15)
