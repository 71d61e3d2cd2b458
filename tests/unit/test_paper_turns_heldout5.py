"""The sixth telling of the paper turns (bench/paper_turns/heldout5, SEALED): its gold-metadata
telling says what its labels say, by the paper's rules — a stale fact of a changed value shares
its slot with a newer gold fact (Table 1, §3.3), an expired one has its event before the
question and an upcoming one after it (Table 29, A.13), an acute illness expires while a chronic
one has no end (Table 1 row 4), a retracted plan is named by a later retraction and has no date
of its own (A.9), a "thinking about" is soft, weak, beside a firm value and only ever neutral
(Appendix F), a number asked for is numeric and newer number-less remarks keep it (A.7.1), and
the catering order of A.7.2 is another slot. The checks it shares with heldout3 and heldout4
are parametrized in test_paper_turns_heldout3.py and test_paper_turns_written_sets.py, the rule
checks it shares with heldout4 are in paper_turns_gold_rules.py. None of these runs the
product: they check the set, not what the product makes of it."""

from __future__ import annotations

from bench.paper_turns import SEALED
from tests.unit import paper_turns_gold_rules as rules

HELDOUT5 = SEALED["heldout5"]


def test_the_set_has_the_papers_proportions_of_attack_vectors() -> None:
    # Table 12 scaled to 59 cases: 75/75/94/44/40/45/40/63/40 of 516.
    assert rules.per_av(HELDOUT5) == {
        "AV1": 8, "AV2": 9, "AV3": 10, "AV4": 5, "AV5": 5, "AV6": 5, "AV7": 5, "AV8": 7, "AV9": 5,
    }  # fmt: skip


def test_a_stale_value_is_an_older_value_of_a_gold_facts_slot() -> None:
    rules.check_stale_values_are_older_values_of_a_gold_slot(HELDOUT5)


def test_an_expired_label_has_its_event_before_the_question_and_an_upcoming_one_after() -> None:
    rules.check_events_expired_before_and_upcoming_after(HELDOUT5)


def test_an_acute_illness_expires_and_a_chronic_one_persists() -> None:
    facts, _ = rules.suite(HELDOUT5)
    for q in rules.questions(HELDOUT5, "AV3"):
        for s in q.stale:  # Table 1 row 4: the flu resolves, the diabetes persists
            assert rules.time(facts[s], "event_time") < q.as_of, (q.qid, s)
            for g in q.gold:
                assert "event_time" not in facts[g], (q.qid, g)


def test_a_retracted_plan_is_named_by_a_later_retraction_and_has_no_date() -> None:
    plans = list(rules.retracted_plans(HELDOUT5))
    # One plan per AV7 question (each asked in two phrasings).
    assert len({(qid, plan["edge_id"]) for qid, plan in plans}) == 5
    for qid, plan in plans:
        # No date of its own: the question cannot pass by expiry instead of retraction.
        assert "event_time" not in plan, qid


def test_a_thinking_about_is_soft_weak_beside_a_firm_value_and_only_neutral() -> None:
    soft = rules.check_soft_facts_are_weak_beside_a_firm_value(HELDOUT5, count=5)
    rules.check_soft_facts_are_only_neutral(HELDOUT5, "h5-", set(soft))


def test_a_number_asked_for_is_numeric_and_its_newer_remarks_keep_it() -> None:
    rules.check_numbers_are_numeric_and_remarks_keep_them(HELDOUT5, remarks=2)


def test_aggregated_facts_are_each_their_own_slot() -> None:
    rules.check_aggregated_facts_are_their_own_slots(HELDOUT5)


def test_a_neutral_label_beside_a_preference_is_another_slot_or_the_same_move() -> None:
    # A.7.2: a client's catering order is another slot and supersedes nothing; every other
    # neutral label is a soft consideration or the retraction of an AV7 plan.
    rules.other_slot_neutrals(HELDOUT5, "h5-")


def test_a_stale_turn_is_asked_about_only_as_the_fact_it_is() -> None:
    # A stale turn holds no second fact a question asks about: it is gold nowhere, except a
    # passed appointment asked by a past intent (A.7.4), which is the same fact.
    gold_in = {}
    for user, q in rules.toml_questions(HELDOUT5, "h5-"):
        for g in q.get("gold", ()):
            gold_in.setdefault(f"{user}/{g}", []).append(q)
    for user, q in rules.toml_questions(HELDOUT5, "h5-"):
        for s in q.get("stale", ()):
            for other in gold_in.get(f"{user}/{s}", []):
                assert other["av"] == "AV2" and not other.get("stale"), (q["case"], s)
