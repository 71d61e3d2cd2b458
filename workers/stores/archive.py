"""The archive: fact records compaction took out of the active store (`frecall compact`).

One JSON object a line, appended and fsynced before the fact leaves the vector index::

    {"archived_at": ISO, "as_of": ISO, "reason": "superseded|retracted|duplicate|expired",
     "dead_since": ISO, "record": FactRecord}

Forget reaches it too (`redact`): erasure covers every copy the deployment keeps.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from schemas.records import FactRecord
from workers.errors import StorageError

ARCHIVE_FILE = "archive.jsonl"


class Archive:
    """Archived fact records, appended to a JSON-lines file and fsynced per batch.

    Raises `StorageError` when the file cannot be written.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @property
    def location(self) -> str:
        return str(self.path)

    def append(self, rows: Sequence[tuple[FactRecord, str, datetime]], as_of: datetime) -> None:
        """Append (record, reason, dead since) rows; durable when this returns."""
        if not rows:
            return
        now = datetime.now(UTC)
        lines = [archive_line(record, reason, since, as_of, now) for record, reason, since in rows]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise StorageError("archive", "append", f"{self.path}: {exc}") from exc

    def records(self) -> list[FactRecord]:
        """Every archived record, the last copy of each edge id, in file order."""
        if not self.path.exists():
            return []
        out: dict[tuple[str, str], FactRecord] = {}
        with self.path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    record = FactRecord.model_validate(json.loads(line)["record"])
                    out[(record.user_id, record.edge_id)] = record
        return list(out.values())

    def redact(
        self, user_id: str, edge_id: str | None = None, up_to: datetime | None = None
    ) -> int:
        """Erase a user's (or one fact's) archived records: forget must reach the archive
        too (docs/architecture.md, "Forget"); `up_to`: only facts ingested up to then.
        Returns how many lines were removed."""
        if not self.path.exists():
            return 0
        kept, removed = [], 0
        with self.path.open(encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    continue
                edge = json.loads(line)["record"]["edge"]
                erased = edge["user_id"] == user_id and edge_id in (None, edge["edge_id"])
                if erased and up_to is not None:
                    erased = datetime.fromisoformat(edge["ingest_time"]) <= up_to
                if erased:
                    removed += 1
                else:
                    kept.append(line if line.endswith("\n") else line + "\n")
        if removed:
            tmp = self.path.with_suffix(".tmp")
            with tmp.open("w", encoding="utf-8") as fh:
                fh.writelines(kept)
                fh.flush()
                os.fsync(fh.fileno())
            tmp.replace(self.path)
        return removed


def archive_line(
    record: FactRecord, reason: str, since: datetime, as_of: datetime, now: datetime
) -> str:
    """One archived fact as the archive keeps it (the file's line; a Redis hash value)."""
    return json.dumps(
        {
            "archived_at": now.isoformat(),
            "as_of": as_of.isoformat(),
            "reason": reason,
            "dead_since": since.isoformat(),
            "record": record.model_dump(mode="json"),
        },
        ensure_ascii=False,
    )
