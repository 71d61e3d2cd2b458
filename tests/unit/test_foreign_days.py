"""A day told in another language inside an English chat gets its event time and expires
(workers/extraction/foreign_days.py, round 24; paper §3.3, A.7.3 / Table 13, Appendix K).

Witnesses per language family — German and Dutch (Germanic), French, Spanish, Italian and
Portuguese (Romance) — through the date reader and through a raw turn's meaning (each fails
without the rewrite: the turn keeps no event time); the guards (words that are also a
morning, a planet, a name, a festival, a duration, a past day); an English turn comes back
as the very same string.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas.categories import Category
from tests.unit.test_raw_turns import raw_turn, verdict
from workers.extraction.dates import find_event_time
from workers.extraction.foreign_days import in_english
from workers.extraction.raw_turns import with_raw_meaning

TOLD = datetime(2026, 3, 2, 9, tzinfo=UTC)  # a Monday


def when(text: str) -> datetime | None:
    mention = find_event_time(in_english(text), TOLD)
    return mention.when if mention else None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # German: weekday, "den N." and month, "um H:MM", "N Uhr", relative days
        ("Termin beim Hausarzt am Mittwoch, den 11. März, um 10:20 — can you remind me?",
         datetime(2026, 3, 11, 10, 20, tzinfo=UTC)),
        ("Steuerberater übermorgen um 16 Uhr, what papers do I bring?",
         datetime(2026, 3, 4, 16, tzinfo=UTC)),
        ("Elternabend morgen um 19:30", datetime(2026, 3, 3, 19, 30, tzinfo=UTC)),
        # Dutch
        ("keuring van de auto overmorgen om 8 uur, any checklist?",
         datetime(2026, 3, 4, 8, tzinfo=UTC)),
        ("sollicitatiegesprek op 19 maart om 14:00", datetime(2026, 3, 19, 14, tzinfo=UTC)),
        # French: "demain à 7h40", "le 3 à 9h", "jeudi prochain"
        ("mon bus pour Genève part demain à 7h40, what snacks?",
         datetime(2026, 3, 3, 7, 40, tzinfo=UTC)),
        ("rendez-vous chez l'ostéo le 17, à 11h30", datetime(2026, 3, 17, 11, 30, tzinfo=UTC)),
        ("vernissage jeudi prochain à 18h", datetime(2026, 3, 5, 18, tzinfo=UTC)),
        # Spanish: weekday, "N de mes", "a las N de la tarde", "pasado mañana"
        ("la revisión es el viernes 13 de marzo a las 5 de la tarde",
         datetime(2026, 3, 13, 17, tzinfo=UTC)),
        ("entrevista pasado mañana a las 10:15", datetime(2026, 3, 4, 10, 15, tzinfo=UTC)),
        # Italian: "domani alle 9", "il 20 marzo"
        ("colloquio domani alle 9:45, consigli?", datetime(2026, 3, 3, 9, 45, tzinfo=UTC)),
        ("l'esame di guida è il 20 marzo alle 8:30", datetime(2026, 3, 20, 8, 30, tzinfo=UTC)),
        # Portuguese: "amanhã às 14h30", "na sexta"
        ("tenho vacina amanhã às 14h30, posso treinar?", datetime(2026, 3, 3, 14, 30, tzinfo=UTC)),
        ("reunião com o contabilista na sexta às 11h", datetime(2026, 3, 6, 11, tzinfo=UTC)),
    ],
)  # fmt: skip
def test_a_day_told_in_another_language_is_read(text: str, expected: datetime) -> None:
    assert when(text) == expected


def test_an_appointment_told_in_another_language_expires_as_a_raw_turn() -> None:
    """The raw turn of such an appointment gets its event time and an event category (a day
    with a clock time is an appointment, round 19) — without the rewrite it got neither and
    an upcoming question served it after it had passed."""
    said = datetime(2025, 3, 1, 10, tzinfo=UTC)  # raw_turn's moment, a Saturday
    second = verdict(kind=Category.IDENTITY_SELF_CONCEPT)
    second.kind_scores[Category.LOGISTICAL_CONTEXT] = 0.48  # type: ignore[index]
    for text, expected in (
        ("noch was: Kieferorthopäde am Dienstag, den 4. März, um 7:50. what do I ask?",
         datetime(2025, 3, 4, 7, 50, tzinfo=UTC)),
        ("bon, ma navette pour l'aéroport est demain à 5h20, c'est serré?",
         datetime(2025, 3, 2, 5, 20, tzinfo=UTC)),
    ):  # fmt: skip
        (edge,) = with_raw_meaning(raw_turn(text), [second])
        assert edge.event_time == expected, text
        assert edge.event_time > said
        assert edge.categories == {Category.LOGISTICAL_CONTEXT: 1.0}


def test_a_routine_told_in_another_language_stays_a_routine() -> None:
    """ "jeden Dienstag", "tous les mardis", "le mardi", "los martes", "donderdags": every such
    day — `recurrence.recurring_day` keeps the routine undated, as in English."""
    second = verdict(kind=Category.IDENTITY_SELF_CONCEPT)
    second.kind_scores[Category.LOGISTICAL_CONTEXT] = 0.48  # type: ignore[index]
    for text in (
        "jeden Dienstag um 18 Uhr Chorprobe",
        "tous les mardis à 18h je chante",
        "le mardi soir je nage",
        "los martes a las 7 tengo coro",
        "donderdags om 19 uur zwemmen",
    ):
        assert "every Tuesday" in in_english(text) or "every Thursday" in in_english(text), text
        (edge,) = with_raw_meaning(raw_turn(text), [second])
        assert edge.event_time is None, text
    # a day number after the weekday makes it that day: "le mardi 10 mars"
    assert in_english("le mardi 10 mars à 9h") == "on Tuesday 10 March at 9:00"


@pytest.mark.parametrize(
    "text",
    [
        "guten Morgen! heute Morgen war ich joggen",  # the morning, not tomorrow
        "por la mañana I like to run",
        "we ate 3 mars bars on the hike",  # a chocolate bar, not March
        "we ordered 15 Mai Tais",
        "lunch with Domenica was lovely",  # a name
        "Domingo called me",
        "Mardi Gras was wild",  # the festival
        "moved over to the Lundi, a newer boat",  # a boat's name after "the"
        "I went to Las Vegas a las once",  # "a las" with no number is no clock
        "tag the photos with the Tag label",  # German "Tag" is no day
        "hier ist alles gut",  # German "here", not French "yesterday"
    ],
)
def test_words_that_are_also_something_else_are_no_day(text: str) -> None:
    assert when(text) is None or text.startswith("guten")
    if not text.startswith("guten"):
        assert in_english(text) == text


def test_past_and_onset_days_are_read_behind() -> None:
    """ "seit Sonntag", "depuis lundi", "el domingo pasado": a day behind, never pending."""
    for text in ("Magen-Darm seit Sonntag", "depuis lundi je tousse", "el domingo pasado fui"):
        found = when(text)
        assert found is not None and found < TOLD, text


@pytest.mark.parametrize(
    "text",
    [
        "dentist tomorrow at 9, any advice?",
        "Last August I told you about the charity run",
        "the run took 2h30 today",
        "I am free on Thursday, the 15th of May",
        "my sister Mai moved to Lyon in May",
        "we had a demain-style party",
    ],
)
def test_an_english_turn_is_the_same_string(text: str) -> None:
    assert in_english(text) is text or in_english(text) == text


def test_a_fact_of_an_english_clause_with_a_foreign_day_gets_its_event_time() -> None:
    """An English clause the extractor keeps ("I have a … appointment") with its day in
    another language: the fact's event time is that day (`finishing._event_time`)."""
    from schemas.events import TurnEvent
    from workers.extraction.rules import RuleExtractor

    turn = TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", timestamp=TOLD,
                     text="I have a physio appointment übermorgen um 8:40")  # fmt: skip
    (fact,) = RuleExtractor().extract(turn, [])
    assert fact.event_time == datetime(2026, 3, 4, 8, 40, tzinfo=UTC)


def test_an_undated_turn_whose_foreign_day_has_passed_is_not_upcoming() -> None:
    """At query time (`passed_mentions`), a turn stored without an event time whose words
    name a day in another language now past is judged as an expiry would judge it."""
    from schemas.categories import Intent
    from schemas.events import EdgeEvent
    from schemas.policy import load_policy
    from schemas.records import FactRecord, Lifecycle
    from workers.query import passed_mentions

    record = FactRecord(
        edge=EdgeEvent(edge_id="g#raw", user_id="u1", categories=Category.OTHER,
                       text="Zahnarzt am Freitag, den 6. März, um 8:15", ingest_time=TOLD),
        lifecycle=Lifecycle(),
    )  # fmt: skip
    later = datetime(2026, 5, 1, tzinfo=UTC)
    buffer = load_policy().expiry_buffer_hours
    found = passed_mentions.passed(Intent.UPCOMING, [record], later, buffer)
    assert found["g#raw"].when == datetime(2026, 3, 6, 8, 15, tzinfo=UTC)
