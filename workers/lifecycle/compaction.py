"""Compaction decisions: which facts may leave the active store at time T (pure, no I/O).

DESIGN §5: "Expiry is decided from h and the query time; a periodic sweep records it and a
compaction job may archive long-dead facts so the active store stays bounded." Paper
Appendix L (Table 39) projects ~30,000 edges under flat retention against ~5,000–8,000
retrievable ones under lifecycle management after two years of heavy use.

A fact is *long-dead* when no current-state question can be served it and the questions that
look back (historical, past, cancelled; DESIGN §4) have had their retention period
(`Policy.compaction`, our defaults):

* superseded more than `superseded_days` ago — except the latest superseded value of a slot
  whose current value is still live, which answers "what did I have before X?";
* retracted more than `retracted_days` ago;
* a near-duplicate folded into its original (Appendix Z) more than `duplicate_days` ago —
  the original keeps the mention count;
* expired (event time + `expiry_buffer_hours`, Appendix K, by the scorer's own rule) more
  than `expired_days` ago.

Active facts, soft updates and quarantined facts are never archivable here. Archiving takes
a fact out of the vector index only: the log and the slot index keep it, so lifecycle
resolution of its slot stays exact and `frecall replay` restores it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from schemas.categories import LifecycleState
from schemas.policy import Policy
from schemas.records import FactRecord
from scorer.score import EVENT_TIME_MEMBERSHIP
from workers.lifecycle.rules import group_key

S = LifecycleState


@dataclass(frozen=True, slots=True)
class Archival:
    """One archivable fact: why (its state at T, or "expired") and since when it is dead."""

    edge_id: str
    reason: str
    dead_since: datetime


def expires_at(record: FactRecord, policy: Policy) -> datetime | None:
    """When an anchored fact of an event-time category expires (Appendix K), else None.

    The scorer's rule: soft membership in event-time categories ≥ 0.5, an event time, and
    the buffer after it (scorer/score.py `_state_as_of`).
    """
    edge = record.edge
    if edge.event_time is None:
        return None
    membership = sum(w for c, w in edge.categories.items() if policy.category(c).event_time)
    if membership < EVENT_TIME_MEMBERSHIP:
        return None
    return edge.event_time + timedelta(hours=policy.expiry_buffer_hours)


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
