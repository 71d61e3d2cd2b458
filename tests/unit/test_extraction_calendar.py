"""Table tests for calendar entries named by any noun (`patterns_calendar`): each must get
its event time, so that it — and the raw turn kept beside it — expires (AV2), and a later
reschedule or restatement must land in its slot. Turn time: Wednesday 2025-03-12 14:30 UTC.
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime

import pytest

from schemas.categories import Category
from schemas.events import TurnEvent
from workers.extraction import ExtractedFact, RuleExtractor

TS = datetime(2025, 3, 12, 14, 30, tzinfo=UTC)
EXTRACTOR = RuleExtractor()
C = Category


def extract(text: str) -> list[ExtractedFact]:
    turn = TurnEvent(
        user_id="u1", session_id="s1", turn_id=f"t{zlib.crc32(text.encode())}",
        role="user", text=text, timestamp=TS,
    )  # fmt: skip
    return EXTRACTOR.extract(turn)


ROWS = (
    ("Boiler check on March 19 at 12pm", "event.boiler_check", C.OBLIGATIONS, "2025-03-19T12:00"),
    ("Team offsite on Friday at 9am", "event.team_offsite", C.OBLIGATIONS, "2025-03-14T09:00"),
    ("Car service booked on March 20 at 10am", "event.car_service", C.OBLIGATIONS,
     "2025-03-20T10:00"),
    ("Booked the barber on March 22 at 3pm", "appointment.barber", C.OBLIGATIONS,
     "2025-03-22T15:00"),
    ("Got a physio slot on March 26 at 10am", "appointment.physio", C.OBLIGATIONS,
     "2025-03-26T10:00"),
    ("MOT scheduled for March 28 at 8am", "event.mot", C.OBLIGATIONS, "2025-03-28T08:00"),
    ("Parents' evening is on Monday at 7pm", "event.parents_evening", C.OBLIGATIONS,
     "2025-03-17T19:00"),
    ("I'm on call on Saturday at 4pm", "event.on_call", C.OBLIGATIONS, "2025-03-15T16:00"),
    ("The plumber is coming on Thursday at 5pm", "event.plumber", C.LOGISTICAL_CONTEXT,
     "2025-03-13T17:00"),
    ("Electrician's coming round on Monday at 10am", "event.electrician", C.LOGISTICAL_CONTEXT,
     "2025-03-17T10:00"),
    ("The sofa arrives on Sunday at 4pm", "delivery.sofa", C.LOGISTICAL_CONTEXT,
     "2025-03-16T16:00"),
    ("They're delivering the desk on March 21 at 3pm", "delivery.desk", C.LOGISTICAL_CONTEXT,
     "2025-03-21T15:00"),
    ("The washing machine is coming on March 24 at 2pm", "delivery.machine",
     C.LOGISTICAL_CONTEXT, "2025-03-24T14:00"),
    ("Window cleaner booked for Friday at 8am", "event.window_cleaner", C.OBLIGATIONS,
     "2025-03-14T08:00"),
)  # fmt: skip


@pytest.mark.parametrize(("text", "slot", "category", "when"), ROWS)
def test_calendar_entries(text: str, slot: str, category: Category, when: str) -> None:
    facts = [f for f in extract(text) if f.slot_key == slot]
    assert facts, f"{text!r}: nothing in {slot}; got {[f.slot_key for f in extract(text)]}"
    fact = facts[0]
    assert fact.primary_category is category, fact.categories
    assert fact.event_time is not None and fact.event_time.isoformat().startswith(when), fact


@pytest.mark.parametrize(
    "text",
    [
        "Dinner on Friday at 8 with the team",
        "I had lunch on Monday at 1pm",
        "It's on Friday at 5pm I think",
        "Work on Monday at 9 as usual",
        "Booked it for Friday",
    ],
)
def test_not_calendar_entries(text: str) -> None:
    assert not [f for f in extract(text) if (f.slot_key or "").startswith("event.")], text


UPDATES = (
    ("Haircut booked on March 16 at 9:30am", "They rescheduled my haircut to Thursday at 2pm"),
    ("Booked the dentist on March 25 at 11:30am", "My dentist appointment got moved to April 2"),
    ("Fridge delivery on March 16 at 3pm", "They're delivering the fridge on March 18 at 9am"),
    ("Got a physio slot on March 26 at 10am", "The physio appointment was pushed to Friday"),
    ("Booked the vet on Thursday at 9am", "The vet appointment is now on Friday at 10am"),
)


@pytest.mark.parametrize(("before", "after"), UPDATES)
def test_reschedule_lands_in_the_entry_slot(before: str, after: str) -> None:
    earlier = {f.slot_key for f in extract(before) if f.slot_key}
    later = {f.slot_key for f in extract(after) if f.slot_key}
    assert earlier and earlier & later, (before, earlier, after, later)
