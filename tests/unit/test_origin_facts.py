"""Witness of round 26's query rule: an origin fact (a home town, a first language, a
nationality) is a candidate only for a question that asks for an origin by the attribute's
own words; for any other its raw turn answers alone (`workers/query/origin_facts.py`). The
statements and questions are written for the test; none comes from a paper-turns set or
LoCoMo.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas.categories import Category
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from tests.unit.minilm_edges import ask, embedded_stream, off_on, stored, told_turns, with_rule
from workers.embedding.minilm import MiniLMEmbedder
from workers.query.origin_facts import asks_for_origin, is_origin_fact

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
POLICY = load_policy()
ON = with_rule(POLICY, "origin_facts", only_origin_questions=True)
OFF = with_rule(POLICY, "origin_facts", only_origin_questions=False)

#: (turn, its fact: (text, slot) or None)
TURNS = [
    (
        "quick one before my shift: I was born in Tromsø and Norwegian is my mother tongue, "
        "so forgive the odd preposition. How do I descale a kettle?",
        ("User's hometown (place of origin) is Tromsø", "user.hometown"),
    ),
    (
        "also, as I said, Norwegian is my mother tongue",
        ("User's first language is Norwegian", "user.first_language"),
    ),
    ("I cycle to the depot along the river path, twenty minutes each way", None),
    ("my landlord wants to put the rent up in August", None),
    ("I'm a tram driver on the number 4 line", ("User's job title (role at work) is tram driver",
                                                "user.profession")),
]  # fmt: skip


def _stream() -> list[EdgeEvent]:
    # A fact's text carries its turn; its value is the statement's last word.
    told = [
        (turn, [] if fact is None else [(f"{fact[0]} ({turn})", fact[1], fact[0].split()[-1])])
        for turn, fact in TURNS
    ]
    return told_turns(told, NOW, Category.IDENTITY_SELF_CONCEPT, confidence=0.95)


STREAM = _stream()
ORIGINS = {"s0#0", "s1#0"}
embedded = embedded_stream(STREAM)


def test_an_origin_fact_is_known_by_its_slot() -> None:
    assert {e.edge_id for e in STREAM if is_origin_fact(e)} == ORIGINS
    by_id = {e.edge_id: e for e in STREAM}
    national = by_id["s0#0"].model_copy(update={"slot_key": "user.nationality"})
    assert is_origin_fact(national)
    citizen = by_id["s0#0"].model_copy(update={"slot_key": "user.citizenship.norway"})
    assert is_origin_fact(citizen)
    assert not is_origin_fact(by_id["s4#0"])  # a job is asked for in many words: no gate
    assert not is_origin_fact(by_id["s0#raw"])  # the raw turn always stays


@pytest.mark.parametrize(
    "question",
    [
        "where was I born?",
        "which village did she grow up in?",
        "what's my home town?",
        "where is Sunniva from originally?",
        "which city am I from?",
        "where do I come from?",
        "what language did I grow up speaking?",
        "what's my mother tongue?",
        "what nationality am I?",
        "tell me about my background",
        "where did I spend my childhood?",
    ],
)
def test_origin_questions_by_the_attributes_own_words(question: str) -> None:
    assert asks_for_origin(question)


@pytest.mark.parametrize(
    "question",
    [
        "how do I get to work?",
        "what are all my hobbies?",
        "where does my weekly veg box come from?",  # something else comes from somewhere
        "any birthdays coming up?",
        "where do I live now?",
        "what's my job?",
    ],
)
def test_other_questions_ask_no_origin(question: str) -> None:
    assert not asks_for_origin(question)


def test_origin_facts_leave_a_question_that_asks_no_origin(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    off, on = off_on(vectors, embedder, "how do I get to work?", OFF, ON, NOW)
    assert off & ORIGINS  # without the rule they compete with the commute
    assert not on & ORIGINS
    assert {"s0#raw", "s1#raw", "s2#raw"} <= on  # the turns still answer by their words


def test_origin_facts_serve_a_question_that_asks_for_an_origin(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    for question in ("where did I grow up?", "what is my first language?"):
        on = [e for e, _ in ask(vectors, embedder, question, ON, NOW)]
        assert set(on) & ORIGINS
