"""The fifth telling of the paper turns (bench/paper_turns/heldout4, SEALED): its gold-metadata
telling says what its labels say, by the paper's rules — a stale fact of a changed value shares
its slot with a newer gold fact (Table 1, §3.3), an expired one has its event before the
question (Table 29), a retracted one is named by a later retraction (A.9), a "thinking about"
is soft and weak beside a firm value (Appendix F), and a number asked for is numeric, newer
number-less remarks about it included (A.7.1). The checks it shares with heldout3 (same
questions, facts at the turns' times) are parametrized in test_paper_turns_heldout3.py, those
every written set shares in test_paper_turns_written_sets.py."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from functools import cache
from typing import Any

from bench.paper_turns import SEALED
from bench.paper_turns.cases import load

HELDOUT4 = SEALED["heldout4"]
#: Attack vectors whose stale labels are older values of the gold fact's slot.
SUPERSEDED = {"AV1", "AV4", "AV6", "AV8", "AV9"}


@cache
def _suite() -> tuple[dict[str, dict[str, Any]], list[tuple[str, Any]]]:
    """Gold facts by edge id, and every question of the gold telling with its attack vector."""
    from bench.paper_cases_data import load_suite

    suite = load_suite(HELDOUT4 / "gold")
    av = {q.case: q.av for persona in load(HELDOUT4) for q in persona.questions}
    facts = {str(e["edge_id"]): e for e in suite.edges}
    return facts, [(av[q.qid], q) for q in suite.questions]


def _questions(*avs: str) -> Iterator[Any]:
    return (q for av, q in _suite()[1] if av in avs)


def _time(fact: dict[str, Any], key: str) -> datetime:
    return datetime.fromisoformat(str(fact[key]))


def test_a_stale_value_is_an_older_value_of_a_gold_facts_slot() -> None:
    facts, _ = _suite()
    for q in _questions(*SUPERSEDED):
        gold = [facts[g] for g in q.gold]
        for s in q.stale:
            old = facts[s]
            newer = [g for g in gold if _time(g, "ingest_time") > _time(old, "ingest_time")]
            assert any(g["slot_key"] == old["slot_key"] for g in newer), (q.qid, s)


def test_an_expired_label_has_its_event_before_the_question_and_an_upcoming_one_after() -> None:
    facts, _ = _suite()
    for q in _questions("AV2"):
        for s in q.stale:
            assert _time(facts[s], "event_time") < q.as_of, (q.qid, s)
        if q.stale:  # an upcoming question: what it serves is still ahead (A.13)
            for g in q.gold:
                assert _time(facts[g], "event_time") > q.as_of, (q.qid, g)


def test_a_retracted_label_is_named_by_a_later_retraction() -> None:
    facts, _ = _suite()
    for q in _questions("AV7"):
        named = q.stale if q.mode == "absent" else q.gold
        retracted = [e for e in named if facts[e].get("slot_key")]
        assert retracted, q.qid
        for e in retracted:
            plan = facts[e]
            assert any(
                plan["slot_key"] in (f.get("retracts") or [])
                and _time(f, "ingest_time") > _time(plan, "ingest_time")
                for f in facts.values()
                if f["user_id"] == plan["user_id"]
            ), (q.qid, e)


def test_a_thinking_about_is_soft_and_weak_beside_a_firm_value_of_its_slot() -> None:
    facts, _ = _suite()
    soft = [f for f in facts.values() if f.get("update") == "soft"]
    assert len(soft) == 3
    for f in soft:
        assert f["confidence"] <= 0.5, f["edge_id"]
        assert any(
            o["slot_key"] == f["slot_key"]
            and o.get("update") != "soft"
            and _time(o, "ingest_time") < _time(f, "ingest_time")
            for o in facts.values()
        ), f["edge_id"]


def test_a_number_asked_for_is_numeric_and_its_newer_remarks_keep_it() -> None:
    facts, _ = _suite()
    for q in _questions("AV8"):
        for g in q.gold:
            assert facts[g]["numeric"], (q.qid, g)
    # A.7.1: newer number-less remarks about a monthly cost, in its slot, replace nothing.
    remarks = [f for f in facts.values() if f.get("update") == "accumulate"]
    assert len(remarks) == 2
    for remark in remarks:
        assert not remark["numeric"]
        older = [
            f for f in facts.values() if f["slot_key"] == remark["slot_key"] and f is not remark
        ]
        assert len(older) == 1 and older[0]["numeric"], remark["edge_id"]
        assert _time(older[0], "ingest_time") < _time(remark, "ingest_time")
