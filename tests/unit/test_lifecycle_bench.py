"""The lifecycle benchmark harness: generator, ground truth, metrics, and a tiny run."""

from __future__ import annotations

import argparse
import json
import math
import string
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bench.lifecycle import generate_cmd, run_cmd
from bench.lifecycle import phrasing_events as ev
from bench.lifecycle.configs import UNIFORM_RATE, uniform_policy, untyped_fates
from bench.lifecycle.generator import generate, quotas
from bench.lifecycle.metrics import (
    Outcome,
    bootstrap_ci,
    mcnemar,
    paired_delta_ci,
    score,
    summarize,
)
from bench.lifecycle.phrasing import STATE_KINDS, Kind, fill
from bench.lifecycle.phrasing_filler import FILLER_KINDS
from bench.lifecycle.phrasing_numbers import CHAIN_KINDS, SINGLE_KINDS
from bench.lifecycle.phrasing_prefs import PREFERENCE_KINDS
from bench.lifecycle.phrasing_sets import SET_KINDS, STABLE_KINDS
from bench.lifecycle.scenarios import PAPER_COUNTS
from schemas.categories import Category, UpdateSemantics
from schemas.events import EdgeEvent, TurnEvent
from schemas.policy import load_policy
from schemas.query import QueryRequest
from schemas.records import FactRecord
from workers.inputs import EdgeInput

FILES = ("edges.jsonl", "turns.jsonl", "questions.jsonl", "manifest.json")
EVENT_CATEGORIES = {"OBLIGATIONS", "LOGISTICAL_CONTEXT"}


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lifecycle") / "set"
    generate(3, 11, out)
    return out


# --- generator ---------------------------------------------------------------------------


def test_generation_is_deterministic_in_n_and_seed(tmp_path: Path) -> None:
    generate(2, 5, tmp_path / "a")
    generate(2, 5, tmp_path / "b")
    generate(2, 6, tmp_path / "c")
    for name in FILES:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert (tmp_path / "a" / "turns.jsonl").read_bytes() != (
        tmp_path / "c" / "turns.jsonl"
    ).read_bytes()


def test_question_quotas_follow_table_12() -> None:
    per_persona = quotas(40)
    totals = {av: sum(q.get(av, 0) for q in per_persona) for av in PAPER_COUNTS}
    assert totals == PAPER_COUNTS
    assert sum(totals.values()) == 516
    loads = [sum(q.values()) for q in per_persona]
    assert max(loads) - min(loads) <= 1
    small = quotas(2)
    assert all(sum(q.get(av, 0) for q in small) >= 1 for av in PAPER_COUNTS)


def test_files_parse_as_the_cli_input_formats(bench: Path) -> None:
    for line in _lines(bench / "edges.jsonl"):
        EdgeInput.model_validate(line)
    roles = {TurnEvent.model_validate(line).role for line in _lines(bench / "turns.jsonl")}
    assert roles == {"user", "assistant"}
    for q in _lines(bench / "questions.jsonl"):
        QueryRequest(user_id=q["user_id"], query=q["question"], as_of=q["as_of"])
    manifest = json.loads((bench / "manifest.json").read_text())
    assert manifest["seed"] == 11 and manifest["personas"] == 3
    assert set(manifest["counts"]["per_category"]) == {c.value for c in Category}


def _reference_states(edges: list[dict[str, Any]], as_of: datetime) -> dict[str, str]:
    """An independent reading of the gold edges: latest replace wins, retractions retract,
    calendar facts before the query time are past."""
    state = {e["edge_id"]: "active" for e in edges}
    slots: dict[str, list[str]] = {}
    for e in sorted(edges, key=lambda e: (e["ingest_time"], e["edge_id"])):
        if datetime.fromisoformat(e["ingest_time"]) > as_of:
            continue
        for slot in e.get("retracts", ()):
            for old in slots.get(slot, ()):
                state[old] = "retracted" if state[old] == "active" else state[old]
        if "slot_key" in e:
            if e.get("update") == "replace":
                for old in slots.get(e["slot_key"], ()):
                    state[old] = "superseded" if state[old] == "active" else state[old]
            slots.setdefault(e["slot_key"], []).append(e["edge_id"])
    for e in edges:
        at = e.get("event_time")
        if at and e["category"] in EVENT_CATEGORIES and datetime.fromisoformat(at) < as_of:
            state[e["edge_id"]] = "past" if state[e["edge_id"]] == "active" else state[e["edge_id"]]
    return state


