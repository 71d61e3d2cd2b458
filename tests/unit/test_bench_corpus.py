"""The synthetic corpus of `frecall bench query`, and a tiny smoke run of the benchmark."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench import query
from bench.corpus import (
    CATEGORY_SHARES,
    DEFAULT_USERS,
    HEAVY_USER,
    generate_facts,
    generate_queries,
)
from schemas.categories import Category, Intent, LifecycleState
from schemas.events import EdgeEvent, Embedding
from schemas.policy import load_policy
from workers.inputs import EdgeInput
from workers.lifecycle.rules import group_key, resolve_slot
from workers.query.intent import detect_intent

N = 4000
NOW = datetime(2026, 9, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def facts() -> list[dict[str, Any]]:
    return list(generate_facts(N, seed=11))


@pytest.fixture(scope="module")
def events(facts: list[dict[str, Any]]) -> list[EdgeEvent]:
    """The lines as the pipeline sees them: parsed from JSON, with a text-derived vector so
    that restating the same text folds into a near-duplicate, as a real embedder would."""
    policy = load_policy()
    out = []
    for fact in facts:
        item = EdgeInput.model_validate_json(json.dumps(fact))
        seed = int.from_bytes(hashlib.sha1(item.text.encode()).digest()[:4], "little")
        vector = np.random.default_rng(seed).standard_normal(32).astype(np.float32)
        vector /= np.linalg.norm(vector)
        out.append(item.to_event(policy, NOW, Embedding.from_array("test", vector)))
    return out


def test_same_seed_same_lines_other_seed_other_lines() -> None:
    assert list(generate_facts(300, seed=5)) == list(generate_facts(300, seed=5))
    assert list(generate_facts(300, seed=5)) != list(generate_facts(300, seed=6))
    assert generate_queries(40, 3) == generate_queries(40, 3)


def test_every_line_is_an_ingest_edges_line(facts: list[dict[str, Any]]) -> None:
    assert len(facts) == N
    for fact in facts:
        EdgeInput.model_validate_json(json.dumps(fact))
    assert len({f["edge_id"] for f in facts}) == N
    times = [f["ingest_time"] for f in facts]
    assert times == sorted(times)
    assert min(times) >= "2025-02" and max(times) <= "2026-09-01"


def test_users_heavy_user_owns_most(facts: list[dict[str, Any]]) -> None:
    owners = Counter(f["user_id"] for f in facts)
    assert set(owners) == set(DEFAULT_USERS)
    assert owners[HEAVY_USER] == round(N * DEFAULT_USERS[HEAVY_USER])


def test_category_proportions(events: list[EdgeEvent]) -> None:
    primary = Counter(e.primary_category for e in events)
    assert set(primary) == set(Category)
    for category, share in CATEGORY_SHARES.items():
        assert primary[category] / N == pytest.approx(share, abs=0.005), category
    assert sum(len(e.categories) > 1 for e in events) / N > 0.15  # soft memberships


def test_category_specific_shape(events: list[EdgeEvent]) -> None:
    for e in events:
        if e.primary_category in (Category.OBLIGATIONS, Category.LOGISTICAL_CONTEXT):
            assert e.event_time is not None or e.retracts, e.text
            if e.event_time is not None:
                assert e.event_time > e.ingest_time, e.text
    money = [e for e in events if e.primary_category is Category.FINANCIAL_MATERIAL]
    assert all(e.numeric and re.search(r"\$\d", e.text) for e in money)


def test_lifecycle_mix_after_the_real_rules(events: list[EdgeEvent]) -> None:
    members: dict[tuple[str, str], list[EdgeEvent]] = defaultdict(list)
    retractions: dict[tuple[str, str], list[EdgeEvent]] = defaultdict(list)
    for e in events:
        members[(e.user_id, group_key(e))].append(e)
        for target in e.retracts:
            retractions[(e.user_id, target)].append(e)
    states: Counter[LifecycleState] = Counter()
    policy = load_policy()
    for key, slot in members.items():
        states.update(lc.state for lc in resolve_slot(slot, retractions[key], policy).values())
    assert 0.25 <= states[LifecycleState.SUPERSEDED] / N <= 0.36
    assert 0.005 <= states[LifecycleState.RETRACTED] / N <= 0.05
    assert 0 < states[LifecycleState.DUPLICATE] / N <= 0.1
    soft = [e for e in events if e.update.value == "soft"]
    assert 0.01 <= len(soft) / N <= 0.05
    assert all(e.confidence == 0.4 for e in soft)


def test_text_is_varied(events: list[EdgeEvent]) -> None:
    assert len({e.text for e in events}) / N > 0.7
    words = {w for e in events for w in re.findall(r"[a-z]+", e.text.lower())}
    assert len(words) > 800


def test_queries_ask_about_the_user_in_every_tense() -> None:
    questions = generate_queries(200, seed=1, user="ana")
    assert all("Ana" in q for q in questions)
    intents = Counter(detect_intent(q) for q in questions)
    assert intents[Intent.CURRENT] > 60
    for intent in (Intent.HISTORICAL, Intent.UPCOMING, Intent.PAST, Intent.CANCELLED):
        assert intents[intent] > 0, intent


def test_bench_query_smoke_run_prints_one_json_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = argparse.Namespace(
        json=True, queries=4, embedder="hashing", data_dir=tmp_path, sizes="200", bench="query"
    )
    assert query.run(args, [200]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in (
        "p50_ms",
        "p95_ms",
        "p99_ms",
        "flat_p50_ms",
        "dense_search_p50_ms",
        "lexical_stats_p50_ms",
    ):
        assert result[key]["200"] > 0, key
    assert result["ingest_facts_per_s"]["200"] > 0
    assert result["facts"] == {"200": 200}
    assert result["user_facts"]["200"] == 140
    assert (result["embedder"], result["queries"]) == ("hashing", 4)
    assert [p.name.split("-")[0] for p in tmp_path.iterdir()] == ["n200"]  # kept: --data-dir
