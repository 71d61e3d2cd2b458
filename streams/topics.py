"""Topic names and administration (confluent-kafka AdminClient).

Every topic is keyed by user id and has the same partition count, so that one user's
turns, edges, commands and transitions share a partition number (co-partitioned).
`prefix` namespaces a deployment (tests run side by side on one broker).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

from schemas.streams import ALL_TOPICS
from workers.errors import StorageError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Topics:
    prefix: str = ""

    def name(self, logical: str) -> str:
        """The broker's name for a logical topic (`fr.edges` → `<prefix>fr.edges`)."""
        return self.prefix + logical

    def all(self) -> list[str]:
        return [self.name(t) for t in ALL_TOPICS]


def client_config(bootstrap: str) -> dict[str, str | int | float | bool]:
    return {"bootstrap.servers": bootstrap, "log_level": 3}


def ensure_topics(bootstrap: str, topics: Topics, partitions: int, timeout: float = 30) -> None:
    """Create the deployment's topics if missing (replication 1 here; more in production
    through the broker's default.replication.factor)."""
    admin = AdminClient(client_config(bootstrap))
    existing = admin.list_topics(timeout=timeout).topics
    wanted = [
        NewTopic(name, num_partitions=partitions, replication_factor=-1)
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
