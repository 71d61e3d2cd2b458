"""`frecall compact` in the distributed deployment."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import TYPE_CHECKING

from frecall.distributed.stores import (
    open_stores,
    require_services,
    topics_of,
)
from frecall.settings import Settings
from schemas.streams import TRANSITIONS, FactsChanged
from streams.kafka_io import KafkaProducer
from workers.stores.archive import Archive

if TYPE_CHECKING:
    from frecall.maintenance import CompactionReport


#: Snapshots a compaction takes of a user whose facts keep changing before it skips them.
COMPACT_ATTEMPTS = 5


def compact_distributed(settings: Settings, archive: Archive, as_of: datetime) -> CompactionReport:
    """Archive long-dead facts from the fact store (the record of state) and announce them
    on fr.transitions, so that every indexer drops them from its vector index.

    The decision is made on a snapshot and applied only if the user's facts did not change
    meanwhile (else decided again): a fact a worker just made current stays.
    """
    from frecall.maintenance import CompactionReport
    from workers.lifecycle.compaction import archivable

    bootstrap, _ = require_services(settings)
    topics = topics_of(settings)
    stores = open_stores(settings)
    facts = stores.facts
    producer = KafkaProducer(bootstrap)
    report = CompactionReport(as_of=as_of)
    try:
        users = facts.users()
        for user in users:
            report.users += 1
            for _ in range(COMPACT_ATTEMPTS):
                snapshot = facts.snapshot(user)
                records = {r.edge_id: r for r in facts.scroll(user)}
                decided = archivable(records.values(), as_of, stores.policy)
                ids = [a.edge_id for a in decided]
                if not ids:
                    break
                # Archived first: a crash before the delete loses nothing (a later run
                # archives it again; readers keep the last copy of an edge id).
                archive.append(
                    [(records[a.edge_id], a.reason, a.dead_since) for a in decided], as_of
                )
                if facts.delete_if(user, snapshot, ids):
                    break
            else:
                print(f"compact: {user} kept changing; skipped this time", file=sys.stderr)
                continue
            report.scanned += len(records)
            if not ids:
                continue
            report.archived += len(ids)
            report.by_reason.update(a.reason for a in decided)
            changed = FactsChanged(user_id=user, edge_ids=tuple(ids), source="compact")
            producer.produce(topics.name(TRANSITIONS), user, changed.model_dump_json().encode())
        producer.flush()
        report.remaining = sum(facts.count(u) for u in users)
    finally:
        stores.close()
    return report
