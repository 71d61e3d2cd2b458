"""`frecall compact` in the distributed deployment: the shared compaction job over the
fact store (the record of state), each user's archived facts announced on fr.transitions so
that every indexer drops them from its vector index."""

from __future__ import annotations

from datetime import datetime

from frecall.distributed.stores import Stores, topics_of
from frecall.settings import Settings
from schemas.streams import TRANSITIONS, FactsChanged
from streams.kafka_io import KafkaProducer
from workers.lifecycle.compaction import CompactionReport, compact


def compact_distributed(
    settings: Settings, stores: Stores, producer: KafkaProducer, as_of: datetime
) -> CompactionReport:
    """Archive long-dead facts from the fact store into the Redis archive (where a forget
    reaches it, whichever machine runs this) and announce them. The job decides on a
    snapshot and deletes only if the user's facts did not change meanwhile: a fact a worker
    just made current stays."""
    topic = topics_of(settings).name(TRANSITIONS)

    def announce(user: str, ids: list[str]) -> None:
        changed = FactsChanged(user_id=user, edge_ids=tuple(ids), source="compact")
        producer.produce(topic, user, changed.model_dump_json().encode())

    users = stores.facts.users()
    report = compact(stores.facts, stores.archive, users, as_of, stores.policy, announce)
    producer.flush()
    return report
