"""Table tests for numbers said in free phrasing (AV8): hourly rates, savings, salaries, gym
fees — and currencies written as KSh, A$, R. (The size of one's home and race personal bests
had a pattern module of their own until 2026-12-01; `bench extraction-ablation` found it
earned nothing outside the generator's phrasings, and a restatement of either now reaches the
old value through slot association: `tests/unit/test_slot_association.py`.)

Each kind has at least five phrasings, most outside any benchmark template; an earlier and a
later value said in different words must share one slot (so the newer supersedes the older),
the value is the number verbatim and the fact is numeric. Rows that must yield nothing guard
against over-matching (a heart rate, a brand's membership, a meeting time).
"""

from __future__ import annotations

import zlib
from datetime import UTC, datetime

import pytest

from schemas.events import TurnEvent
from workers.extraction import ExtractedFact, RuleExtractor

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


def values(text: str, context: tuple[str, ...] = ()) -> dict[str, str | None]:
    return {f.slot_key: f.value for f in extract(text, context) if f.slot_key and f.numeric}


ROWS = [
    # hourly rates
    ("$155 an hour for private clients", "user.rate", "$155/hour"),
    ("I bill C$122 per hour", "user.rate", "C$122/hour"),
    ("I put my rate up to A$158 an hour", "user.rate", "A$158/hour"),
    ("New rate: KSh 10,400 per hour", "user.rate", "KSh 10,400/hour"),
    ("we charge clients about €95 an hour", "user.rate", "€95/hour"),
    ("My hourly rate is now ₺5,780", "user.rate", "₺5,780"),
    # savings
    ("A$82,500 in savings so far", "user.savings", "A$82,500"),
    ("I have KSh 5,520,000 saved", "user.savings", "KSh 5,520,000"),
    ("Managed to get my savings to €3,150", "user.savings", "€3,150"),
    ("Savings are up to R 64,000", "user.savings", "R 64,000"),
    ("We have about €2,700 in the savings account", "user.savings", "€2,700"),
    ("We're at NZ$93,000 in savings now", "user.savings", "NZ$93,000"),
    # salary
    ("I earn about KSh 18,300,000 a year before tax", "user.salary", "KSh 18,300,000/year"),
    ("I got a raise, I'm on ¥32,700,000 now", "user.salary", "¥32,700,000"),
    ("I'm on A$105,000 a year", "user.salary", "A$105,000/year"),
    ("after the promotion I'm on £61,000 now", "user.salary", "£61,000"),
    ("im on $88k a year these days", "user.salary", "$88k/year"),
    # gym fees
    ("I pay ¥14,100 a month for the gym", "user.gym", "¥14,100/month"),
    ("KSh 8,190 a month for the climbing gym, worth it", "user.gym", "KSh 8,190/month"),
    ("Membership got bumped to ¥8,550", "user.gym", "¥8,550"),
    ("My gym membership is €53 now", "user.gym", "€53"),
    ("The gym costs me $45 a month", "user.gym", "$45/month"),
    ("paying £38 a month for my gym membership", "user.gym", "£38/month"),
]


@pytest.mark.parametrize(("text", "slot", "value"), ROWS)
def test_numbers_in_free_phrasing(text: str, slot: str, value: str) -> None:
    assert values(text).get(slot) == value, values(text)


PAIRS = [
    ("I bill C$122 per hour", "Raised my rate to C$135 an hour", "user.rate"),
    ("$155 an hour for private clients", "New rate: $185 per hour", "user.rate"),
    ("I have €2,700 saved", "Savings are up to €3,150", "user.savings"),
    ("I make $65,000 a year", "I got a raise, I'm on $76,000 now", "user.salary"),
    ("The gym costs me ¥7,200 a month", "Membership got bumped to ¥8,550", "user.gym"),
]


@pytest.mark.parametrize(("earlier", "later", "slot"), PAIRS)
def test_an_update_in_other_words_shares_the_slot(earlier: str, later: str, slot: str) -> None:
    assert slot in values(earlier)
    assert slot in values(later)


@pytest.mark.parametrize(
    "text",
    [
        "My heart rate is 60",
        "The exchange rate is 1.2",
        "My Netflix membership is $15 a month",
        "The gym was packed today",
        "I went to the gym 3 times",
        "I'm on $20 now",
        "The meeting is at 10:30",
    ],
)
def test_no_tracked_number_where_there_is_none(text: str) -> None:
    slots = set(values(text))
    assert not slots & {"user.rate", "user.gym", "user.salary"}, text


@pytest.mark.parametrize(
    ("earlier", "later", "slot", "value"),
    [
        ("Our flat is 82 square metres", "our flat is 106 square metres now", "user.flat",
         "106 square metres"),
        ("My best half is 1:56:32", "my best half is 1:52:10 now", "user.best_half", "1:52:10"),
    ],
)  # fmt: skip
def test_a_measure_after_a_possessive_copula_keeps_its_unit_and_its_slot(
    earlier: str, later: str, slot: str, value: str
) -> None:
    """The value family, not a module per measure: the number with its unit or clock, never a
    price ("1:56:32" is no "1")."""
    assert slot in values(earlier)
    assert values(later) == {slot: value}
