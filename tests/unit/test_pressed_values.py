"""Witnesses of the query-time rule for an earlier value given a firm newer one below the
supersession threshold (workers/query/pressed_values.py; Appendix F soft supersession).

The statements are written here for the test; none comes from a paper-turns set. A person's
work is an Identity slot (accumulate semantics: a different value supersedes only at 0.95,
Appendix Z); a newer work told plainly (0.9) presses the old one softly and both stay active.
For a current question the old value and its raw turn leave the top 5 — not for a past
question, not when the newer value is only considered, implied, retracted, restated, told
after the question or forgotten, and the same whatever order the edges were delivered in.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from schemas.categories import Category, Intent, LifecycleState, UpdateSemantics
from schemas.events import EdgeEvent
from schemas.policy import Policy, load_policy
from schemas.records import FactRecord, Lifecycle, SoftPressure
from tests.unit.minilm_edges import (
    ask,
    ranking_properties,
    stored,
    told_turns,
    with_embeddings,
    with_rule,
)
from workers.embedding.minilm import MiniLMEmbedder
from workers.query import pressed_values
from workers.stores.memory_vectors import InMemoryVectorIndex

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
THEN = NOW - timedelta(days=300)
LATER = NOW - timedelta(days=30)
POLICY = load_policy()
ON = with_rule(POLICY, "pressed_values", enabled=True)
OFF = with_rule(POLICY, "pressed_values", enabled=False)
DEMOTE_TO = POLICY.latest_value.demote_to
FIRM = POLICY.supersession.replace_threshold


def _fact(edge_id: str, value: str, at: datetime, *, confidence: float = 0.9,
          update: UpdateSemantics = UpdateSemantics.REPLACE, slot: str = "user.work",
          pressed_by: tuple[str, ...] = (), state: LifecycleState = LifecycleState.ACTIVE,
          retracted_at: datetime | None = None,
          last_mentioned: datetime | None = None) -> FactRecord:  # fmt: skip
    return FactRecord(
        edge=EdgeEvent(
            edge_id=edge_id, user_id="u1", text=f"User works: {value}",
            categories=Category.IDENTITY_SELF_CONCEPT, slot_key=slot, value=value,
            confidence=confidence, update=update, ingest_time=at,
        ),
        lifecycle=Lifecycle(
            state=state, retracted_at=retracted_at, last_mentioned_at=last_mentioned or at,
            soft_pressures=tuple(SoftPressure(by=b, at=LATER, gamma=0.45) for b in pressed_by),
        ),
    )  # fmt: skip


OLD = _fact("old", "ward nurse", THEN, pressed_by=("new",))
NEW = _fact("new", "home-care business", LATER)
OLD_RAW = FactRecord(
    edge=EdgeEvent(edge_id="old#raw", user_id="u1", text="I am a ward nurse",
                   categories=Category.OTHER, ingest_time=THEN, episodic=True,
                   episodic_of=("old",)),
    lifecycle=Lifecycle(),
)  # fmt: skip


def _demoted(window: Sequence[FactRecord], found: Sequence[FactRecord], *,
             told: Sequence[FactRecord] = (),
             intent: Intent = Intent.CURRENT, as_of: datetime = NOW,
             co_retrieved: bool = False) -> set[str]:  # fmt: skip
    return set(
        pressed_values.demotions(
            intent, window, {r.edge_id: r for r in told}, {r.edge_id: r for r in found},
            as_of, FIRM, co_retrieved,
        )
    )  # fmt: skip


def test_an_earlier_value_yields_to_a_firm_newer_one_and_says_why() -> None:
    found = pressed_values.demotions(Intent.CURRENT, [OLD, NEW], {}, {"new": NEW}, NOW, FIRM)
    assert found == {"old": pressed_values.Pressed("user.work", "new")}
    assert "newer one" in pressed_values.explain(found["old"])
    assert pressed_values.pressers([OLD, NEW]) == ["new"]


def test_its_raw_turn_follows_when_every_fact_of_it_yields() -> None:
    assert _demoted([OLD_RAW, NEW], [NEW], told=[OLD]) == {"old#raw"}
    assert pressed_values.told_facts([OLD_RAW, NEW]) == ["old"]
    other = _fact("other", "night shifts", THEN, slot="user.schedule")
    both = OLD_RAW.model_copy(
        update={"edge": OLD_RAW.edge.model_copy(update={"episodic_of": ("old", "other")})}
    )
    assert _demoted([both, NEW], [NEW], told=[OLD, other]) == set()  # it says more


@pytest.mark.parametrize(
    "newer",
    [
        _fact("new", "home care", LATER, update=UpdateSemantics.SOFT, confidence=0.4),  # weighed
        _fact("new", "home care", LATER, confidence=0.7),  # implied, not stated
        _fact("new", "ward nurse", LATER),  # the same value
        _fact("new", "home care", LATER, slot="user.hobby"),  # another slot
        _fact("new", "home care", LATER, state=LifecycleState.RETRACTED, retracted_at=NOW),
    ],
    ids=["soft", "implied", "same-value", "other-slot", "retracted"],
)
def test_only_a_firm_standing_newer_value_counts(newer: FactRecord) -> None:
    assert _demoted([OLD, newer], [newer]) == set()


def test_time_decides_what_is_newer() -> None:
    restated = _fact("old", "ward nurse", THEN, pressed_by=("new",), last_mentioned=NOW)
    assert _demoted([restated, NEW], [NEW]) == set()  # said again after the change
    assert _demoted([OLD, NEW], [NEW], as_of=LATER - timedelta(days=1)) == set()  # not yet told
    assert _demoted([OLD, NEW], []) == set()  # the newer one was forgotten


def test_with_co_retrieved_the_newer_value_must_be_a_candidate_too() -> None:
    assert _demoted([OLD, NEW], [NEW], co_retrieved=True) == {"old"}
    assert _demoted([OLD], [NEW], co_retrieved=True) == set()  # an aside, not retrieved
    assert _demoted([OLD], [NEW]) == {"old"}
    new_raw = FactRecord(
        edge=EdgeEvent(edge_id="new#raw", user_id="u1", text="I run a home-care business",
                       categories=Category.OTHER, ingest_time=LATER, episodic=True,
                       episodic_of=("new",)),
        lifecycle=Lifecycle(),
    )  # fmt: skip
    assert _demoted([OLD, new_raw], [NEW], co_retrieved=True) == {"old"}  # its turn stands


@pytest.mark.parametrize("intent", [Intent.PAST, Intent.HISTORICAL, Intent.UPCOMING])
def test_history_stays_for_other_questions(intent: Intent) -> None:
    assert _demoted([OLD, NEW], [NEW], intent=intent) == set()


# ---- the query path, on MiniLM, through the lifecycle ------------------------------------

OLD_TURN = "I work as a nurse on the cardiology ward at St Mary's hospital"
NEW_TURN = "these days I run my own home-care business, visiting elderly clients"
#: Neutral chatter of the same user between the two turns.
CHATTER = [
    "what should I cook for six people on Sunday",
    "my bike chain keeps slipping on the hills",
    "recommend a board game for two players",
    "how do I get candle wax out of a rug",
    "the neighbours are renovating again",
]

#: Identity: accumulate semantics, so the newer work at 0.9 (below 0.95) is a soft update.
STREAM = told_turns([
    (OLD_TURN, [("User works as a nurse at St Mary's hospital", "user.work", "hospital nurse")]),
    *[(text, []) for text in CHATTER],
    (NEW_TURN, [("User runs a home-care business", "user.work", "home-care business")]),
], NOW, Category.IDENTITY_SELF_CONCEPT)  # fmt: skip
#: Its words match the earlier work better than the newer one: without the rule, stale.
QUESTION = "who are my patients?"


@pytest.fixture(scope="module")
def embedded(embedder: MiniLMEmbedder) -> dict[str, EdgeEvent]:
    """Edge id → the edge of `STREAM` with its MiniLM embedding."""
    return with_embeddings(embedder, STREAM)


def _ask(vectors: InMemoryVectorIndex, embedder: MiniLMEmbedder, question: str,
         policy: Policy = ON) -> list[tuple[str, list[str]]]:  # fmt: skip
    return ask(vectors, embedder, question, policy, NOW)


def _pressed(answer: list[tuple[str, list[str]]]) -> set[str]:
    return {e for e, why in answer if any(w.startswith("an earlier value of ") for w in why)}


def test_the_query_path_serves_the_newer_value_first_and_says_why(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    old = vectors.get("u1", ["s0#0"])[0]
    assert old.lifecycle.state is LifecycleState.ACTIVE  # soft: both values are kept
    assert [p.by for p in old.lifecycle.soft_pressures] == ["s6#0"]
    answer = _ask(vectors, embedder, QUESTION)
    ids = [e for e, _ in answer]
    assert _pressed(answer) == {"s0#0", "s0#raw"}
    assert min(ids.index("s0#0"), ids.index("s0#raw")) >= DEMOTE_TO
    assert ids.index("s6#0") < DEMOTE_TO
    # Without the rule, the earlier work stood in the top 5 (stale).
    off = _ask(vectors, embedder, QUESTION, OFF)
    assert _pressed(off) == set()
    assert min(i for i, (e, _) in enumerate(off) if e in {"s0#0", "s0#raw"}) < DEMOTE_TO
    assert _pressed(_ask(vectors, embedder, "who were my patients before?")) == set()


(
    test_the_ranking_does_not_depend_on_delivery_order,
    test_forgetting_an_edge_ends_where_never_telling_it_does,
) = ranking_properties(STREAM, QUESTION, ON, NOW)
