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
from scorer.rank import rank
from scorer.score import QueryContext
from scorer.tables import PolicyTables
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
    for i, record in enumerate(records):
        state, terms, edge = scores.state_name(i), scores.terms(i), record.edge
        grouped[edge.primary_category.value][state].append(
            InspectedFact(
                edge_id=record.edge_id,
                text=edge.text,
                category=edge.primary_category,
                state=state,
                activation=round(terms["activation"], 4),
                why=reasons(record, state, terms, as_of, policy),
                lifecycle=record.lifecycle,
                event_time=edge.event_time,
                ingest_time=edge.ingest_time,
            )
        )
    ordered = {
        c.value: dict(sorted(grouped[c.value].items()))
        for c in CATEGORY_ORDER
        if c.value in grouped
    }
    return Inspection(user_id=user_id, as_of=as_of, facts=len(records), categories=ordered)


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
