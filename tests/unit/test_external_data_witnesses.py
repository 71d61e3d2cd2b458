"""Witnesses of the mechanisms found on data nobody here wrote (issue 10, LoCoMo dev and the
paper cases): each test fails without its mechanism. Phrasings are ours, written for these
tests, not taken from any benchmark."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from schemas.categories import CATEGORY_ORDER, Category, LifecycleState
from schemas.events import EdgeEvent, Embedding
from schemas.policy import Policy, load_policy
from schemas.query import QueryRequest
from schemas.records import FactRecord, Lifecycle
from tests.unit.edge_helpers import axis, edge, near
from workers.embedding.hashing import HashingEmbedder
from workers.lifecycle.compaction import archivable_from
from workers.lifecycle.rules import resolve_slot
from workers.lifecycle.service import LifecycleService
from workers.query import tiers
from workers.query.candidates import to_candidate
from workers.query.explain import reasons
from workers.query.lexical import user_query_terms
from workers.query.routing import CategoryRouter
from workers.query.service import QueryService
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

POLICY = load_policy()
C = Category
S = LifecycleState
T0 = datetime(2026, 1, 1, tzinfo=UTC)
EMBEDDER = HashingEmbedder(dim=64)


# --- An expired event is history: a later edge of its slot is another instance -------------


def _won(edge_id: str, day: float) -> EdgeEvent:
    return edge(
        edge_id,
        day=day,
        event_day=day - 2,
        slot="event.tournament",
        category=C.LOGISTICAL_CONTEXT,
        value=edge_id,
    )


def test_an_expired_event_is_not_superseded_by_the_next_one() -> None:
    """Appendix Z's slot keys are instance-qualified: "won the first tournament" (expired
    weeks before) is not replaced by "won the fourth"; it keeps its own expiry."""
    result = resolve_slot([_won("t1", 0), _won("t4", 60)], [], POLICY)
    states = {k: v.state for k, v in result.items()}
    assert states == {"t1": S.ACTIVE, "t4": S.ACTIVE}


def test_an_event_rescheduled_before_it_expires_is_superseded() -> None:
    """A reschedule said before the event passed (plus the buffer) still replaces it."""
    flight = edge("f1", day=0, event_day=10, slot="trip.flight", category=C.LOGISTICAL_CONTEXT)
    moved = edge("f2", day=5, event_day=12, slot="trip.flight", category=C.LOGISTICAL_CONTEXT)
    states = {k: v.state for k, v in resolve_slot([flight, moved], [], POLICY).items()}
    assert states == {"f1": S.SUPERSEDED, "f2": S.ACTIVE}


# --- A raw turn without a plan is scored as unclassified text (OTHER) -----------------------


def _raw_record(categories: dict[str, float]) -> FactRecord:
    raw = edge("turn#raw", day=0, slot=None, category=categories).model_copy(
        update={"episodic": True}
    )
    return FactRecord(edge=raw, lifecycle=Lifecycle(state=S.ACTIVE, last_mentioned_at=T0))


def _weights(policy: Policy) -> dict[Category, float]:
    cand = to_candidate(_raw_record({"LOGISTICAL_CONTEXT": 1.0}), 0.8, policy)
    return {c: w for c, w in zip(CATEGORY_ORDER, cand.weights, strict=True) if w}


def test_a_raw_turn_without_a_plan_decays_as_other() -> None:
    """A chatty turn that mentions one trip keeps OTHER's floor (0.95·σ), not Logistical's
    0: the trip itself is its extracted fact's, with Logistical's dynamics."""
    assert _weights(POLICY) == {C.OTHER: 1.0}
    own = POLICY.model_copy(update={"raw_turn_dynamics": "facts"})
    assert _weights(own) == {C.LOGISTICAL_CONTEXT: 1.0}
    record = _raw_record({"LOGISTICAL_CONTEXT": 1.0})
    terms = {"decay": 0.0, "validity": 1.0, "blend": 0.5, "floor": 0.76, "numeric_rescue": 0.0}
    terms |= {"rho": 1.0, "omega": 1.0, "mask": 1.0, "direction": 1.0}
    why = reasons(record, "active", terms, T0 + timedelta(days=60), POLICY)
    assert any("OTHER (raw turn) half-life" in line for line in why)


def test_an_anchored_raw_turn_keeps_its_facts_dynamics() -> None:
    record = _raw_record({"LOGISTICAL_CONTEXT": 1.0})
    anchored = record.model_copy(
        update={"edge": record.edge.model_copy(update={"event_time": T0 + timedelta(days=1)})}
    )
    cand = to_candidate(anchored, 0.8, POLICY)
    assert cand.weights[CATEGORY_ORDER.index(C.LOGISTICAL_CONTEXT)] == 1.0


# --- A raw turn that tells of a past event is a record, not a plan that expires -----------

TOLD_QUESTION = "What brings him together with people from everywhere?"


class _OnAxis(HashingEmbedder):
    """The hashing embedder, with one question on axis 0 (facts carry their own vectors)."""

    def __init__(self, question: str) -> None:
        super().__init__(dim=64)
        self._question = question

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = super().embed(texts)
        for i, text in enumerate(texts):
            if text == self._question:
                out[i] = axis(0, out.shape[1])
        return out


def _told_turn(category: Category, event_day: float) -> EdgeEvent:
    """A raw turn said on day 0 whose extracted fact was anchored at `event_day`."""
    return edge(
        "turn#raw",
        day=0,
        event_day=event_day,
        slot=None,
        category=category,
        user="tim",
        text="Went to a fantasy-book convention abroad and met readers from all over.",
        vector=near(axis(0, 64), 0.8, 1),
    ).model_copy(update={"episodic": True})


def _told_served(turn: EdgeEvent, policy: Policy = POLICY) -> list[str]:
    """What a present-tense question 90 days later is served."""
    vectors = InMemoryVectorIndex()
    LifecycleService(InMemorySlotIndex(), vectors, policy).apply(turn)
    service = QueryService(vectors, _OnAxis(TOLD_QUESTION), policy, _Router(C.HOBBIES_RECREATION))
    request = QueryRequest(user_id="tim", query=TOLD_QUESTION, as_of=T0 + timedelta(days=90))
    return [r.edge_id for r in service.query(request).results]


def test_a_raw_turn_told_after_its_event_does_not_expire() -> None:
    """`told_after_is_history` (Obligations, Logistics): "last week I went to a convention"
    was never pending; months later the turn is still what happened (LoCoMo dev: four
    questions whose evidence such a turn is). Without the flag it expires and is masked."""
    went = _told_turn(C.OBLIGATIONS, event_day=-7)
    assert _told_served(went) == ["turn#raw"]
    cats = {
        c: p.model_copy(update={"told_after_is_history": False})
        for c, p in POLICY.categories.items()
    }
    assert _told_served(went, POLICY.model_copy(update={"categories": cats})) == []


def test_a_raw_turn_announcing_a_plan_still_expires() -> None:
    """A plan ("going to a convention next week") is pending when said: it expires after
    its event and the buffer (§3.3, App. K), and so does the turn that announced it."""
    assert _told_served(_told_turn(C.OBLIGATIONS, event_day=7)) == []
    # Said the same day (a date-only "today" resolves to midnight): still a plan.
    assert _told_served(_told_turn(C.LOGISTICAL_CONTEXT, event_day=-0.5)) == []


def test_an_onset_told_after_it_began_still_expires() -> None:
    """Health's anchors are onsets ("down with the flu since yesterday"): an acute condition
    expires after its buffer however it was told (Table 1: "Flu resolves")."""
    assert _told_served(_told_turn(C.HEALTH_WELLBEING, event_day=-1)) == []


def test_compaction_keeps_a_raw_turn_told_after_its_event() -> None:
    """Compaction agrees with the ranking: the turn that told of a past event is not archived
    as expired; the one that announced a plan is, after its retention."""
    went = FactRecord(edge=_told_turn(C.OBLIGATIONS, event_day=-7), lifecycle=Lifecycle())
    plan = FactRecord(edge=_told_turn(C.OBLIGATIONS, event_day=7), lifecycle=Lifecycle())
    assert archivable_from(went, POLICY) is None
    assert archivable_from(plan, POLICY) is not None


# --- Abstract questions: the routed category is the evidence --------------------------------

JONAS = [
    ("f1", "What are Jonas's odds: Jonas fixed the kitchen sink.", C.OTHER),
    ("f2", "What are Jonas's plans: Jonas renewed the library card.", C.OTHER),
    ("f3", "What are the odds: Jonas finds the weather grey.", C.OTHER),
    ("f4", "What are the bills: Jonas paid the parking ticket.", C.FINANCIAL_MATERIAL),
    ("paint", "Jonas paints watercolors on Sundays.", C.HOBBIES_RECREATION),
]


class _Router(CategoryRouter):
    """Routes every question to one category (the MiniLM router is tested apart)."""

    def __init__(self, category: Category) -> None:
        super().__init__(EMBEDDER)
        self._probs = np.array([1.0 if c is category else 0.0 for c in CATEGORY_ORDER])

    def route(self, query: str, query_vector: np.ndarray) -> np.ndarray:
        return self._probs


def _jonas() -> InMemoryVectorIndex:
    vectors = InMemoryVectorIndex()
    service = LifecycleService(InMemorySlotIndex(), vectors, POLICY)
    for i, (edge_id, text, category) in enumerate(JONAS):
        vector = EMBEDDER.embed([text])[0]
        service.apply(
            EdgeEvent(
                edge_id=edge_id,
                user_id="jonas",
                text=text,
                categories=category,
                ingest_time=T0 + timedelta(days=i),
                embedding=Embedding.from_array(EMBEDDER.model_id, vector),
            )
        )
    return vectors


def test_distinctive_words_are_judged_without_the_possessive() -> None:
    """ "Jonas's" is in two of five facts, Jonas in all: the question names only Jonas."""
    vectors = _jonas()
    assert not user_query_terms(vectors, "jonas", "What are Jonas's hobbies?").distinctive
    assert user_query_terms(vectors, "jonas", "Does Jonas paint?").distinctive


def _first(policy: Policy, question: str) -> str:
    service = QueryService(_jonas(), EMBEDDER, policy, _Router(C.HOBBIES_RECREATION))
    request = QueryRequest(user_id="jonas", query=question, as_of=T0 + timedelta(days=30))
    return service.query(request).results[0].edge_id


def test_an_abstract_question_is_answered_from_its_routed_category() -> None:
    """§3.3: category-forced retrieval bridges an abstract question and specific facts —
    with no distinctive word, the routed candidates lead; without the rule, facts that
    merely repeat the question's function words and the name do."""
    assert _first(POLICY, "What are Jonas's hobbies?") == "paint"
    off = POLICY.model_copy(update={"abstract_routed_tier": False})
    assert _first(off, "What are Jonas's hobbies?") != "paint"


