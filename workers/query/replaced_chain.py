"""An older version tied to a replaced one: the chain A → B → C through the ingest's supersession.

A value changed twice is three statements: A, then B, then C. The ingest may tie B to C (a
keyed fact of B superseded by C, `superseded_by`), which masks B for a current question and
brings C in with B's σ (`successors.py`). A, told before both, is often tied to neither: no
slot key of its own, its words far from C's (a firm, a home, an employer told in words MiniLM
puts apart), while still about the same thing as B. Then A is shown among the first places
beside C — the oldest version of three leading the newest (round 26, r26-av4: the "middle one
superseded out of the window, the oldest not" class of round 25's left list).

Slot-key supersession is transitive along a slot's chain (A.7.1: κ decides the competitor set,
Ω(e) multiplies over every later edge of e's slot): if A is an earlier version of what B said
and C replaced B, C replaced A as well. At query time, for a question that asks which value
holds now (`newer_statements.asks_current_value`), a candidate A among the first `shown`
ranks from `shown` on when

* A carries no slot key (a keyed fact's currency is the lifecycle's, as in `latest_value`);
* a superseded statement B among the query's masked matches (the facts the state mask hides,
  read for successor expansion) was told at least `min_gap_hours` after A was last told, and
  their stored vectors are about the same thing (cosine ≥ `min_cosine`, `newer_statements`'
  value), and of the first `shown` candidates (the chain's own turns aside) B is nearest A;
* B's chain of replacements (`superseded_by`, followed to its end) ends at an active statement
  C that is in the window — the newest version is shown — told after B, not A's own turn.

The reason names B and C in `why`. A pure function of the window, the masked matches, the
chain's records and as_of: stored vectors, ingest times and lifecycle links decide, ties by
edge id.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from schemas.categories import LifecycleState
from schemas.records import FactRecord
from workers.query import successors
from workers.query.candidates import MergedCandidate
from workers.query.pressed_values import mentioned_as_of

Fetch = Callable[[list[str]], dict[str, FactRecord]]


@dataclass(frozen=True, slots=True)
class Chained:
    """A candidate that is an earlier version of `via`, which `newer` replaced."""

    via: str
    newer: str
    cosine: float


def chain_end(start: FactRecord, fetch: Fetch) -> FactRecord | None:
    """The statement at the end of `start`'s `superseded_by` chain (None if `start` was not
    superseded, or the chain breaks, loops or runs past `successors.MAX_HOPS`): the walk of
    successor expansion (`successors.chain_end`), through supersession only — a retracted
    link ends the chain, and `demotions` asks for an end in the window."""
    return successors.chain_end(start, lambda ids: list(fetch(ids).values()), retractions=False)


def _turns(record: FactRecord) -> frozenset[str]:
    return frozenset(record.edge.source_turns)


def demotions(
    window: Sequence[MergedCandidate],
    replaced: Sequence[MergedCandidate],
    fetch: Fetch,
    as_of: datetime,
    min_cosine: float,
    min_gap_hours: float,
    shown: int = 5,
) -> dict[str, Chained]:
    """Edge id → the replaced statement it is an earlier version of and that one's newest
    replacement, for the first `shown` of `window` (the ranking's first candidates, in order).
    `replaced`: the superseded statements among the query's matches (the masked pool);
    `fetch` reads records by edge id (the chain's later links)."""
    in_window = {m.record.edge_id: m for m in window}
    first = [m for m in window[:shown] if m.vector is not None]
    out: dict[str, Chained] = {}
    ends: dict[str, FactRecord | None] = {}
    for via in sorted(replaced, key=lambda m: m.record.edge_id):
        b = via.record
        if (
            via.vector is None
            or b.lifecycle.state is not LifecycleState.SUPERSEDED
            or b.edge.ingest_time > as_of
        ):
            continue
        if b.edge_id not in ends:
            ends[b.edge_id] = chain_end(b, fetch)
        end = ends[b.edge_id]
        if end is None or end.edge_id not in in_window or end.edge.ingest_time > as_of:
            continue
        if end.edge.ingest_time <= b.edge.ingest_time:
            continue
        chain_turns = _turns(b) | _turns(end)
        # B's nearest of the first places, the chain's own turns aside: it is an earlier
        # version of that one, not of every candidate near its topic (as `newer_statements`
        # aims a presser past the window).
        others = [m for m in first if _turns(m.record).isdisjoint(chain_turns)]
        if not others:
            continue
        near = max(
            others,
            key=lambda m: (float(np.dot(m.vector, via.vector)), m.record.edge_id),  # type: ignore[arg-type]
        )
        a = near.record
        assert near.vector is not None
        cosine = float(np.dot(near.vector, via.vector))
        if (
            a.edge.slot_key
            or cosine < min_cosine
            or b.edge.ingest_time - mentioned_as_of(a, as_of) < timedelta(hours=min_gap_hours)
        ):
            continue
        old = out.get(a.edge_id)
        key = (end.edge.ingest_time, end.edge_id, b.edge_id)
        if old is None or key > (in_window[old.newer].record.edge.ingest_time, old.newer, old.via):
            out[a.edge_id] = Chained(b.edge_id, end.edge_id, round(cosine, 2))
    return out


def explain(chained: Chained) -> str:
    return (
        f"an earlier version of {chained.via} (cosine {chained.cosine:.2f}), which "
        f"{chained.newer} replaced: the newest of the chain leads current questions; this "
        f"earlier one is outdated with the one it preceded"
    )
