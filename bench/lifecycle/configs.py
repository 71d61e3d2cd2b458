"""The configurations compared side by side, on one store, in one run.

* `full` — the query service as shipped (paper Eq. 2, every mechanism on).
* `flat` — lifecycle off: candidates ranked by similarity alone, nothing masked; what a
  flat memory store (Mem0-style) serves.
* `uniform` — every category shares one λ (0.0035/h), α (0.3) and floor (0.0): "uniform
  only, no ontology" (Appendix X, Table 52) with routing on — the decay half of C.5's 2×2.
* `no_routing` — no routing prior and no category-forced candidates (C.5's other half).
* `uniform_no_routing` — both removed: C.5's "baseline (uniform, no rt.)".
* `untyped` — the pre-registered three-primitive arm of §6.5 / Appendix AD, see
  `UntypedService`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from schemas.categories import LifecycleState, UpdateSemantics
from schemas.policy import Policy
from schemas.query import QueryRequest, QueryResult
from schemas.records import FactRecord
from scorer.score import ScoringOptions
from workers.ports import Embedder, VectorIndex
from workers.query.routing import CategoryRouter
from workers.query.service import QueryService

#: Appendix X's uniform arm: one decay rate, blend weight and floor for every category.
UNIFORM_RATE, UNIFORM_ALPHA, UNIFORM_FLOOR = 0.0035, 0.3, 0.0
NO_FORCED = frozenset({"dense", "bm25"})
#: The untyped arm ranks the whole merged pool (dense 60 ∪ BM25 20) before masking.
POOL_K = 200


class Answerer(Protocol):
    def query(self, request: QueryRequest) -> QueryResult: ...


def uniform_policy(policy: Policy) -> Policy:
    """A copy of `policy` whose categories all decay, blend and floor alike (Appendix X)."""
    same = {"decay_per_hour": UNIFORM_RATE, "alpha": UNIFORM_ALPHA, "floor": UNIFORM_FLOOR}
    categories = {c: p.model_copy(update=same) for c, p in policy.categories.items()}
    return policy.model_copy(update={"categories": categories})


@dataclass(frozen=True, slots=True)
class _Fate:
    """When a fact stopped being current under the untyped rules (None: never)."""

    superseded_at: datetime | None
    retracted_at: datetime | None


class UntypedService:
    """The untyped three-primitive arm of §6.5, as Appendix AD.1–AD.2 define it.

    Kept: slot-key supersession ("latest-slot-wins": a committed `replace` edge at or above
    one threshold for every category supersedes the slot's earlier edges), event-time
    expiry ("date rule": any fact with an event-time anchor expires `expiry_buffer_hours`
    after it, whatever its category and even when numeric — AD.2 discloses no numeric
    exemption), and the retraction mask ("drop entries with is_retracted"), applied to every
    query, not only outside cancellation questions.
    Removed: categories, activation, decay, score blending, soft-supersession Ω, intent
    masks and routing, category-forced candidates. Candidates are the unmasked dense ∪ BM25
    pool, ranked by similarity σ alone; the three primitives then drop what is no longer
    current as of the query time, and the first k that survive are served.

    Supersession and retraction are recomputed here from the stored edges with the one
    threshold (the paper's replace threshold), not read from the typed lifecycle state,
    which uses per-category thresholds (Appendix Z). Near-duplicates and quarantined
    content stay out, as they are never stored as separate memories. A raw turn kept beside
    its facts (Appendix AA) is current while any of its facts is.
    """

    def __init__(
        self, vectors: VectorIndex, embedder: Embedder, policy: Policy, router: CategoryRouter
    ) -> None:
        self._pool = QueryService(
            vectors, embedder, policy, router,
            options=ScoringOptions(lifecycle=False, routing=False), sources=NO_FORCED,
        )  # fmt: skip
        self._vectors = vectors
        self._threshold = policy.supersession.replace_threshold
        self._buffer = timedelta(hours=policy.expiry_buffer_hours)
        self._fates: dict[str, dict[str, _Fate]] = {}
        self._records: dict[str, dict[str, FactRecord]] = {}

    def _user(self, user: str) -> tuple[dict[str, _Fate], dict[str, FactRecord]]:
        if user not in self._fates:
            records = {r.edge_id: r for r in self._vectors.scroll(user)}
            self._records[user] = records
            self._fates[user] = untyped_fates(records.values(), self._threshold)
        return self._fates[user], self._records[user]

    def query(self, request: QueryRequest) -> QueryResult:
        as_of = request.as_of or datetime.now(UTC)
        pool = self._pool.query(request.model_copy(update={"k": POOL_K}))
        fates, records = self._user(request.user_id)

        def current(edge_id: str) -> bool:
            record = records.get(edge_id)
            if record is None:
                return False
            if record.edge.episodic and record.edge.episodic_of:
                facts = [f for f in record.edge.episodic_of if f in records]
                if facts:
                    return any(self._alive(records[f], fates, as_of) for f in facts)
            return self._alive(record, fates, as_of)

        kept = [f for f in pool.results if current(f.edge_id)][: request.k]
        return pool.model_copy(update={"results": kept})

    def _alive(self, record: FactRecord, fates: Mapping[str, _Fate], as_of: datetime) -> bool:
        if record.lifecycle.state in (LifecycleState.DUPLICATE, LifecycleState.QUARANTINED):
            return False
        fate = fates.get(record.edge_id)
        if fate is not None:
            for t in (fate.superseded_at, fate.retracted_at):
                if t is not None and t <= as_of:
                    return False
        event = record.edge.event_time
        return event is None or event + self._buffer >= as_of


def untyped_fates(records: Iterable[FactRecord], threshold: float) -> dict[str, _Fate]:
    """Latest-slot-wins and retraction over a user's stored edges, one threshold for all."""
    edges = sorted((r.edge for r in records), key=lambda e: (e.ingest_time, e.edge_id))
    slots: dict[str, list[str]] = {}
    superseded: dict[str, datetime] = {}
    retracted: dict[str, datetime] = {}
    for edge in edges:
        for slot in edge.retracts:
            for old in slots.get(slot, ()):
                retracted.setdefault(old, edge.ingest_time)
        if edge.slot_key is None or edge.episodic:
            continue
        members = slots.setdefault(edge.slot_key, [])
        if edge.update is UpdateSemantics.REPLACE and edge.confidence >= threshold:
            for old in members:
                superseded.setdefault(old, edge.ingest_time)
        members.append(edge.edge_id)
    return {
        e: _Fate(superseded.get(e), retracted.get(e)) for e in sorted({*superseded, *retracted})
    }


@dataclass(frozen=True, slots=True)
class Config:
    name: str
    description: str
    make: Callable[[VectorIndex, Embedder, Policy, CategoryRouter], Answerer]


CONFIGS: tuple[Config, ...] = (
    Config("full", "lifecycle score, typed policy, routing (the product)",
           lambda v, e, p, r: QueryService(v, e, p, r)),
    Config("flat", "similarity only, nothing masked (Mem0-style)",
           lambda v, e, p, r: QueryService(v, e, p, r, options=ScoringOptions(lifecycle=False))),
    Config("uniform", "one λ/α/floor for all categories (App. X), routing on",
           lambda v, e, p, r: QueryService(v, e, uniform_policy(p), r)),
    Config("no_routing", "typed policy, no routing prior, no category-forced pool",
           lambda v, e, p, r: QueryService(v, e, p, r, options=ScoringOptions(routing=False),
                                           sources=NO_FORCED)),
    Config("uniform_no_routing", "uniform decay and no routing (C.5 baseline)",
           lambda v, e, p, r: QueryService(v, e, uniform_policy(p), r,
                                           options=ScoringOptions(routing=False),
                                           sources=NO_FORCED)),
    Config("untyped", "three primitives over σ ranking (§6.5, App. AD)", UntypedService),
)  # fmt: skip