# --- Abstract questions about a former value: the intent is evidence too --------------------

MILA = [
    ("bakery", "Mila bakes bread at the Sunrise Bakery.", C.PROJECTS_ENDEAVORS, 0),
    (
        "paint",
        "Mila paints watercolors of the harbour on quiet Sunday mornings.",
        C.HOBBIES_RECREATION,
        1,
    ),
    (
        "choir",
        "Mila sings alto in a community choir every Thursday evening.",
        C.HOBBIES_RECREATION,
        2,
    ),
    ("library", "Mila shelves books at the city library.", C.PROJECTS_ENDEAVORS, 30),
]


def _mila() -> InMemoryVectorIndex:
    vectors = InMemoryVectorIndex()
    service = LifecycleService(InMemorySlotIndex(), vectors, POLICY)
    for edge_id, text, category, day in MILA:
        vector = EMBEDDER.embed([text])[0]
        slot = "mila.work" if category is C.PROJECTS_ENDEAVORS else f"mila.{edge_id}"
        service.apply(
            edge(
                edge_id,
                day=day,
                slot=slot,
                category=category,
                text=text,
                user="mila",
                vector=vector,
                value=edge_id,
            )
        )
    return vectors


def test_an_abstract_question_about_a_former_value_is_served_the_superseded_fact() -> None:
    """ "Which place did Mila leave?" names nothing of hers but Mila; the router (here: a
    wrong guess, Hobbies, as MiniLM guessed Projects for "company") picks the first tier.
    A historical question prefers superseded facts (M_q), so they join the routed ones and
    the replaced workplace leads; without that, the hobbies do."""
    vectors = _mila()
    assert vectors.get("mila", ["bakery"])[0].lifecycle.state is S.SUPERSEDED
    service = QueryService(vectors, EMBEDDER, POLICY, _Router(C.HOBBIES_RECREATION))
    request = QueryRequest(
        user_id="mila", query="Which place did Mila leave?", as_of=T0 + timedelta(days=60)
    )
    result = service.query(request)
    assert result.intent.value == "historical"
    assert [r.edge_id for r in result.results][:1] == ["bakery"]


