"""Compaction: which facts may leave the active store at time T (the decision, pure), and
the job that archives them and reports what it did (through ports).

Expiry is decided from the event time and the query time; compaction archives long-dead
facts so that the active store stays bounded (docs/architecture.md, "Compaction"). Paper
Appendix L (Table 39) projects ~30,000 edges under flat retention against ~5,000–8,000
retrievable ones under lifecycle management after two years of heavy use.

A fact is *long-dead* when no current-state question can be served it and the questions that
look back (historical, past, cancelled intents; paper §3.4) have had their retention period
(`Policy.compaction`, our defaults):

* superseded more than `superseded_days` ago — except the latest superseded value of a slot
  whose current value is still live, which answers "what did I have before X?";
* retracted more than `retracted_days` ago;
* a near-duplicate folded into its original (Appendix Z) more than `duplicate_days` ago —
  the original keeps the mention count;
* expired (event time + `expiry_buffer_hours`, Appendix K, by the scorer's own rule) more
  than `expired_days` ago.

Active facts, soft updates and quarantined facts are never archivable here. Archiving takes
a fact out of the record of state only (the vector index, or the distributed fact store and
then its projection): the log and the slot index keep it, so lifecycle resolution of its slot
stays exact and `frecall replay` restores it. The archive is written (and fsynced) *before*
the fact leaves the store, so a crash in between loses nothing: a later run archives it
again, and readers keep the last copy of an edge id.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol, runtime_checkable

from schemas.categories import LifecycleState
from schemas.policy import Policy
from schemas.records import FactRecord
from workers.lifecycle.facts import DirectFacts
from workers.lifecycle.raw_turns import scored_as_other
from workers.lifecycle.rules import edge_expires_at, group_key
from workers.ports import VectorIndex

S = LifecycleState
#: Snapshots the job takes of a user whose facts keep changing before it skips them.
ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class Archival:
    """One archivable fact: why (its state at T, or "expired") and since when it is dead."""

    edge_id: str
    reason: str
    dead_since: datetime


def expires_at(record: FactRecord, policy: Policy) -> datetime | None:
    """When an anchored fact of an event-time category expires (Appendix K), else None.
    A raw turn scored as unclassified text has no event that expires (`raw_turns`)."""
    if scored_as_other(record.edge, policy):
        return None
    return edge_expires_at(record.edge, policy)


def _dead(record: FactRecord, policy: Policy) -> tuple[str, datetime, float] | None:
    """(reason, dead since, retention days) of a fact that no current question is served."""
    lc, rules = record.lifecycle, policy.compaction
    if lc.state is S.SUPERSEDED and lc.superseded_at is not None:
        return "superseded", lc.superseded_at, rules.superseded_days
    if lc.state is S.RETRACTED and lc.retracted_at is not None:
        return "retracted", lc.retracted_at, rules.retracted_days
    if lc.state is S.DUPLICATE:
        return "duplicate", record.edge.ingest_time, rules.duplicate_days
    if lc.state is S.ACTIVE:
        expiry = expires_at(record, policy)
        if expiry is not None:
            return "expired", expiry, rules.expired_days
    return None


def archivable_from(record: FactRecord, policy: Policy) -> tuple[str, datetime] | None:
    """(why, from when) a fact is due to leave the active store by its own lifecycle, or
    None while no rule would archive it (active without an expiring event, soft updates,
    quarantined). The exception of `_keep_last_superseded` depends on the rest of the slot
    and is decided by `archivable`; the inspector shows this date as "archivable from"."""
    found = _dead(record, policy)
    if found is None:
        return None
    reason, since, days = found
    return reason, since + timedelta(days=days)


def archivable(records: Iterable[FactRecord], as_of: datetime, policy: Policy) -> list[Archival]:
    """The facts of `records` (one user's, or any set of whole slots) archivable at `as_of`.

    Deterministic: the same records and time give the same list, ordered by edge id. Facts
    stated after `as_of` are never archived.
    """
    slots: dict[str, list[FactRecord]] = defaultdict(list)
    for record in records:
        if record.edge.ingest_time <= as_of:
            slots[group_key(record.edge)].append(record)
    out: list[Archival] = []
    for members in slots.values():
        dead: dict[str, Archival] = {}
        for record in members:
            found = _dead(record, policy)
            if found is None:
                continue
            reason, since, days = found
            if since + timedelta(days=days) < as_of:
                dead[record.edge_id] = Archival(record.edge_id, reason, since)
        if policy.compaction.keep_last_superseded and dead:
            _keep_last_superseded(members, dead, as_of, policy)
        out += dead.values()
    return sorted(out, key=lambda a: a.edge_id)


def _keep_last_superseded(
    members: list[FactRecord], dead: dict[str, Archival], as_of: datetime, policy: Policy
) -> None:
    """Spare the latest superseded value while the slot still has a live current value."""
    live = any(
        r.lifecycle.state is S.ACTIVE and r.edge_id not in dead and not _expired(r, as_of, policy)
        for r in members
    )
    if not live:
        return
    superseded = [
        r for r in members if r.lifecycle.state is S.SUPERSEDED and r.lifecycle.superseded_at
    ]
    if superseded:
        last = max(superseded, key=lambda r: (r.lifecycle.superseded_at, r.edge_id))
        dead.pop(last.edge_id, None)


def _expired(record: FactRecord, as_of: datetime, policy: Policy) -> bool:
    expiry = expires_at(record, policy)
    return expiry is not None and expiry < as_of


def long_expired(record: FactRecord, at: datetime, policy: Policy) -> bool:
    """Whether an active fact's event expired more than `expired_days` before `at`: it was
    (or would be) archived, and must not come back into the index on a later change."""
    expiry = expires_at(record, policy)
    return expiry is not None and expiry + timedelta(days=policy.compaction.expired_days) < at


# --- the job ------------------------------------------------------------------------------


@dataclass
class CompactionReport:
    """What one compaction run did (the JSON of `frecall compact --json`)."""

    as_of: datetime
    users: int = 0
    scanned: int = 0
    archived: int = 0
    by_reason: Counter[str] = field(default_factory=Counter)
    remaining: int = 0
    #: Where the archived facts went (None: dropped without a copy, benchmarks only).
    archive: str | None = None
    #: Users whose facts kept changing under the job: left for a later run.
    skipped: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "as_of": self.as_of.isoformat(),
            "users": self.users,
            "scanned": self.scanned,
            "archived": self.archived,
            "by_reason": dict(sorted(self.by_reason.items())),
            "remaining": self.remaining,
            "archive": self.archive,
        }


@runtime_checkable
class CompactableStore(Protocol):
    """The record of state compaction reads and deletes from. A single writer's store
    (`DirectFacts` over the vector index) always deletes; a shared one (`SharedFactStore`)
    refuses when a worker changed the user since the snapshot the decision was made on."""

    def snapshot(self, user_id: str) -> int: ...

    def scroll(self, user_id: str) -> Iterator[FactRecord]: ...

    def delete_if(self, user_id: str, snapshot: int, edge_ids: Sequence[str]) -> bool: ...

    def count(self, user_id: str) -> int: ...


class ArchiveSink(Protocol):
    """Where archived facts are kept: `workers.stores.archive.Archive` (a file, embedded),
    `workers.stores.redis_archive.RedisArchive` (distributed: where a forget reaches it)."""

    @property
    def location(self) -> str:
        """Where the archive is, for people (a path, a Redis key pattern)."""

    def append(self, items: Sequence[tuple[FactRecord, str, datetime]], as_of: datetime) -> None:
        """Write the records durably, with their reason and since when they are dead."""


def compact_user(
    store: CompactableStore,
    archive: ArchiveSink | None,
    user_id: str,
    as_of: datetime,
    policy: Policy,
    report: CompactionReport,
) -> list[str]:
    """Archive one user's long-dead facts; returns the archived edge ids.

    The decision is made on a snapshot and applied only if the user's facts did not change
    meanwhile (else decided again): a fact a worker just made current stays. A user who
    keeps changing is listed in `report.skipped`. `archive` None drops the facts without a
    copy (benchmarks only: the log still has them).
    """
    report.users += 1
    for _ in range(ATTEMPTS):
        snapshot = store.snapshot(user_id)
        records = {r.edge_id: r for r in store.scroll(user_id)}
        decided = archivable(records.values(), as_of, policy)
        ids = [a.edge_id for a in decided]
        if not ids:
            break
        if archive is not None:
            archive.append([(records[a.edge_id], a.reason, a.dead_since) for a in decided], as_of)
        if store.delete_if(user_id, snapshot, ids):
            break
    else:
        report.skipped.append(user_id)
        return []
    report.scanned += len(records)
    report.archived += len(ids)
    report.by_reason.update(a.reason for a in decided)
    return ids


def compact(
    store: CompactableStore | VectorIndex,
    archive: ArchiveSink | None,
    users: Iterable[str],
    as_of: datetime,
    policy: Policy,
    archived: Callable[[str, list[str]], object] | None = None,
) -> CompactionReport:
    """Compact every user of `users`; `archived(user, ids)` hears of each user's archived
    facts (the distributed deployment announces them to the indexers)."""
    facts = store if isinstance(store, CompactableStore) else DirectFacts(store)
    report = CompactionReport(as_of=as_of, archive=None if archive is None else archive.location)
    users = list(users)
    for user in users:
        ids = compact_user(facts, archive, user, as_of, policy, report)
        if ids and archived is not None:
            archived(user, ids)
    report.remaining = sum(facts.count(u) for u in users)
    return report
