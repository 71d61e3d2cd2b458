"""Witness of round 25's query rule: a pastime fact (slot-less, additive, Hobbies only) is a
candidate only for a question routed to Hobbies (§3.3); for a question routed elsewhere its
raw turn answers alone (`workers/query/pastime_facts.py`). The statements are written for the
test; none comes from a paper-turns set or LoCoMo.
"""

from __future__ import annotations

from datetime import UTC, datetime

from schemas.categories import Category, UpdateSemantics
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from tests.unit.minilm_edges import ask, embedded_stream, off_on, stored, told_turns, with_rule
from workers.embedding.minilm import MiniLMEmbedder
from workers.query.pastime_facts import is_pastime_fact

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
POLICY = load_policy()
ON = with_rule(POLICY, "pastimes", only_hobby_questions=True)
OFF = with_rule(POLICY, "pastimes", only_hobby_questions=False)

#: (turn, its pastime fact's text or None)
TURNS = [
    ("I work as a pharmacist at the hospital on the east side", None),
    ("I joined the village brass band, second cornet", "User joined the village brass band"),
    ("most Saturday mornings I'm at the lake with a rod", "User is at the lake with a rod"),
    ("my sister Ana is moving to Porto in June", None),
    ("our landlord raised the rent again", None),
    ("I've started restoring old radios in the shed", "User has started restoring old radios"),
]


def _stream() -> list[EdgeEvent]:
    told = [(turn, [] if pastime is None else [(pastime, None, None)]) for turn, pastime in TURNS]
    return told_turns(told, NOW, Category.HOBBIES_RECREATION, update=UpdateSemantics.ACCUMULATE)


STREAM = _stream()
PASTIMES = {"s1#0", "s2#0", "s5#0"}
embedded = embedded_stream(STREAM)


def test_a_pastime_fact_is_known_by_its_shape() -> None:
    by_id = {e.edge_id: e for e in STREAM}
    assert {e.edge_id for e in STREAM if is_pastime_fact(e)} == PASTIMES
    keyed = by_id["s1#0"].model_copy(update={"slot_key": "hobby.brass_band"})
    assert not is_pastime_fact(keyed)  # a named hobby keeps its slot and every question
    committed = by_id["s1#0"].model_copy(update={"confidence": 0.95})
    assert not is_pastime_fact(committed)  # a committed start is a value family's statement


def test_pastime_facts_leave_a_question_routed_elsewhere(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    off, on = off_on(vectors, embedder, "where do I work?", OFF, ON, NOW)
    assert off & PASTIMES  # without the rule they compete with the job
    assert not on & PASTIMES
    assert {"s1#raw", "s2#raw", "s5#raw"} <= on  # their turns still answer by their words


def test_pastime_facts_serve_a_question_routed_to_hobbies(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    on = {e for e, _ in ask(vectors, embedder, "what are my hobbies?", ON, NOW)}
    assert on >= PASTIMES


def test_a_question_that_gives_hobbies_some_routing_weight_keeps_them(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    # the floor on ρ(Hobbies) decides: at 0 every question is a Hobbies question
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    floorless = with_rule(ON, "pastimes", hobby_weight_floor=0.0)
    kept = {e for e, _ in ask(vectors, embedder, "where do I work?", floorless, NOW)}
    assert kept & PASTIMES
