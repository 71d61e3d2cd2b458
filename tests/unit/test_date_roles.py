"""A date that names no pending event (workers/extraction/date_roles.py, round 17): an onset,
a weekday already past, a routine's day. The raw turn of a turn without facts then keeps no
event time and never expires (paper §3.3, Appendix K: expiry is for what is pending).

Witnesses: each `WITHOUT_EVENT` sentence got an event time (and expired two weeks after it)
before the mechanism; each `EVENTS` sentence must keep its event. Sentences invented for the
test, not taken from any paper-turns telling.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas.categories import Category
from tests.unit.test_raw_turns import raw_turn, verdict
from workers.extraction.date_roles import no_event
from workers.extraction.dates import find_event_time
from workers.extraction.raw_turns import with_raw_meaning
from workers.extraction.recurrence import recurring_day

SAID = datetime(2025, 3, 1, 10, tzinfo=UTC)  # a Saturday, as in test_raw_turns

WITHOUT_EVENT = (
    # an onset: a lasting state begins on the day
    "they've put me in charge of the night desk from Tuesday",
    "new rota for me, early shifts only, starting Monday",
    "the cheaper tariff applies as of 14 March",
    "rent goes to 950 effective next month",
    # a weekday already past, told after a past-tense verb
    "we finally moved in Thursday, boxes everywhere",
    "handed in my notice at the library on Wednesday, no regrets",
    "the offer was signed Friday and I start in the spring",
    # a routine's day
    "Tuesday evenings I coach the under-tens",
    "Thursday nights: pottery wheel at the arts centre",
    "my Sunday morning running club is the best part of the week",
)
EVENTS = (
    "dentist on Tuesday at 3, ugh",
    "flight to Lisbon from Gatwick on Thursday at 6am",
    "I'm off from Monday to Wednesday for the conference",
    "I booked the vet for Friday",
    "we agreed to meet Friday at the cafe",
    "the appointment was moved to Thursday",
    "my Monday meeting with the bank is at 10",
    "I need Friday off for the move",
)


@pytest.mark.parametrize("text", WITHOUT_EVENT)
def test_a_date_that_begins_a_state_is_past_or_recurs_is_no_event(text: str) -> None:
    mention = find_event_time(text, SAID, "future")
    assert mention is not None and mention.when > SAID  # read ahead: an event before
    assert no_event(text, mention.text)
    (edge,) = with_raw_meaning(raw_turn(text), [verdict(kind=Category.OBLIGATIONS)])
    assert edge.event_time is None
    assert edge.categories == {Category.OTHER: 1.0}


@pytest.mark.parametrize("text", EVENTS)
def test_a_pending_event_keeps_its_date(text: str) -> None:
    mention = find_event_time(text, SAID, "future")
    assert mention is not None
    assert not no_event(text, mention.text)
    (edge,) = with_raw_meaning(raw_turn(text), [verdict(kind=Category.LOGISTICAL_CONTEXT)])
    assert edge.event_time == mention.when
    assert edge.categories == {Category.LOGISTICAL_CONTEXT: 1.0}


def test_a_later_date_of_the_turn_is_read_when_the_first_names_no_event() -> None:
    """The first date begins a state; the turn's next one is an appointment: it is kept."""
    text = "new job from Monday, and the induction is on Wednesday 12 March"
    (edge,) = with_raw_meaning(raw_turn(text), [verdict(kind=Category.OBLIGATIONS)])
    assert edge.event_time == datetime(2025, 3, 12, tzinfo=UTC)


def test_a_weekday_with_its_parts_of_day_in_the_plural_recurs() -> None:
    """recurrence: also for extracted facts (finishing.py reads recurring_day)."""
    assert recurring_day("Friday nights we play darts", "Friday")
    assert recurring_day("yoga, mon eves, church hall", "mon")
    assert recurring_day("my Saturday climbing club", "Saturday")
    assert not recurring_day("Friday night we play darts at the Crown", "Friday night")
    assert not recurring_day("my Saturday plans fell through", "Saturday")