def test_ground_truth_is_consistent_with_the_edges(bench: Path) -> None:
    edges = list(_lines(bench / "edges.jsonl"))
    turns = {t["turn_id"]: t for t in _lines(bench / "turns.jsonl")}
    by_id = {e["edge_id"]: e for e in edges}
    questions = list(_lines(bench / "questions.jsonl"))
    assert {q["av"] for q in questions} == set(PAPER_COUNTS)
    for e in edges:  # each fact is told in one user turn, at its ingest time
        (turn,) = e["source_turns"]
        assert turns[turn]["role"] == "user" and turns[turn]["timestamp"] == e["ingest_time"]
    for q in questions:
        mine = [e for e in edges if e["user_id"] == q["user_id"]]
        states = _reference_states(mine, datetime.fromisoformat(q["as_of"]))
        gold, stale = q["gold"], q["stale"]
        assert all(by_id[f]["user_id"] == q["user_id"] for f in gold + stale)
        assert not set(gold) & set(stale)
        if q["mode"] == "absent":
            assert not gold and stale
            assert all(states[f] != "active" for f in stale), q
        else:
            assert gold
            if q["variant"] != "before":
                assert any(states[f] == "active" for f in gold), q
                assert all(states[f] != "active" for f in stale), q
        if q["mode"] == "all":
            assert len(gold) >= 2 and all(states[f] == "active" for f in gold)


def test_change_questions_include_backward_looking_phrasings(tmp_path: Path) -> None:
    generate(8, 2, tmp_path)
    questions = list(_lines(tmp_path / "questions.jsonl"))
    before = [q for q in questions if q["variant"] == "before"]
    assert before and all("before" in q["question"] or "used to" in q["question"] for q in before)
    assert {q["mode"] for q in questions} == {"any", "all", "absent"}


def _kinds() -> Iterator[Kind]:
    yield from STATE_KINDS.values()
    yield from PREFERENCE_KINDS.values()
    yield from CHAIN_KINDS.values()
    yield from SINGLE_KINDS.values()
    yield from STABLE_KINDS.values()


def test_every_kind_of_fact_has_at_least_five_phrasings() -> None:
    for kind in _kinds():
        for bank in (kind.say, kind.change, kind.implicit, kind.soft, kind.commit, kind.stay):
            assert not bank or len(set(bank)) >= 5, (kind.name, bank)
    for event in ev.EVENT_KINDS.values():
        assert len(set(event.say)) >= 5 and len(set(event.move)) >= 5, event.name
    for plan in ev.PLAN_KINDS.values():
        assert len(set(plan.say)) >= 5, plan.name
    for member in SET_KINDS.values():
        assert len(set(member.say)) >= 5 and len(set(member.stop)) >= 5, member.name
    for filler in FILLER_KINDS:
        assert len({say for say, _ in filler.pairs}) >= 5, filler.name
    assert len(set(ev.DROP)) >= 5 and len(set(ev.DROP_NOW)) >= 5


def test_every_template_renders_with_the_values_it_names() -> None:
    values = {k: "x" for k in ("v", "old", "item", "slug", "species", "place", "noun", "when",
                               "to", "ref", "reason", "name", "rel", "topic", "dish", "film",
                               "amount", "past", "gold_when")}  # fmt: skip
    banks: list[str] = []
    for kind in _kinds():
        banks += [*kind.say, *kind.change, *kind.implicit, *kind.soft, *kind.commit]
        banks += [*kind.stay, *kind.ask, *kind.ask_before, kind.gold]
    for filler in FILLER_KINDS:
        banks += [s for pair in filler.pairs for s in pair]
    banks += [*ev.DROP, *ev.DROP_NOW, *ev.ASK_EVENT, *ev.ASK_ANY_UPCOMING]
    for template in banks:
        names = {f for _, f, _, _ in string.Formatter().parse(template) if f}
        assert names <= set(values) | {f"a_{k}" for k in values}, template
        assert fill(template, **values)


def test_when_phrases_match_the_distance() -> None:
    said = datetime(2025, 3, 12, 10, tzinfo=UTC)  # a Wednesday
    assert ev.when_phrases(said, said + timedelta(days=1, hours=5), True, 1) == (
        "tomorrow at 3pm",
        "to tomorrow at 3pm",
    )
    assert ev.when_phrases(said, said + timedelta(days=2), False, 1)[0] == "on Friday"
    assert ev.when_phrases(said, said + timedelta(days=30), False, 1)[0] == "on April 11"


# --- metrics -----------------------------------------------------------------------------


def test_score_any_all_and_pass_by_absence() -> None:
    results = [("a",), ("b", "c"), ("d",), ("e",), ("f",), ("g",)]
    o = score(results, "any", gold={"c"}, stale={"g"})  # rank 6: outside the top 5
    assert (o.passed, o.stale, o.rank, o.hit1, o.rr) == (True, False, 2, 0.0, 0.5)
    assert score(results, "any", {"a"}, {"f"}).stale  # rank 5 is inside the stale window
    assert not score(results, "any", {"zz"}, ()).passed
    assert score(results, "all", {"a", "d"}, ()).passed
    assert not score(results, "all", {"a", "zz"}, ()).passed
    assert score(results, "absent", (), {"zz"}).passed
    absent = score(results, "absent", (), {"g"})  # rank 6: fails pass, not staleness
    assert (absent.passed, absent.stale, absent.ranked) == (False, False, False)
    assert not score([(str(i),) for i in range(12)], "any", {"11"}, ()).passed  # beyond top 10


