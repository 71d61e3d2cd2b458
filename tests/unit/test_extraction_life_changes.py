"""Table tests for the rule extractor's life-change families added for cross-session updates:
who the user reports to, their title and workplace named in passing, their car, their city
said in passing, their partner, the topic of a plan named by a noun (paper Appendix F,
AV4/AV6). That such a plan, withdrawn sessions later in other words, is masked (AV7) is
asserted end to end in test_plan_withdrawal.py, whatever mechanism gets there.

Each family has at least five phrasings, most of them outside any benchmark template, and a
pair table: an earlier statement and a later update in different words must share one slot
key (or the later one must retract the earlier slot) — the property supersession needs.
Rows that must yield nothing guard against over-matching.
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime

import pytest

from schemas.categories import Category
from schemas.events import TurnEvent
from workers.extraction import ExtractedFact, RuleExtractor
from workers.extraction.slots import guess_slots, plan_topic, project_slot

TS = datetime(2025, 3, 12, 14, 30, tzinfo=UTC)
EXTRACTOR = RuleExtractor()
C = Category


def extract(text: str, session: str = "s1") -> list[ExtractedFact]:
    turn = TurnEvent(
        user_id="u1", session_id=session, turn_id=f"t{zlib.crc32(text.encode())}",
        role="user", text=text, timestamp=TS,
    )  # fmt: skip
    return EXTRACTOR.extract(turn)


def slots(text: str) -> set[str]:
    return {f.slot_key for f in extract(text) if f.slot_key}


FAMILIES: dict[str, tuple[str, Category, tuple[tuple[str, str], ...]]] = {
    "manager": (
        "user.manager",
        C.RELATIONAL_BONDS,
        (
            ("I report to Fatima now", "Fatima"),
            ("Helen left, so now I report to Priyanka", "Priyanka"),
            ("Kenji took over from Ibrahim as my manager", "Kenji"),
            ("We got a new manager, Joanna", "Joanna"),
            ("Oskar manages our team", "Oskar"),
            ("I'm reporting directly to Sam Lee these days", "Sam Lee"),
            ("My line manager is Aoife", "Aoife"),
            ("My boss is Dana, she's great", "Dana"),
            ("Since the reorg we report to Marta", "Marta"),
        ),
    ),
    "title": (
        "user.profession",
        C.IDENTITY_SELF_CONCEPT,
        (
            ("New title: engineering manager", "engineering manager"),
            ("They made me design lead this week", "design lead"),
            ("I moved up from senior analyst to team lead", "team lead"),
            ("I've been a junior developer for a few years", "junior developer"),
            ("As a nurse, I work a lot of nights", "nurse"),
            ("Management just named me head of sales", "head"),
            ("My job title is now principal engineer", "principal engineer"),
        ),
    ),
    "employer": (
        "user.employer",
        C.IDENTITY_SELF_CONCEPT,
        (
            ("First week at Maple Health done! so different from my old job", "Maple Health"),
            ("My job at Riverside Hospice keeps me busy", "Riverside Hospice"),
            ("I've been at Google for a couple of years", "Google"),
            ("I left the public library and joined the city council", "the city council"),
            ("I work at the regional water board", "the regional water board"),
            ("I'm at Stripe now, handed in my notice at Monzo in May", "Stripe"),
            ("I've worked at the Royal Infirmary since 2019", "the Royal Infirmary"),
        ),
    ),
    "car": (
        "user.car",
        C.FINANCIAL_MATERIAL,
        (
            ("I drive a Ford Fiesta", "Ford Fiesta"),
            ("My car's a Volvo XC40", "Volvo XC40"),
            ("I sold the Mazda 3 and got a Subaru Outback", "Subaru Outback"),
            ("Traded in the VW Golf for a Toyota Prius", "Toyota Prius"),
            ("We replaced the Honda Civic with a Kia Niro", "Kia Niro"),
            ("Finally upgraded to a BMW i4", "BMW i4"),
            ("We're driving a Tesla Model 3 these days", "Tesla Model 3"),
            ("Picked up a used Skoda Fabia yesterday", "Skoda Fabia"),
            ("New car! A Hyundai Ioniq 5", "Hyundai Ioniq 5"),
        ),
    ),
    "city": (
        "user.current_city",
        C.IDENTITY_SELF_CONCEPT,
        (
            ("Settled into the new flat in Brisbane, glad to be out of Melbourne", "Brisbane"),
            ("I've been in Perth since uni, love it here", "Perth"),
            ("Home is Tokyo these days", "Tokyo"),
            ("It's been raining nonstop here in Glasgow", "Glasgow"),
            ("Found a great bakery round the corner from my place in Ankara", "Ankara"),
            ("We've lived in Porto for three years now", "Porto"),
        ),
    ),
    "partner": (
        "user.partner",
        C.RELATIONAL_BONDS,
        (
            ("I'm with Farid now, things with Mika ended a while back", "Farid"),
            ("Me and Finn split, and now there's Caleb", "Caleb"),
            ("I'm seeing Dana these days", "Dana"),
            ("We broke up and now it's Priya", "Priya"),
            ("I'm with Noor nowadays", "Noor"),
        ),
    ),
}
ROWS = [(family, *row) for family, (_, _, rows) in FAMILIES.items() for row in rows]


@pytest.mark.parametrize(("family", "text", "value"), ROWS)
def test_family_rows(family: str, text: str, value: str) -> None:
    slot, category, _ = FAMILIES[family]
    facts = [f for f in extract(text) if f.slot_key == slot]
    assert facts, f"{text!r}: nothing in {slot}; got {[f.slot_key for f in extract(text)]}"
    fact = facts[0]
    assert fact.primary_category is category, (text, fact.categories)
    assert fact.value == value, (text, fact.value)
    assert fact.confidence >= 0.95 and fact.update.value == "replace", (text, fact)
    assert not fact.text.lower().startswith(("user news", "user homes", "user firsts", "user nows"))


NOTHING = (
    ("I drive the kids to school on Mondays", "user.car"),
    ("My sister drives a Kia Rio", "user.car"),
    ("Now there's Luca at the door", "user.partner"),
    ("My manager at Atlassian wants the report by Friday", "user.manager"),
    ("I dropped the kids off at school", None),
    ("No more coffee after 3pm for me", None),
    ("I'm saving for a new phone", None),
)


@pytest.mark.parametrize(("text", "slot"), NOTHING)
def test_not_these_facts(text: str, slot: str | None) -> None:
    facts = extract(text)
    if slot is None:
        assert not any(f.retracts for f in facts), facts
        assert not any((f.slot_key or "").startswith("project.") for f in facts), facts
    else:
        assert not any(f.slot_key == slot for f in facts), facts


#: (earlier statement, later update in other words): one slot, so the update supersedes.
UPDATES = (
    ("My boss is Helen", "I report to Priyanka now"),
    ("My supervisor is Tom", "We got a new manager, Joanna"),
    ("Helen manages our team", "Kenji took over from Helen as my manager"),
    ("I work as a junior designer", "They made me design lead this week"),
    ("I'm a nurse", "New title: charge nurse"),
    ("I work at Deloitte", "First week at PwC done!"),
    ("I work at the public library", "I left the public library and joined the city council"),
    ("I drive a Ford Fiesta", "I sold the Fiesta and got a Mazda 3"),
    ("My car is a VW Golf", "Traded in the VW Golf for a Subaru Outback"),
    ("I live in Melbourne", "Settled into the new flat in Brisbane"),
    ("I live in Izmir", "It's been raining nonstop here in Ankara"),
    ("I'm dating Mika", "I'm with Farid now, things with Mika ended a while back"),
    ("My girlfriend is Kira", "Me and Kira split, and now there's Caleb"),
    ("Planning to get a cat from the rescue", "We're on the waiting list for a Maine Coon kitten"),
    ("I'm working on a book proposal about street food", "Still writing the book"),
)


@pytest.mark.parametrize(("before", "after"), UPDATES)
def test_update_lands_in_the_same_slot(before: str, after: str) -> None:
    earlier, later = slots(before), slots(after)
    assert earlier and earlier & later, (before, earlier, after, later)


@pytest.mark.parametrize(
    ("phrase", "topic"),
    [
        ("the kitchen renovation", "kitchen"), ("the kitchen reno", "kitchen"),
        ("a new kitchen", "kitchen"), ("my book proposal", "book"),
        ("the exchange application for Kyoto", "exchange"), ("the master's", "masters"),
        ("architecture master's programmes", "masters"), ("the cabin project", "cabin"),
        ("my PhD thesis", "thesis"), ("a master's in data science", "masters"),
    ],
)  # fmt: skip
def test_plan_topic(phrase: str, topic: str) -> None:
    assert plan_topic(phrase) == topic
    assert project_slot(phrase) == f"project.{topic}"
    assert guess_slots(phrase)[0] == f"project.{topic}"
