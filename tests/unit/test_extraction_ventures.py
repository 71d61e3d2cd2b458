"""Table tests for side ventures, exchanges named as a semester abroad, "my plan is …", and
plans withdrawn as a topic question ("The exchange? not happening anymore") — AV7.

A side venture is one plan whatever it is called later ("my side hustle: a food truck" …
"the food truck is dead" … "the side hustle? not happening"), so every withdrawal must guess
the same slot, within a session and across sessions (no context). That the plan itself ends
up masked, whichever mechanism joins the two, is asserted end to end in
test_plan_withdrawal.py. Rows that must yield nothing guard against over-matching (a truck
one buys, a gig one attends, a question one asks back).
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime

import pytest

from schemas.events import TurnEvent
from workers.extraction import ExtractedFact, RuleExtractor
from workers.extraction.clauses import sentences
from workers.extraction.slots import guess_slots, plan_topic

TS = datetime(2025, 3, 12, 14, 30, tzinfo=UTC)
EXTRACTOR = RuleExtractor()


def _turn(text: str, n: int) -> TurnEvent:
    return TurnEvent(
        user_id="u1", session_id="s1", turn_id=f"t{n}-{zlib.crc32(text.encode())}",
        role="user", text=text, timestamp=TS,
    )  # fmt: skip


def extract(text: str, context: tuple[str, ...] = ()) -> list[ExtractedFact]:
    ctx = [_turn(c, i) for i, c in enumerate(context)]
    return EXTRACTOR.extract(_turn(text, len(ctx) + 1), ctx)


def slots(text: str) -> set[str]:
    return {f.slot_key for f in extract(text) if f.slot_key}


def retracted(text: str, context: tuple[str, ...] = ()) -> set[str]:
    return {k for f in extract(text, context) for k in f.retracts}


VENTURES = (
    "My side hustle plan: a food truck",
    "My side hustle plan: a bike repair shop",
    "my side business is a little bakery",
    "I'm going to open a coffee cart at weekends",
    "Working on a business plan for a bike repair shop",
    "our side gig idea: a market stall selling plants",
    "I'm starting a pottery shop on the side",
    "we're opening a small café next spring",
)
VENTURE_ENDS = (
    "The side hustle? not happening anymore. The numbers just don't work",
    "Scrap the bike repair shop",
    "The food truck is dead",
    "the business idea is off the table",
    "Change of plans: the side hustle isn't happening",
    "We called off the coffee cart",
    "forget about the bakery",
)


@pytest.mark.parametrize("end", VENTURE_ENDS)
@pytest.mark.parametrize("start", VENTURES[:5])
def test_a_venture_is_retracted_by_any_of_its_names(start: str, end: str) -> None:
    assert "project.business" in retracted(end), end  # across sessions: no context
    assert "project.business" in retracted(end, (start, "ok")), (start, end)


EXCHANGES = (
    "My plan is a semester abroad in Copenhagen",
    "my big plan is a year abroad in Seoul",
    "Working on the exchange application for Kyoto",
    "Sent off my application for the Seoul exchange",
    "our plan is to do a semester abroad in Lisbon",
)
EXCHANGE_ENDS = (
    "The exchange? not happening anymore. The funding fell through",
    "Change of plans: the Vancouver exchange isn't happening",
    "my semester abroad? dead, the visa never came",
    "No more the exchange",
    "the exchange is off",
)


@pytest.mark.parametrize("end", EXCHANGE_ENDS)
def test_exchange_retractions_reach_the_slot(end: str) -> None:
    assert "project.exchange" in retracted(end)
    assert "project.exchange" in retracted(end, (EXCHANGES[0], "sounds great"))


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("The New Zealand trip? not happening anymore. We need the money", "trip.zealand.plan"),
        ("The cabin? it's dead, the permit got refused", "project.cabin"),
        ("My master's? scrapped, I can't afford it", "project.masters"),
        ("The dog? that's off, the landlord said no", "pet.dog.plan"),
        ("the kitchen reno? never happening, the quote was double", "project.kitchen"),
        ("Our Japan trip? cancelled", "trip.japan.plan"),
    ],
)
def test_a_plan_asked_back_as_a_topic_is_withdrawn(text: str, slot: str) -> None:
    assert slot in retracted(text)


@pytest.mark.parametrize(
    "text",
    [
        "The party? it was great",
        "The trip? amazing, thanks for asking",
        "How was your day? good",
        "My plan is to relax this weekend",
        "My plan is a quiet night in",
        "Saving up for a new truck",
        "Is the bakery on Main Street open? no idea",
        "The gig on Saturday was loud",
    ],
)
def test_no_plan_or_retraction_where_there_is_none(text: str) -> None:
    facts = extract(text)
    assert not any(f.retracts for f in facts), text
    assert not any((f.slot_key or "").startswith(("project.", "trip.")) for f in facts), text


def test_topic_question_joins_its_answer_but_real_questions_stay_apart() -> None:
    assert sentences("The exchange? not happening anymore. The funding fell through") == [
        "The exchange? not happening anymore.",
        "The funding fell through",
    ]
    assert sentences("Is the dog ok? yes.") == ["Is the dog ok?", "yes."]
    assert sentences("The cabin? Dead.") == ["The cabin?", "Dead."]


def test_venture_topics_do_not_swallow_ordinary_nouns() -> None:
    assert plan_topic("a new truck") == "truck"
    assert plan_topic("a food truck") == "business"
    assert plan_topic("the gig") == "gig"
    assert guess_slots("the side hustle")[0] == "project.business"
    assert guess_slots("a semester abroad in Lisbon")[0] == "project.exchange"
