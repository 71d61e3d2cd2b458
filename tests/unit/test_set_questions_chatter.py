"""Witness of round 20's rule for a set question (AV5, broad aggregation; A.7.2: the items of
one kind accumulate and an `all` question wants each): chatter in the window's places 6–10 — a
fact-less raw turn the prototypes read as stating nothing of a kind (thanks, a request, a
joke) — yields its place to the asked kind's items told in their own words
(`set_questions.chatter_of`, `fill_window`). The statements are written for the test; none
comes from a paper-turns set or LoCoMo.
"""

from __future__ import annotations

from datetime import UTC, datetime

from schemas.categories import Category
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from schemas.query import QueryRequest
from tests.unit.minilm_edges import (
    embedded_stream,
    moved_by,
    ranking_properties,
    stored,
    told_turns,
    with_rule,
)
from workers.embedding.minilm import MiniLMEmbedder
from workers.query.service import QueryService
from workers.stores.memory_vectors import InMemoryVectorIndex

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
POLICY = load_policy()
ON = with_rule(POLICY, "set_questions", chatter_yields=True)
OFF = with_rule(POLICY, "set_questions", chatter_yields=False)
QUESTION = "what are my hobbies?"
PLACED = "a question for a set of HOBBIES_RECREATION: placed in the window by its kind"

TURNS = [
    "I work as a pharmacist at the hospital on the east side",
    "my sister Ana is moving to Porto in June",
    "thanks!",
    "can you give me a quick recipe for tonight?",
    "what should I do this weekend? ideas please",
    "sounds good, thank you",
    "our landlord raised the rent again",
    "my commute is forty minutes by tram",
    "help me write an email to my manager",
    "what time is it in Tokyo right now?",
    "I'm allergic to penicillin",
    "most Saturday mornings you'll find me at the lake with a rod and a flask",
    "evenings I'm at the wheel, throwing bowls, glaze all over my jeans",
    "ha, nice one",
    "lol ok",
    "brilliant, cheers",
    "fun fact: my cat hates thunder",
    "any tips for a free evening in town? thanks",
    "I bought a new kettle, the old one died",
    "my dad turns seventy next month",
    "Sunday league: I'm in goal again, we lost four nil",
    "cool, thanks a lot",
    "what's a good podcast for the gym?",
]
#: The pastimes, each told in its own words: no fact, stored as Other.
ITEMS = {"s11#raw", "s12#raw", "s20#raw"}
STREAM: list[EdgeEvent] = told_turns([(t, []) for t in TURNS], NOW, Category.OTHER)

embedded = embedded_stream(STREAM)


def _ask(
    vectors: InMemoryVectorIndex, embedder: MiniLMEmbedder, policy: object, question: str = QUESTION
) -> list[tuple[str, list[str]]]:
    service = QueryService(vectors, embedder, policy, clock=lambda: NOW)  # type: ignore[arg-type]
    result = service.query(QueryRequest(user_id="u1", query=question, as_of=NOW, k=10))
    return [(r.edge_id, r.why) for r in result.results]


def test_chatter_yields_its_window_place_to_an_item_of_the_set(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    off = _ask(vectors, embedder, OFF)
    assert not {e for e, _ in off} >= ITEMS  # a pastime below the window without the rule
    on = _ask(vectors, embedder, ON)
    assert {e for e, _ in on} >= ITEMS
    assert [e for e, _ in on][:5] == [e for e, _ in off][:5]  # the top 5 is untouched
    assert moved_by(on, PLACED) <= ITEMS and moved_by(on, PLACED)
    # A question for one value is no set question: nothing yields.
    one = "what is my favourite hobby?"
    assert _ask(vectors, embedder, ON, one) == _ask(vectors, embedder, OFF, one)


(
    test_the_ranking_does_not_depend_on_delivery_order,
    test_forgetting_an_edge_ends_where_never_telling_it_does,
) = ranking_properties(STREAM, QUESTION, ON, NOW)
