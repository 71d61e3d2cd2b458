"""A withdrawal the ingest read but whose retraction retracted nothing (round 18, AV7).

The ingest's markers draw a retraction fact from "we've called off the X conversion", keyed by
a slot the plan was never given ("converting the X" told in another session), and
retargeting finds no edge saying the slot's head: the retraction retracts nothing and the
plan stays current. With `withdrawn.unresolved` the query rule reads that turn (or, when only
it ranks, its retraction fact) as the withdrawal: its target is the nearest live assertion
sharing a content word (§3.3, A.9: a retracted plan is masked for current questions; C.5
pass by absence). A plan stated and then asked about is a live assertion."""

from __future__ import annotations

from datetime import datetime

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent
from schemas.records import FactRecord, Lifecycle
from tests.unit.test_withdrawn import LATER, ON, THEN, _candidate, _given_up, _unit
from workers.extraction.own_withdrawal import asserts
from workers.query import withdrawn
from workers.query.candidates import MergedCandidate

RULE = ON.withdrawn
OLD_RULE = RULE.model_copy(update={"unresolved": False})
#: A plan, and a withdrawal the stand-in probe does not read (its 4th coordinate is 0).
PLAN = _unit(1.0, 0.0)
UNREAD = _unit(0.6, 0.0, 0.8)
PLAN_TEXT = "Big news: we're buying a boat. What should we ask the broker?"
OFF_TEXT = "We've called off the boat — it's off for good. Where could we sail instead?"


def _retraction(at: datetime = LATER, edge_id: str = "off#0") -> FactRecord:
    return FactRecord(edge=EdgeEvent(
        edge_id=edge_id, user_id="u1", text="User dropped the boat plan",
        categories=Category.OTHER, ingest_time=at, retracts=("project.boat_plan",),
        source_turns=("off",),
    ))  # fmt: skip


def _plan(text: str = PLAN_TEXT) -> MergedCandidate:
    return _candidate("plan", THEN, PLAN, text=text)


def _off() -> MergedCandidate:
    return _candidate("off", LATER, UNREAD, text=OFF_TEXT, drawn=("off#0",))


def test_an_ingest_retraction_that_retracted_nothing_withdraws_the_plan() -> None:
    found = _given_up(_plan(), _off(), facts=[_retraction()])
    assert set(found) == {"plan"} and found["plan"].family == withdrawn.INGEST
    # Before round 18 the rule skipped every turn the ingest drew a retraction from.
    assert _given_up(_plan(), _off(), facts=[_retraction()], rule=OLD_RULE) == {}
    # Only for questions about now or ahead.
    assert _given_up(_plan(), _off(), facts=[_retraction()], intent=Intent.PAST) == {}


def test_a_retraction_that_retracted_a_statement_is_not_guessed_again() -> None:
    other = _candidate("other", THEN, _unit(0.7, 0.0, 0.7), text="We have a boat trailer.")
    gone = other.record.model_copy(update={"lifecycle": Lifecycle(
        retracted_by="off#0", retracted_at=LATER,
    )})  # fmt: skip
    retracted = MergedCandidate(gone, 0.6, ("dense",), other.vector)
    assert _given_up(_plan(), _off(), memory=[retracted], facts=[_retraction()]) == {}


def test_the_retraction_fact_stands_for_its_turn_when_only_it_ranks() -> None:
    fact = _retraction()
    cand = MergedCandidate(fact, 0.6, ("dense",), UNREAD)
    found = _given_up(_plan(), cand)
    assert set(found) == {"plan"} and found["plan"].by == "off#0"
    assert _given_up(_plan(), cand, rule=OLD_RULE) == {}


def test_the_target_must_share_a_content_word() -> None:
    assert _given_up(_plan("Big news: we're buying a caravan. What to ask?"), _off(),
                     facts=[_retraction()]) == {}  # fmt: skip


def test_a_plan_stated_then_asked_about_asserts_it() -> None:
    assert asserts(PLAN_TEXT)
    assert not asserts("Should we buy a boat? Maybe a small one, if it's cheap?")
    # The old gate (any question in the turn) leaves the plan no target.
    probe_off = _candidate("off", LATER, _unit(0.6, 0.0, 0.0, 0.8), text="The boat plan is dead.")
    assert set(_given_up(_plan(), probe_off)) == {"plan"}
    assert _given_up(_plan(), probe_off, rule=OLD_RULE) == {}


def test_the_target_must_say_a_word_the_retraction_names() -> None:
    # A marker misread on a turn about something else ("my forearms are toast") names a slot
    # the plan never says: the plan sharing another word with the turn stays.
    misread = _candidate("off", LATER, UNREAD, drawn=("off#0",),
                         text="Great session at the boat club, my forearms are toast.")  # fmt: skip
    named_else = _retraction().model_copy(update={"edge": _retraction().edge.model_copy(
        update={"retracts": ("project.forearms",)})})  # fmt: skip
    assert _given_up(_plan(), misread, facts=[named_else]) == {}
    named = _retraction().model_copy(update={"edge": _retraction().edge.model_copy(
        update={"retracts": ("project.boat",)})})  # fmt: skip
    assert set(_given_up(_plan(), misread, facts=[named])) == {"plan"}


