"""The query path: intent, routing, hybrid candidates, the lifecycle scorer, explanations."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime

import numpy as np

from schemas.categories import CATEGORY_ORDER, Intent, LifecycleState
from schemas.policy import Policy
from schemas.query import QueryRequest, QueryResult, ScoredFact
from scorer.rank import rank
from scorer.score import DEFAULT_OPTIONS, QueryContext, ScoringOptions
from scorer.tables import PolicyTables
from workers.ports import Embedder, Hit, SearchFilter, VectorIndex
from workers.query.candidates import (
    MergedCandidate,
    hours,
    merge_hits,
    relevance_tier,
    to_candidate,
)
from workers.query.explain import reasons
from workers.query.intent import detect_intent
from workers.query.lexical import search_lexical
from workers.query.routing import CategoryRouter, top_categories

#: The optional LLM step at query time: (query, [(edge_id, text)], k) → the ids to keep.
Distiller = Callable[[str, list[tuple[str, str]], int], list[str]]

#: Why a result ranks after others with a lower score (see `_tier`).
_BELOW_TIER = "ranked after the relevant tier: a weaker match for this query"

#: Candidate sources of the hybrid retrieval (§3.6): dense top-60, BM25 top-20 and the
#: routed category's top-20. Benchmarks restrict them to compare single sources.
ALL_SOURCES = frozenset({"dense", "bm25", "forced"})

#: Stored states that could have been admissible at some earlier time (as_of queries).
_HISTORY_STATES = frozenset({LifecycleState.SUPERSEDED, LifecycleState.RETRACTED})


def _utcnow() -> datetime:
    return datetime.now(UTC)


class QueryService:
    """Answers queries over one deployment's vector index."""

    def __init__(
        self,
        vectors: VectorIndex,
        embedder: Embedder,
        policy: Policy,
        router: CategoryRouter | None = None,
        options: ScoringOptions = DEFAULT_OPTIONS,
        clock: Callable[[], datetime] = _utcnow,
        sources: frozenset[str] = ALL_SOURCES,
        distill: Distiller | None = None,
    ) -> None:
        self._distill = distill
        unknown = sources - ALL_SOURCES
        if unknown or not sources:
            raise ValueError(f"candidate sources must be a non-empty subset of {ALL_SOURCES}")
        self._sources = sources
        self._vectors = vectors
        self._embedder = embedder
        self._policy = policy
        self._tables = PolicyTables.compile(policy)
        self._router = router or CategoryRouter(embedder)
        self._options = options
        self._clock = clock

    def _filter(self, intent: Intent, as_of: datetime | None) -> SearchFilter:
        admitted = {s for s, w in self._policy.masks[intent].items() if w > 0}
        stored: set[LifecycleState] = {
            LifecycleState.ACTIVE if s is LifecycleState.EXPIRED else s for s in admitted
        }
        if not self._options.lifecycle:
            return SearchFilter(ingested_before=as_of)
        if as_of is not None:
            # Bi-temporal: a fact superseded since then may have been current at as_of.
            stored |= _HISTORY_STATES
        return SearchFilter(states=frozenset(stored), ingested_before=as_of)

    def _tier(
        self, query: str, merged: list[MergedCandidate], admissible: np.ndarray
    ) -> np.ndarray:
        """The candidates the lifecycle ranking serves first (the paper's distilled top-20).

        With an LLM configured, one call selects them (§3.5); it is given the pool in σ order
        and falls back to that order on failure. Without one, the relevance tier stands in.
        """
        policy = self._policy
        if self._distill is None:
            return relevance_tier(
                merged, policy.distill_candidates, policy.relevance_ratio, admissible
            )
        ordered = sorted(
            (m for m, ok in zip(merged, admissible, strict=True) if ok), key=lambda m: -m.sigma
        )
        chosen = set(
            self._distill(
                query,
                [(m.record.edge_id, m.record.edge.text) for m in ordered],
                policy.distill_candidates,
            )
        )
        return np.array([m.record.edge_id in chosen for m in merged], dtype=bool)

    def query(self, request: QueryRequest) -> QueryResult:
        as_of = request.as_of or self._clock()
        intent = detect_intent(request.query, request.intent)
        qv = self._embedder.embed([request.query])[0]
        probs = self._router.route(request.query, qv)
        flt = self._filter(intent, request.as_of)
        user, policy = request.user_id, self._policy
        by_source: dict[str, list[Hit]] = {}
        if "dense" in self._sources:
            by_source["dense"] = self._vectors.search_dense(user, qv, policy.dense_candidates, flt)
        if "bm25" in self._sources:
            by_source["bm25"] = search_lexical(
                self._vectors, user, request.query, policy.bm25_candidates, flt
            )
        if "forced" in self._sources and self._options.routing:
            # Category-forced retrieval (§3.3): the predicted category's facts bypass the
            # vocabulary gap between an abstract query and specific stored facts.
            forced = frozenset({CATEGORY_ORDER[int(np.argmax(probs))]})
            by_source["forced"] = self._vectors.search_dense(
                user,
                qv,
                policy.forced_candidates,
                SearchFilter(flt.states, flt.ingested_before, forced),
            )
        merged = merge_hits(qv, by_source, policy.bm25_weight)
        candidates = [to_candidate(m.record, m.sigma) for m in merged]
        ctx = QueryContext(as_of_h=hours(as_of), intent=intent, routing=probs)
        ranked, scores = rank(candidates, ctx, self._tables, len(candidates), self._options)
        tier = None
        if self._options.lifecycle:
            # The tier is drawn among the facts the query may be served (a superseded
            # near-paraphrase of the question must not set the bar), then leads the order.
            admissible = np.zeros(len(merged), dtype=bool)
            admissible[ranked] = True
            tier = self._tier(request.query, merged, admissible)
            ranked = [i for i in ranked if tier[i]] + [i for i in ranked if not tier[i]]
        best = ranked[: request.k]
        results = []
        for i in best:
            record = merged[i].record
            terms = scores.terms(i)
            state = scores.state_name(i)
            results.append(
                ScoredFact(
                    edge_id=record.edge_id,
                    text=record.edge.text,
                    category=record.edge.primary_category,
                    state=LifecycleState(state),
                    score=round(terms["score"], 6),
                    terms={k: round(v, 6) for k, v in terms.items()},
                    why=reasons(record, state, terms, as_of, policy)
                    + ([] if tier is None or tier[i] else [_BELOW_TIER]),
                    source_turns=list(record.edge.source_turns),
                    event_time=record.edge.event_time,
                    ingest_time=record.edge.ingest_time,
                )
            )
        suppressed = Counter(
            scores.state_name(i) for i in range(len(merged)) if scores.score[i] <= 0.0
        )
        return QueryResult(
            intent=intent,
            categories=top_categories(probs),
            as_of=as_of,
            results=results,
            candidates=len(merged),
            suppressed=dict(sorted(suppressed.items())),
        )
