"""Regression witnesses for the review of issue-11s's extraction changes (REVIEW-R11 B1–B3).

* B1 — a sentence-opening word before a comma is not always a topic: time adverbials,
  connectives, interjections and vocatives name no plan, and a person is resumed by "she",
  not "it". A topic wins over the pronoun's plan only when it shares a word with a plan;
  "X, forget it" withdraws nothing when the same turn states X's slot.
* B2 — a possessed dwelling is the user's present home only with modifiers that keep it so
  (not a wish, a second home, a workplace or term-time lodging, or a relative's).
* B3 — a bare hour after "at" next to a day: 1–7 is the afternoon, "tonight" is the evening;
  a number that is no hour is neither a clock nor a day; the mention keeps the user's words.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from schemas.events import TurnEvent
from workers.extraction.clock_hours import rewrite
from workers.extraction.dates import find_event_time
from workers.extraction.rules import RuleExtractor

SAID = datetime(2025, 3, 12, 14, 30, tzinfo=UTC)  # a Wednesday, 14:30
AUSTRIA = "we're planning a ski trip to Austria in January"


def turn(text: str, n: int = 0) -> TurnEvent:
    return TurnEvent(user_id="u1", session_id="s", turn_id=f"t{n}", role="user", text=text,
                     timestamp=SAID + timedelta(minutes=n))  # fmt: skip


def facts_of(text: str, context: tuple[str, ...] = ()) -> list[tuple[str | None, tuple[str, ...]]]:
    ctx = [turn(t, i) for i, t in enumerate(context)]
    return [(f.slot_key, f.retracts) for f in RuleExtractor().extract(turn(text, 50), ctx)]


def retracted(text: str, context: tuple[str, ...] = ()) -> set[str]:
    return {s for _, r in facts_of(text, context) for s in r}


# --- B1: what is no topic, and when a topic names the plan ---


@pytest.mark.parametrize(
    "text",
    [
        "Today, we cancelled it.",
        "Yesterday, we cancelled it.",
        "This morning, we called it off.",
        "That said, we called it off.",
        "Mum, we cancelled it, the snow is awful.",
        "Guys, scrap it.",
        "Cool, scrap it.",
        "Tbh, scrap it.",
        "My sister, she called it off.",
    ],
)  # fmt: skip
def test_a_non_topic_before_the_comma_leaves_the_pronoun_its_plan(text: str) -> None:
    assert retracted(text, (AUSTRIA,)) == {"trip.austria.plan"}


@pytest.mark.parametrize(
    "text",
    [
        "Mum, we cancelled it, the snow is awful.",
        "Today, we cancelled it.",
        "My sister, she called it off.",
        "About time. Scrap it.",
        "About the same. Scrap it.",
    ],
)  # fmt: skip
def test_with_no_plan_at_all_a_non_topic_withdraws_nothing(text: str) -> None:
    # A guessed slot ("project.mum") would let retargeting withdraw an unrelated memory.
    assert not retracted(text)


def test_a_topic_that_matches_no_plan_falls_back_to_the_pronouns_plan() -> None:
    # "the budget" shares no word with the trip: the pronoun still means the plan in context.
    assert retracted("The budget, we blew it, so we cancelled it.", (AUSTRIA,)) <= {
        "trip.austria.plan"
    }
    assert retracted("Lisbon, forget it.", (AUSTRIA,)) == {"trip.austria.plan"}


def test_a_topic_that_shares_a_word_with_a_plan_wins() -> None:
    context = (AUSTRIA, "thinking of opening a pop-up bakery in Ghent next spring")
    assert retracted("Austria, forget it.", context) == {"trip.austria.plan"}
    assert retracted("Ghent, forget it.", context) == {"project.business"}


def test_forget_it_with_the_same_slot_restated_is_a_verdict_not_a_withdrawal() -> None:
    context = ("I have my driving exam on Friday",)
    found = facts_of("The exam, forget it, I'm going to fail.", context)
    assert not any(r for _, r in found)
    assert ("exam.driving", ()) in found


@pytest.mark.parametrize(
    ("text", "context", "slots"),
    [
        ("the reno, scrap it", (), {"project.reno"}),
        ("About the cabin. Scrap it.", (), {"project.cabin"}),
        ("the ski trip, scrap it", (AUSTRIA,), {"trip.austria.plan"}),
    ],
)  # fmt: skip
def test_the_original_topic_witnesses_still_hold(
    text: str, context: tuple[str, ...], slots: set[str]
) -> None:
    assert retracted(text, context) == slots


# --- B2: only a present home of the user's own ---


@pytest.mark.parametrize(
    "text",
    [
        "my dream house in Tuscany would have a pool",
        "my ideal place in Kyoto would be quiet",
        "our holiday flat in Spain is lovely",
        "our summer house in Maine is freezing",
        "our beach house in Malibu",
        "my second house in Nice is empty",
        "my future flat in Oslo will be tiny",
        "our next flat in Berlin will be bigger",
        "my work place in Leeds has a gym",
        "my grandma house in Cork",
        "my student flat in Bristol was awful",
        "my mum's house in Cork",
    ],
)  # fmt: skip
def test_a_dwelling_that_is_not_the_present_home_names_no_city(text: str) -> None:
    assert "user.current_city" not in {s for s, _ in facts_of(text)}


@pytest.mark.parametrize(
    ("text", "city"),
    [
        ("my gorgeous flat in Lisbon", "Lisbon"),  # an adjective ending in s
        ("our own house in Porto needs paint", "Porto"),
        ("my house in Leeds is cold", "Leeds"),
    ],
)  # fmt: skip
def test_a_present_home_with_modifiers_still_names_the_city(text: str, city: str) -> None:
    facts = RuleExtractor().extract(turn(text))
    assert ("user.current_city", city) in {(f.slot_key, f.value) for f in facts}


def test_a_dream_house_does_not_supersede_where_the_user_lives() -> None:
    X = RuleExtractor()
    first = X.extract(turn("I live in Leeds with my partner"))
    later = X.extract(turn("my dream house in Tuscany would have a pool", 1))
    assert ("user.current_city", "Leeds") in {(f.slot_key, f.value) for f in first}
    assert "user.current_city" not in {f.slot_key for f in later}


# --- B3: clock hours ---


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2025, 3, day, hour, minute, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("dinner with Sam tonight at 8", at(12, 20)),  # tonight is the evening
        ("dinner at 8 tonight", at(12, 20)),
        ("drinks this evening at 9", at(12, 21)),
        ("dentist tomorrow at 3", at(13, 15)),  # 1–7 without am/pm: the afternoon
        ("haircut at 4 on Friday", at(14, 16)),
        ("meet on Friday at 7", at(14, 19)),
        ("Tuesday at 10", at(18, 10)),  # 8–12 as said
        ("lunch at 12 this Friday", at(14, 12)),
        ("gym this morning at 6", at(12, 6)),
        ("call Sunday at 5 a.m.", at(16, 5)),  # a.m./p.m. as said
        ("call Sunday at 5 a.m. sharp", at(16, 5)),
        ("party Saturday at 8 p.m.", at(15, 20)),
        ("Friday at 8pm", at(14, 20)),
        ("Friday at 5 o'clock", at(14, 17)),
        ("Mon at 10", at(17, 10)),  # weekday abbreviations
        ("fri at 4", at(14, 16)),
        ("on Friday at 9.30", at(14, 9, 30)),
    ],
)  # fmt: skip
def test_a_bare_hour_reads_by_the_everyday_convention(text: str, expected: datetime) -> None:
    mention = find_event_time(text, SAID, "future")
    assert mention is not None and mention.when == expected


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("on Friday at 10,000 feet", 14),  # a thousands group
        ("Saturday at 3,5 km", 15),  # a decimal comma
        ("on Tuesday at 12.5 km we turn", 18),  # a decimal point
        ("see you Monday at 9.5", 17),
        ("Friday at 30% off", 14),  # a percentage
        ("rates on Monday at 10 percent", 17),
        ("Tuesday at 25", 18),  # more than 23
        ("Monday at 1/2 price", 17),  # a fraction
    ],
)  # fmt: skip
def test_a_number_that_is_no_hour_is_neither_clock_nor_day(text: str, day: int) -> None:
    mention = find_event_time(text, SAID, "future")
    assert mention is not None and mention.when == at(day, 0)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("my flight is on Friday at 6", "on Friday at 6"),
        ("call Sunday at 5 a.m. sharp", "Sunday at 5 a.m."),
        ("dinner at 8 tonight", "at 8 tonight"),
    ],
)  # fmt: skip
def test_the_mention_keeps_the_users_own_words(text: str, words: str) -> None:
    mention = find_event_time(text, SAID, "future")
    assert mention is not None and mention.text == words
    assert rewrite(text).original(rewrite(text).text) == text


def test_the_stored_value_is_the_users_words() -> None:
    facts = RuleExtractor().extract(turn("my flight is on Friday at 6"))
    assert ("flight.next", "on Friday at 6") in {(f.slot_key, f.value) for f in facts}


@pytest.mark.parametrize("text", ["we sat at 3 tables", "the sun at 5 was lovely", "wed at 6"])
def test_lowercase_abbreviations_that_are_words_are_no_days(text: str) -> None:
    # "sat", "sun", "wed" are English words: only capitalised are they weekdays.
    assert rewrite(text).text == text
    assert find_event_time(text, SAID, "future") is None
