"""Round 26: the simple present of a dynamic verb, the user its subject, is habitual aspect
(`patterns_pastimes._SIMPLE_PRESENT`); a state, a modal, a catenative or a past report is not."""

from __future__ import annotations

import pytest

from workers.extraction.patterns_pastimes import reads_as_pastime


@pytest.mark.parametrize(
    "clause",
    [
        "I knit jumpers for the grandchildren",
        "I keep bees at the bottom of the garden",
        "we paint tin soldiers",
        "I whittle spoons out of birch in the garage",
        "I still fly a kite with my nephew",
        "we also brew cider in the shed",
    ],
)
def test_simple_present_of_an_activity_is_a_pastime(clause: str) -> None:
    assert reads_as_pastime(clause)


@pytest.mark.parametrize(
    "clause",
    [
        "I keep losing my glasses",
        "I think it will rain",
        "I live above a bakery",
        "I teach chemistry at the college",
        "we left the party early",
        "I wouldn't pay that much",
        "I drove to the coast with the kids",
        "my sister paints landscapes",
        # an adverb or a floating quantifier is not the verb, and the verb after it is read
        "I just took the kids to the lake last week",
        "we all made our own pots",
        "I really appreciate your help",
        "I totally agree with that",
        "I definitely will",
        "we last spoke in spring",
        "I already planned the trip",
        "I seriously admire what you do",
        "I cherish the time with my family",
    ],
)
def test_states_modals_pasts_and_others_are_not(clause: str) -> None:
    assert not reads_as_pastime(clause)
