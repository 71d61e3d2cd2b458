"""Witness of round 26's standing arrangement (workers/extraction/recurrence.py,
`arrangement_occurrence`; finishing.py): a delivery or booking told as recurring, with the day
its first occurrence came, is no one-off dated event — a dated logistics fact would expire with
that day (Table 1 rows 9–10) while the arrangement holds, and a current question would never be
served it. A future day (the next occasion) and a one-off delivery keep their dates.

Every sentence is written here for the test; none comes from a paper-turns set.
"""

from __future__ import annotations

from datetime import UTC, datetime

from schemas.events import TurnEvent
from workers.extraction.recurrence import arrangement_occurrence
from workers.extraction.rules import RuleExtractor

AT = datetime(2026, 2, 21, 10, 0, tzinfo=UTC)


def _dated(text: str) -> list[datetime]:
    turn = TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", text=text,
                     timestamp=AT)  # fmt: skip
    return [f.event_time for f in RuleExtractor().extract(turn, []) if f.event_time is not None]


def test_the_first_occurrence_of_a_standing_delivery_dates_nothing() -> None:
    assert (
        _dated("I've set up a meal kit delivery every Monday now, the first one arrived today.")
        == []
    )


def test_the_next_occasion_and_a_one_off_keep_their_dates() -> None:
    assert _dated(
        "I've set up a meal kit delivery every Monday now, the first one arrives on 9 March."
    )
    assert _dated("The meal kit delivery arrived today.")


def test_the_reading() -> None:
    today, later = AT.replace(hour=0), datetime(2026, 3, 9, tzinfo=UTC)
    assert arrangement_occurrence("a box every Friday now, the first came today", today, AT)
    assert not arrangement_occurrence("a box every Friday, the next one on the 9th", later, AT)
    assert not arrangement_occurrence("the box came today", today, AT)
    # A frequency adverb alone makes no arrangement ("I always get it delivered").
    assert not arrangement_occurrence("it usually comes, and it came today", today, AT)
