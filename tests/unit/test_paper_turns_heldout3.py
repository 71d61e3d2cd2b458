"""The fourth telling of the paper turns (bench/paper_turns/heldout3, SEALED): a set that
parses, whose every label names a user turn of its own file, that covers every attack vector
and asks every question in at least two ways, and that no tuning tool measures. A typo in a
label must be an error, never a question that passes whatever is served."""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

import pytest

from bench.paper_turns import SEALED, SETS
from bench.paper_turns.cases import CaseError, load, parse

HELDOUT3 = SEALED["heldout3"]
ATTACK_VECTORS = {f"AV{n}" for n in range(1, 10)}
#: The turn id `cases.parse` gives a turn without a label.
UNLABELLED = re.compile(r"[ua]\d\d-\d\d")


def _docs() -> dict[str, dict[str, Any]]:
    return {p.name: tomllib.loads(p.read_text("utf-8")) for p in sorted(HELDOUT3.glob("*.toml"))}


def test_the_set_parses_and_covers_every_attack_vector() -> None:
    personas = load(HELDOUT3)
    assert 6 <= len(personas) <= 8
    assert len({p.user_id for p in personas}) == len(personas)
    cases = {(q.case, q.av) for p in personas for q in p.questions}
    assert 40 <= len(cases) <= 60
    assert {av for _, av in cases} == ATTACK_VECTORS


def test_the_set_is_sealed_and_no_tuning_tool_measures_it() -> None:
    # `frecall bench extraction-ablation` measures every set of SETS, module by module.
    assert HELDOUT3.name == "heldout3" and HELDOUT3.is_dir()
    assert "heldout3" not in SETS and HELDOUT3 not in SETS.values()
    assert not set(SEALED) & set(SETS) and not set(SEALED.values()) & set(SETS.values())


def test_every_label_names_a_user_turn_of_its_own_file() -> None:
    for persona in load(HELDOUT3):
        user_turns = {t.turn_id for t in persona.turns if t.role == "user"}
        for q in persona.questions:
            assert set(q.gold) <= user_turns, (persona.source, q.case, q.gold)
            assert set(q.stale) <= user_turns, (persona.source, q.case, q.stale)
            assert not set(q.gold) & set(q.stale), (persona.source, q.case)
    for name, doc in _docs().items():
        persona = parse(name, doc)
        user_turns = {t.turn_id for t in persona.turns if t.role == "user"}
        for q in doc["question"]:
            neutral = set(q.get("neutral", ()))
            assert neutral <= user_turns, (name, q["case"])
            assert not neutral & {*q.get("gold", ()), *q.get("stale", ())}, (name, q["case"])


def test_every_question_is_asked_at_least_twice_and_absent_ones_name_what_must_not_come() -> None:
    for name, doc in _docs().items():
        for q in doc["question"]:
            assert len(set(q["ask"])) >= 2, (name, q["case"])
            if q.get("mode") == "absent":
                assert q.get("stale") and not q.get("gold"), (name, q["case"])


def test_case_names_are_unique_across_the_set() -> None:
    seen: dict[str, str] = {}
    for name, doc in _docs().items():
        for q in doc["question"]:
            assert q["case"] not in seen, (q["case"], name, seen.get(q["case"]))
            seen[q["case"]] = name


def _every_label() -> list[tuple[str, int, str]]:
    found: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
    for name, doc in _docs().items():
        for i, q in enumerate(doc["question"]):
            for field in ("gold", "stale", "neutral"):
                if q.get(field):
                    found[field].append((name, i, field))
    # One question of each kind of label is enough to show the guard.
    return [rows[0] for rows in found.values()]


@pytest.mark.parametrize(("name", "index", "field"), _every_label())
def test_a_typo_in_a_real_label_is_an_error(name: str, index: int, field: str) -> None:
    doc = _docs()[name]
    question = dict(doc["question"][index])
    question[field] = [f"{question[field][0]}x", *question[field][1:]]
    broken = {**doc, "question": [*doc["question"][:index], question]}
    with pytest.raises(CaseError):
        parse(name, broken)


def test_an_absent_question_without_a_stale_label_is_an_error() -> None:
    name, doc = next(
        (n, d) for n, d in _docs().items() if any(q.get("mode") == "absent" for q in d["question"])
    )
    question = dict(next(q for q in doc["question"] if q.get("mode") == "absent"))
    question["stale"] = []
    with pytest.raises(CaseError):
        parse(name, {**doc, "question": [question]})


def test_the_gold_metadata_telling_asks_the_same_questions_with_the_same_labels() -> None:
    from bench.paper_cases_data import load_suite

    suite = load_suite(HELDOUT3 / "gold")

    def ids(user: str, edge_ids: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(e.removeprefix(f"h3-{user}/") for e in edge_ids)

    gold: set[tuple[object, ...]] = set()
    for q in suite.questions:
        user = q.user_id.removeprefix("h3-")
        gold.add((user, q.qid, q.text, q.as_of, q.mode, ids(user, q.gold), ids(user, q.stale)))
    turns: set[tuple[object, ...]] = set()
    for persona in load(HELDOUT3):
        for asked in persona.questions:
            key = (persona.user_id, asked.case, asked.text, asked.as_of, asked.mode)
            turns.add((*key, asked.gold, asked.stale))
    assert gold == turns


def test_every_labelled_turn_has_its_gold_fact_at_the_turns_time() -> None:
    from bench.paper_cases_data import load_suite

    suite = load_suite(HELDOUT3 / "gold")
    times = {str(e["edge_id"]): str(e["ingest_time"]) for e in suite.edges}
    for persona in load(HELDOUT3):
        for turn in persona.turns:
            if turn.role != "user" or UNLABELLED.fullmatch(turn.turn_id):
                continue  # an unlabelled turn: only the A.7.1 distractors have facts
            edge = f"h3-{persona.user_id}/{turn.turn_id}"
            assert edge in times, edge
            # The loader spaces one user's facts a minute apart, in file order.
            told = datetime.fromisoformat(times[edge])
            assert timedelta(0) <= told - turn.timestamp < timedelta(minutes=20), edge
