"""Witness of round 27's rule for a set question (AV5, broad aggregation; A.7.2: the items of
one kind accumulate and an `all` question wants each): among the window's places 6–10 a record
of another concrete kind whose kind the extractor said itself (`EdgeEvent.kind_said`: a home,
an employer, a drink — not the prototypes' mix of categories for the words) yields its place and
competes for it again by σ + kind_weight · kind margin (`set_questions.said_other_kind`,
`fill_window`); the same records with a category the prototypes decided keep their places. And
the extraction stage records which is which (`stage.says_kind`, `classify._names_one_value`).
The statements are written for the test; none comes from a paper-turns set or LoCoMo.
"""

from __future__ import annotations

from datetime import UTC, datetime

from schemas.categories import Category
from schemas.events import EdgeEvent, TurnEvent
from schemas.records import FactRecord, Lifecycle
from workers.extraction.classify import _names_one_value
from workers.extraction.prototypes import Attribute
from workers.extraction.rules import RuleExtractor
from workers.extraction.stage import edges_for_turn, says_kind
from workers.query import set_questions
from workers.query.candidates import MergedCandidate

AT = datetime(2026, 3, 1, 12, tzinfo=UTC)


def _candidate(
    edge_id: str, sigma: float, category: Category = Category.OTHER, *, said: bool = False
) -> MergedCandidate:
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=edge_id, categories=category, ingest_time=AT,
        episodic=True, source_turns=(edge_id,), kind_said=said,
    )  # fmt: skip
    return MergedCandidate(FactRecord(edge=edge, lifecycle=Lifecycle()), sigma, ("dense",), None)


def _window(said: bool) -> tuple[list[MergedCandidate], list[int]]:
    """Five top places, then a home, a drink, an employer and two chatter-free turns in places
    6–10, and after the window a pastime told in its own words (Other, no fact)."""
    merged = [_candidate(f"top{n}", 0.9 - n / 100) for n in range(5)]
    merged += [
        _candidate("home", 0.60, Category.IDENTITY_SELF_CONCEPT, said=said),
        _candidate("drink", 0.59, Category.PREFERENCES_HABITS, said=said),
        _candidate("employer", 0.58, Category.IDENTITY_SELF_CONCEPT, said=said),
        _candidate("note1", 0.57),
        _candidate("note2", 0.56),
        _candidate("pottery", 0.50),
    ]
    return merged, list(range(len(merged)))


def test_a_kind_the_extractor_said_yields_its_place_to_an_item_of_the_asked_kind() -> None:
    margins = {5: -0.10, 6: -0.12, 7: -0.08, 8: 0.0, 9: 0.0, 10: 0.15}
    merged, ranked = _window(said=True)
    yielding = set_questions.said_other_kind(merged, ranked[5:10], Category.HOBBIES_RECREATION)
    assert yielding == {5, 6, 7}
    out, placed = set_questions.fill_window(
        ranked, merged, lambda i: True, margins, 1.0, 5, 10, yielding
    )
    assert out[:5] == ranked[:5]  # the top 5 is the lifecycle ranking's
    assert 10 in out[:10] and placed == {"pottery"}  # the pastime takes a place
    assert 6 not in out[:10]  # the drink, weakest by σ + kind margin, follows the window
    # A record of the asked kind never yields, whoever named it.
    asked = Category.IDENTITY_SELF_CONCEPT
    assert set_questions.said_other_kind(merged, ranked[5:10], asked) == {6}


def test_a_kind_the_prototypes_decided_keeps_its_place() -> None:
    merged, ranked = _window(said=False)
    assert not set_questions.said_other_kind(merged, ranked[5:10], Category.HOBBIES_RECREATION)


def test_the_stage_records_whether_a_family_said_the_kind() -> None:
    turn = TurnEvent(
        user_id="ana", session_id="s1", turn_id="t1", role="user", timestamp=AT,
        text="I moved to Valencia last month.",
    )  # fmt: skip
    facts = RuleExtractor().extract(turn)
    assert facts and all(says_kind(f) for f in facts)  # the home family names its kind
    edges = edges_for_turn(turn, facts)
    assert all(e.kind_said for e in edges)  # the raw turn lends its facts' said kind
    decided = facts[0].model_copy(update={"prototype": "decide"})
    assert not says_kind(decided)
    raw = [e for e in edges_for_turn(turn, [*facts, decided]) if e.episodic]
    assert raw and not any(e.kind_said for e in raw)  # one fact the prototypes decide: no


def test_a_value_familys_fact_matched_to_a_single_valued_attribute_is_said() -> None:
    drink = Attribute("drink_preference", "user.drink_preference", Category.PREFERENCES_HABITS)
    hobby = Attribute("hobby", "hobby.{head}", Category.HOBBIES_RECREATION)
    assert _names_one_value(drink, "user.drink_preference")
    assert not _names_one_value(drink, "price.drink")  # the family's own noun slot kept
    assert not _names_one_value(hobby, "hobby.pottery")  # an item of a set
    assert not _names_one_value(None, None)  # a category mix
