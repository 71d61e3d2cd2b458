"""The rule checks a sealed telling's gold-metadata facts share (heldout4, heldout5, heldout6,
heldout7, heldout8, heldout9, heldout10, heldout11, heldout12): the facts say what the labels
say by the paper's rules. Each set's test module calls them on its own directory; none of them
runs the product."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from bench.paper_turns.cases import load

#: Attack vectors whose stale labels are older values of the gold fact's slot.
SUPERSEDED = ("AV1", "AV4", "AV6", "AV8", "AV9")
Facts = dict[str, dict[str, Any]]


@cache
def suite(directory: Path) -> tuple[Facts, list[tuple[str, Any]]]:
    """Gold facts by edge id, and every question of the gold telling with its attack vector."""
    from bench.paper_cases_data import load_suite

    told = load_suite(directory / "gold")
    av = {q.case: q.av for persona in load(directory) for q in persona.questions}
    facts = {str(e["edge_id"]): e for e in told.edges}
    return facts, [(av[q.qid], q) for q in told.questions]


def questions(directory: Path, *avs: str) -> Iterator[Any]:
    return (q for av, q in suite(directory)[1] if av in avs)


def time(fact: dict[str, Any], key: str) -> datetime:
    return datetime.fromisoformat(str(fact[key]))


def check_stale_values_are_older_values_of_a_gold_slot(directory: Path) -> None:
    facts, _ = suite(directory)
    for q in questions(directory, *SUPERSEDED):
        gold = [facts[g] for g in q.gold]
        for s in q.stale:
            old = facts[s]
            newer = [g for g in gold if time(g, "ingest_time") > time(old, "ingest_time")]
            assert any(g["slot_key"] == old["slot_key"] for g in newer), (q.qid, s)


def retracted_plans(directory: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(question id, plan) of every AV7 question, each plan named by a later retraction (A.9)."""
    facts, _ = suite(directory)
    for q in questions(directory, "AV7"):
        named = q.stale if q.mode == "absent" else q.gold
        retracted = [e for e in named if facts[e].get("slot_key")]
        assert retracted, q.qid
        for e in retracted:
            plan = facts[e]
            assert any(
                plan["slot_key"] in (f.get("retracts") or [])
                and time(f, "ingest_time") > time(plan, "ingest_time")
                for f in facts.values()
                if f["user_id"] == plan["user_id"]
            ), (q.qid, e)
            yield q.qid, plan


def check_soft_facts_are_weak_beside_a_firm_value(directory: Path, count: int) -> Facts:
    """Appendix F: every "thinking about" is soft, weak and beside an older firm value."""
    facts, _ = suite(directory)
    soft = {k: f for k, f in facts.items() if f.get("update") == "soft"}
    assert len(soft) == count
    for f in soft.values():
        assert f["confidence"] <= 0.5, f["edge_id"]
        assert any(
            o["slot_key"] == f["slot_key"]
            and o.get("update") != "soft"
            and time(o, "ingest_time") < time(f, "ingest_time")
            for o in facts.values()
        ), f["edge_id"]
    return soft


def check_numbers_are_numeric_and_remarks_keep_them(directory: Path, remarks: int) -> None:
    facts, _ = suite(directory)
    for q in questions(directory, "AV8"):
        for g in q.gold:
            assert facts[g]["numeric"], (q.qid, g)
    # A.7.1: newer number-less remarks about a monthly cost, in its slot, replace nothing.
    said = [f for f in facts.values() if f.get("update") == "accumulate"]
    assert len(said) == remarks
    for remark in said:
        assert not remark["numeric"]
        older = [
            f for f in facts.values() if f["slot_key"] == remark["slot_key"] and f is not remark
        ]
        assert len(older) == 1 and older[0]["numeric"], remark["edge_id"]
        assert time(older[0], "ingest_time") < time(remark, "ingest_time")


