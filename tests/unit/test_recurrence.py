"""A routine told with a weekday keeps no event time; a one-off on a weekday does (issue 11).

Obligations and logistics expire at their event time (paper Table 1 rows 9-10, §3.3); a
weekly habit is no such event, and giving it the next weekday's date made it expire a week
later and leave every question about the user's pastimes.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas.events import TurnEvent
from workers.extraction.recurrence import recurring_day
from workers.extraction.rules import RuleExtractor

AT = datetime(2025, 9, 14, 10, tzinfo=UTC)


def _turn(text: str) -> TurnEvent:
    return TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", text=text, timestamp=AT)


@pytest.mark.parametrize(
    ("clause", "mention"),
    [
        ("Thursday night = pottery class, I've been going for three years", "Thursday"),
        ("pottery class every Thursday at 7pm", "Thursday at 7pm"),
        ("Fridays I have choir rehearsal at 6pm", "at 6pm"),
        ("I usually have my tennis lesson on Monday mornings", "Monday mornings"),
    ],
)
def test_the_day_a_routine_recurs_on_is_no_event_time(clause: str, mention: str) -> None:
    assert recurring_day(clause, mention)


@pytest.mark.parametrize(
    ("clause", "mention"),
    [
        ("pottery class is on Thursday at 7pm", "Thursday at 7pm"),  # no recurrence said
        ("every week I swim, but the dentist is next Thursday", "next Thursday"),
        ("I go every year; this time the trip is on 3 October", "on 3 October"),
    ],
)
def test_a_dated_occurrence_keeps_its_time(clause: str, mention: str) -> None:
    assert not recurring_day(clause, mention)


def test_a_weekly_class_is_not_extracted_as_an_event_that_expires() -> None:
    routine = RuleExtractor().extract(
        _turn("Thursday eve = pottery class, been going 3 years. Any glaze tips?")
    )
    assert all(f.event_time is None for f in routine)
    one_off = RuleExtractor().extract(_turn("Pottery class is on Thursday at 7pm, first one!"))
    assert any(f.event_time is not None for f in one_off)


@pytest.mark.parametrize(
    ("clause", "mention"),
    [
        ("Saturday mornings I'm at the climbing wall with my cousin", "Saturday mornings"),
        ("Tue evenings: pottery at the community centre", "Tue evenings"),
        ("the five-a-side lot meet Friday nights behind the school", "Friday nights"),
    ],
)
def test_a_weekday_before_a_plural_part_of_the_day_is_a_routine(clause: str, mention: str) -> None:
    """ "Monday nights" says every Monday night, as "Mondays" says every Monday (round 17)."""
    assert recurring_day(clause, mention)


@pytest.mark.parametrize(
    ("clause", "mention"),
    [
        ("Saturday morning I'm at the climbing wall for a taster session", "Saturday morning"),
        ("Friday night the lads are coming round", "Friday night"),
    ],
)
def test_a_weekday_before_one_part_of_the_day_is_one_occasion(clause: str, mention: str) -> None:
    assert not recurring_day(clause, mention)
