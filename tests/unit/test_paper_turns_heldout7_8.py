"""The eighth to twentieth tellings of the paper turns (bench/paper_turns/heldout7, heldout8,
heldout9, heldout10, heldout11, heldout12, heldout13, heldout14, heldout15, heldout16, heldout17,
heldout18 and heldout19, written to the same plan in other registers): each gold-metadata telling
says what its labels say, by the paper's rules — a stale fact of a changed value shares its slot
with a newer gold fact (Table 1, §3.3), an expired one has its event before the question and an
upcoming one after it (Table 29, A.13), a past-intent one before it (A.7.4), an acute illness ends
a week after it is told while a chronic one has no end (Table 1 row 4), a retracted plan is named
by a later retraction that carries no slot and has no date of its own (A.9), a "thinking about" is
soft, weak, beside a firm value and only ever neutral (Appendix F), one of them later committed, a
number asked for is numeric and newer number-less remarks keep it (A.7.1), and an order for others
is another slot (A.7.2). heldout7 is a validation set since round 14, heldout8 since round 15,
heldout9 since round 16, heldout10 since round 18, heldout11 since round 19, heldout12 since round
20, heldout13 since round 21, heldout14 since round 24, heldout15 since round 27; heldout16,
heldout17, heldout18 and heldout19 stay SEALED. The checks it shares with the other written
tellings are parametrized in test_paper_turns_heldout3.py and test_paper_turns_written_sets.py, the
rule checks in paper_turns_gold_rules.py. None of these runs the product: they check the set, not
what the product makes of it."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bench.paper_turns import SEALED, SETS
from bench.paper_turns.cases import load
from tests.unit import paper_turns_gold_rules as rules

#: (name, fact-id prefix): heldout8 to heldout19 were written to heldout7's plan (the same
#: proportions of attack vectors, modes and labelled constructions), so one set of checks
#: serves all thirteen.
TELLINGS = [
    ("heldout7", "h7-"),
    ("heldout8", "h8-"),
    ("heldout9", "h9-"),
    ("heldout10", "h10-"),
    ("heldout11", "h11-"),
    ("heldout12", "h12-"),
    ("heldout13", "h13-"),
    ("heldout14", "h14-"),
    ("heldout15", "h15-"),
    ("heldout16", "h16-"),
    ("heldout17", "h17-"),
    ("heldout18", "h18-"),
    ("heldout19", "h19-"),
]


@pytest.fixture(params=TELLINGS, ids=[name for name, _ in TELLINGS])
def telling(request: pytest.FixtureRequest) -> tuple[str, Path, str]:
    name, prefix = request.param
    return name, SEALED[name], prefix


def test_the_set_is_sealed_and_no_tuning_tool_measures_it(telling: tuple[str, Path, str]) -> None:
    name, directory, _ = telling
    assert name not in SETS and directory not in SETS.values()


def test_the_set_has_the_papers_proportions_of_attack_vectors_and_modes(
    telling: tuple[str, Path, str],
) -> None:
    heldout = telling[1]
    # Table 12 scaled to 59 cases: 75/75/94/44/40/45/40/63/40 of 516.
    assert rules.per_av(heldout) == {
        "AV1": 8, "AV2": 9, "AV3": 10, "AV4": 5, "AV5": 5, "AV6": 5, "AV7": 5, "AV8": 7, "AV9": 5,
    }  # fmt: skip
    modes = [q.mode for persona in load(heldout) for q in persona.questions]
    # The AV5 aggregations ask for all; three expired events and three retracted plans pass by
    # absence (C.5); every case is asked twice.
    assert (len(modes), modes.count("all"), modes.count("absent")) == (118, 10, 12)


def test_eight_people_of_thirteen_to_fifteen_sessions_over_twelve_to_twenty_months(
    telling: tuple[str, Path, str],
) -> None:
    heldout = telling[1]
    personas = load(heldout)
    assert len(personas) == 8
    for persona in personas:
        sessions = {t.session_id for t in persona.turns}
        span = persona.turns[-1].timestamp - persona.turns[0].timestamp
        assert 13 <= len(sessions) <= 15, persona.user_id
        assert timedelta(days=365) <= span <= timedelta(days=610), persona.user_id


def test_a_stale_value_is_an_older_value_of_a_gold_facts_slot(
    telling: tuple[str, Path, str],
) -> None:
    heldout = telling[1]
    rules.check_stale_values_are_older_values_of_a_gold_slot(heldout)


def test_an_expired_label_has_its_event_before_the_question_and_an_upcoming_one_after(
    telling: tuple[str, Path, str],
) -> None:
    heldout = telling[1]
    rules.check_events_expired_before_and_upcoming_after(heldout)
    # Four upcoming questions with an expired stale event, two past intents (A.7.4), three
    # expired events asked by an upcoming or current intent.
    kinds = [
        "absent" if q.mode == "absent" else "upcoming" if q.stale else "past"
        for q in rules.questions(heldout, "AV2")
    ]
    assert (kinds.count("upcoming"), kinds.count("past"), kinds.count("absent")) == (8, 4, 6)


def test_an_acute_illness_ends_a_week_after_it_is_told_and_a_chronic_one_persists(
    telling: tuple[str, Path, str],
) -> None:
    heldout = telling[1]
    rules.check_acute_illness_ends_a_week_after_and_chronic_persists(heldout, count=2)


def test_a_retracted_plan_is_named_by_a_later_retraction_and_has_no_date(
    telling: tuple[str, Path, str],
) -> None:
    heldout = telling[1]
    # One plan per AV7 question (each asked in two phrasings), none of them dated.
    rules.check_retracted_plans_are_undated_and_retractions_slotless(heldout, count=5)


def test_a_thinking_about_is_soft_weak_beside_a_firm_value_and_only_neutral(
    telling: tuple[str, Path, str],
) -> None:
    _, heldout, prefix = telling
    soft = rules.check_soft_facts_are_weak_beside_a_firm_value(heldout, count=5)
    # Appendix F: "thinking about" is a low-confidence supersession.
    assert {f["confidence"] for f in soft.values()} == {0.4}
    rules.check_soft_facts_are_only_neutral(heldout, prefix, set(soft))
    # One consideration is committed later: its question's gold is the newer firm value.
    facts, _ = rules.suite(heldout)
    committed = [
        q.qid
        for q in rules.questions(heldout, "AV9")
        if any(
            facts[g]["slot_key"] == s["slot_key"]
            and rules.time(facts[g], "ingest_time") > rules.time(s, "ingest_time")
            for g in q.gold
            for s in soft.values()
        )
    ]
    assert len(set(committed)) == 1


def test_a_number_asked_for_is_numeric_and_its_newer_remarks_keep_it(
    telling: tuple[str, Path, str],
) -> None:
    heldout = telling[1]
    rules.check_numbers_are_numeric_and_remarks_keep_them(heldout, remarks=2)


def test_aggregated_facts_are_each_their_own_slot(telling: tuple[str, Path, str]) -> None:
    heldout = telling[1]
    rules.check_aggregated_facts_are_their_own_slots(heldout)


def test_a_neutral_label_beside_a_preference_is_another_slot_or_the_same_move(
    telling: tuple[str, Path, str],
) -> None:
    _, heldout, prefix = telling
    # A.7.2: an order placed for others is another slot and supersedes nothing; every other
    # neutral label is a soft consideration or the retraction of an AV7 plan.
    assert len(rules.other_slot_neutrals(heldout, prefix)) == 1


def test_a_stale_turn_is_gold_nowhere(telling: tuple[str, Path, str]) -> None:
    _, heldout, prefix = telling
    rules.check_stale_turns_are_gold_nowhere(heldout, prefix)
