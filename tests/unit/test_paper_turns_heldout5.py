"""The sixth telling of the paper turns (bench/paper_turns/heldout5, SEALED): its gold-metadata
telling says what its labels say, by the paper's rules — a stale fact of a changed value shares
its slot with a newer gold fact (Table 1, §3.3), an expired one has its event before the
question and an upcoming one after it (Table 29, A.13), an acute illness expires while a chronic
one has no end (Table 1 row 4), a retracted plan is named by a later retraction and has no date
of its own (A.9), a "thinking about" is soft, weak, beside a firm value and only ever neutral
(Appendix F), a number asked for is numeric and newer number-less remarks keep it (A.7.1), and
the catering order of A.7.2 is another slot. The checks it shares with heldout3 and heldout4
are parametrized in test_paper_turns_heldout3.py and test_paper_turns_written_sets.py. None of
these runs the product: they check the set, not what the product makes of it."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from datetime import datetime
from functools import cache
from typing import Any

from bench.paper_turns import SEALED
from bench.paper_turns.cases import load

HELDOUT5 = SEALED["heldout5"]
#: Attack vectors whose stale labels are older values of the gold fact's slot.
SUPERSEDED = {"AV1", "AV4", "AV6", "AV8", "AV9"}


@cache
def _suite() -> tuple[dict[str, dict[str, Any]], list[tuple[str, Any]]]:
    """Gold facts by edge id, and every question of the gold telling with its attack vector."""
    from bench.paper_cases_data import load_suite

    suite = load_suite(HELDOUT5 / "gold")
    av = {q.case: q.av for persona in load(HELDOUT5) for q in persona.questions}
    facts = {str(e["edge_id"]): e for e in suite.edges}
    return facts, [(av[q.qid], q) for q in suite.questions]


@cache
def _toml_questions() -> tuple[tuple[str, dict[str, Any]], ...]:
    """(user, question) of every case file, with its `neutral` labels (the gold has none)."""
    out = []
    for path in sorted(HELDOUT5.glob("*.toml")):
        doc = tomllib.loads(path.read_text("utf-8"))
        out.extend((f"h5-{doc['user']}", q) for q in doc["question"])
    return tuple(out)


def _questions(*avs: str) -> Iterator[Any]:
    return (q for av, q in _suite()[1] if av in avs)


def _time(fact: dict[str, Any], key: str) -> datetime:
    return datetime.fromisoformat(str(fact[key]))


def test_the_set_has_the_papers_proportions_of_attack_vectors() -> None:
    # Table 12 scaled to 59 cases: 75/75/94/44/40/45/40/63/40 of 516.
    cases = {(q.case, q.av) for persona in load(HELDOUT5) for q in persona.questions}
    per_av = {av: sum(1 for _, a in cases if a == av) for av in {a for _, a in cases}}
    assert per_av == {
        "AV1": 8, "AV2": 9, "AV3": 10, "AV4": 5, "AV5": 5, "AV6": 5, "AV7": 5, "AV8": 7, "AV9": 5,
    }  # fmt: skip


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
        for g in q.gold:
            # An upcoming question serves what is still ahead (A.13); a past intent, asked
            # without stale labels, serves what has passed (A.7.4).
            ahead = _time(facts[g], "event_time") > q.as_of
            assert ahead == bool(q.stale), (q.qid, g)


def test_an_acute_illness_expires_and_a_chronic_one_persists() -> None:
    facts, _ = _suite()
    for q in _questions("AV3"):
        for s in q.stale:  # Table 1 row 4: the flu resolves, the diabetes persists
            assert _time(facts[s], "event_time") < q.as_of, (q.qid, s)
            for g in q.gold:
                assert "event_time" not in facts[g], (q.qid, g)


def test_a_retracted_plan_is_named_by_a_later_retraction_and_has_no_date() -> None:
    facts, _ = _suite()
    for q in _questions("AV7"):
        named = q.stale if q.mode == "absent" else q.gold
        retracted = [e for e in named if facts[e].get("slot_key")]
        assert len(retracted) == 1, q.qid
        plan = facts[retracted[0]]
        # No date of its own: the question cannot pass by expiry instead of retraction.
        assert "event_time" not in plan, q.qid
        assert any(
            plan["slot_key"] in (f.get("retracts") or [])
            and _time(f, "ingest_time") > _time(plan, "ingest_time")
            for f in facts.values()
            if f["user_id"] == plan["user_id"]
        ), q.qid


def test_a_thinking_about_is_soft_weak_beside_a_firm_value_and_only_neutral() -> None:
    facts, _ = _suite()
    soft = [f for f in facts.values() if f.get("update") == "soft"]
    assert len(soft) == 5
    for f in soft:
        assert f["confidence"] <= 0.5, f["edge_id"]
        assert any(
            o["slot_key"] == f["slot_key"]
            and o.get("update") != "soft"
            and _time(o, "ingest_time") < _time(f, "ingest_time")
            for o in facts.values()
        ), f["edge_id"]
    soft_ids = {str(f["edge_id"]) for f in soft}
    for user, q in _toml_questions():
        for field in ("gold", "stale"):
            assert not {f"{user}/{x}" for x in q.get(field, ())} & soft_ids, (q["case"], field)
    neutral = {f"{user}/{x}" for user, q in _toml_questions() for x in q.get("neutral", ())}
    assert soft_ids <= neutral


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


def test_aggregated_facts_are_each_their_own_slot() -> None:
    facts, _ = _suite()
    for q in _questions("AV5"):
        assert q.mode == "all" and len(q.gold) == 3, q.qid
        assert len({facts[g]["slot_key"] for g in q.gold}) == 3, q.qid


def test_a_neutral_label_beside_a_preference_is_another_slot_or_the_same_move() -> None:
    # A.7.2: a client's catering order is another slot and supersedes nothing; every other
    # neutral label is a soft consideration or the retraction of an AV7 plan.
    facts, _ = _suite()
    for user, q in _toml_questions():
        gold_slots = {facts[f"{user}/{g}"]["slot_key"] for g in q.get("gold", ())}
        for n in q.get("neutral", ()):
            fact = facts[f"{user}/{n}"]
            if fact.get("update") == "soft" or fact.get("retracts"):
                continue
            assert q["av"] == "AV1" and fact["slot_key"] not in gold_slots, (q["case"], n)


def test_a_stale_turn_is_asked_about_only_as_the_fact_it_is() -> None:
    # A stale turn holds no second fact a question asks about: it is gold nowhere, except a
    # passed appointment asked by a past intent (A.7.4), which is the same fact.
    gold_in = {}
    for user, q in _toml_questions():
        for g in q.get("gold", ()):
            gold_in.setdefault(f"{user}/{g}", []).append(q)
    for user, q in _toml_questions():
        for s in q.get("stale", ()):
            for other in gold_in.get(f"{user}/{s}", []):
                assert other["av"] == "AV2" and not other.get("stale"), (q["case"], s)