@cache
def toml_questions(directory: Path, prefix: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """(gold user id, question) of every case file, with its `neutral` labels (gold has none)."""
    out = []
    for path in sorted(directory.glob("*.toml")):
        doc = tomllib.loads(path.read_text("utf-8"))
        out.extend((f"{prefix}{doc['user']}", q) for q in doc["question"])
    return tuple(out)


def per_av(directory: Path) -> dict[str, int]:
    """Cases per attack vector (a case is counted once, however many phrasings it has)."""
    cases = {(q.case, q.av) for persona in load(directory) for q in persona.questions}
    return {av: sum(1 for _, a in cases if a == av) for av in {a for _, a in cases}}


def check_events_expired_before_and_upcoming_after(directory: Path) -> None:
    facts, _ = suite(directory)
    for q in questions(directory, "AV2"):
        for s in q.stale:
            assert time(facts[s], "event_time") < q.as_of, (q.qid, s)
        for g in q.gold:
            # An upcoming question serves what is still ahead (A.13); a past intent, asked
            # without stale labels, serves what has passed (A.7.4).
            ahead = time(facts[g], "event_time") > q.as_of
            assert ahead == bool(q.stale), (q.qid, g)


def check_soft_facts_are_only_neutral(directory: Path, prefix: str, soft_ids: set[str]) -> None:
    """Appendix F: a consideration is never the answer nor a stale value, only allowed."""
    asked = toml_questions(directory, prefix)
    for user, q in asked:
        for field in ("gold", "stale"):
            assert not {f"{user}/{x}" for x in q.get(field, ())} & soft_ids, (q["case"], field)
    neutral = {f"{user}/{x}" for user, q in asked for x in q.get("neutral", ())}
    assert soft_ids <= neutral


def check_aggregated_facts_are_their_own_slots(directory: Path) -> None:
    facts, _ = suite(directory)
    for q in questions(directory, "AV5"):
        assert q.mode == "all" and len(q.gold) == 3, q.qid
        assert len({facts[g]["slot_key"] for g in q.gold}) == 3, q.qid


def other_slot_neutrals(directory: Path, prefix: str) -> set[str]:
    """The neutral labels that are neither soft nor a retraction, each checked to be an A.7.2
    different slot beside an AV1 preference (an order for others supersedes nothing)."""
    facts, _ = suite(directory)
    found = set()
    for user, q in toml_questions(directory, prefix):
        gold_slots = {facts[f"{user}/{g}"]["slot_key"] for g in q.get("gold", ())}
        for n in q.get("neutral", ()):
            fact = facts[f"{user}/{n}"]
            if fact.get("update") == "soft" or fact.get("retracts"):
                continue
            assert q["av"] == "AV1" and fact["slot_key"] not in gold_slots, (q["case"], n)
            found.add(f"{user}/{n}")
    return found


def check_acute_illness_ends_a_week_after_and_chronic_persists(directory: Path, count: int) -> None:
    """Table 1 row 4: the flu resolves a week after it is told, the diabetes persists."""
    facts, _ = suite(directory)
    acute: set[str] = set()
    for q in questions(directory, "AV3"):
        for s in q.stale:
            told = time(facts[s], "ingest_time")
            ends = time(facts[s], "event_time")
            assert ends - told == timedelta(days=7) and ends < q.as_of, (q.qid, s)
            assert facts[s]["category"] == "HEALTH_WELLBEING", (q.qid, s)
            acute.add(s)
            for g in q.gold:
                assert "event_time" not in facts[g], (q.qid, g)
                assert facts[g]["category"] == "HEALTH_WELLBEING", (q.qid, g)
    assert len(acute) == count


def check_retracted_plans_are_undated_and_retractions_slotless(directory: Path, count: int) -> None:
    """A.9: one plan per AV7 question, with no date of its own (the question cannot pass by
    expiry instead of retraction); a retraction states no value of its own."""
    facts, _ = suite(directory)
    plans = list(retracted_plans(directory))
    assert len({(qid, plan["edge_id"]) for qid, plan in plans}) == count
    for qid, plan in plans:
        assert "event_time" not in plan, qid
    for fact in facts.values():
        if fact.get("retracts"):
            assert fact["slot_key"] is None, fact["edge_id"]


def check_stale_turns_are_gold_nowhere(directory: Path, prefix: str) -> None:
    """A stale turn holds no second fact any question of the set asks about."""
    asked = toml_questions(directory, prefix)
    gold = {f"{user}/{g}" for user, q in asked for g in q.get("gold", ())}
    for user, q in asked:
        for s in q.get("stale", ()):
            assert f"{user}/{s}" not in gold, (q["case"], s)
