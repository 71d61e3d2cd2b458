"""A user's memory as of a time: every fact's state, activation and reasons (paper B.4).

The scorer ranks every stored fact at σ = 1 (no query), so that the state is the one a query
at `as_of` would see (bi-temporal: superseded since then counts as active then) and the
activation is the lifecycle's alone. `frecall inspect` prints it; the inspector (issue 15)
shows it per user.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime

from schemas.categories import CATEGORY_ORDER, LifecycleState
from schemas.policy import Policy
from schemas.records import FactRecord
from schemas.results import InspectedFact, Inspection, UserSummary
from scorer.context import TERM_NAMES
from scorer.rank import rank
from scorer.scalar import ScalarScores
from scorer.score import QueryContext, Scores
from scorer.tables import STATES, PolicyTables
from workers.query.candidates import hours, to_candidate
from workers.query.explain import reasons


def inspect_facts(
    user_id: str, facts: Iterable[FactRecord], as_of: datetime, policy: Policy
) -> Inspection:
    """Group `facts` (one user's) by category, then state as of `as_of`, in ingest order."""
    records = sorted(facts, key=lambda r: (r.edge.ingest_time, r.edge_id))
    candidates = [to_candidate(r, 1.0, policy) for r in records]
    _, scores = rank(
        candidates, QueryContext(as_of_h=hours(as_of)), PolicyTables.compile(policy), k=0
    )
    grouped: dict[str, dict[str, list[InspectedFact]]] = defaultdict(lambda: defaultdict(list))
    for record, state, terms in zip(records, *_states_and_terms(scores), strict=True):
        edge = record.edge
        # Built without validating again: every field comes from a validated record or the
        # scorer (for 10,000 facts validation cost as much as all of the scoring).
        grouped[edge.primary_category.value][state].append(
            InspectedFact.model_construct(
                edge_id=record.edge_id,
                text=edge.text,
                category=edge.primary_category,
                state=state,
                activation=round(terms["activation"], 4),
                why=reasons(record, state, terms, as_of, policy),
                lifecycle=record.lifecycle,
                event_time=edge.event_time,
                ingest_time=edge.ingest_time,
                categories=edge.categories,
                emotional_loading=edge.emotional_loading,
            )
        )
    ordered = {
        c.value: dict(sorted(grouped[c.value].items()))
        for c in CATEGORY_ORDER
        if c.value in grouped
    }
    return Inspection(user_id=user_id, as_of=as_of, facts=len(records), categories=ordered)


def _states_and_terms(scores: Scores | ScalarScores) -> tuple[list[str], list[dict[str, float]]]:
    """Every candidate's state name and terms; the columns of a vectorized pool are read
    once (per-candidate indexing of 13 arrays cost more than the scoring for 10,000 facts)."""
    if isinstance(scores, ScalarScores):
        n = len(scores.rows)
        return [scores.state_name(i) for i in range(n)], [scores.terms(i) for i in range(n)]
    names = [STATES[code].value for code in scores.state.tolist()]
    columns = [getattr(scores, name).tolist() for name in TERM_NAMES]
    return names, [dict(zip(TERM_NAMES, row, strict=True)) for row in zip(*columns, strict=True)]


def summarize(user_id: str, facts: Iterable[FactRecord]) -> UserSummary:
    """A user's stored facts counted by primary category and by stored lifecycle state."""
    by_category: Counter[str] = Counter()
    by_state: Counter[LifecycleState] = Counter()
    for record in facts:
        by_category[record.edge.primary_category.value] += 1
        by_state[record.lifecycle.state] += 1
    return UserSummary(
        user_id=user_id,
        facts=sum(by_category.values()),
        by_category=dict(sorted(by_category.items())),
        by_state=dict(sorted(by_state.items())),
    )
