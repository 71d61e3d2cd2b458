"""Witnesses of a withdrawal said without a listed cancelling verb: an asserted dismissal of a
named topic (workers/extraction/dismissal.py, read by workers/query/withdrawn.py; paper §3.3,
A.9, AV7 — pass by absence, C.5).

Every sentence is written here for the test; none comes from a paper-turns set. The families
are grammatical (a negated pro-verb, a topic and a bare negative or a verdict, a dismissive
imperative, the verb of withdrawing); a question, hedge, condition, denial, somebody else's
word or plan is no dismissal; the target must share a word with the dismissal's turn; the
plan leaves the served answer where the probe alone left it in; order-independence holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent
from schemas.policy import WithdrawnPolicy, load_policy
from schemas.query import QueryRequest
from schemas.records import FactRecord
from tests.unit.minilm_edges import (
    embedded_stream,
    moved_by,
    ranking_properties,
    stored,
    told_turns,
    with_rule,
)
from tests.unit.nearest_memory import told as _candidate
from tests.unit.nearest_memory import unit as _unit
from workers.embedding.minilm import MiniLMEmbedder
from workers.extraction.dismissal import dismissals, topic_words
from workers.ports import Hit
from workers.query import withdrawn
from workers.query.candidates import MergedCandidate
from workers.query.service import QueryService
from workers.stores.memory_vectors import InMemoryVectorIndex

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
THEN = NOW - timedelta(days=200)
LATER = NOW - timedelta(days=20)
POLICY = load_policy()
ON = with_rule(POLICY, "withdrawn", enabled=True, dismissals=True)
PROBE_ONLY = with_rule(POLICY, "withdrawn", enabled=True, dismissals=False)

DISMISSALS = [
    ("negated pro-verb", "the roof needs fixing first, so we're not doing it"),
    ("negated pro-verb", "Honestly? It's not happening."),
    ("negated pro-verb", "we aren't going ahead with it, the quotes were mad"),
    ("topic and a bare negative", "The treehouse: no. Too much money."),
    ("topic and a bare negative", "ok the treehouse, nope"),
    ("topic and a bare negative", "the pottery course is a no"),
    ("topic and a verdict", "treehouse = off. oak is rotten"),
    ("topic and a verdict", "pottery course -> cancelled"),
    ("dismissive imperative", "Forget the treehouse. The oak is rotten."),
    ("dismissive imperative", "the oak is rotten so just drop it"),
    ("dismissive imperative", "We leave it. It was a nice dream."),
    ("withdrawing verb", "I withdrew my application to the Lisbon programme"),
    ("withdrawing verb", "we pulled the planning application for the extension"),
    ("cancelling verb under way", "Weighed it all again. Dropping it for good."),
    ("cancelling verb under way", "the quotes were mad, so I'm scrapping it"),
    ("cancelling verb under way", "we're shelving that altogether"),
    ("declared verdict", "The treehouse question may be treated as withdrawn. The oak is rotten."),
    ("declared verdict", "Please consider the pottery course cancelled."),
    ("declared verdict", "consider it dead, the quotes were mad"),
]


@pytest.mark.parametrize(("family", "text"), DISMISSALS)
def test_a_dismissal_family_is_read(family: str, text: str) -> None:
    found = dismissals(text)
    assert found and found[0].family == family


NOT_DISMISSALS = [
    "should we just drop it?",  # a question
    "maybe we're not doing it this year",  # a hedge
    "if the quote is too high we're not doing it",  # a condition
    "we haven't dropped the treehouse, not doing it differently either",  # a denial
    "my wife says we're not doing it",  # somebody else's word
    "his treehouse idea = off",  # somebody else's plan
    "I wish we could forget the treehouse",  # a wish
    "Oh, no. I burnt the toast.",  # no topic: a particle
    "I'm not doing it right, the dough keeps tearing",  # no dismissal: it goes on
    "leave it in the oven for ten more minutes",  # a pro-form that goes on
    "the kids went to the treehouse after school",  # nothing dismissed
    "don't forget the treehouse timber order",  # a denied imperative
    "it's easy to get busy and forget it",  # a verb after "and", no imperative (LoCoMo dev)
    "tickets for the bake-off at the fair are on sale",  # a hyphen inside a word (LoCoMo dev)
    "Dropping it off at the post office.",  # a particle after the pro-form: no plan dropped
    "dropping the kids at school, then the gym",  # a noun object, not a pro-form
    "Should I be dropping it?",  # a question
    "maybe dropping it, maybe not",  # a hedge
    "the upside of dropping it: free Saturdays",  # weighed, not done
    "If it rains, the match may be treated as abandoned.",  # a condition before it
    "Maybe the trip can be considered off?",  # a question
    "the shop may be closed on Sunday",  # a modal of possibility, no declared reading
    "my lawyer says it may be treated as withdrawn",  # somebody else's word
    "Consider the sauce as dead simple",  # an adjective, not a verdict
    "consider it done",  # a completion, no cancellation
]


@pytest.mark.parametrize("text", NOT_DISMISSALS)
def test_no_dismissal_where_it_is_weighed_denied_anothers_or_absent(text: str) -> None:
    assert dismissals(text) == []


def test_a_reason_after_the_dismissal_does_not_veto_it() -> None:
    # "want to" hedges a change in its own clause; after the dismissal it is a reason.
    assert dismissals("the treehouse is a no. I don't want to cut the oak")
    assert topic_words("Forget the treehouse idea.") == frozenset({"forget", "treehous"})


# The rule over stand-in vectors: the probe (4th coordinate) reads nothing in the dismissal.
def _given_up(*window: MergedCandidate, rule: WithdrawnPolicy) -> dict[str, withdrawn.Withdrawn]:
    def nearest(vector: np.ndarray, before: datetime) -> list[Hit]:
        hits = [
            Hit(m.record, float(np.dot(vector, m.vector)), m.vector)
            for m in window
            if m.vector is not None and m.record.edge.ingest_time < before
        ]
        return sorted(hits, key=lambda h: -h.score)[: rule.targets]

    def records(ids: Sequence[str]) -> list[FactRecord]:
        return []

    return withdrawn.withdrawn(
        Intent.CURRENT, window, NOW, rule, lambda v: 0.99 if float(v[3]) > 0.5 else 0.01,
        records, nearest, lambda v: [],
    )  # fmt: skip


PLAN = _candidate("plan", THEN, _unit(1.0), "we're building a treehouse in the oak")
OTHER = _candidate("other", THEN, _unit(0.9, 0.436), "the oak needs a tree surgeon")
DISMISSAL = _candidate("off", LATER, _unit(0.6, 0.8), "the treehouse is a no")


def test_an_asserted_dismissal_gives_up_the_plan_it_names() -> None:
    found = _given_up(PLAN, DISMISSAL, rule=ON.withdrawn)
    assert set(found) == {"plan"} and found["plan"].family == "topic and a bare negative"
    assert "a dismissal: topic and a bare negative" in withdrawn.explain(found["plan"])
    # Without the dismissal reading the probe alone reads nothing here (the witness).
    assert _given_up(PLAN, DISMISSAL, rule=PROBE_ONLY.withdrawn) == {}


def test_a_dismissal_gives_up_only_a_statement_sharing_a_word_with_it() -> None:
    # "the oak" statement is nearer the dismissal, but names no word of it: the plan is meant.
    nearer = _candidate("other", THEN, _unit(0.5, 0.866), "the oak needs a tree surgeon")
    assert set(_given_up(PLAN, nearer, DISMISSAL, rule=ON.withdrawn)) == {"plan"}
    # A dismissal naming nothing earlier gives nothing up.
    bare = _candidate("off", LATER, _unit(0.6, 0.8), "we're not doing it, the kids lost interest")
    assert _given_up(PLAN, OTHER, bare, rule=ON.withdrawn) == {}


# The query path on the real model: the plan as a raw turn, weeks later a dismissal of it that
# the withdrawal probe reads below its threshold and from which the ingest drew no retraction.
PLAN_TURN = (
    "we're building a treehouse for the kids in the big oak this summer, I've ordered the timber"
)
DISMISSAL_TURN = "the treehouse is a no. the tree surgeon says the oak won't hold it"
CHATTER = [
    "can you suggest a quick pasta sauce", "the bus was late again this morning",
    "what's a good stretch for a stiff neck", "my sister visits next month",
    "how long do I boil an egg", "the printer at work jammed twice today",
    "remind me what a good tip is in Portugal", "my phone screen cracked on the stairs",
    "which wine goes with grilled fish", "the neighbours' dog barked all night",
]  # fmt: skip
STREAM = told_turns([
    (PLAN_TURN, []), *[(t, []) for t in CHATTER[:5]],
    (DISMISSAL_TURN, []), *[(t, []) for t in CHATTER[5:]],
], NOW, Category.OTHER)  # fmt: skip
QUESTION = "are we building a treehouse this summer?"

embedded = embedded_stream(STREAM)


def _ask(vectors: InMemoryVectorIndex, embedder: MiniLMEmbedder, policy: object,
         k: int = 10) -> list[tuple[str, list[str]]]:  # fmt: skip
    service = QueryService(vectors, embedder, policy, clock=lambda: NOW)  # type: ignore[arg-type]
    result = service.query(QueryRequest(user_id="u1", query=QUESTION, as_of=NOW, k=k))
    return [(r.edge_id, r.why) for r in result.results]


def test_the_query_path_serves_a_dismissed_plan_no_more(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    # The probe alone leaves the plan first (AV7 fails: stale) …
    assert [e for e, _ in _ask(vectors, embedder, PROBE_ONLY)].index("s0#raw") < 5
    # … the dismissal gives it up, and says why.
    on = _ask(vectors, embedder, ON)
    assert "s0#raw" not in [e for e, _ in on] and "s6#raw" in [e for e, _ in on]
    every = _ask(vectors, embedder, ON, k=50)
    assert moved_by(every, "withdrawn: a later turn gives it up") == {"s0#raw"}
    assert any("a dismissal: topic and a bare negative" in w for w in every[-1][1])


(
    test_the_ranking_does_not_depend_on_delivery_order,
    test_forgetting_an_edge_ends_where_never_telling_it_does,
) = ranking_properties(STREAM, QUESTION, ON, NOW)
