"""A retraction whose named slot was never filled retracts what the user named (issue 11).

"I'm drafting a book proposal …" (no fact extracted: only the raw turn) … a session later
"I've abandoned the book" (a retraction of `project.book`, a slot nobody filled): the
retraction takes back the user's earlier edge that shares a word with the name and is the
most similar to it. Witnesses, the guards, and order/forget independence.
"""

from __future__ import annotations

import numpy as np
from hypothesis import settings

from schemas.categories import Category, LifecycleState
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from tests.unit.edge_helpers import axis, edge, near
from tests.unit.lifecycle_properties import (
    assert_delivery_order_free,
    assert_forget_converges,
    given_deliveries,
    given_forgets,
)
from workers.lifecycle.retargeting import find_target, named_words
from workers.lifecycle.service import LifecycleService
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

POLICY = load_policy()
S = LifecycleState
FLOOR = POLICY.association.retraction_cosine


BOOK = axis(0)
TRIP = axis(1)


def raw(edge_id: str, day: float, text: str, vector: np.ndarray) -> EdgeEvent:
    e = edge(edge_id, day=day, slot=None, update="accumulate", vector=vector, text=text,
             category=Category.OTHER)  # fmt: skip
    return e.model_copy(update={"episodic": True, "source_turns": (edge_id.split("#")[0],)})


def plan(edge_id: str, day: float, slot: str, text: str, vector: np.ndarray) -> EdgeEvent:
    e = edge(edge_id, day=day, slot=slot, update="replace", vector=vector, text=text,
             category=Category.PROJECTS_ENDEAVORS)  # fmt: skip
    return e.model_copy(update={"source_turns": (edge_id.split("#")[0],)})


def retraction(edge_id: str, day: float, slots: tuple[str, ...], text: str,
               vector: np.ndarray) -> EdgeEvent:  # fmt: skip
    e = edge(edge_id, day=day, slot=None, update="accumulate", vector=vector, text=text,
             retracts=slots, category=Category.PROJECTS_ENDEAVORS)  # fmt: skip
    return e.model_copy(update={"source_turns": (edge_id.split("#")[0],)})


def service() -> tuple[LifecycleService, InMemoryVectorIndex]:
    vectors = InMemoryVectorIndex()
    return LifecycleService(InMemorySlotIndex(), vectors, POLICY), vectors


def states(vectors: InMemoryVectorIndex, user: str = "u1") -> dict[str, LifecycleState]:
    return {r.edge_id: r.lifecycle.state for r in vectors.scroll(user)}


def test_a_plan_kept_only_as_a_raw_turn_is_retracted_by_name() -> None:
    svc, vectors = service()
    svc.apply(raw("s2/book#raw", 0, "I'm drafting a book proposal on grief", BOOK))
    svc.apply(raw("s2/chat#raw", 1, "what's a good tea for the evening?", TRIP))
    svc.apply(retraction("s3/off#0", 30, ("project.book",),
                         "User dropped the book plan", near(BOOK, FLOOR + 0.05, 5)))  # fmt: skip
    lc = {r.edge_id: r.lifecycle for r in vectors.scroll("u1")}
    assert lc["s2/book#raw"].state is S.RETRACTED and lc["s2/book#raw"].retracted_by == "s3/off#0"
    assert lc["s2/chat#raw"].state is S.ACTIVE and lc["s3/off#0"].state is S.ACTIVE


def test_a_plan_keyed_under_another_name_is_retracted() -> None:
    """The plan was given `project.ubc`, its cancellation (another session) guesses
    `project.exchange`: the shared word and the similarity join them."""
    svc, vectors = service()
    svc.apply(plan("s1/ex#0", 0, "project.ubc", "User is applying to go on exchange to UBC", TRIP))
    svc.apply(retraction("s4/off#0", 40, ("project.exchange", "project.ubc_exchange"),
                         "User dropped the exchange plan", near(TRIP, 0.57, 5)))  # fmt: skip
    assert states(vectors)["s1/ex#0"] is S.RETRACTED


def test_a_resolved_retraction_looks_no_further() -> None:
    svc, vectors = service()
    svc.apply(plan("s1/a#0", 0, "project.book", "User is writing a book", BOOK))
    # Similar enough to be a target, too little to join the plan's slot by association.
    svc.apply(raw("s1/b#raw", 1, "the book proposal is due soon", near(BOOK, FLOOR + 0.1, 6)))
    svc.apply(retraction("s3/off#0", 30, ("project.book",), "User dropped the book plan",
                         near(axis(6), 0.9, 5)))  # fmt: skip
    assert states(vectors) == {"s1/a#0": S.RETRACTED, "s1/b#raw": S.ACTIVE, "s3/off#0": S.ACTIVE}


