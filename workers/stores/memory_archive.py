"""`InMemoryArchive`: the fake of the archive ports (`ArchiveSink`, `RedactableArchive`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from schemas.records import FactRecord


class InMemoryArchive:
    """Archived records by (user, edge id); the last copy of an edge id wins, as readers of
    the file archive keep it."""

    location = "memory"

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], tuple[FactRecord, str, datetime]] = {}

    def append(self, items: Sequence[tuple[FactRecord, str, datetime]], as_of: datetime) -> None:
        for record, reason, since in items:
            self.rows[(record.user_id, record.edge_id)] = (record, reason, since)

    def records(self, user_id: str) -> list[FactRecord]:
        return [r for (u, _), (r, _, _) in sorted(self.rows.items()) if u == user_id]

    def redact(
        self, user_id: str, edge_id: str | None = None, up_to: datetime | None = None
    ) -> int:
        gone = [
            key
            for key, (record, _, _) in self.rows.items()
            if key[0] == user_id
            and edge_id in (None, key[1])
            and (up_to is None or record.edge.ingest_time <= up_to)
        ]
        for key in gone:
            del self.rows[key]
        return len(gone)
