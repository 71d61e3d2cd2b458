"""Witnesses of latest_value's `told_with_keyed` (round 20): a fact keyed to the asked attribute
follows its demoted turn when the statement that demoted it carries no key of the fact's slot
and is, by its nearest class, about the attribute.

Statements and classifier verdicts are written here for the test; none comes from a
paper-turns set. An old turn tells a diet and yields a fact under the diet's own key; a newer
turn changes the diet and yields no fact, so the lifecycle never compared the two. The keyed
fact follows its turn out of the top 5 — not when the newer statement carries the same key
(the lifecycle's to decide), not when the newer turn's nearest class is not the attribute (a
chatty turn merely near it), not with the switch off. The MiniLM witness runs the whole query
path with the trained probe; its order and forgetting properties hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from schemas.records import FactRecord, Lifecycle
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
from workers.extraction.prototypes import Verdict
from workers.query import latest_value

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
#: newer_statements' unmarked pressing off: its own demotions are not this rule's.
POLICY = with_rule(load_policy(), "newer_statements", unmarked_single_value=False)
ON = with_rule(POLICY, "latest_value", enabled=True, told_with=True, told_with_keyed=True)
OFF = with_rule(POLICY, "latest_value", enabled=True, told_with=True, told_with_keyed=False)
DEMOTE_TO = POLICY.latest_value.demote_to
RULE = ON.latest_value.thresholds()
SLOTS = {"user.diet": "diet"}
ALLOWED = frozenset({"diet"})


def _verdict(scores: Mapping[str, float]) -> Verdict:
    return Verdict(
        categories={}, attribute=None, similarity=0.0, category_scores={},
        attribute_scores=dict(scores),
    )  # fmt: skip


def _record(edge_id: str, days_ago: int, *, key: str | None = None,
            drawn: tuple[str, ...] = ()) -> FactRecord:  # fmt: skip
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=f"statement {edge_id}",
        categories=Category.PREFERENCES_HABITS, ingest_time=NOW - timedelta(days=days_ago),
        episodic=edge_id.endswith("#raw"), episodic_of=drawn, slot_key=key,
        source_turns=(edge_id.partition("#")[0],),
    )  # fmt: skip
    return FactRecord(edge=edge, lifecycle=Lifecycle())


QUESTION = _verdict({"diet": 0.9, "none": 0.1})
OLD_TURN = _record("t0#raw", 60, drawn=("t0#0",))
OLD_FACT = _record("t0#0", 60, key="user.diet")
ABOUT_DIET = _verdict({"diet": 0.8, "none": 0.2})


def _demoted(newer: FactRecord, newer_verdict: Verdict, *extra: FactRecord,
             keyed: bool = True,
             turn_keys: Mapping[str, frozenset[str]] | None = None) -> set[str]:  # fmt: skip
    records = [OLD_FACT, OLD_TURN, newer, *extra]
    verdicts: list[Verdict | None] = [None, ABOUT_DIET, newer_verdict, *([None] * len(extra))]
    rule = RULE.model_copy(update={"told_with_keyed": keyed})
    return set(
        latest_value.demotions(
            Intent.CURRENT, QUESTION, records, verdicts, SLOTS, ALLOWED, rule, turn_keys
        )
    )


def test_a_keyed_fact_follows_its_turn_when_the_newer_value_carries_no_key() -> None:
    newer = _record("t1#raw", 5)
    assert _demoted(newer, ABOUT_DIET) == {"t0#raw", "t0#0"}
    # Off, the keyed fact is the lifecycle's to decide, as before round 20.
    assert _demoted(newer, ABOUT_DIET, keyed=False) == {"t0#raw"}


def test_not_when_the_newer_statement_carries_the_same_key() -> None:
    # The newer turn yielded a fact under the diet's key: the lifecycle compared the two.
    newer = _record("t1#raw", 5, drawn=("t1#0",))
    drawn = _record("t1#0", 5, key="user.diet")
    assert _demoted(newer, ABOUT_DIET, drawn) == {"t0#raw"}
    # The drawn fact need not be a candidate: its key, read from the store, counts ("thinking
    # about moving to X" drew a soft fact of the city's slot: the lifecycle weighed the two).
    assert _demoted(newer, ABOUT_DIET, turn_keys={"t1#raw": frozenset({"user.diet"})}) == {"t0#raw"}
    assert _demoted(newer, ABOUT_DIET) == {"t0#raw", "t0#0"}


def test_not_when_the_newer_turn_is_about_nothing_in_particular() -> None:
    # Near enough to the diet to stand as the newest statement (the probe's multi-label
    # threshold), but its nearest class is none: it does not outweigh a key.
    chatty = _verdict({"diet": 0.1, "none": 0.85})
    assert _demoted(_record("t1#raw", 5), chatty) == {"t0#raw"}
    elsewhere = _verdict({"diet": 0.3, "employer": 0.6, "none": 0.1})
    assert _demoted(_record("t1#raw", 5), elsewhere) == {"t0#raw"}


QUESTION_TEXT = "what diet do I follow?"
STREAM = told_turns([
    ("I've been vegan since January, no animal products, and I feel great about it",
     [("User is vegan", "user.diet", None)]),
    ("can you help me plan a weekend in the mountains", []),
    ("my printer jams every second page", []),
    ("what is a good gift for a ten year old", []),
    ("the bus was late again this morning", []),
    ("I eat fish and chicken again, being vegan wore me out completely", []),
], NOW, Category.PREFERENCES_HABITS)  # fmt: skip

embedded = embedded_stream(STREAM)
_ask = asker(ON, NOW)


def test_the_keyed_fact_leaves_the_top_5_on_the_query_path(
    embedder: MiniLMEmbedder, embedded: dict[str, EdgeEvent]
) -> None:
    vectors = stored([embedded[e.edge_id] for e in STREAM], POLICY)
    answer = _ask(vectors, embedder, QUESTION_TEXT)
    ids = [e for e, _ in answer]
    assert moved_by(answer, "an older statement of diet") == {"s0#raw", "s0#0"}, answer
    assert min(ids.index("s0#raw"), ids.index("s0#0")) >= DEMOTE_TO
    assert ids.index("s5#raw") < DEMOTE_TO
    # Without it the keyed fact drawn from the old turn stood in the top 5 (stale).
    off = _ask(vectors, embedder, QUESTION_TEXT, OFF)
    assert moved_by(off, "an older statement of diet") == {"s0#raw"}
    assert [e for e, _ in off].index("s0#0") < DEMOTE_TO
    # A past question sees history.
    past = _ask(vectors, embedder, "what diet did I follow last winter?")
    assert moved_by(past, "an older statement of diet") == set()


(
    test_the_ranking_does_not_depend_on_delivery_order,
    test_forgetting_an_edge_ends_where_never_telling_it_does,
) = ranking_properties(STREAM, QUESTION_TEXT, ON, NOW)
