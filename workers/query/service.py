"""The query path: intent, routing, hybrid candidates, the lifecycle scorer, explanations."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Set
from datetime import UTC, datetime

import numpy as np

from schemas.categories import CATEGORY_ORDER, Category, Intent, LifecycleState
from schemas.policy import Policy
from schemas.query import QueryRequest, QueryResult, ScoredFact
from scorer.rank import rank
from scorer.scalar import ScalarScores
from scorer.score import DEFAULT_OPTIONS, QueryContext, Scores, ScoringOptions
from scorer.tables import PolicyTables
from workers.extraction.prototypes import PrototypeClassifier, default_table, is_semantic
from workers.ports import Embedder, Hit, SearchFilter, VectorIndex
from workers.query import origin_facts, passed_mentions, pastime_facts, set_questions, successors
from workers.query.candidates import (
    MergedCandidate,
    hours,
    merge_hits,
    to_candidate,
)
from workers.query.explain import reasons
from workers.query.intent import detect_intent
from workers.query.lexical import search_weighted, user_query_terms
from workers.query.query_vectors import QueryVectors
from workers.query.routing import CategoryRouter, top_categories
from workers.query.similarity import Calibration
from workers.query.successors import Successor
from workers.query.tiers import REPLACED_STATES, Distiller, below_tier, first_tier
from workers.query.window_rules import WindowRules
from workers.query.withdrawn import Withdrawn
from workers.query.withdrawn import explain as withdrawn_explain

#: Why a result ranks after others with a lower score (see `tiers.first_tier`).
_BELOW_TIER = "ranked after the relevant tier: a weaker match for this query"

#: Candidate sources of the hybrid retrieval (§3.6): dense top-60, BM25 top-20 and the
#: routed category's top-20. Benchmarks restrict them to compare single sources.
ALL_SOURCES = frozenset({"dense", "bm25", "forced"})

#: States another fact replaced or cancelled (`tiers.REPLACED_STATES`).
_REPLACED_STATES = REPLACED_STATES


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
        self._calibration = Calibration(embedder)
        self._query_vector = QueryVectors(embedder)
        self._options = options
        self._clock = clock
        self._event_categories = frozenset(c for c, p in policy.categories.items() if p.event_time)
        self._window_rules = WindowRules(vectors, embedder, policy)
        # Kind evidence reads the extraction prototypes on the vectors its weight was set on.
        sets = policy.set_questions
        self._kinds = (
            PrototypeClassifier(embedder, default_table())
            if sets.enabled
            and is_semantic(embedder)
            and embedder.model_id == sets.embedder_model_id
            else None
        )

    def _set_category(self, question: str, probs: np.ndarray) -> Category | None:
        """The routed category of a question for a set (`set_questions.asks_for_set`)."""
        if self._kinds is None or not self._options.routing:
            return None
        if not set_questions.asks_for_set(question):
            return None
        return CATEGORY_ORDER[int(np.argmax(probs))]

    def _routed_to_hobbies(self, probs: np.ndarray) -> bool:
        """Whether the question's routing (§3.3) gives Hobbies some weight: the questions a
        pastime fact serves (`pastime_facts`). Without routing every question does."""
        if not self._options.routing:
            return True
        weight = float(probs[CATEGORY_ORDER.index(Category.HOBBIES_RECREATION)])
        return weight >= self._policy.pastimes.hobby_weight_floor

    def _filter(self, intent: Intent, as_of: datetime | None) -> SearchFilter:
        masks = (self._policy.masks[intent], self._policy.raw_turn_masks.get(intent, {}))
        admitted = {s for mask in masks for s, w in mask.items() if w > 0}
        stored: set[LifecycleState] = {
            LifecycleState.ACTIVE if s is LifecycleState.EXPIRED else s for s in admitted
        }
        if not self._options.lifecycle:
            return SearchFilter(ingested_before=as_of)
        if as_of is not None:
            # Bi-temporal: a fact superseded since then may have been current at as_of.
            stored |= _REPLACED_STATES
        return SearchFilter(states=frozenset(stored), ingested_before=as_of)

    def _search(
        self, request: QueryRequest, qv: np.ndarray, probs: np.ndarray, intent: Intent
    ) -> tuple[dict[str, list[Hit]], bool]:
        """Hybrid candidates (§3.6): dense top-60, BM25 top-20, the routed categories' top-20,
        and the best matches among the facts the intent masks (for successor expansion);
        and whether the question is abstract (no distinctive word, `lexical.UserQuery`)."""
        user, policy = request.user_id, self._policy
        flt = self._filter(intent, request.as_of)
        by_source: dict[str, list[Hit]] = {}
        if "dense" in self._sources:
            by_source["dense"] = self._vectors.search_dense(user, qv, policy.dense_candidates, flt)
        # BM25 with the user's own statistics (workers/query/lexical.py), counted once.
        lexical = "bm25" in self._sources
        terms = user_query_terms(self._vectors, user, request.query) if lexical else None
        sparse = terms.vector if terms is not None else None
        if sparse is not None:
            by_source["bm25"] = search_weighted(
                self._vectors, user, sparse, policy.bm25_candidates, flt
            )
        if "forced" in self._sources and self._options.routing:
            # Category-forced retrieval (§3.3): the predicted category's facts bypass the
            # vocabulary gap between an abstract query and specific stored facts.
            forced = {CATEGORY_ORDER[int(np.argmax(probs))]}
            if intent in policy.event_routed_intents:
                # "What's coming up?" is about event-anchored facts whatever words it uses
                # (A.7.4): the event-time categories are routed too.
                forced |= self._event_categories
            by_source["forced"] = self._vectors.search_dense(
                user,
                qv,
                policy.forced_candidates,
                SearchFilter(flt.states, flt.ingested_before, frozenset(forced)),
            )
        hidden = self._hidden_states(intent) - (flt.states or frozenset())
        if hidden and self._options.lifecycle and policy.successor_expansion:
            masked = SearchFilter(frozenset(hidden), flt.ingested_before)
            n = policy.masked_candidates
            by_source["masked_dense"] = self._vectors.search_dense(user, qv, n, masked)
            if sparse is not None:
                by_source["masked_bm25"] = search_weighted(self._vectors, user, sparse, n, masked)
        return by_source, terms is not None and not terms.distinctive

    def _fill(
        self, ranked: list[int], merged: list[MergedCandidate], scores: Scores | ScalarScores,
        gone: Set[str], kind: Category, k: int,
    ) -> tuple[list[int], set[str], dict[int, float]]:  # fmt: skip
        """A set question's window after the first `latest_value.demote_to` places: the
        asked kind's candidates, one place per source turn (`set_questions.fill_window`)."""
        assert self._kinds is not None
        rule = self._policy.set_questions
        margins = set_questions.margins_of(merged, self._kinds, kind)
        kept = [i for i in ranked if merged[i].record.edge_id not in gone]
        keep = self._policy.latest_value.demote_to
        told = (
            set_questions.turns_told_again(kept, merged, kind, keep)
            if rule.pastime_turn_yields
            else set()
        )
        kept = [i for i in kept if i not in told]
        chatter = (
            set_questions.chatter_of(
                merged, kept[keep:k], self._kinds, rule.chatter_margin, rule.questions_yield
            )
            if rule.chatter_yields
            else set()
        )
        if rule.said_kinds_yield:
            chatter |= set_questions.said_other_kind(merged, kept[keep:k], kind)
        filled, placed = set_questions.fill_window(
            kept, merged, lambda i: scores.score[i] > 0.0, margins, rule.kind_weight, keep, k,
            chatter,
        )  # fmt: skip
        # a turn told again by its pastime fact follows the window, as a duplicate there does
        filled = filled[:k] + sorted(told, key=ranked.index) + filled[k:]
        return filled + [i for i in ranked if merged[i].record.edge_id in gone], placed, margins

    def _hidden_states(self, intent: Intent) -> frozenset[LifecycleState]:
        """Replaced states the intent's mask hides: where successors may be found."""
        mask = self._policy.masks[intent]
        return frozenset(s for s in _REPLACED_STATES if mask.get(s, 0.0) <= 0.0)

    def _rank(
        self, merged: list[MergedCandidate], ctx: QueryContext
    ) -> tuple[list[int], Scores | ScalarScores]:
        candidates = [to_candidate(m.record, m.sigma, self._policy) for m in merged]
        return rank(candidates, ctx, self._tables, len(candidates), self._options)

    def _expand(
        self,
        user: str,
        merged: list[MergedCandidate],
        scores: Scores | ScalarScores,
        as_of: datetime | None,
        k: int,
    ) -> tuple[list[MergedCandidate], dict[str, Successor]]:
        """Bring the successors of strongly matching masked candidates into the pool.

        Strong: among the k best matches of the whole pool by σ — the facts a flat store
        would have served; the lifecycle masks them, so their successors answer instead.
        """
        by_sigma = sorted(range(len(merged)), key=lambda i: (-merged[i].sigma, i))[:k]
        matches = [
            (merged[i].record, merged[i].sigma)
            for i in by_sigma
            if scores.score[i] <= 0.0 and scores.state_name(i) in _REPLACED_STATES
        ]
        if not matches:
            return merged, {}
        found = successors.follow(matches, lambda ids: self._vectors.get(user, ids))
        index = {m.record.edge_id: i for i, m in enumerate(merged)}
        out = list(merged)
        kept: dict[str, Successor] = {}
        for edge_id, succ in sorted(found.items()):
            if as_of is not None and succ.record.edge.ingest_time > as_of:
                continue
            i = index.get(edge_id)
            if i is None:
                out.append(MergedCandidate(succ.record, succ.sigma, ("successor",)))
            elif succ.sigma > out[i].sigma:
                m = out[i]
                out[i] = MergedCandidate(m.record, succ.sigma, (*m.sources, "successor"), m.vector)
            else:
                continue
            kept[edge_id] = succ
        return out, kept

    def query(self, request: QueryRequest) -> QueryResult:
        as_of = request.as_of or self._clock()
        intent = detect_intent(request.query, request.intent)
        qv = self._query_vector(request.query)
        probs = self._router.route(request.query, qv)
        user, policy = request.user_id, self._policy
        kind = self._set_category(request.query, probs)
        by_source, abstract = self._search(request, qv, probs, intent)
        if policy.pastimes.only_hobby_questions and not self._routed_to_hobbies(probs):
            by_source = pastime_facts.without_pastime_facts(by_source)
        if policy.origin_facts.only_origin_questions and not origin_facts.asks_for_origin(
            request.query
        ):
            by_source = origin_facts.without_origin_facts(by_source)
        scale = (
            self._calibration.scale()
            if policy.sigma_normalization in ("calibrated", "ceiling")
            else None
        )
        merged = merge_hits(qv, by_source, policy.bm25_weight, policy.sigma_normalization, scale)
        ctx = QueryContext(as_of_h=hours(as_of), intent=intent, routing=probs)
        ranked, scores = self._rank(merged, ctx)
        found: dict[str, Successor] = {}
        if self._options.lifecycle and policy.successor_expansion:
            merged, found = self._expand(user, merged, scores, request.as_of, request.k)
            if found:
                ranked, scores = self._rank(merged, ctx)
        tier = None
        if self._options.lifecycle:
            # The tier is drawn among the facts the query may be served (a superseded
            # near-paraphrase of the question must not set the bar), then leads the order.
            admissible = np.zeros(len(merged), dtype=bool)
            admissible[ranked] = True
            tier = first_tier(
                policy, self._distill, request.query, merged, admissible, intent, abstract
            )
            ranked = [i for i in ranked if tier[i]] + below_tier(
                policy, [i for i in ranked if not tier[i]], scores
            )
        moved_why: dict[str, list[str]] = {}
        gone: dict[str, Withdrawn] = {}
        past: dict[str, passed_mentions.Passed] = {}
        if tier is not None:
            settled = self._window_rules.settle(
                user, intent, qv, merged, ranked, as_of, request.query,
                frozenset(merged[i].record.edge_id for i in np.flatnonzero(tier)),
            )  # fmt: skip
            ranked, moved_why, gone, past = (
                settled.ranked,
                settled.moved_why,
                settled.gone,
                settled.past,
            )
        masked = gone.keys() | past.keys()
        placed: set[str] = set()
        margins: dict[int, float] = {}
        if kind is not None and self._kinds is not None and tier is not None:
            ranked, placed, margins = self._fill(ranked, merged, scores, masked, kind, request.k)
        best = ranked[: request.k]
        results = []
        for i in best:
            record = merged[i].record
            terms = scores.terms(i)
            state = scores.state_name(i)
            why = reasons(record, state, terms, as_of, policy, intent)
            succ = found.get(record.edge_id)
            if succ is not None:
                why.append(
                    f"successor of {succ.via} ({succ.relation} by it), which matched the "
                    f"question: σ {succ.sigma:.2f} carried over"
                )
            if tier is not None and not tier[i]:
                why.append(_BELOW_TIER)
            why.extend(moved_why.get(record.edge_id, ()))
            if record.edge_id in gone:
                why.append(withdrawn_explain(gone[record.edge_id]))
            if record.edge_id in past:
                why.append(passed_mentions.explain(past[record.edge_id]))
            if kind is not None and record.edge_id in placed:
                why.append(set_questions.explain_kind(kind, margins.get(i, 0.0)))
            results.append(
                ScoredFact(
                    edge_id=record.edge_id,
                    text=record.edge.text,
                    category=record.edge.primary_category,
                    state=LifecycleState(state),
                    score=round(terms["score"], 6),
                    terms={k: round(v, 6) for k, v in terms.items()},
                    why=why,
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
