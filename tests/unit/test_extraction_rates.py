"""A habit said as a rate keys the counted thing (workers/extraction/patterns_rates.py).

Written in the lead's own words, none taken from an evaluation set.
"""

from __future__ import annotations

import pytest

from schemas.categories import Category, UpdateSemantics
from tests.unit.extraction_helpers import facts_of
from tests.unit.test_extraction_free_phrasing import turn
from workers.extraction.rules import RuleExtractor


def _rates(text: str) -> dict[str, str | None]:
    return {
        f.slot_key: f.value
        for f in facts_of(RuleExtractor(), turn(text))
        if f.slot_key and f.slot_key.startswith("habit.")
    }


@pytest.mark.parametrize(
    ("text", "slot", "count"),
    [
        ("I drink four espressos a day, probably too many", "habit.espresso", "four"),
        ("honestly I smoke about ten cigarettes a day", "habit.cigarette", "ten"),
        ("I have three cups of tea every morning", "habit.tea", "three"),
        ("cut down to one espresso a day, doctor's orders", "habit.espresso", "one"),
        ("I'm down to two pints a week now", "habit.pint", "two"),
    ],
)
def test_a_rate_keys_the_counted_thing_and_keeps_the_number(
    text: str, slot: str, count: str
) -> None:
    """The slot is the thing counted, singular; the value the whole rate, numeric (A.7.1)."""
    facts = [f for f in facts_of(RuleExtractor(), turn(text)) if f.slot_key == slot]
    assert len(facts) == 1, _rates(text)
    fact = facts[0]
    assert fact.value is not None and count in fact.value
    assert fact.numeric and fact.update is UpdateSemantics.REPLACE
    assert max(fact.categories, key=lambda c: fact.categories[c]) is Category.PREFERENCES_HABITS


def test_a_later_rate_of_the_same_thing_lands_in_the_same_slot() -> None:
    """However the change is said, the two rates meet in one replace slot (Table 1 row 7)."""
    before = _rates("I get through three energy drinks a day at work")
    after = _rates("got down to one energy drink a day since March")
    assert before.keys() == after.keys() == {"habit.energy_drink"}
    assert before != after


@pytest.mark.parametrize(
    "text",
    [
        "my flatmate drinks six coffees a day",  # someone else's habit
        "I should cut down to two coffees a day",  # only weighed (Appendix F)
        "I work 40 hours a week",  # a unit of time: a schedule
        "I spend about 30 euros a week on lunch",  # money: the money family's
        "I run 25 km a week",  # a distance
        "I go swimming three times a week",  # occasions: the thing is named elsewhere
    ],
)
def test_not_the_speakers_rate_or_not_a_thing_counted(text: str) -> None:
    assert not _rates(text)
