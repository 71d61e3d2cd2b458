"""The fifth telling of the paper turns (bench/paper_turns/heldout4, SEALED): its gold-metadata
telling says what its labels say, by the paper's rules — a stale fact of a changed value shares
its slot with a newer gold fact (Table 1, §3.3), an expired one has its event before the
question (Table 29), a retracted one is named by a later retraction (A.9), a "thinking about"
is soft and weak beside a firm value (Appendix F), and a number asked for is numeric, newer
number-less remarks about it included (A.7.1). The checks it shares with heldout3 (same
questions, facts at the turns' times) are parametrized in test_paper_turns_heldout3.py, those
every written set shares in test_paper_turns_written_sets.py; the rule checks it shares with
heldout5, heldout6 and heldout7 are in paper_turns_gold_rules.py."""

from __future__ import annotations

from bench.paper_turns import SEALED
from tests.unit import paper_turns_gold_rules as rules

HELDOUT4 = SEALED["heldout4"]


def test_a_stale_value_is_an_older_value_of_a_gold_facts_slot() -> None:
    rules.check_stale_values_are_older_values_of_a_gold_slot(HELDOUT4)


def test_an_expired_label_has_its_event_before_the_question_and_an_upcoming_one_after() -> None:
    facts, _ = rules.suite(HELDOUT4)
    for q in rules.questions(HELDOUT4, "AV2"):
        for s in q.stale:
            assert rules.time(facts[s], "event_time") < q.as_of, (q.qid, s)
        if q.stale:  # an upcoming question: what it serves is still ahead (A.13)
            for g in q.gold:
                assert rules.time(facts[g], "event_time") > q.as_of, (q.qid, g)


def test_a_retracted_label_is_named_by_a_later_retraction() -> None:
    assert list(rules.retracted_plans(HELDOUT4))


def test_a_thinking_about_is_soft_and_weak_beside_a_firm_value_of_its_slot() -> None:
    rules.check_soft_facts_are_weak_beside_a_firm_value(HELDOUT4, count=3)


def test_a_number_asked_for_is_numeric_and_its_newer_remarks_keep_it() -> None:
    rules.check_numbers_are_numeric_and_remarks_keep_them(HELDOUT4, remarks=2)
