"""A pastime told as taken up is a Hobbies fact (issue 11, round 25, AV5).

Sentences written for this test (none from a paper-turn telling or LoCoMo). The reading is
grammatical — a verb of taking up, the user its subject, a group or class joined or an
activity named by its -ing form (or whatever "take up" takes) — and a job, a regimen, a
diet, a price or someone else's take-up is none.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas.categories import Category, UpdateSemantics
from schemas.events import TurnEvent
from workers.extraction.clauses import Clause
from workers.extraction.patterns_takeups import find
from workers.extraction.rules import RuleExtractor

AT = datetime(2026, 3, 2, 18, tzinfo=UTC)


def _turn(text: str) -> TurnEvent:
    return TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", text=text, timestamp=AT)


def _reads(text: str) -> bool:
    return bool(find(Clause(text=text, sentence=0, index=0, sentence_text=text)))


@pytest.mark.parametrize(
    "clause",
    [
        "I joined the village brass band",
        "just joined a five-a-side league",
        "we signed up for salsa lessons at the community hall",
        "I've started restoring old radios",
        "started Portuguese evening classes",
        "I've taken up calligraphy",
        "took up the ukulele over the winter",
        "I've properly got into rock pooling",
        "I picked up knitting again",
    ],
)
def test_a_group_joined_or_an_activity_taken_up_reads_as_a_pastime(clause: str) -> None:
    assert _reads(clause)


@pytest.mark.parametrize(
    "clause",
    [
        "I joined the marketing team last week",  # a job
        "I started taking beta blockers",  # a regimen's verb
        "I started a course of steroids",  # a course of medicine
        "I started a new diet",  # no group, no activity
        "I joined the gym for 30 a month",  # a price is no pastime
        "I signed up for a gym membership at $40",  # money
        "my daughter joined the chess club",  # someone else's
        "I took up the offer",  # "take up" an offer, a post, time
        "it took up my whole afternoon",  # not the user
        "I started working at the depot",  # work
        "I got into trouble with the landlord",  # no activity
        "I started seeing someone",  # a relationship's verb
    ],
)
def test_a_job_a_regimen_a_price_or_someone_elses_take_up_is_no_pastime(clause: str) -> None:
    assert not _reads(clause)


def test_the_extractor_yields_an_additive_slotless_hobbies_fact_only_when_enabled() -> None:
    turn = _turn("I joined the village brass band. Any tips for sight-reading?")
    facts = RuleExtractor(pastimes=True, takeups=True).extract(turn)
    assert len(facts) == 1
    fact = facts[0]
    assert fact.prototype == "pastime" and fact.categories == {Category.HOBBIES_RECREATION: 1.0}
    assert fact.slot_key is None and fact.update is UpdateSemantics.ACCUMULATE
    assert fact.confidence < 0.95  # an accumulate fact supersedes only at >= 0.95 (App. Z)
    assert not RuleExtractor(pastimes=True).extract(turn)


def test_the_take_up_replaces_the_value_familys_bare_start() -> None:
    turn = _turn("I've started restoring old radios")
    before = RuleExtractor(pastimes=True).extract(turn)
    assert [f.prototype for f in before] == ["decide"]  # the prototypes decide its kind
    after = RuleExtractor(pastimes=True, takeups=True).extract(turn)
    assert [f.prototype for f in after] == ["pastime"]


def test_a_turn_that_says_something_else_is_read_as_before() -> None:
    # the fact-less-turn guard drops the take-up beside another fact; the value family's
    # reading of the clause comes back, so the family costs the turn nothing
    turn = _turn("I've started restoring old radios and my landlord is Mr Doyle")
    before = RuleExtractor(pastimes=True).extract(turn)
    after = RuleExtractor(pastimes=True, takeups=True).extract(turn)
    assert [(f.prototype, f.text) for f in after] == [(f.prototype, f.text) for f in before]
    assert "pastime" not in {f.prototype for f in after}


def test_a_specific_familys_reading_wins() -> None:
    # the leisure lexicon keys a named hobby; the employer family keys a job
    facts = RuleExtractor(pastimes=True, takeups=True).extract(_turn("I took up pottery"))
    assert [f.slot_key for f in facts] == ["hobby.pottery"]
    facts = RuleExtractor(pastimes=True, takeups=True).extract(
        _turn("I started a new job at the bank")
    )
    assert "pastime" not in {f.prototype for f in facts}
