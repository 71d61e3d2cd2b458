"""`frecall bench lifecycle noise`: perturbations of the gold edges and the λ sweep."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from bench.lifecycle.generator import generate
from bench.lifecycle.noise import (
    PERTURBATIONS,
    Answers,
    category_flip,
    jaccard,
    load_edges,
    mean_jaccard,
    measure_noise,
    noise_cmd,
    parse_levels,
    perturb,
)
from workers.errors import ConfigError


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("noise-set")
    generate(2, 7, out)
    return out


@pytest.fixture(scope="module")
def edges(data: Path) -> list[dict[str, Any]]:
    return load_edges(data / "edges.jsonl")


def _changed(a: list[dict[str, Any]], b: list[dict[str, Any]], field: str) -> int:
    return sum(1 for x, y in zip(a, b, strict=True) if x.get(field) != y.get(field))


@pytest.mark.parametrize("name", sorted(PERTURBATIONS))
def test_perturbations_are_deterministic_and_leave_input_alone(
    edges: list[dict[str, Any]], name: str
) -> None:
    before = json.dumps(edges)
    a = perturb(edges, name, 0.2, seed=3)
    b = perturb(edges, name, 0.2, seed=3)
    assert a == b
    assert json.dumps(edges) == before
    assert [e["edge_id"] for e in a] == [e["edge_id"] for e in edges]
    assert [e["text"] for e in a] == [e["text"] for e in edges]
    assert a != edges or name == "retraction_drop"  # every perturbation changes something
    assert perturb(edges, name, 0.0, seed=3) == edges


def test_seed_changes_the_choice(edges: list[dict[str, Any]]) -> None:
    assert perturb(edges, "category_flip", 0.2, 1) != perturb(edges, "category_flip", 0.2, 2)


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_fractions(edges: list[dict[str, Any]], p: float) -> None:
    slotted = [e for e in edges if e.get("slot_key")]
    anchored = [e for e in edges if e.get("event_time")]
    flagged = [e for e in edges if e.get("retracts")]
    assert slotted and anchored

    split = perturb(edges, "slot_split", p, 0)
    assert _changed(edges, split, "slot_key") == max(1, round(p * len(slotted)))
    keys = [e["slot_key"] for e in split if e.get("slot_key")]
    assert len({k for k in keys if "~split-" in k}) == max(1, round(p * len(slotted)))

    merged = perturb(edges, "slot_merge", p, 0)
    n = _changed(edges, merged, "slot_key")
    assert 0 < n <= max(1, round(p * len(slotted)))
    own = {(e["user_id"], e["category"], e["slot_key"]) for e in slotted}
    for x, y in zip(edges, merged, strict=True):
        if x.get("slot_key") != y.get("slot_key"):  # another slot of the same family
            assert (y["user_id"], y["category"], y["slot_key"]) in own

    flipped = perturb(edges, "category_flip", p, 0)
    assert _changed(edges, flipped, "category") == max(1, round(p * len(edges)))

    deleted = perturb(edges, "anchor_delete", p, 0)
    assert _changed(edges, deleted, "event_time") == max(1, round(p * len(anchored)))
    assert sum(1 for e in deleted if e.get("event_time")) == len(anchored) - max(
        1, round(p * len(anchored))
    )

    shifted = perturb(edges, "time_shift", p, 0)
    assert _changed(edges, shifted, "event_time") == max(1, round(p * len(anchored)))
    for x, y in zip(edges, shifted, strict=True):
        if x.get("event_time") != y.get("event_time"):
            from datetime import datetime

            dx = datetime.fromisoformat(x["event_time"].replace("Z", "+00:00"))
            dy = datetime.fromisoformat(y["event_time"].replace("Z", "+00:00"))
            assert abs((dy - dx).days) == 7

    dropped = perturb(edges, "retraction_drop", p, 0)
    expected = max(1, round(p * len(flagged))) if flagged else 0
    assert _changed(edges, dropped, "retracts") == expected


def test_confused_pairs() -> None:
    import random

    es = [{"category": "OBLIGATIONS"}, {"category": "HOBBIES_RECREATION"}] * 5
    category_flip(es, random.Random(0), 1.0, confused=True)
    assert [e["category"] for e in es] == ["LOGISTICAL_CONTEXT", "PROJECTS_ENDEAVORS"] * 5


def test_jaccard() -> None:
    assert jaccard(["a", "b"], ["b", "a"]) == 1.0
    assert jaccard([], []) == 1.0
    assert jaccard(["a", "b"], ["b", "c"]) == pytest.approx(1 / 3)
    a = Answers([["x", "y"], []], [])
    assert mean_jaccard(a, a) == 1.0


def test_parse_levels() -> None:
    assert parse_levels("0.1, 0.5") == [0.1, 0.5]
    assert parse_levels(None) == [0.05, 0.1, 0.2, 0.5]
    with pytest.raises(ConfigError):
        parse_levels("2")
    with pytest.raises(ConfigError):
        parse_levels("x")


def test_end_to_end_hashing(data: Path, tmp_path: Path) -> None:
    result = measure_noise(
        data, [0.0, 0.2], seed=1, embedder="hashing", work=tmp_path, multipliers=(0.25, 1.0, 4.0)
    )
    assert set(result["noise"]) == set(PERTURBATIONS)
    for rows in result["noise"].values():
        assert set(rows) == {"0", "0.2"}
        assert rows["0"]["jaccard10"] == 1.0  # clean vs clean
        assert rows["0"]["pass_delta"] == 0.0 and rows["0"]["stale_delta"] == 0.0
        for row in rows.values():
            assert set(row) == {"jaccard10", "pass", "stale", "pass_delta", "stale_delta"}
            assert 0.0 <= row["jaccard10"] <= 1.0
    assert len(result["lambda_sweep"]) == 11
    for row in result["lambda_sweep"].values():
        assert row["1"] == 1.0 and 0.0 <= row["0.25"] <= 1.0 and 0.0 <= row["4"] <= 1.0
        assert row["feasible"] is not None and row["feasible"][0] <= 1.0 <= row["feasible"][1]
    assert set(result["clean"]) == {"pass", "stale"}
    assert result["paper"]["slot_merge@0.1"] == 0.764


def test_noise_cmd_json(
    data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import bench.lifecycle.noise as noise

    monkeypatch.setattr(noise, "MULTIPLIERS", (1.0, 2.0))
    monkeypatch.setattr(noise, "PERTURBATIONS", {"slot_split": noise.PERTURBATIONS["slot_split"]})
    args = argparse.Namespace(dir=data, levels="0.5", seed=2, json=True, embedder="hashing")
    assert noise_cmd(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) >= {"noise", "lambda_sweep", "clean", "paper"}
    assert set(doc["noise"]["slot_split"]) == {"0.5"}
    args.json = False
    assert noise_cmd(args) == 0
    out = capsys.readouterr().out
    assert "slot_split" in out and "IDENTITY_SELF_CONCEPT" in out
