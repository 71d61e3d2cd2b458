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
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from schemas.events import EdgeEvent
from schemas.policy import Policy
from schemas.records import FactRecord
from workers.lifecycle.compaction import archivable
from workers.ports import EventLog, VectorIndex
from workers.stores.archive import ARCHIVE_FILE, Archive


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


class CompactableStore(Protocol):
    """Where a user's facts are read and archived from: the vector index (embedded) or
    the Redis fact store (distributed; the indexer then drops them from the index)."""

    def scroll(self, user_id: str) -> Iterator[FactRecord]: ...

    def delete(self, user_id: str, edge_ids: Sequence[str]) -> int: ...


def compact_user(
    vectors: CompactableStore,
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
    archive = Archive(settings.data_dir / ARCHIVE_FILE)
    if settings.kafka_bootstrap:
        from frecall.distributed import compact_distributed

        report = compact_distributed(settings, archive, as_of)
    else:
        app = build(settings)
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