def test_the_guards() -> None:
    r = retraction("s3/off#0", 30, ("project.book",), "User dropped the book plan", BOOK)
    assert named_words(r) == {"book"}
    unnamed = raw("s1/x#raw", 0, "I'm drafting a proposal on grief", BOOK)  # no shared word
    weak = raw("s1/y#raw", 0, "a book I read", near(BOOK, FLOOR - 0.05, 5))
    same_turn = raw("s3/off#raw", 30, "I've abandoned the book", BOOK)
    later = raw("s4/z#raw", 40, "my book proposal", BOOK)
    assert find_target(r, [unnamed, weak, same_turn, later], POLICY) is None
    a = raw("s1/a#raw", 0, "a book", near(BOOK, 0.6, 5))
    b = raw("s1/b#raw", 1, "the book proposal", near(BOOK, 0.8, 6))
    found = find_target(r, [a, b], POLICY)
    assert found is not None and found.edge.edge_id == "s1/b#raw"


STREAM = [
    raw("s1/book#raw", 0, "I'm drafting a book proposal on grief", BOOK),
    raw("s1/chat#raw", 1, "any good books on birds?", near(TRIP, 0.9, 7)),
    plan("s2/ex#0", 2, "project.ubc", "User is applying to go on exchange to UBC", TRIP),
    retraction("s3/off#0", 30, ("project.book",), "User dropped the book plan", near(BOOK, 0.5, 5)),
    retraction(
        "s4/off#0",
        40,
        ("project.exchange", "project.ubc_exchange"),
        "User dropped the exchange plan",
        near(TRIP, 0.6, 6),
    ),
    raw("s5/book2#raw", 50, "started a new book about rivers", near(BOOK, 0.9, 8)),
    raw("s2/ubc#raw", 3, "the ubc library closes early", axis(6)),
]


@settings(max_examples=60, deadline=None)
@given_deliveries(STREAM, 3)
def test_order_and_duplication_do_not_change_the_outcome(
    order: list[EdgeEvent], repeats: list[EdgeEvent]
) -> None:
    vectors = assert_delivery_order_free(service, STREAM, [*order, *repeats])
    lc = states(vectors)
    assert lc["s1/book#raw"] is S.RETRACTED and lc["s2/ex#0"] is S.RETRACTED
    assert lc["s1/chat#raw"] is S.ACTIVE and lc["s5/book2#raw"] is S.ACTIVE
    assert lc["s2/ubc#raw"] is S.ACTIVE  # "ubc" only says which exchange


@settings(max_examples=30, deadline=None)
@given_forgets(STREAM)
def test_a_forget_converges_to_never_having_seen_the_fact(
    order: list[EdgeEvent], forgotten: str
) -> None:
    assert_forget_converges(service, STREAM, order, forgotten)


def test_a_modifier_alone_does_not_name_a_turn() -> None:
    """ "forget about the second shop" (slots `project.business`, `project.second_shop`)
    names a turn about a shop, not one that only says "second": the head of the name must be
    said (`workers/text/heads.py`, as change naming). Without the head rule the price turn,
    the closest, is retracted."""
    r = retraction("s3/off#0", 30, ("project.business", "project.second_shop"),
                   "User dropped the business plan", TRIP)  # fmt: skip
    price = raw("s1/p#raw", 0, "the second quote came in at $400", near(TRIP, 0.9, 5))
    shop = raw("s1/s#raw", 1, "we might open a shop in Leith", near(TRIP, FLOOR + 0.05, 6))
    found = find_target(r, [price, shop], POLICY)
    assert found is not None and found.edge.edge_id == "s1/s#raw"
    assert find_target(r, [price], POLICY) is None
    # The indexed path (service, bulk) gives the same answer.
    svc, vectors = service()
    for e in (price, shop, r):
        svc.apply(e)
    got = states(vectors)
    assert got["s1/p#raw"] is S.ACTIVE and got["s1/s#raw"] is S.RETRACTED


SWIM = axis(7)


def test_a_cancelled_membership_gives_up_the_habit_it_paid_for() -> None:
    """Cancelling "my pool subscription" names the pool, not the subscription: the earlier
    turn about swimming there (raw only, another session) says "pool", never the tie noun."""
    svc, vectors = service()
    svc.apply(raw("s1/swim#raw", 0, "I do lengths at the pool before work most days", SWIM))
    svc.apply(raw("s1/sub#raw", 1, "my phone subscription renews in May", axis(8)))
    off = retraction("s6/off#0", 200, ("project.pool_subscription", "project.subscription"),
                     "User dropped the subscription plan", near(SWIM, FLOOR + 0.1, 5))  # fmt: skip
    assert named_words(off) == {"pool"}
    svc.apply(off)
    lc = states(vectors)
    assert lc["s1/swim#raw"] is S.RETRACTED and lc["s1/sub#raw"] is S.ACTIVE


def test_a_tie_noun_alone_is_still_the_thing_named() -> None:
    """Only a trailing tie noun after another word is dropped: "cancel the subscription"
    names the subscription."""
    r = retraction("s3/off#0", 30, ("project.subscription",), "User dropped it", SWIM)
    assert named_words(r) == {"subscription"}
