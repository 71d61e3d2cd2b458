"""Slot association by similarity (issue 11, item 1): witnesses and order-independence.

A fact without a slot key (or the raw turn of a turn that yielded none) that closely matches
an earlier keyed fact of a replace-semantics slot takes part in that slot's lifecycle: soft
when unsure, superseding when the match is clear and the value differs.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
from hypothesis import settings

from schemas.categories import Category, LifecycleState, UpdateSemantics
from schemas.events import EdgeEvent, ForgetCommand
from schemas.policy import load_policy
from tests.unit.edge_helpers import axis, edge, near
from tests.unit.lifecycle_properties import (
    assert_delivery_order_free,
    assert_forget_converges,
    given_deliveries,
    given_forgets,
)
from workers.lifecycle.association import best_match
from workers.lifecycle.service import LifecycleService
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

POLICY = load_policy()
S = LifecycleState
SOFT = POLICY.association.soft_cosine
HARD = POLICY.association.hard_cosine


DRINK = axis(0)
RENT = axis(1)
CITY = axis(2)


def keyed(edge_id: str, day: float, slot: str, value: str, vector: np.ndarray, **kw: object):  # type: ignore[no-untyped-def]
    e = edge(edge_id, day=day, slot=slot, vector=vector, **kw)  # type: ignore[arg-type]
    return e.model_copy(update={"value": value, "text": f"User's {slot}: {value}"})


def free(edge_id: str, day: float, vector: np.ndarray, value: str | None = None, **kw: object):  # type: ignore[no-untyped-def]
    e = edge(edge_id, day=day, slot=None, update="accumulate", vector=vector,
             category=Category.OTHER, **kw)  # type: ignore[arg-type]  # fmt: skip
    return e.model_copy(update={"value": value})


def hedged(edge_id: str, day: float, vector: np.ndarray, value: str) -> EdgeEvent:
    """An unkeyed fact the extractor read as tentative ("might switch to …": soft, 0.4)."""
    e = free(edge_id, day, vector, value=value)
    return e.model_copy(update={"update": UpdateSemantics.SOFT, "confidence": 0.4})


def raw_turn(edge_id: str, day: float, vector: np.ndarray) -> EdgeEvent:
    e = free(edge_id, day, vector)
    return e.model_copy(update={"episodic": True})


def service() -> tuple[LifecycleService, InMemoryVectorIndex]:
    vectors = InMemoryVectorIndex()
    return LifecycleService(InMemorySlotIndex(), vectors, POLICY), vectors


def records(vectors: InMemoryVectorIndex, user: str = "u1") -> dict[str, object]:
    return {r.edge_id: r.lifecycle for r in vectors.scroll(user)}


def test_a_restated_value_in_unseen_words_supersedes_the_old_one() -> None:
    """ "I drink green tea every morning" (extracted: user.morning_drink) … months later
    "these days my mornings start with a double espresso": a fact no rule keyed, a clear
    match, another value → the tea is superseded and says by what."""
    svc, vectors = service()
    svc.apply(keyed("tea", 0, "user.morning_drink", "green tea", DRINK))
    svc.apply(keyed("rent", 1, "user.rent", "$950", RENT, category=Category.FINANCIAL_MATERIAL))
    svc.apply(free("espresso", 40, near(DRINK, HARD + 0.05, 5), value="double espresso"))
    lc = records(vectors)
    assert lc["tea"].state is S.SUPERSEDED and lc["tea"].superseded_by == "espresso"  # type: ignore[attr-defined]
    assert lc["espresso"].state is S.ACTIVE  # type: ignore[attr-defined]
    joined = lc["espresso"].associated  # type: ignore[attr-defined]
    assert joined.slot == "user.morning_drink" and joined.anchor == "tea" and joined.hard
    assert lc["rent"].state is S.ACTIVE  # type: ignore[attr-defined]


def test_an_unsure_match_is_a_soft_update() -> None:
    """A raw turn with no extracted fact and no value: the match is not clear enough to
    decide, so both stay current and the old value is lowered through Ω (Model 1)."""
    svc, vectors = service()
    svc.apply(keyed("tea", 0, "user.morning_drink", "green tea", DRINK))
    svc.apply(raw_turn("s9/t1#raw", 40, near(DRINK, SOFT + 0.05, 5)))
    lc = records(vectors)
    tea = lc["tea"]
    assert tea.state is S.ACTIVE  # type: ignore[attr-defined]
    (pressure,) = tea.soft_pressures  # type: ignore[attr-defined]
    assert pressure.by == "s9/t1#raw" and 0 < pressure.gamma < 0.5
    assert not lc["s9/t1#raw"].associated.hard  # type: ignore[attr-defined]


def test_a_hedged_value_stays_soft_however_close_the_match() -> None:
    """ "might switch to matcha" (extracted `soft`, unkeyed) at a clear match and another
    value: the tea stands beside it (Appendix F: "thinking about moving to London" keeps
    Istanbul), lowered through Ω only."""
    svc, vectors = service()
    svc.apply(keyed("tea", 0, "user.morning_drink", "green tea", DRINK))
    svc.apply(hedged("maybe", 40, near(DRINK, HARD + 0.05, 5), "matcha"))
    lc = records(vectors)
    assert lc["tea"].state is S.ACTIVE  # type: ignore[attr-defined]
    assert [p.by for p in lc["tea"].soft_pressures] == ["maybe"]  # type: ignore[attr-defined]
    assert not lc["maybe"].associated.hard  # type: ignore[attr-defined]


def test_weak_matches_and_accumulate_slots_attract_nothing() -> None:
    svc, vectors = service()
    svc.apply(keyed("tea", 0, "user.morning_drink", "green tea", DRINK))
    svc.apply(keyed("city", 0, "user.current_city", "Istanbul", CITY,
                    category=Category.IDENTITY_SELF_CONCEPT))  # fmt: skip
    svc.apply(free("weak", 10, near(DRINK, SOFT - 0.05, 5), value="coffee"))
    svc.apply(free("moved", 10, near(CITY, 0.99, 5), value="London"))
    lc = records(vectors)
    assert all(x.state is S.ACTIVE and not x.soft_pressures for x in lc.values())  # type: ignore[attr-defined]
    assert lc["weak"].associated is None and lc["moved"].associated is None  # type: ignore[attr-defined]


def test_only_earlier_keyed_facts_attract() -> None:
    """A statement made before the slot existed is not an update of it."""
    espresso = free("espresso", 0, near(DRINK, 0.9, 5), value="espresso")
    tea = keyed("tea", 10, "user.morning_drink", "green tea", DRINK)
    assert best_match(espresso, [tea], POLICY) is None
    assert best_match(espresso.model_copy(update={"ingest_time": datetime(2027, 1, 1,
                      tzinfo=UTC)}), [tea], POLICY) is not None  # fmt: skip


def test_the_best_match_wins_and_ties_go_to_the_smaller_slot_key() -> None:
    u = free("u", 30, near(DRINK, 0.9, 5), value="x")
    a = keyed("a", 0, "user.b_slot", "v", DRINK)
    b = keyed("b", 0, "user.a_slot", "v", DRINK)
    match = best_match(u, [a, b], POLICY)
    assert match is not None and match.slot == "user.a_slot"


def test_forgetting_the_anchor_releases_the_associated_fact() -> None:
    svc, vectors = service()
    svc.apply(keyed("tea", 0, "user.morning_drink", "green tea", DRINK))
    svc.apply(free("espresso", 40, near(DRINK, HARD + 0.05, 5), value="espresso"))
    svc.forget(ForgetCommand(command_id="c", user_id="u1", edge_id="tea",
                             issued_at=datetime(2026, 6, 1, tzinfo=UTC)))  # fmt: skip
    lc = records(vectors)
    assert set(lc) == {"espresso"}
    assert lc["espresso"].state is S.ACTIVE and lc["espresso"].associated is None  # type: ignore[attr-defined]


def test_forgetting_the_associated_fact_reinstates_the_old_value() -> None:
    svc, vectors = service()
    svc.apply(keyed("tea", 0, "user.morning_drink", "green tea", DRINK))
    svc.apply(free("espresso", 40, near(DRINK, HARD + 0.05, 5), value="espresso"))
    receipt = svc.forget(ForgetCommand(command_id="c", user_id="u1", edge_id="espresso",
                                       issued_at=datetime(2026, 6, 1, tzinfo=UTC)))  # fmt: skip
    assert receipt.removed["slot_index"] == 1  # association bookkeeping is not counted
    assert records(vectors)["tea"].state is S.ACTIVE  # type: ignore[attr-defined]


STREAM = [
    keyed("tea", 0, "user.morning_drink", "green tea", DRINK),
    keyed("coffee", 20, "user.morning_drink", "filter coffee", near(DRINK, 0.9, 6)),
    free("espresso", 40, near(DRINK, HARD + 0.05, 5), value="espresso"),
    raw_turn("s3/t1#raw", 50, near(DRINK, SOFT + 0.05, 7)),
    free("early", -5, near(DRINK, 0.95, 8), value="matcha"),  # before any anchor
    keyed("rent", 1, "user.rent", "$950", RENT, category=Category.FINANCIAL_MATERIAL),
    free("rent_up", 30, near(RENT, HARD + 0.1, 9), value="$1,100"),
    raw_turn("s4/t1#raw", 35, near(RENT, SOFT + 0.02, 10)),
    keyed(
        "city", 0, "user.current_city", "Istanbul", CITY, category=Category.IDENTITY_SELF_CONCEPT
    ),
    free("other", 60, axis(11), value="jazz"),
    hedged("hedged", 45, near(DRINK, HARD + 0.08, 12), "matcha"),
]


@settings(max_examples=80, deadline=None)
@given_deliveries(STREAM, 5)
def test_order_and_duplication_do_not_change_the_outcome(
    order: list[EdgeEvent], repeats: list[EdgeEvent]
) -> None:
    vectors = assert_delivery_order_free(service, STREAM, [*order, *repeats])
    lc = records(vectors)
    # What the in-order outcome is: the latest clear restatement leads each slot.
    assert lc["espresso"].state is S.ACTIVE and lc["coffee"].state is S.SUPERSEDED  # type: ignore[attr-defined]
    assert lc["rent"].state is S.SUPERSEDED and lc["rent_up"].state is S.ACTIVE  # type: ignore[attr-defined]
    assert lc["early"].associated is None and lc["other"].associated is None  # type: ignore[attr-defined]


@settings(max_examples=30, deadline=None)
@given_forgets(STREAM)
def test_a_forget_converges_to_never_having_seen_the_fact(
    order: list[EdgeEvent], forgotten: str
) -> None:
    assert_forget_converges(service, STREAM, order, forgotten)
