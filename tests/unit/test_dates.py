"""Event-time resolution against the turn timestamp (paper §3.3, Appendix K).

The turn time is Wednesday 2025-03-12 14:30 UTC. The second table pins the cases where
dateparser alone is wrong or silent and our thin layer takes over.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from workers.extraction.dates import find_event_time, has_date_cue, resolve_event_time

BASE = datetime(2025, 3, 12, 14, 30, tzinfo=UTC)


def at(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "prefer", "expected"),
    [
        ("my flight is tomorrow", "future", at(2025, 3, 13, 14, 30)),
        ("flight to Tokyo at 6am tomorrow", "future", at(2025, 3, 13, 6, 0)),
        ("tomorrow at 6am", "future", at(2025, 3, 13, 6, 0)),
        ("dinner tonight", "future", at(2025, 3, 12, 20, 0)),
        ("I had it yesterday", "past", at(2025, 3, 11, 14, 30)),
        ("today", "future", at(2025, 3, 12, 14, 30)),
        ("dentist on Friday", "future", at(2025, 3, 14)),
        ("I moved on Friday", "past", at(2025, 3, 7)),
        ("meeting next Tuesday", "future", at(2025, 3, 18)),
        ("on Friday at 3pm", "future", at(2025, 3, 14, 15, 0)),
        ("at 3pm on Friday", "future", at(2025, 3, 14, 15, 0)),
        ("this Sunday at noon", "future", at(2025, 3, 16, 12, 0)),
        ("next week", "future", at(2025, 3, 19, 14, 30)),
        ("next month", "future", at(2025, 4, 12, 14, 30)),
        ("in 3 days", "future", at(2025, 3, 15, 14, 30)),
        ("in two weeks", "future", at(2025, 3, 26, 14, 30)),
        ("2 weeks ago", "past", at(2025, 2, 26, 14, 30)),
        ("deadline is 2025-04-01", "future", at(2025, 4, 1)),
        ("meeting on 3/14 at 2pm", "future", at(2025, 3, 14, 14, 0)),
        ("March 20", "future", at(2025, 3, 20)),
        ("on March 5", "future", at(2026, 3, 5)),  # already past this year: next one
        ("on March 5", "past", at(2025, 3, 5)),
        ("the 5th of March", "past", at(2025, 3, 5)),
        ("September 12 2026", "future", at(2026, 9, 12)),
        ("Feb 20 2025", "future", at(2025, 2, 20)),
        ("at 6am", "future", at(2025, 3, 13, 6, 0)),  # 6am has passed today
        ("at 3pm", "future", at(2025, 3, 12, 15, 0)),
        ("at 18:30", "future", at(2025, 3, 12, 18, 30)),
        ("in May", "future", at(2025, 5, 12)),
    ],
)
def test_resolves_common_expressions(text: str, prefer: str, expected: datetime) -> None:
    assert resolve_event_time(text, BASE, prefer) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "prefer", "expected"),
    [
        # dateparser reads the ordinal as a month (→ Dec 12 / Mar 12 2026)
        ("exam on the 12th", "future", at(2025, 3, 12)),
        ("exam on the 20th", "future", at(2025, 3, 20)),
        ("on the 3rd", "future", at(2025, 4, 3)),
        ("on the 3rd", "past", at(2025, 3, 3)),
        ("due on the 31st", "future", at(2025, 3, 31)),
        ("on the 30th", "past", at(2025, 1, 30)),  # February has no 30th
        # dateparser returns tomorrow
        ("the day after tomorrow", "future", at(2025, 3, 14)),
        ("the day before yesterday", "past", at(2025, 3, 10)),
        # dateparser goes backwards
        ("a week from today", "future", at(2025, 3, 19, 14, 30)),
        ("two days from tomorrow", "future", at(2025, 3, 15, 14, 30)),
        # dateparser finds nothing
        ("in a couple of days", "future", at(2025, 3, 14, 14, 30)),
        ("in a few weeks", "future", at(2025, 4, 2, 14, 30)),
        ("a couple of months ago", "past", at(2025, 1, 12, 14, 30)),
        ("this weekend", "future", at(2025, 3, 15)),
        ("next weekend", "future", at(2025, 3, 22)),
        ("by the end of the month", "future", at(2025, 3, 31)),
        ("by the end of the week", "future", at(2025, 3, 14)),
        ("end of next month", "future", at(2025, 4, 30)),
        ("mid-April", "future", at(2025, 4, 15)),
        ("tmrw at 3pm", "future", at(2025, 3, 13, 15, 0)),
        ("2moro", "future", at(2025, 3, 13, 14, 30)),
        ("this weekend at 10am", "future", at(2025, 3, 15, 10, 0)),
        # British day counts: dateparser reads "a fortnight today" as a fortnight ago and
        # drops the count of "a week on Thursday" / "Thursday week"
        ("the reunion dinner is a fortnight today", "future", at(2025, 3, 26, 14, 30)),
        ("two weeks tomorrow at 7pm", "future", at(2025, 3, 27, 19, 0)),
        ("the consultation is a week on Thursday", "future", at(2025, 3, 20)),
        ("three weeks on Friday", "future", at(2025, 4, 4)),
        ("Thursday week at 3pm", "future", at(2025, 3, 20, 15, 0)),
        ("I quit a fortnight today", "past", at(2025, 2, 26, 14, 30)),
    ],
)
def test_own_layer_covers_dateparser_gaps(text: str, prefer: str, expected: datetime) -> None:
    assert resolve_event_time(text, BASE, prefer) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "we have 2 kids",  # dateparser: "we" → Wednesday
        "I sat down",  # "sat" → Saturday
        "I may go",  # "may" → May
        "vegetarian for 5 years",  # "5 years" → 2030
        "it costs 1100 a month",  # → a date next month
        "I'm 34 and I live in Austin",
        "I live in London",
        "see you at 5",
        "I work 24/7",  # dateparser: July 24
        "add 1/2 cup of flour",  # dateparser: January 2
        "",
    ],
)
def test_no_event_time_without_a_date(text: str) -> None:
    assert resolve_event_time(text, BASE) is None


def test_result_is_utc_and_the_turn_time_is_read_as_utc() -> None:
    istanbul = BASE.astimezone(timezone(timedelta(hours=3)))
    assert resolve_event_time("tomorrow at 6am", istanbul) == at(2025, 3, 13, 6, 0)
    naive = BASE.replace(tzinfo=None)
    when = resolve_event_time("tomorrow at 6am", naive)
    assert when == at(2025, 3, 13, 6, 0) and when.tzinfo is not None


def test_mention_reports_the_words() -> None:
    mention = find_event_time("my flight to Tokyo is at 6am tomorrow", BASE)
    assert mention is not None
    assert mention.text == "at 6am tomorrow"


def test_cue_gate_is_cheap_and_selective() -> None:
    """Most chat has no date: the gate keeps dateparser (~1 ms a call) out of the way."""
    assert not has_date_cue("haha yeah that's so true, I love sushi")
    assert not has_date_cue("we may sit down and march on")
    assert has_date_cue("see you on Friday")
    assert has_date_cue("in 3 days")
    assert has_date_cue("tmrw")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a dictated day of the month: the turn is Wednesday 12 March 2025
        ("the plumber comes on the twenty-fourth, first thing", at(2025, 3, 24)),
        ("my viva is on the second of April", at(2025, 4, 2)),
        ("the recital is April the ninth", at(2025, 4, 9)),
        ("parents' evening, Monday the seventeenth at 6pm", at(2025, 3, 17, 18, 0)),
        ("I'm away on the thirty-first and back in April", at(2025, 3, 31)),
    ],
)
def test_a_day_of_the_month_said_as_a_word(text: str, expected: datetime) -> None:
    assert has_date_cue(text)
    assert resolve_event_time(text, BASE, "future") == expected


@pytest.mark.parametrize(
    "text",
    [
        "the second shop on the left was cheaper",
        "that was the first time I tried it",
        "we live on the third floor now",
        "on the second thought, skip it",
    ],
)
def test_an_ordinal_that_is_no_day_stays_no_date(text: str) -> None:
    assert not has_date_cue(text)
    assert resolve_event_time(text, BASE, "future") is None


@pytest.mark.parametrize(
    ("text", "prefer", "expected"),
    [
        # Day-first dotted dates (DIN 5008 and most of Europe), with and without the year.
        (
            "Kiln firing: 13.10.2026 at 08:00",
            "future",
            datetime(2026, 10, 13, 8, 0, tzinfo=UTC),
        ),
        ("the tiler comes 1.4.2025", "future", datetime(2025, 4, 1, tzinfo=UTC)),
        ("vet booked for 24.03., bring the papers", "future", datetime(2025, 3, 24, tzinfo=UTC)),
        ("new rent applies from 01.02.", "future", datetime(2026, 2, 1, tzinfo=UTC)),
        ("moved in on 01.02.", "past", datetime(2025, 2, 1, tzinfo=UTC)),
    ],
)
def test_a_day_first_dotted_date(text: str, prefer: str, expected: datetime) -> None:
    assert resolve_event_time(text, BASE, prefer) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "upgraded to Python 3.11.",  # a version: one-digit day, no year
        "it came to €12.50.",  # a price
        "the ratio was 10.05 %",  # before a unit
        "I am 1.93 m tall",  # a decimal
        "build v2.10.2025 is out",  # inside a word
        "see you 31.02.",  # no such day
        "it is 29.02. in the plan",  # 29 February, in no year the turn can mean
    ],
)
def test_a_dotted_number_that_is_no_date(text: str) -> None:
    assert resolve_event_time(text, BASE) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A day of a month with an hour after "at": dateparser read "March 20 at ten" as the
        # year 2110 (then dropped as too far), "on Friday at ten" as 10 October.
        ("the plumber comes on March 20 at 10", at(2025, 3, 20, 10)),
        ("the plumber comes on March 20 at ten", at(2025, 3, 20, 10)),
        ("booked for 20 March at 4", at(2025, 3, 20, 16)),
        ("on the 20th of March at five o'clock", at(2025, 3, 20, 17)),
        ("on Friday at ten", at(2025, 3, 14, 10)),
        ("at ten on Friday", at(2025, 3, 14, 10)),
    ],
)
def test_an_hour_after_a_day_of_the_month_or_in_words(text: str, expected: datetime) -> None:
    assert resolve_event_time(text, BASE, "future") == expected


@pytest.mark.parametrize("text", ["we met at one point", "I may at 5 go", "at ten I sleep"])
def test_an_hour_word_without_a_day_is_no_date(text: str) -> None:
    assert find_event_time(text, BASE, "future") is None


@pytest.mark.parametrize("text", ["it's two weeks today since I quit", "been a fortnight today"])
def test_an_anniversary_of_something_done_is_not_ahead(text: str) -> None:
    """A count of weeks to today that says "since", or follows "been", looks back: no upcoming
    day is read."""
    when = resolve_event_time(text, BASE, "future")
    assert when is None or when <= BASE
