"""`frecall bench scorer`: the deterministic lifecycle layer, per candidate-pool size.

Pools mimic the paper's D.9 protocol: similarities in [0.70, 0.99], 95.8 % multi-category
soft memberships, 10.1 % event-anchored, 27.3 % numeric, 0.2 % retracted, plus a share of
superseded and soft-pressured facts. The timed region is the whole layer: every term of
every candidate and the top-10 selection, as in Table 28, through `scorer.rank` (scalar
loop up to k = 80, vectorized above). Side by side in the same run: both paths at every
k, and the flat similarity sort every memory store pays. The paper's anchor: 47 µs at
k = 20 and 1.96 µs per extra candidate.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from bench.stats import pct, time_calls
from schemas.categories import CATEGORY_ORDER
from schemas.policy import load_policy
from scorer.pool import Candidate, build_pool
from scorer.rank import rank
from scorer.scalar import score_candidates, top_k_scalar
from scorer.score import QueryContext, score_pool, top_k
from scorer.tables import RETRACTED, SUPERSEDED, PolicyTables

NOW_H = 495_000.0
PAPER_P50_US = {20: 40.0, 50: 92.0, 100: 186.0, 200: 379.0, 500: 980.0, 1000: 1958.0}
PAPER_PRIMARY_K20_US = 47.0


def realistic_pool(k: int, seed: int) -> list[Candidate]:
    rng = np.random.default_rng(seed)
    n_cat = len(CATEGORY_ORDER)
    out = []
    for i in range(k):
        weights = np.zeros(n_cat)
        first = rng.integers(n_cat)
        if rng.random() < 0.958:
            second = (first + 1 + rng.integers(n_cat - 1)) % n_cat
            w = rng.uniform(0.55, 0.95)
            weights[first], weights[second] = w, 1 - w
        else:
            weights[first] = 1.0
        age = rng.uniform(1, 24 * 365)
        state, sup, ret = 0, None, None
        u = rng.random()
        if u < 0.002:
            state, ret = RETRACTED, NOW_H - rng.uniform(0, age)
        elif u < 0.15:
            state, sup = SUPERSEDED, NOW_H - rng.uniform(0, age)
        pressures = ((NOW_H - rng.uniform(0, age), 0.4),) if rng.random() < 0.05 else ()
        out.append(
            Candidate(
                key=f"e{i}",
                weights=tuple(float(x) for x in weights),
                sigma=float(rng.uniform(0.70, 0.99)),
                ingest_h=NOW_H - age,
                last_mention_h=NOW_H - age * rng.uniform(0, 1),
                mentions=int(rng.integers(1, 4)),
                event_h=NOW_H + rng.uniform(-24 * 30, 24 * 30) if rng.random() < 0.101 else None,
                numeric=bool(rng.random() < 0.273),
                emotion=0.5 if rng.random() < 0.03 else 0.0,
                state=state,
                superseded_at_h=sup,
                retracted_at_h=ret,
                pressures=pressures,
            )
        )
    return out


def measure(sizes: list[int], iterations: int) -> dict[str, Any]:
    tables = PolicyTables.compile(load_policy())
    routing = np.full(len(CATEGORY_ORDER), 1.0 / len(CATEGORY_ORDER))
    ctx = QueryContext(as_of_h=NOW_H, routing=routing)
    result: dict[str, Any] = {
        "p50_us": {},
        "p95_us": {},
        "p99_us": {},
        "mean_us": {},
        "vectorized_p50_us": {},
        "scalar_p50_us": {},
        "flat_sort_p50_us": {},
        "paper_p50_us": {},
        "iterations": iterations,
    }
    for k in sizes:
        cands = realistic_pool(k, seed=k)

        def full(cands: list[Candidate] = cands) -> object:
            return rank(cands, ctx, tables, 10)

        def vectorized(cands: list[Candidate] = cands) -> object:
            return top_k(score_pool(build_pool(cands), ctx, tables), 10)

        def scalar(cands: list[Candidate] = cands) -> object:
            return top_k_scalar(score_candidates(cands, ctx, tables), 10)

        def flat(cands: list[Candidate] = cands) -> object:
            # The baseline ranking every flat memory store performs: sort by similarity.
            return np.argsort(-np.array([c.sigma for c in cands]))[:10]

        samples = time_calls(full, iterations)
        key = str(k)
        result["p50_us"][key] = pct(samples, 50)
        result["p95_us"][key] = pct(samples, 95)
        result["p99_us"][key] = pct(samples, 99)
        result["mean_us"][key] = round(float(samples.mean()), 2)
        result["vectorized_p50_us"][key] = pct(time_calls(vectorized, iterations), 50)
        result["scalar_p50_us"][key] = pct(time_calls(scalar, iterations), 50)
        result["flat_sort_p50_us"][key] = pct(time_calls(flat, iterations), 50)
        result["paper_p50_us"][key] = PAPER_P50_US.get(k)
    if "20" in result["p50_us"]:
        result["paper_primary_k20_p50_us"] = PAPER_PRIMARY_K20_US
    return result


def run(sizes: list[int], iterations: int, as_json: bool) -> int:
    result = measure(sizes, iterations)
    if as_json:
        print(json.dumps(result))
        return 0
    print(f"deterministic lifecycle layer, {iterations} iterations per size (µs)")
    header = (
        "k",
        "p50",
        "p95",
        "p99",
        "vectorized",
        "scalar",
        "flat sort",
        "paper p50",
        "vs paper",
    )
    print("".join(f"{h:>11}" for h in header))
    for key in result["p50_us"]:
        paper = result["paper_p50_us"][key]
        cells = [
            key,
            result["p50_us"][key],
            result["p95_us"][key],
            result["p99_us"][key],
            result["vectorized_p50_us"][key],
            result["scalar_p50_us"][key],
            result["flat_sort_p50_us"][key],
            paper if paper else "-",
            f"{paper / result['p50_us'][key]:.1f}x" if paper else "-",
        ]
        print("".join(f"{c:>11.1f}" if isinstance(c, float) else f"{c:>11}" for c in cells))
    return 0
