"""Witnesses of the query-time rule for undated candidates whose own words date them in the
past (workers/query/passed_mentions.py; A.7.4: an event whose time has passed is not
upcoming).

The statements are written here for the test; none comes from a paper-turns set. A turn
told in early spring names a day that spring ("the plumber comes on March 3") and yields no
dated fact, so nothing marks it as past; fourteen months later "is anything coming up?"
must not serve it before what lies ahead — and a turn that names no date stays where it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, settings

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent
from schemas.policy import Policy, load_policy
from schemas.query import QueryRequest
from schemas.records import FactRecord, Lifecycle
from tests.unit.lifecycle_properties import given_deliveries
from tests.unit.minilm_edges import with_embeddings, with_rule
from workers.embedding.minilm import MiniLMEmbedder
from workers.extraction.stage import raw_edge_id_of
from workers.lifecycle.service import LifecycleService
from workers.query import passed_mentions
from workers.query.service import QueryService
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
TOLD = datetime(2025, 2, 10, 9, tzinfo=UTC)
POLICY = load_policy()
ON = with_rule(POLICY, "passed_mentions", enabled=True)
OFF = with_rule(POLICY, "passed_mentions", enabled=False)
BUFFER = POLICY.expiry_buffer_hours
DEMOTE_TO = POLICY.latest_value.demote_to


def _record(edge_id: str, text: str, told: datetime = TOLD,
            event: datetime | None = None) -> FactRecord:  # fmt: skip
    return FactRecord(
        edge=EdgeEvent(edge_id=edge_id, user_id="u1", text=text, categories=Category.OTHER,
                       ingest_time=told, event_time=event),
        lifecycle=Lifecycle(),
    )  # fmt: skip


PLUMBER = _record("p#raw", "the plumber comes on March 3 to look at the boiler, I need to be home")
UNDATED = _record("u#raw", "I keep forgetting to water the balcony plants")


def test_a_date_its_words_name_in_the_past_is_not_upcoming() -> None:
    found = passed_mentions.passed(Intent.UPCOMING, [UNDATED, PLUMBER], NOW, BUFFER)
    assert set(found) == {"p#raw"}
    assert found["p#raw"].when.date().isoformat() == "2025-03-03"
    assert "2025-03-03" in passed_mentions.explain(found["p#raw"])


def test_a_date_still_ahead_or_within_the_buffer_is_kept() -> None:
    soon = _record("s#raw", "the plumber comes on May 6 to look at the boiler", told=NOW)
    just_past = _record("j#raw", "the plumber came on April 28", told=NOW - timedelta(days=5))
    assert passed_mentions.passed(Intent.UPCOMING, [soon, just_past], NOW, BUFFER) == {}


def test_dated_facts_are_left_to_the_event_time_kernel() -> None:
    dated = _record("d#0", "the plumber comes on March 3", event=datetime(2025, 3, 3, tzinfo=UTC))
    assert passed_mentions.passed(Intent.UPCOMING, [dated], NOW, BUFFER) == {}


@pytest.mark.parametrize("intent", [Intent.CURRENT, Intent.PAST, Intent.HISTORICAL])
def test_only_upcoming_questions_judge_words(intent: Intent) -> None:
    assert passed_mentions.passed(intent, [PLUMBER], NOW, BUFFER) == {}


def _turn(edge_id: str, text: str, drawn: tuple[str, ...]) -> FactRecord:
    return FactRecord(
        edge=EdgeEvent(edge_id=edge_id, user_id="u1", text=text, categories=Category.OTHER,
                       ingest_time=TOLD, episodic=True, episodic_of=drawn),
        lifecycle=Lifecycle(),
    )  # fmt: skip


#: The extractor kept the booking and dropped the date its turn names (told_with).
BOOKED = _record("s9/t1#0", "User booked the plumber")
BOOKED_TURN = _turn(
    "s9/t1#raw", "booked the plumber, he comes on March 3 to fix the boiler", ("s9/t1#0",)
)


def test_a_fact_follows_the_raw_turn_whose_words_date_it_in_the_past() -> None:
    found = passed_mentions.told_in_passed(
        Intent.UPCOMING, [BOOKED], {"s9/t1#raw": BOOKED_TURN}, NOW, BUFFER
    )
    assert set(found) == {"s9/t1#0"}
    assert found["s9/t1#0"].in_its_turn
    assert "the turn it was drawn from" in passed_mentions.explain(found["s9/t1#0"])
    # Its own words name no date: without its turn nothing dates it.
    assert passed_mentions.passed(Intent.UPCOMING, [BOOKED], NOW, BUFFER) == {}


def test_a_fact_keeps_its_place_when_its_turn_is_undated_or_it_has_its_own_time() -> None:
    undated = _turn("s9/t1#raw", "booked the plumber, no idea when he comes", ("s9/t1#0",))
    assert passed_mentions.told_in_passed(
        Intent.UPCOMING, [BOOKED], {"s9/t1#raw": undated}, NOW, BUFFER
    ) == {}  # fmt: skip
    dated = _record("s9/t1#0", "User booked the plumber", event=datetime(2026, 5, 9, tzinfo=UTC))
    assert passed_mentions.told_in_passed(
        Intent.UPCOMING, [dated], {"s9/t1#raw": BOOKED_TURN}, NOW, BUFFER
    ) == {}  # fmt: skip
    # A turn that did not yield the fact (its episodic_of) says nothing of it.
    other = _turn("s9/t1#raw", BOOKED_TURN.edge.text, ("s9/t1#1",))
    assert passed_mentions.told_in_passed(
        Intent.UPCOMING, [BOOKED], {"s9/t1#raw": other}, NOW, BUFFER
    ) == {}  # fmt: skip
    assert passed_mentions.told_in_passed(
        Intent.CURRENT, [BOOKED], {"s9/t1#raw": BOOKED_TURN}, NOW, BUFFER
    ) == {}  # fmt: skip


def test_the_raw_turn_of_a_fact_is_named_by_the_stage_convention() -> None:
    assert raw_edge_id_of("s9/t1#0") == "s9/t1#raw"
    assert raw_edge_id_of("s9/t1#12") == "s9/t1#raw"
    assert raw_edge_id_of("s9/t1#raw") is None
    assert raw_edge_id_of("s9/t1#raw.2") is None
    assert raw_edge_id_of("gold-fact") is None


# ---- the query path, on MiniLM ---------------------------------------------------------

#: (edge id, text, told, event time): the plumber's visit last year (undated raw turn, as
#: the offline extractor stores a turn without facts), a dentist visit ahead (dated), chat.
STREAM = [
    ("s0#raw", PLUMBER.edge.text, TOLD, None),
    ("s1#raw", "my neighbour's dog barked all night again", TOLD + timedelta(days=30), None),
    ("s2#raw", "recommend a novel for a rainy weekend", TOLD + timedelta(days=90), None),
    ("s3#raw", "that bread recipe came out dense, what went wrong", NOW - timedelta(days=60), None),
    ("s4#0", "User has a dentist appointment on May 12", NOW - timedelta(days=3),
     datetime(2026, 5, 12, 9, tzinfo=UTC)),
]  # fmt: skip
QUESTION = "do I have any appointments or visits coming up?"


EDGES = [
    EdgeEvent(
        edge_id=edge_id, user_id="u1", text=text, ingest_time=told, event_time=event,
        categories=Category.OBLIGATIONS if event else Category.OTHER,
        source_turns=(edge_id.split("#")[0],),
    )
    for edge_id, text, told, event in STREAM
]  # fmt: skip


@pytest.fixture(scope="module")
def embedded(embedder: MiniLMEmbedder) -> dict[str, EdgeEvent]:
    """Edge id → the edge of `EDGES` with its MiniLM embedding."""
    return with_embeddings(embedder, EDGES)


def _store(embedded: dict[str, EdgeEvent], order: Sequence[EdgeEvent]) -> InMemoryVectorIndex:
    index = InMemoryVectorIndex()
    service = LifecycleService(InMemorySlotIndex(), index, POLICY)
    for edge in order:
        service.apply(embedded[edge.edge_id])
    return index


@pytest.fixture(scope="module")
def vectors(embedded: dict[str, EdgeEvent]) -> InMemoryVectorIndex:
    return _store(embedded, EDGES)


def _ask(vectors: InMemoryVectorIndex, embedder: MiniLMEmbedder, question: str,
         policy: Policy) -> list[tuple[str, list[str]]]:  # fmt: skip
    service = QueryService(vectors, embedder, policy, clock=lambda: NOW)
    result = service.query(QueryRequest(user_id="u1", query=question, as_of=NOW))
    return [(r.edge_id, r.why) for r in result.results]


def test_the_query_path_serves_what_lies_ahead_first_and_says_why(
    vectors: InMemoryVectorIndex, embedder: MiniLMEmbedder
) -> None:
    answer = _ask(vectors, embedder, QUESTION, ON)
    ids = [e for e, _ in answer]
    assert ids[0] == "s4#0"
    assert ids.index("s0#raw") >= min(DEMOTE_TO, len(ids) - 1)
    why = dict(answer)["s0#raw"]
    assert any("not upcoming" in w for w in why)
    # Without the rule the visit of last year stood second, before every chat turn.
    off = [e for e, _ in _ask(vectors, embedder, QUESTION, OFF)]
    assert off.index("s0#raw") == 1
    # A current question is not judged by the rule.
    current = _ask(vectors, embedder, "what is the boiler problem at my place?", ON)
    assert not any("not upcoming" in w for _, why in current for w in why)


@settings(
    deadline=None, max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given_deliveries(EDGES, max_repeats=2)
def test_the_ranking_does_not_depend_on_delivery_order(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent], vectors: InMemoryVectorIndex,
    order: list[EdgeEvent], repeats: list[EdgeEvent],
) -> None:  # fmt: skip
    replayed = _store(embedded, [*order, *repeats])
    assert _ask(replayed, embedder, QUESTION, ON) == _ask(vectors, embedder, QUESTION, ON)


# ---- round 17: masked as expiry masks, and a fact of a turn the kernel expired ----------

MASKED = with_rule(POLICY, "passed_mentions", enabled=True, masked=True)
DEMOTED = with_rule(POLICY, "passed_mentions", enabled=True, masked=False)


#: More chat than the window holds, so that "from 6th on" is still served and "masked" is not.
CHAT = [
    EdgeEvent(edge_id=f"c{i}#raw", user_id="u1", text=text, categories=Category.OTHER,
              ingest_time=NOW - timedelta(days=40 + i), source_turns=(f"c{i}",))
    for i, text in enumerate((
        "what should I cook for a dinner party of six", "my sister is visiting in summer",
        "the cat knocked a plant off the shelf", "any tips for a stiff neck after cycling",
        "I finished the crossword in record time", "which podcast about history is good",
        "the garden needs weeding badly", "help me write a birthday card for my dad",
    ))
]  # fmt: skip


def test_masked_a_passed_mention_leaves_the_served_answers(
    embedded: dict[str, EdgeEvent], embedder: MiniLMEmbedder
) -> None:
    """The upcoming M_q admits active facts only (§3): with `masked`, the visit of last year
    leaves the top k as an expired event does, instead of standing 6th (fails without)."""
    store = _store({**embedded, **with_embeddings(embedder, CHAT)}, [*EDGES, *CHAT])
    demoted = [e for e, _ in _ask(store, embedder, QUESTION, DEMOTED)]
    assert demoted.index("s0#raw") == DEMOTE_TO  # served 6th
    masked = [e for e, _ in _ask(store, embedder, QUESTION, MASKED)]
    assert masked[0] == "s4#0"
    assert "s0#raw" not in masked
    # A current question is not judged by the rule, masked or not.
    current = _ask(store, embedder, "what is the boiler problem at my place?", MASKED)
    assert "s0#raw" in [e for e, _ in current][:3]


def test_a_fact_follows_a_turn_the_kernel_expired() -> None:
    """A raw turn with its own event time past by the buffer (expired by the kernel): an
    undated fact drawn from it is that event, past as well (fails without: only a turn whose
    words name the date was followed)."""
    expired = FactRecord(
        edge=EdgeEvent(edge_id="s9/t1#raw", user_id="u1", text="booked the plumber",
                       categories=Category.OBLIGATIONS, ingest_time=TOLD, episodic=True,
                       episodic_of=("s9/t1#0",), event_time=TOLD + timedelta(days=20)),
        lifecycle=Lifecycle(),
    )  # fmt: skip
    found = passed_mentions.told_in_passed(
        Intent.UPCOMING, [BOOKED], {"s9/t1#raw": expired}, NOW, BUFFER
    )
    assert set(found) == {"s9/t1#0"}
    # Within the buffer it is still the kernel's to judge: not past here.
    recent = expired.model_copy(
        update={"edge": expired.edge.model_copy(update={"event_time": NOW - timedelta(days=2)})}
    )
    assert passed_mentions.told_in_passed(
        Intent.UPCOMING, [BOOKED], {"s9/t1#raw": recent}, NOW, BUFFER
    ) == {}  # fmt: skip