def test_without_the_intent_evidence_the_routed_category_alone_leads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same question with the preferred-state rule switched off: the routed hobbies
    lead and the former workplace is not first (the witness of the test above)."""
    monkeypatch.setattr(
        tiers, "_preferred", lambda policy, merged, intent: np.zeros(len(merged), bool)
    )
    service = QueryService(_mila(), EMBEDDER, POLICY, _Router(C.HOBBIES_RECREATION))
    request = QueryRequest(
        user_id="mila", query="Which place did Mila leave?", as_of=T0 + timedelta(days=60)
    )
    assert service.query(request).results[0].edge_id in {"paint", "choir"}


# --- After the relevance tier, age does not tell weak matches apart ------------------------

ODA_QUESTION = "What did she make?"
#: (id, cosine to the question, days before it): one strong match sets the tier's bar
#: (relevance ratio 1: it alone is the tier), then an older turn that says more and a
#: recent one that says less. Texts share no word with the question.
ODA = [
    ("vase", 0.95, 30, "Threw a tall vase on the wheel."),
    ("kiln", 0.60, 40, "Fired stoneware bowls in the kiln."),
    ("thanks", 0.55, 1, "Thanks, you rock, see you soon."),
]


def _oda_order(order: str) -> list[str]:
    embedder = _OnAxis(ODA_QUESTION)
    vectors = InMemoryVectorIndex()
    lifecycle = LifecycleService(InMemorySlotIndex(), vectors, POLICY)
    for n, (edge_id, cosine, days, text) in enumerate(ODA, start=1):
        lifecycle.apply(
            edge(
                edge_id,
                day=60 - days,
                slot=f"oda.{edge_id}",
                category=C.HOBBIES_RECREATION,
                text=text,
                user="oda",
                vector=near(axis(0, 64), cosine, n),
            )
        )
    policy = POLICY.model_copy(update={"below_tier_order": order, "relevance_ratio": 1.0})
    service = QueryService(vectors, embedder, policy, _Router(C.FINANCIAL_MATERIAL))
    request = QueryRequest(user_id="oda", query=ODA_QUESTION, as_of=T0 + timedelta(days=60))
    return [r.edge_id for r in service.query(request).results]


def test_weak_matches_after_the_tier_are_not_ordered_by_age() -> None:
    """`below_tier_order`: with the score's order, a recent "thanks" outranks an older turn
    that matches better (activation lifts it); "ageless" keeps them as if equally old."""
    assert _oda_order("ageless") == ["vase", "kiln", "thanks"]
    assert _oda_order("score") == ["vase", "thanks", "kiln"]
