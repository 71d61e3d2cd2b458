"""Slot association by similarity: a fact without a slot key joins the closest slot (issue 11).

Extraction misses things: a user restates a preference in words no rule knows, and only the
raw turn is kept — while an earlier phrasing of the same slot was extracted, so the old value
would lead forever. Here an edge without a slot key (an unkeyed fact, or the raw turn of a turn
that yielded no fact) that closely matches a keyed fact of the same user in a
replace-semantics category (paper Table 1: slot-key supersession, Appendix F) takes part in
that slot's lifecycle:

* it joins the slot whose earlier keyed fact is most similar to it (cosine of the stored
  embeddings ≥ `association.soft_cosine`; ties go to the smaller slot key);
* as a *soft* update (Model 1: the earlier values stay, lowered through Ω, with γ from the
  similarity), unless the match is clear (≥ `association.hard_cosine`) and it states a value
  that differs from the matched fact's: then it supersedes, as a committed restatement does.

The association of an edge is a function of the edge and of the set of its user's keyed
facts ingested before it — never of arrival order — so a slot's state stays a function of the
set of edges (replay and any delivery order converge). It is maintained incrementally through
pseudo-slots of the slot index: the user's anchors (keyed facts that can be matched), the free
edges by ingest month (to find, when an anchor arrives late, the later edges it may now
attract), and per slot the edges associated with it (a cache: membership is re-checked
whenever the slot is resolved, so a stale entry is harmless).
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from schemas.categories import UpdateSemantics
from schemas.events import EdgeEvent
from schemas.policy import Policy
from schemas.records import Association
from workers.lifecycle import anchor_matrix
from workers.lifecycle.rules import DERIVED_SLOT_PREFIX, group_key
from workers.ports import SlotIndex

#: Pseudo-slots (never resolved themselves).
ANCHORS = "~assoc:anchors"
FREE_PREFIX = "~assoc:free:"
TO_PREFIX = "~assoc:to:"
PSEUDO_PREFIX = "~assoc:"


@dataclass(frozen=True, slots=True)
class Match:
    """Where a free edge belongs: the slot, the keyed fact it matched, how well, how firmly."""

    slot: str
    anchor: EdgeEvent
    score: float
    hard: bool

    def record(self) -> Association:
        return Association(
            slot=self.slot, anchor=self.anchor.edge_id, similarity=round(self.score, 4),
            hard=self.hard,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class SlotView:
    """A slot as the rules see it: `rules` (associated edges as soft or hard updates of the
    slot), the stored edges they stand for, and the association of each joined edge."""

    rules: list[EdgeEvent]
    stored: list[EdgeEvent]
    joined: dict[str, Association]


def is_pseudo(slot: str) -> bool:
    return slot.startswith(PSEUDO_PREFIX)


def is_anchor(edge: EdgeEvent, policy: Policy) -> bool:
    """A keyed value that later values replace: a `replace` (or soft) fact in a
    replace-semantics category. An `accumulate` fact ("likes fantasy films", one item among
    many) names no single value a restatement could update."""
    return (
        edge.slot_key is not None
        and not edge.quarantined
        and not edge.retracts
        and not edge.episodic
        and edge.embedding is not None
        and edge.update is not UpdateSemantics.ACCUMULATE
        and policy.category(edge.primary_category).semantics is UpdateSemantics.REPLACE
    )


def is_free(edge: EdgeEvent) -> bool:
    """An edge that may be associated: no slot key, nothing to retract, no event time (a dated
    plan is about its date, not a standing value), and not a raw turn that already inherits
    the state of facts extracted from it (Appendix AA)."""
    return (
        edge.slot_key is None
        and not edge.quarantined
        and not edge.retracts
        and edge.event_time is None
        and edge.embedding is not None
        and not (edge.episodic and edge.episodic_of)
    )


def free_key(edge: EdgeEvent) -> str:
    return f"{FREE_PREFIX}{edge.ingest_time:%Y-%m}"


def best_match(edge: EdgeEvent, anchors: Sequence[EdgeEvent], policy: Policy) -> Match | None:
    """The slot `edge` joins, if any: among anchors ingested before it with the same model."""
    assert edge.embedding is not None
    prepared = anchor_matrix.prepare(anchors)
    count = prepared.earlier(edge)
    if count is None:  # what the preparation does not cover: the scan decides
        return _scan_match(edge, anchors, policy)
    if not count:
        return None
    rules = policy.association
    key = (
        edge.edge_id,
        edge.embedding.b64,
        edge.value,
        edge.update,
        count,
        rules.soft_cosine,
        rules.hard_cosine,
    )
    if key in prepared.answers:
        return cast(Match | None, prepared.answers[key])
    scores = prepared.matrix[:count] @ edge.embedding.to_array()
    if np.isnan(scores).any():
        return _scan_match(edge, anchors, policy)
    # The scan's order (-score, slot key, edge id), first only: the best score, then the tie.
    top = scores.max()
    tied = (prepared.edges[i] for i in np.flatnonzero(scores == top).tolist())
    anchor = min(tied, key=lambda a: (a.slot_key or "", a.edge_id))
    found = _decide(edge, anchor, float(top), policy)
    prepared.answers[key] = found
    return found


def _scan_match(edge: EdgeEvent, anchors: Sequence[EdgeEvent], policy: Policy) -> Match | None:
    """`best_match` from the anchor list itself (what `anchor_matrix` prepares once)."""
    assert edge.embedding is not None
    # In a canonical order, each anchor once: the scores (and so Ω and the `why`) must not
    # depend on the order the slot index returns anchors in — a BLAS product may round a
    # row differently by its position.
    earlier = sorted(
        {
            a.edge_id: a
            for a in anchors
            if a.embedding is not None
            and a.embedding.model == edge.embedding.model
            and (a.ingest_time, a.edge_id) < (edge.ingest_time, edge.edge_id)
            and a.user_id == edge.user_id
            and a.edge_id != edge.edge_id
        }.values(),
        key=lambda a: (a.ingest_time, a.edge_id),
    )
    if not earlier:
        return None
    matrix = np.stack([a.embedding.to_array() for a in earlier if a.embedding is not None])
    scores = matrix @ edge.embedding.to_array()
    ranked = sorted(
        zip(scores.tolist(), earlier, strict=True),
        key=lambda pair: (-pair[0], pair[1].slot_key or "", pair[1].edge_id),
    )
    score, anchor = ranked[0]
    return _decide(edge, anchor, score, policy)


def _decide(edge: EdgeEvent, anchor: EdgeEvent, score: float, policy: Policy) -> Match | None:
    rules = policy.association
    if score < rules.soft_cosine:
        return None
    assert anchor.slot_key is not None
    # A hedged statement ("might switch to oat", extracted `soft`) stays soft however close
    # the match: both values stand (Appendix F: "thinking about moving to London").
    changed = (
        edge.update is not UpdateSemantics.SOFT
        and edge.value is not None
        and anchor.value is not None
        and edge.value.casefold() != anchor.value.casefold()
    )
    return Match(anchor.slot_key, anchor, float(score), score >= rules.hard_cosine and changed)


def as_member(edge: EdgeEvent, match: Match, policy: Policy) -> EdgeEvent:
    """How `edge` takes part in its slot's resolution (a view: the stored edge is unchanged).

    A soft member's confidence (γ = confidence × soft_gamma_scale, Model 1) grows with the
    match from 0 at `soft_cosine` to the replace threshold at `hard_cosine`: a bare match
    barely lowers the slot's values, so that many turns that only just match (a chatty user
    circling one topic) cannot bury them.
    """
    rules = policy.association
    replace = policy.supersession.replace_threshold
    if match.hard:
        update, confidence = UpdateSemantics.REPLACE, max(edge.confidence, replace)
    else:
        span = max(rules.hard_cosine - rules.soft_cosine, 1e-6)
        strength = min(max((match.score - rules.soft_cosine) / span, 0.05), 1.0)
        update, confidence = UpdateSemantics.SOFT, min(strength * replace, replace - 1e-6)
    return edge.model_copy(
        update={
            "slot_key": match.slot,
            "categories": dict(match.anchor.categories),
            "update": update,
            "confidence": confidence,
        }
    )


class Associations:
    """The association bookkeeping of one `LifecycleService` over its slot index."""

    def __init__(self, slots: SlotIndex, policy: Policy) -> None:
        self._slots = slots
        self._policy = policy

    def anchors(self, user: str) -> list[EdgeEvent]:
        return self._slots.members(user, ANCHORS)

    def match(self, edge: EdgeEvent, anchors: Sequence[EdgeEvent] | None = None) -> Match | None:
        if not is_free(edge):
            return None
        found = self.anchors(edge.user_id) if anchors is None else anchors
        return best_match(edge, found, self._policy)

    def on_apply(self, edge: EdgeEvent) -> list[str]:
        """Record `edge`'s part in associations; returns the slots whose state it may change."""
        user = edge.user_id
        if is_free(edge):
            self._slots.add(user, free_key(edge), edge)
            match = self.match(edge)
            if match is None:
                return []
            self._slots.add(user, TO_PREFIX + match.slot, edge)
            return [match.slot]
        if not is_anchor(edge, self._policy):
            return []
        assert edge.slot_key is not None
        self._slots.add(user, ANCHORS, edge)
        # A late anchor may attract free edges ingested after it (delivered before it).
        later = self._later_free(user, edge)
        if not later:  # the usual case (ingest in time order): nothing to compare
            return []
        anchors = self.anchors(user)
        without = [a for a in anchors if a.edge_id != edge.edge_id]
        touched: list[str] = []
        for free in later:
            now, before = self.match(free, anchors), self.match(free, without)
            if _slot(now) == _slot(before):
                continue
            if now is not None:
                self._slots.add(user, TO_PREFIX + now.slot, free)
            touched += [s for s in (_slot(now), _slot(before)) if s]
            touched.append(group_key(free))
        return touched

    def after_removal(self, user: str, slots: Iterable[str]) -> list[str]:
        """Slots to resolve again after facts left `slots` (a forget): the edges associated
        with them may now belong elsewhere, or nowhere (then their own slot decides)."""
        touched: list[str] = []
        anchors: list[EdgeEvent] | None = None
        for slot in slots:
            if is_pseudo(slot):
                continue
            for free in self._slots.members(user, TO_PREFIX + slot):
                anchors = self.anchors(user) if anchors is None else anchors
                match = self.match(free, anchors)
                if match is not None and match.slot != slot:
                    self._slots.add(user, TO_PREFIX + match.slot, free)
                    touched.append(match.slot)
                touched.append(group_key(free))
        return touched

    def view(self, user: str, slot: str, members: list[EdgeEvent]) -> SlotView:
        """`slot` as the rules see it. Associated edges join a keyed slot, as soft or hard
        updates; an edge associated with a keyed slot leaves its own derived slot (its state
        is decided there, not twice)."""
        anchors: list[EdgeEvent] | None = None
        if slot.startswith(DERIVED_SLOT_PREFIX):
            kept = []
            for m in members:
                if is_free(m):
                    anchors = self.anchors(user) if anchors is None else anchors
                    if self.match(m, anchors) is not None:
                        continue
                kept.append(m)
            return SlotView(kept, kept, {})
        candidates = self._slots.members(user, TO_PREFIX + slot)
        if not candidates:
            return SlotView(members, members, {})
        anchors = self.anchors(user)
        seen = {m.edge_id for m in members}
        view = SlotView(list(members), list(members), {})
        for free in candidates:
            match = self.match(free, anchors)
            if match is not None and match.slot == slot and free.edge_id not in seen:
                seen.add(free.edge_id)
                view.rules.append(as_member(free, match, self._policy))
                view.stored.append(free)
                view.joined[free.edge_id] = match.record()
        return view

    def related_slots(self, edge: EdgeEvent) -> list[str]:
        """The keyed slot a free edge currently belongs to (for re-announcing its effects)."""
        match = self.match(edge)
        return [match.slot] if match else []

    def associated_with(self, user: str, slot: str) -> list[EdgeEvent]:
        """Edges that may be associated with `slot` (a superset: stale entries included)."""
        return [] if is_pseudo(slot) else self._slots.members(user, TO_PREFIX + slot)

    def _later_free(self, user: str, anchor: EdgeEvent) -> list[EdgeEvent]:
        month = free_key(anchor)
        # Every slot index lists slot keys in order: the free months from the anchor's on
        # are a run of them (found by bisection: a big user has thousands of slots).
        keys = self._slots.slots(user)
        out: list[EdgeEvent] = []
        after = (anchor.ingest_time, anchor.edge_id)
        for key in itertools.takewhile(
            lambda k: k.startswith(FREE_PREFIX), keys[bisect_left(keys, month) :]
        ):
            # Members come in (ingest_time, edge_id) order: the later ones are a suffix
            # (found from the end: in time-ordered ingest there are none).
            members = self._slots.members(user, key)
            start = len(members)
            while start and (members[start - 1].ingest_time, members[start - 1].edge_id) > after:
                start -= 1
            out += members[start:]
        return out


def _slot(match: Match | None) -> str | None:
    return match.slot if match else None
