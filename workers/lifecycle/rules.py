"""Lifecycle rules: the state of a slot is a deterministic function of the *set* of its edges.

Arrival order, duplicates and replays therefore converge (docs/architecture.md, "Lifecycle
state"). The rules walk one slot's timeline in (ingest time, kind, edge id) order:

* hard supersession — a `replace` edge at or above its category's threshold (Appendix Z:
  0.8 for replace-semantics categories, 0.95 for accumulate-semantics ones) supersedes
  every earlier active edge of the slot (Appendix F);
* accumulate semantics — an `accumulate` edge adds alongside the slot's values, except that
  an explicit contradiction supersedes (Table 1 row 1, "Works at Google" → "Joined
  Anthropic"; Appendix F): a *different* stated value at or above the accumulate threshold
  (0.95, Appendix Z) supersedes the slot's valued edges; below it, it is a soft update;
  the *same* value is a repeated mention. Without stated values there is nothing to
  contradict and both edges stay;
* soft supersession — a `soft` edge, or a `replace` edge below the threshold, keeps the
  earlier values active and adds a pressure γ (its confidence, scaled), lowering them through
  Ω = Π(1 - γ) (paper Model 1);
* retraction — a retracting edge stated at or after an edge retracts it, whenever it
  arrived (a retraction that arrives before its target still applies);
* expired events stay what they were — an event-anchored fact whose event had expired
  (Appendix K: event time + buffer) when a later edge of its slot was said is a past
  occurrence, not a value that edge replaces: the later edge is another instance of the
  slot (Appendix Z's instance-qualified slot keys), and the past one keeps its own expiry
  ("won the first tournament" is not undone by "won the fourth");
* near-duplicates — a non-numeric edge with cosine > 0.95 to an active edge of its slot is
  folded into it as a repeated mention (Appendix Z; numeric facts exempt, Appendix H);
* quarantined (instruction-like) edges never take part and are never served (B.5).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np

from schemas.categories import LifecycleState, UpdateSemantics
from schemas.events import EdgeEvent
from schemas.policy import Policy
from schemas.records import Lifecycle, SoftPressure
from scorer.context import EVENT_TIME_MEMBERSHIP

#: Prefix of derived group keys for facts without a slot key.
DERIVED_SLOT_PREFIX = "~text:"


def group_key(edge: EdgeEvent) -> str:
    """The slot an edge competes in: its slot key, or one derived from its normalized text.

    Slot-less facts never supersede anything; the derived key only lets exact restatements
    fold together as repeated mentions.
    """
    if edge.slot_key:
        return edge.slot_key
    normalized = " ".join(edge.text.lower().split())
    return DERIVED_SLOT_PREFIX + hashlib.sha1(normalized.encode()).hexdigest()[:16]


def edge_expires_at(edge: EdgeEvent, policy: Policy) -> datetime | None:
    """When an anchored fact of an event-time category expires (Appendix K), else None.

    The scorer's rule (scorer/score.py `_state_as_of`): soft membership in event-time
    categories ≥ 0.5, an event time, and the buffer after it.
    """
    if edge.event_time is None:
        return None
    membership = sum(w for c, w in edge.categories.items() if policy.category(c).event_time)
    if membership < EVENT_TIME_MEMBERSHIP:
        return None
    return edge.event_time + timedelta(hours=policy.expiry_buffer_hours)


def _replaceable(old: EdgeEvent, when: datetime, policy: Policy) -> bool:
    """Whether an edge said at `when` can still replace `old`: not once `old`'s event has
    expired (a past occurrence is history, not the slot's current value)."""
    expiry = edge_expires_at(old, policy)
    return expiry is None or when <= expiry


def _order(edge: EdgeEvent) -> tuple[datetime, str]:
    return (edge.ingest_time, edge.edge_id)


@dataclass
class _Draft:
    """Mutable annotations while walking the timeline; frozen into `Lifecycle` at the end."""

    edge: EdgeEvent
    state: LifecycleState = LifecycleState.ACTIVE
    superseded_by: str | None = None
    superseded_at: datetime | None = None
    retracted_by: str | None = None
    retracted_at: datetime | None = None
    duplicate_of: str | None = None
    mentions: int = 1
    last_mentioned_at: datetime | None = None
    pressures: list[SoftPressure] = field(default_factory=list)

    def freeze(self) -> Lifecycle:
        return Lifecycle(
            state=self.state,
            superseded_by=self.superseded_by,
            superseded_at=self.superseded_at,
            retracted_by=self.retracted_by,
            retracted_at=self.retracted_at,
            duplicate_of=self.duplicate_of,
            mentions=self.mentions,
            last_mentioned_at=self.last_mentioned_at or self.edge.ingest_time,
            soft_pressures=tuple(self.pressures),
        )


def same_value(a: EdgeEvent, b: EdgeEvent) -> bool | None:
    """Whether two edges state the same value (case and spacing aside); None if either
    states none."""
    if a.value is None or b.value is None:
        return None
    return " ".join(a.value.casefold().split()) == " ".join(b.value.casefold().split())


def _restates(new: EdgeEvent, old: EdgeEvent, threshold: float) -> bool:
    """Whether `new` says again what `old` says (Appendix Z's near-duplicate rule).

    Cosine alone conflates two occurrences of one kind of event ("dentist on Dec 11, 2024"
    vs "… 2025") and two values that embed alike ("wakes up at 7am" vs "at 6am"): a
    different event time or a different stated value is new information, never a repeat
    (the numeric exemption of Appendix H, extended to every stated value). In an accumulate
    slot the same committed value said again is a repeated mention whatever the wording
    ("works at Google" … "still at Google"): it reinforces the fact (Appendix G,
    conversational frequency). A commitment to a value that was only considered ("thinking
    about London" → "moved to London") is not a repeat. A `replace` edge restating the
    current value stays a replacement (latest wins): folding it would leave its raw turn
    current after the original is retracted (measured: text track AV7 97.5 → 82.5 % pass).
    """
    if new.numeric or new.event_time != old.event_time:
        return False
    same = same_value(new, old)
    if same is False:
        return False
    if same and new.update is UpdateSemantics.ACCUMULATE and old.update is not UpdateSemantics.SOFT:
        return True
    return _cosine(new, old) > threshold


def _cosine(a: EdgeEvent, b: EdgeEvent) -> float:
    if a.embedding is None or b.embedding is None or a.embedding.model != b.embedding.model:
        return 0.0
    va, vb = a.embedding.to_array(), b.embedding.to_array()
    denom = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return float(va @ vb) / denom if denom else 0.0


def resolve_slot(
    members: Iterable[EdgeEvent], retractions: Iterable[EdgeEvent], policy: Policy
) -> dict[str, Lifecycle]:
    """Lifecycle annotations of every member of one slot (keyed by edge id)."""
    unique = {e.edge_id: e for e in members}
    drafts = {eid: _Draft(e) for eid, e in unique.items()}
    # A quarantined (instruction-like) edge takes no part (B.5): it retracts nothing either.
    retractors = {e.edge_id: e for e in retractions if not e.quarantined}
    # Members first at equal times: "I'm getting a dog — no, scrap that" retracts in-turn.
    timeline = sorted(
        [(e.ingest_time, 0, e.edge_id) for e in unique.values()]
        + [(e.ingest_time, 1, e.edge_id) for e in retractors.values()]
    )
    active: list[_Draft] = []
    dup_cosine = policy.supersession.near_duplicate_cosine
    for when, kind, edge_id in timeline:
        if kind == 1:
            for draft in active:
                if draft.edge.edge_id != edge_id:
                    draft.state = LifecycleState.RETRACTED
                    draft.retracted_by, draft.retracted_at = edge_id, when
            active = [d for d in active if d.state is LifecycleState.ACTIVE]
            continue
        draft = drafts[edge_id]
        edge = draft.edge
        if edge.quarantined:
            draft.state = LifecycleState.QUARANTINED
            continue
        original = next((a for a in active if _restates(edge, a.edge, dup_cosine)), None)
        if original is not None:
            draft.state, draft.duplicate_of = LifecycleState.DUPLICATE, original.edge.edge_id
            original.mentions += 1
            original.last_mentioned_at = when
            continue
        if edge_id in retractors:
            # A cancellation record ("the dog plan is off") is itself a current fact; the
            # retraction event, not supersession, takes the earlier values out.
            active.append(draft)
            continue
        # Events that had expired when this edge was said are other instances: untouched.
        current = [a for a in active if _replaceable(a.edge, when, policy)]
        if edge.update is UpdateSemantics.ACCUMULATE:
            # Only a different stated value contradicts; valueless edges simply add up.
            targets = [a for a in current if same_value(edge, a.edge) is False]
            threshold = policy.supersession.accumulate_threshold
        else:
            targets = current
            semantics = policy.category(edge.primary_category).semantics
            threshold = policy.supersession.threshold_for(semantics)
        if targets and edge.update is not UpdateSemantics.SOFT and edge.confidence >= threshold:
            if edge.update is UpdateSemantics.ACCUMULATE:
                # A committed value also settles what was only considered for the slot.
                targets += [a for a in current if a.edge.update is UpdateSemantics.SOFT]
            for old in targets:
                old.state = LifecycleState.SUPERSEDED
                old.superseded_by, old.superseded_at = edge_id, when
            active = [a for a in active if a.state is LifecycleState.ACTIVE]
        elif edge.update is not UpdateSemantics.ACCUMULATE or targets:
            gamma = edge.confidence * policy.supersession.soft_gamma_scale
            for old in targets:
                old.pressures.append(SoftPressure(by=edge_id, at=when, gamma=gamma))
        active.append(draft)
    return {eid: d.freeze() for eid, d in sorted(drafts.items())}