def test_mcnemar_exact() -> None:
    assert mcnemar([True] * 5 + [False], [False] * 5 + [False]) == mcnemar([True] * 5, [False] * 5)
    m = mcnemar([True] * 5, [False] * 5)
    assert (m.b, m.c) == (5, 0) and math.isclose(m.p, 2 / 32)
    assert mcnemar([True, False], [False, True]).p == 1.0
    assert mcnemar([True, True], [True, True]) == mcnemar([False], [False])
    m = mcnemar([True] * 10 + [False] * 2, [False] * 10 + [True] * 2)
    assert math.isclose(m.p, 2 * sum(math.comb(12, i) for i in range(3)) / 2**12)
    with pytest.raises(ValueError):
        mcnemar([True], [True, False])


def test_bootstrap_intervals_are_seeded_and_bracket_the_mean() -> None:
    flags = [True] * 70 + [False] * 30
    lo, hi = bootstrap_ci(flags, seed=3) or (0.0, 0.0)
    assert lo < 0.7 < hi and (lo, hi) == bootstrap_ci(flags, seed=3)
    assert bootstrap_ci([1.0] * 10) == (1.0, 1.0)
    assert bootstrap_ci([]) is None
    assert paired_delta_ci([True] * 10, [True] * 10) == (0.0, 0.0)


def test_summary_over_hand_made_outcomes() -> None:
    outcomes = [
        Outcome(True, False, 1, True),
        Outcome(True, True, 2, True),
        Outcome(False, False, None, True),
        Outcome(True, False, None, False),  # pass by absence: no rank
    ]
    s = summarize(outcomes)
    assert (s["pass"], s["stale"], s["n"], s["n_ranked"]) == (0.75, 0.25, 4, 3)
    assert s["hit1"] == round(1 / 3, 4) and s["mrr"] == 0.5


# --- configurations ----------------------------------------------------------------------


def test_uniform_policy_shares_one_rate_alpha_and_floor() -> None:
    policy = load_policy()
    uniform = uniform_policy(policy)
    assert {(c.decay_per_hour, c.alpha, c.floor) for c in uniform.categories.values()} == {
        (UNIFORM_RATE, 0.3, 0.0)
    }
    assert uniform.masks == policy.masks
    assert {c: p.event_time for c, p in uniform.categories.items()} == {
        c: p.event_time for c, p in policy.categories.items()
    }


def _record(eid: str, slot: str | None, hour: int, **kw: Any) -> FactRecord:
    edge = EdgeEvent(
        edge_id=eid,
        user_id="u",
        text=eid,
        categories={Category.OTHER: 1.0},
        slot_key=slot,
        ingest_time=datetime(2025, 1, 1, hour, tzinfo=UTC),
        **kw,
    )
    return FactRecord(edge=edge)


def test_untyped_arm_uses_one_supersession_threshold_and_retractions() -> None:
    replace = UpdateSemantics.REPLACE
    records = [
        _record("a", "s", 1, update=replace),
        _record("b", "s", 2, update=replace, confidence=0.85),  # below 0.95, above 0.8
        _record("c", "s", 3, update=UpdateSemantics.SOFT, confidence=0.4),
        _record("p", "plan", 4),
        _record("r", None, 5, retracts=("plan",)),
    ]
    fates = untyped_fates(records, threshold=0.8)
    assert fates["a"].superseded_at == datetime(2025, 1, 1, 2, tzinfo=UTC)
    assert "b" not in fates and "c" not in fates  # a hedge supersedes nothing
    assert fates["p"].retracted_at == datetime(2025, 1, 1, 5, tzinfo=UTC)


# --- a tiny end-to-end run ---------------------------------------------------------------


@pytest.mark.parametrize("track", ["gold", "text"])
def test_tiny_run_prints_one_json_object_and_writes_reports(
    track: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "set"
    assert generate_cmd(argparse.Namespace(personas=2, seed=7, out=data)) == 0
    capsys.readouterr()
    args = argparse.Namespace(
        dir=data, track=track, json=True, report=tmp_path / "report", embedder="hashing",
        data_dir=tmp_path / "work",
    )  # fmt: skip
    assert run_cmd(args) == 0
    result = json.loads(capsys.readouterr().out)
    configs = result["configs"]
    assert {"full", "flat", "uniform", "no_routing", "untyped"} <= set(configs)
    for c in configs.values():
        assert {"pass", "stale", "hit1", "mrr", "per_av", "ci95"} <= set(c)
        assert set(c["per_av"]) == set(PAPER_COUNTS)
        assert all({"pass", "stale", "n"} <= set(v) for v in c["per_av"].values())
    assert set(result["mcnemar"]) == set(configs) - {"full"}
    assert {"b", "c", "p"} <= set(result["mcnemar"]["flat"])
    assert result["track"] == track and result["questions"] == 26
    report = (tmp_path / "report" / "report.md").read_text()
    assert "## Headline" in report and "AV9" in report
    assert json.loads((tmp_path / "report" / "report.json").read_text())["per_question"]
