"""Witnesses of latest_value's `told_with`: what was drawn from an older statement follows it.

The statements are written here for the test; none comes from a paper-turns set. An old turn
says a diet and yields two facts — one under a slot key that is no attribute's (what the
offline extractor makes of words it half understands), one under the diet's own key — and a
newer turn changes the diet without yielding a fact. For a current question about the diet
the old raw turn and the fact drawn from it under the other key leave the top 5; the keyed
diet fact stays where it is (the lifecycle's to decide); a past question sees history; the
ranking is the same whatever order the edges were delivered in, and forgetting an edge ends
where never telling it does.
"""

from __future__ import annotations

from datetime import UTC, datetime

from schemas.categories import Category
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from tests.unit.minilm_edges import (
    asker,
    embedded_stream,
    moved_by,
    ranking_properties,
    stored,
    told_turns,
    with_rule,
)
from workers.embedding.minilm import MiniLMEmbedder

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
#: newer_statements' `unmarked_single_value` off: the witness's newer turn is about the same
#: diet and that rule also moves the old one down (issue-11ag); off, this rule is seen alone.
POLICY = with_rule(load_policy(), "newer_statements", unmarked_single_value=False)


#: `told_with_keyed` off: the keyed fact's exemption is what this witness shows (round 20's
#: narrowing of it, tests/unit/test_told_with_keyed.py).
ON = with_rule(POLICY, "latest_value", enabled=True, told_with=True, told_with_keyed=False)
OFF = with_rule(POLICY, "latest_value", enabled=True, told_with=False, told_with_keyed=False)
DEMOTE_TO = POLICY.latest_value.demote_to
QUESTION = "what diet do I follow?"
OLD_TURN = "I've been vegan since January, no animal products, and I feel great about it"
NEW_TURN = "I eat fish and chicken again, being vegan wore me out completely"
CHATTER = [
    "can you help me plan a weekend in the mountains",
    "my printer jams every second page",
    "what is a good gift for a ten year old",
    "the bus was late again this morning",
]


#: The old turn yields a fact under a key that is no attribute's and one under the diet's.
STREAM = told_turns([
    (OLD_TURN, [("User has been vegan since January", "user.vegan_since", None),
                ("User is vegan", "user.diet", None)]),
    *[(text, []) for text in CHATTER],
    (NEW_TURN, []),
], NOW, Category.PREFERENCES_HABITS)  # fmt: skip


embedded = embedded_stream(STREAM)
_ask = asker(ON, NOW)


def _older(answer: list[tuple[str, list[str]]]) -> set[str]:
    return moved_by(answer, "an older statement of diet")


def test_what_was_drawn_from_the_older_statement_follows_it_down(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    answer = _ask(vectors, embedder, QUESTION)
    ids = [e for e, _ in answer]
    # The raw turn and the fact under a key that is no attribute's; the keyed diet fact is
    # the lifecycle's and stays.
    assert _older(answer) == {"s0#raw", "s0#0"}, answer
    assert min(ids.index("s0#raw"), ids.index("s0#0")) >= DEMOTE_TO
    assert ids.index("s5#raw") < DEMOTE_TO
    # Without it the fact drawn from the old turn stood in the top 5 (stale).
    off = _ask(vectors, embedder, QUESTION, OFF)
    assert _older(off) == {"s0#raw"}
    assert [e for e, _ in off].index("s0#0") < DEMOTE_TO
    assert _older(_ask(vectors, embedder, "what diet did I follow last winter?")) == set()


(
    test_the_ranking_does_not_depend_on_delivery_order,
    test_forgetting_an_edge_ends_where_never_telling_it_does,
) = ranking_properties(STREAM, QUESTION, ON, NOW)
