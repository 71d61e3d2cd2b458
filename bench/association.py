"""`frecall bench association DIR`: the cosines that set the slot-association thresholds.

Slot association (`workers/lifecycle/association.py`) lets an edge without a slot key join a
keyed replace-semantics slot when their embeddings are close. This measures, on a generated
LifecycleBench set (`frecall bench lifecycle generate`), how close is close: for every pair
(earlier keyed fact, later fact of the same user) in a replace-semantics category, the cosine
between the later fact's *turn* (what association sees when extraction missed the fact) and
the earlier fact's statement — same slot (should join) versus another slot (must not) — and,
for turns that state no fact at all, their best cosine to any keyed fact (must not join).
Printed: percentiles, and for each threshold the share of same-slot pairs it would catch and
of the others it would wrongly join.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from schemas.categories import Category, UpdateSemantics
from schemas.policy import load_policy

THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)


def _primary(category: Any) -> Category:
    if isinstance(category, str):
        return Category(category)
    return Category(max(category.items(), key=lambda kv: (kv[1], kv[0]))[0])


def measure(data: Path, embedder_name: str, personas: int | None) -> dict[str, Any]:
    from frecall.bootstrap import make_embedder
    from frecall.settings import Settings

    policy = load_policy()
    replace = {c for c in Category if policy.category(c).semantics is UpdateSemantics.REPLACE}
    edges = [json.loads(line) for line in (data / "edges.jsonl").open(encoding="utf-8")]
    turns = {
        t["turn_id"]: t
        for t in map(json.loads, (data / "turns.jsonl").open(encoding="utf-8"))
        if t["role"] == "user"
    }
    users = sorted({e["user_id"] for e in edges})[: personas or None]
    embedder = make_embedder(Settings(embedder=embedder_name))
    same: list[float] = []
    other: list[float] = []
    silent: list[float] = []
    by_user: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in edges:
        by_user[e["user_id"]].append(e)
    for user in users:
        keyed = [
            e for e in by_user[user] if e.get("slot_key") and _primary(e["category"]) in replace
        ]
        if len(keyed) < 2:
            continue
        stated = embedder.embed([e["text"] for e in keyed])
        said = embedder.embed([turns[e["source_turns"][0]]["text"] for e in keyed])
        cosines = said @ stated.T
        for i, later in enumerate(keyed):
            for j, earlier in enumerate(keyed):
                if earlier["ingest_time"] >= later["ingest_time"]:
                    continue
                same_slot = earlier["slot_key"] == later["slot_key"]
                (same if same_slot else other).append(float(cosines[i, j]))
        told = {t for e in by_user[user] for t in e.get("source_turns", ())}
        quiet = [t["text"] for tid, t in turns.items() if t["user_id"] == user and tid not in told]
        if quiet:
            silent += (embedder.embed(quiet) @ stated.T).max(axis=1).tolist()
    return {
        "users": len(users),
        "embedder": embedder.model_id,
        "same_slot": _describe(same),
        "other_slot": _describe(other),
        "no_fact_turns": _describe(silent),
        "thresholds": {
            str(t): {
                "same_slot_joined": _share(same, t),
                "other_slot_joined": _share(other, t),
                "no_fact_turn_joined": _share(silent, t),
            }
            for t in THRESHOLDS
        },
        "policy": {
            "soft_cosine": policy.association.soft_cosine,
            "hard_cosine": policy.association.hard_cosine,
        },
    }


def _describe(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    x = np.asarray(values)
    out: dict[str, float | int] = {"n": int(x.size)}
    for p in (5, 50, 95, 99):
        out[f"p{p}"] = round(float(np.percentile(x, p)), 3)
    out["max"] = round(float(x.max()), 3)
    return out


def _share(values: list[float], threshold: float) -> float | None:
    return round(float(np.mean(np.asarray(values) >= threshold)), 4) if values else None


def run(args: argparse.Namespace) -> int:
    result = measure(args.dir, args.embedder, args.personas)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"slot association cosines, {result['users']} users, {result['embedder']}")
    for name in ("same_slot", "other_slot", "no_fact_turns"):
        print(f"  {name:<14} {result[name]}")
    print(f"  {'threshold':<10}{'same slot':>12}{'other slot':>12}{'no-fact turn':>14}")
    for t, row in result["thresholds"].items():
        print(f"  {t:<10}{row['same_slot_joined']:>12}{row['other_slot_joined']:>12}"
              f"{row['no_fact_turn_joined']:>14}")  # fmt: skip
    policy = result["policy"]
    print(f"  policy: soft {policy['soft_cosine']}, hard {policy['hard_cosine']}")
    return 0