def test_a_resolved_retraction_is_read_from_the_edge_set_not_the_nearest_statements() -> None:
    # Review r18 H3: the statement the ingest retracted is far from the withdrawal's vector
    # (retargeting reaches it by slot key or head word), and 25 other statements are nearer
    # than it — more than the rule's 20 targets. Resolved all the same: nothing is masked.
    from datetime import timedelta

    from tests.unit.test_withdrawn import GIVES_UP, OLD

    retraction = FactRecord(edge=EdgeEvent(
        edge_id="off#0", user_id="u1", text="User dropped the sailing trip",
        categories=Category.OTHER, ingest_time=LATER, retracts=("trip.sailing",),
        source_turns=("off",),
    ))  # fmt: skip
    off = _candidate("off", LATER, GIVES_UP, drawn=("off#0",),
                     text="we're not doing the sailing trip anymore")  # fmt: skip
    far = _unit(0.2, 0.0, 0.98)
    sailing = _candidate("sailing", THEN, far, text="we're sailing to Skye in June")
    gone = MergedCandidate(sailing.record.model_copy(update={"lifecycle": Lifecycle(
        retracted_by="off#0", retracted_at=LATER,
    )}), 0.6, ("dense",), far)  # fmt: skip
    nearer = [
        _candidate(f"f{i}", THEN - timedelta(days=i + 1),
                   _unit(0.4, 0.0, 0.3, 0.0, 0.866 + i * 1e-4), text=f"chat {i}")
        for i in range(25)
    ]  # fmt: skip
    assert _given_up(OLD, off, memory=[gone, *nearer], facts=[retraction]) == {}


def test_a_probe_read_turn_the_ingest_drew_a_retraction_from_is_bound_by_its_slot() -> None:
    # Review r18 H3: a turn the probe reads (family None) from which the ingest drew a
    # retraction that retracted nothing: its target must still say a word of the named slot.
    from tests.unit.test_withdrawn import GIVES_UP, PLAN

    boat = _candidate("plan", THEN, PLAN, text="we're restoring an old boat this summer")
    off = _candidate("off", LATER, GIVES_UP, drawn=("off#0",),
                     text="we're not doing it anymore")  # fmt: skip
    retraction = _retraction()  # names project.boat_plan: "boat"
    found = _given_up(boat, off, facts=[retraction])
    assert set(found) == {"plan"} and found["plan"].family is None  # the probe read it
    elsewhere = FactRecord(edge=retraction.edge.model_copy(update={"retracts": ("trip.skye",)}))
    assert _given_up(boat, off, facts=[elsewhere]) == {}


def test_another_partys_cancelling_or_a_filler_slot_withdraws_no_plan() -> None:
    # Review r18 H2: ordinary chat the ingest's marker misread. The airline's act, not the
    # user's (the user rebooked), and a key made of filler words ("project.new_ones",
    # "project.put" from cabinets scrapped for new ones) name no plan of the user's.
    rome = _candidate("plan", THEN, PLAN, text="I'm flying to Rome on the 14th for the conference")
    airline = _candidate(
        "off",
        LATER,
        UNREAD,
        drawn=("off#0",),
        text="The airline cancelled my flight to Rome, so I rebooked for Tuesday.",
    )
    flight = FactRecord(edge=_retraction().edge.model_copy(update={"retracts": ("flight.rome",)}))
    assert _given_up(rome, airline, facts=[flight]) == {}
    # Said as the user's own act, the same retraction withdraws the plan.
    own = _candidate(
        "off",
        LATER,
        UNREAD,
        drawn=("off#0",),
        text="We cancelled the flight to Rome, the conference is online now.",
    )
    assert set(_given_up(rome, own, facts=[flight])) == {"plan"}
    kitchen = _candidate(
        "plan",
        THEN,
        PLAN,
        text="We started renovating the kitchen, the new floor goes in next month",
    )
    cabinets = _candidate(
        "off",
        LATER,
        UNREAD,
        drawn=("off#0",),
        text="We scrapped the old kitchen cabinets and put in new ones.",
    )
    filler = FactRecord(edge=_retraction().edge.model_copy(
        update={"retracts": ("project.new_ones", "project.put")}
    ))  # fmt: skip
    assert _given_up(kitchen, cabinets, facts=[filler]) == {}


def test_whose_act_a_withdrawal_word_is() -> None:
    from workers.extraction.own_withdrawal import users_own_marker

    for own in ("We cancelled the trip.", "scrapped the boat plan", "The trip is cancelled.",
                "the boat plan is dead", "The gig got cancelled"):  # fmt: skip
        assert users_own_marker(own), own
    for other in ("The airline cancelled my flight, so I rebooked.",
                  "my boss cancelled the offsite"):  # fmt: skip
        assert not users_own_marker(other), other
