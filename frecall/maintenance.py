"""`frecall compact`: archive long-dead facts so the active store stays bounded (DESIGN §5).

The decision is `workers.lifecycle.compaction.archivable` (pure); this module does the I/O.
Order matters: an archived record is appended (and fsynced) to `DATA_DIR/archive.jsonl`
*before* it leaves the vector index, so a crash in between loses nothing (a second run
archives it again; readers keep the last copy of an edge id). The log and the slot index
keep every fact: lifecycle resolution stays exact and `frecall replay` restores the store.

Archive file format, one JSON object a line::

    {"archived_at": ISO, "as_of": ISO, "reason": "superseded|retracted|duplicate|expired",
     "dead_since": ISO, "record": FactRecord}
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from schemas.events import EdgeEvent
from schemas.policy import Policy
from schemas.records import FactRecord
from workers.errors import StorageError
from workers.lifecycle.compaction import archivable
from workers.ports import EventLog, VectorIndex

ARCHIVE_FILE = "archive.jsonl"


@dataclass
class CompactionReport:
    as_of: datetime
    users: int = 0
    scanned: int = 0
    archived: int = 0
    by_reason: Counter[str] = field(default_factory=Counter)
    remaining: int = 0

    def as_json(self, archive: Path | None) -> dict[str, Any]:
        return {
            "as_of": self.as_of.isoformat(),
            "users": self.users,
            "scanned": self.scanned,
            "archived": self.archived,
            "by_reason": dict(sorted(self.by_reason.items())),
            "remaining": self.remaining,
            "archive": None if archive is None else str(archive),
        }


class Archive:
    """Archived fact records, appended to a JSON-lines file and fsynced per batch.

    Raises `StorageError` when the file cannot be written.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def append(self, rows: Sequence[tuple[FactRecord, str, datetime]], as_of: datetime) -> None:
        """Append (record, reason, dead since) rows; durable when this returns."""
        if not rows:
            return
        now = datetime.now(UTC).isoformat()
        lines = [
            json.dumps(
                {
                    "archived_at": now,
                    "as_of": as_of.isoformat(),
                    "reason": reason,
                    "dead_since": since.isoformat(),
                    "record": record.model_dump(mode="json"),
                },
                ensure_ascii=False,
            )
            for record, reason, since in rows
        ]
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

    def redact(self, user_id: str, edge_id: str | None = None) -> int:
        """Erase a user's (or one fact's) archived records: forget must reach the archive
        too (DESIGN §5). Returns how many lines were removed."""
        if not self.path.exists():
            return 0
        kept, removed = [], 0
        with self.path.open(encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    continue
                edge = json.loads(line)["record"]["edge"]
                if edge["user_id"] == user_id and edge_id in (None, edge["edge_id"]):
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


def compact_user(
    vectors: VectorIndex,
    archive: Archive | None,
    user_id: str,
    as_of: datetime,
    policy: Policy,
    report: CompactionReport,
) -> list[str]:
    """Archive one user's long-dead facts; returns the archived edge ids.

    `archive` None drops them from the index without a copy (benchmarks only: the log
    still has them).
    """
    records = {r.edge_id: r for r in vectors.scroll(user_id)}
    decided = archivable(records.values(), as_of, policy)
    report.users += 1
    report.scanned += len(records)
    if not decided:
        return []
    if archive is not None:
        archive.append([(records[a.edge_id], a.reason, a.dead_since) for a in decided], as_of)
    ids = [a.edge_id for a in decided]
    vectors.delete(user_id, ids)
    report.archived += len(ids)
    report.by_reason.update(a.reason for a in decided)
    return ids


def users_in_log(log: EventLog) -> list[str]:
    """Every user with at least one fact in the log, sorted."""
    return sorted({r.user_id for r in log.read() if isinstance(r, EdgeEvent)})


def compact(
    vectors: VectorIndex,
    archive: Archive | None,
    users: Iterable[str],
    as_of: datetime,
    policy: Policy,
) -> CompactionReport:
    report = CompactionReport(as_of=as_of)
    for user in users:
        compact_user(vectors, archive, user, as_of, policy, report)
    report.remaining = vectors.count()
    return report


def compact_cmd(args: argparse.Namespace) -> int:
    """`frecall compact [--as-of T] [--json]` over the embedded deployment's data dir."""
    from frecall.bootstrap import build
    from frecall.commands import parse_time, settings_from

    settings = settings_from(args)
    as_of = parse_time(getattr(args, "as_of", None), "--as-of") or datetime.now(UTC)
    app = build(settings)
    archive = Archive(settings.data_dir / ARCHIVE_FILE)
    try:
        report = compact(app.vectors, archive, users_in_log(app.log), as_of, app.policy)
    finally:
        app.close()
    if getattr(args, "json", False):
        print(json.dumps(report.as_json(archive.path)))
        return 0
    reasons = ", ".join(f"{n} {r}" for r, n in sorted(report.by_reason.items()))
    print(
        f"compacted as of {as_of.isoformat()}: archived {report.archived} of {report.scanned} "
        f"facts of {report.users} user(s)"
        + (f" ({reasons})" if reasons else "")
        + f"; {report.remaining} remain in the active store; archive: {archive.path}",
        file=sys.stdout,
    )
    return 0
