"""Witnesses of the query-time rule for questions asking for a lasting state
(workers/query/lasting_states.py; paper Table 1 row 4: a chronic condition holds with no end,
an acute one is soon over).

The statements are written here for the test; none comes from a paper-turns set. A user told
long ago that they live with a chronic condition, and last month that a cold has had them in
bed since the weekend; "what long-term condition do I have?" must not serve the cold first —
and a question that asks for no lasting state leaves the order alone.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from schemas.records import FactRecord, Lifecycle
from tests.unit.minilm_edges import asker, moved_by, stored, with_embeddings, with_rule
from workers.embedding.minilm import MiniLMEmbedder
from workers.query import lasting_states
from workers.stores.memory_vectors import InMemoryVectorIndex

# A Wednesday: "since Sunday" is three days before.
TOLD = datetime(2026, 3, 4, 18, tzinfo=UTC)
NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
POLICY = load_policy()
ON = with_rule(POLICY, "lasting_states", enabled=True)
OFF = with_rule(POLICY, "lasting_states", enabled=False)
DAYS = POLICY.lasting_states.recent_days
REASON = "its words bound it"


def _record(edge_id: str, text: str, told: datetime = TOLD) -> FactRecord:
    return FactRecord(
        edge=EdgeEvent(edge_id=edge_id, user_id="u1", text=text, categories=Category.OTHER,
                       ingest_time=told),
        lifecycle=Lifecycle(),
    )  # fmt: skip


@pytest.mark.parametrize(
    "question",
    [
        "what long-term health condition do I have?",
        "Which chronic illness does Sam have?",
        "any ongoing medical problems I should mention?",
        "what condition do I live with?",
        "is there a lasting health issue you know of?",
    ],
)
def test_a_question_for_what_lasts_is_recognised(question: str) -> None:
    assert lasting_states.asks_lasting(question)


@pytest.mark.parametrize(
    "question",
    [
        "who do I live with?",
        "what health problems do I have?",
        "how am I feeling this week?",
        "what is my job now?",
        # Lasting, but no condition of health (review r18 M2): a recent start may be the answer.
        "what is my long-term career goal?",
        "where is my permanent home?",
        "who is my long-term partner?",
    ],
)
def test_other_questions_are_not(question: str) -> None:
    assert not lasting_states.asks_lasting(question)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("in bed with a streaming cold since Sunday, send soup", "since Sunday"),
        ("been throwing up since last night", "since last night"),
        ("my back has been locked for three days now", "for three days"),
        ("laid up these two days with a fever", "these two days"),
        ("no running this week, the knee is swollen", "this week"),
        ("ear infection since the weekend, on antibiotics", "since the weekend"),
    ],
)
def test_a_recent_onset_or_a_short_duration_bounds_a_state(text: str, words: str) -> None:
    found = lasting_states.bounded(text, TOLD, DAYS)
    assert found is not None
    assert found.words.lower() == words.lower()


@pytest.mark.parametrize("told", [TOLD + timedelta(days=n) for n in range(7)])
def test_a_weekday_or_the_weekend_after_since_is_the_one_before(told: datetime) -> None:
    # Said on any day of the week, "since Monday" and "since the weekend" began at most a
    # week before (the date reader reads a weekday or a weekend ahead by default).
    assert lasting_states.bounded("a cold since Monday", told, DAYS) is not None
    assert lasting_states.bounded("a cold since the weekend", told, DAYS) is not None


@pytest.mark.parametrize(
    "text",
    [
        "I've had asthma since I was six, inhaler always in my bag",
        "coeliac since 2009, so everything has to be gluten-free",
        "type 2 diabetes, diagnosed years ago, metformin twice a day",
        "I swim three days a week at the leisure centre",
        "migraines since my teens, triggered by screens",
        # A "since" whose day lies weeks before the turn: no recent onset.
        "in this flat since January 3, love it",
        # A causal "since": the day is the subject of its clause (review r18 M2).
        "Since Monday is a holiday, I'm going to work on the loft conversion",
        "since today's my day off, let me tell you about my ten-year plan",
        # A frequency after a range of days, not a duration.
        "For a day or two a month I work from Lisbon",
        # The lasting state told with a flare of it: the candidate is the lasting answer.
        "Type 1 diabetic since I was 12. Sugar has been all over the place all week",
        "diagnosed with Crohn's years back, flaring these three days",
    ],
)
def test_a_lasting_state_or_a_frequency_is_not_bounded(text: str) -> None:
    assert lasting_states.bounded(text, TOLD, DAYS) is None


def test_only_a_question_for_what_lasts_demotes() -> None:
    cold = _record("c#raw", "in bed with a streaming cold since Sunday, send soup")
    asthma = _record("a#raw", "I've had asthma since I was six", TOLD - timedelta(days=300))
    window = [cold, asthma]
    asked = "what long-term condition do I have?"
    found = lasting_states.demotions(Intent.CURRENT, asked, window, DAYS)
    assert set(found) == {"c#raw"}
    assert "since Sunday" in lasting_states.explain(found["c#raw"])
    other = "what illnesses have I had?"
    assert lasting_states.demotions(Intent.CURRENT, other, window, DAYS) == {}
    # A question about the past or a cancelled plan asks what was, not what lasts.
    assert lasting_states.demotions(Intent.PAST, asked, window, DAYS) == {}
    assert lasting_states.demotions(Intent.CANCELLED, asked, window, DAYS) == {}
    assert set(lasting_states.demotions(Intent.UPCOMING, asked, window, DAYS)) == {"c#raw"}


# ---- the query path, on MiniLM ---------------------------------------------------------

STREAM = [
    ("s0#raw", "I live with asthma, have done since I was small, inhaler in every coat",
     TOLD - timedelta(days=300)),
    ("s1#raw", "recommend a novel for a rainy weekend", TOLD - timedelta(days=200)),
    ("s2#raw", "that bread recipe came out dense, what went wrong", TOLD - timedelta(days=100)),
    ("s3#raw", "my neighbour's dog barked all night again", TOLD - timedelta(days=50)),
    ("s4#raw", "in bed with a horrible chest cold since Sunday, what helps a cough?", TOLD),
    ("s5#raw", "what's a good houseplant for a dark hallway", TOLD + timedelta(days=10)),
]  # fmt: skip
QUESTION = "what long-term illness do I have?"
EDGES = [
    EdgeEvent(edge_id=edge_id, user_id="u1", text=text, ingest_time=told,
              categories=Category.OTHER, source_turns=(edge_id.split("#")[0],))
    for edge_id, text, told in STREAM
]  # fmt: skip


@pytest.fixture(scope="module")
def vectors(embedder: MiniLMEmbedder) -> InMemoryVectorIndex:
    embedded = with_embeddings(embedder, EDGES)
    return stored([embedded[e.edge_id] for e in EDGES], POLICY)


_ask = asker(POLICY, NOW)


def test_the_query_path_serves_the_lasting_condition_before_the_cold(
    vectors: InMemoryVectorIndex, embedder: MiniLMEmbedder
) -> None:
    off = [e for e, _ in _ask(vectors, embedder, QUESTION, OFF)]
    assert off.index("s4#raw") < off.index("s0#raw")  # the newer cold led without the rule
    answer = _ask(vectors, embedder, QUESTION, ON)
    ids = [e for e, _ in answer]
    assert ids.index("s0#raw") < ids.index("s4#raw")
    assert moved_by(answer, REASON) == {"s4#raw"}
    # A question for no lasting state is not judged by the rule.
    other = _ask(vectors, embedder, "what illness did I have?", ON)
    assert moved_by(other, REASON) == set()


# ---- an acute state that is over (round 24, `passed_acute`; Table 1 row 4) --------------


@pytest.mark.parametrize(
    ("text", "words", "days"),
    [
        ("the GP has put me on bed rest for two weeks with a slipped disc", "for two weeks", 14),
        ("tonsillitis, penicillin for a week and no talking", "for a week", 7),
        ("sprained my wrist, the splint stays on for three days", "for three days", 7),
        ("wiped out by a stomach bug this week", "this week", 7),
    ],
)
def test_a_bounded_state_lasts_what_its_words_say_and_at_least_a_week(
    text: str, words: str, days: int
) -> None:
    found = lasting_states.bounded(text, TOLD, DAYS)
    assert found is not None and found.words.lower() == words
    assert lasting_states.span(found.words, DAYS) == timedelta(days=days)


def _drawn_from(raw: FactRecord, fact: FactRecord) -> FactRecord:
    edge = raw.edge.model_copy(update={"episodic_of": (fact.edge_id,)})
    return raw.model_copy(update={"edge": edge})


def test_an_acute_state_told_long_ago_is_over_for_a_question_about_now() -> None:
    bug = _record("b#raw", "the GP has put me on bed rest for two weeks with a slipped disc")
    fact = _record("b-visit", "User's brother is bringing the shopping round")
    bug = _drawn_from(bug, fact)
    asthma = _record("a#raw", "I've had asthma since I was six", TOLD - timedelta(days=300))
    window = [bug, fact, asthma]
    asked = "what health problems do I have at the moment?"
    later = TOLD + timedelta(days=40)
    found = lasting_states.passed(Intent.CURRENT, asked, window, later, DAYS)
    assert set(found) == {"b#raw", "b-visit"}
    assert found["b-visit"].drawn_from == "b#raw"
    assert "for two weeks" in lasting_states.explain_passed(found["b#raw"])
    # Within its span the state still holds: it is the answer.
    soon = TOLD + timedelta(days=10)
    assert lasting_states.passed(Intent.CURRENT, asked, window, soon, DAYS) == {}
    # A question with no word of health, or about the past, is not judged.
    assert lasting_states.passed(Intent.CURRENT, "where do I live now?", window, later, DAYS) == {}
    assert lasting_states.passed(Intent.PAST, asked, window, later, DAYS) == {}
    # A question for a lasting state is `demotions`' (whenever the state was told).
    lasting = "what long-term condition do I have?"
    assert lasting_states.passed(Intent.CURRENT, lasting, window, later, DAYS) == {}


def test_the_query_path_does_not_serve_a_resolved_episode_as_a_current_condition(
    vectors: InMemoryVectorIndex, embedder: MiniLMEmbedder
) -> None:
    later = NOW + timedelta(days=60)
    ask = asker(POLICY, later)
    question = "what illness do I have right now?"
    off = with_rule(POLICY, "lasting_states", enabled=True, passed_acute=False)
    before = [e for e, _ in ask(vectors, embedder, question, off)]
    assert before.index("s4#raw") < before.index("s0#raw")  # the old cold led
    answer = ask(vectors, embedder, question, ON)
    ids = [e for e, _ in answer]
    assert ids.index("s0#raw") < ids.index("s4#raw")
    assert moved_by(answer, "its words bound it to a short time") == {"s4#raw"}
