"""Scoring one answer, and the statistics over many (paper Appendix C.5, D.6).

* pass — the answer is supported by the top 10: a gold fact is there (all of them for
  aggregation questions); for questions whose truth is "nothing current" (expired, retracted)
  the paper's pass-by-absence rule applies: pass when no stale fact is in the top 10;
* stale — a stale fact in the top 5 (C.5: "staleness in top-5");
* Hit@1 and MRR — rank of the first gold fact (reported for comparability, C.5 "Why not
  MRR?"); undefined for pass-by-absence questions, which have no gold fact;
* 95 % bootstrap intervals (seeded) and exact McNemar tests on paired outcomes (D.6).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

PASS_K = 10
STALE_K = 5
BOOTSTRAP_SAMPLES = 2000


@dataclass(frozen=True, slots=True)
class Outcome:
    """One question answered by one configuration."""

    passed: bool
    stale: bool
    rank: int | None  # 1-based rank of the first gold fact in the results, None if absent
    ranked: bool  # the question has gold facts (Hit@1/MRR are defined)

    @property
    def hit1(self) -> float:
        return 1.0 if self.rank == 1 else 0.0

    @property
    def rr(self) -> float:
        return 1.0 / self.rank if self.rank else 0.0


def score(
    results: Sequence[Collection[str]], mode: str, gold: Collection[str], stale: Collection[str]
) -> Outcome:
    """Outcome of one ranked answer; `results[i]` is the set of fact ids result i stands
    for (one edge id on the gold track; every fact of its source turns on the text track)."""
    gold_set, stale_set = set(gold), set(stale)
    rank = next((i for i, ids in enumerate(results, 1) if gold_set & set(ids)), None)
    top = [set(ids) for ids in results[:PASS_K]]
    seen = set().union(*top) if top else set()
    stale5 = any(stale_set & ids for ids in top[:STALE_K])
    if mode == "absent":
        passed = not (stale_set & seen)
    elif mode == "all":
        passed = bool(gold_set) and gold_set <= seen
    else:
        passed = rank is not None and rank <= PASS_K
    return Outcome(passed, stale5, rank, bool(gold_set))


def rate(flags: Sequence[bool] | Sequence[float]) -> float | None:
    return float(np.mean(np.asarray(flags, dtype=np.float64))) if len(flags) else None


def bootstrap_ci(
    values: Sequence[float] | Sequence[bool] | np.ndarray,
    seed: int = 0,
    samples: int = BOOTSTRAP_SAMPLES,
) -> tuple[float, float] | None:
    """Percentile 95 % interval of the mean over `samples` resamples (seeded)."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return None
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(samples, x.size))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def paired_delta_ci(
    a: Sequence[bool], b: Sequence[bool], seed: int = 0, samples: int = BOOTSTRAP_SAMPLES
) -> tuple[float, float] | None:
    """95 % interval of mean(a) − mean(b), resampling questions (pairs stay together)."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return bootstrap_ci(d, seed, samples)


@dataclass(frozen=True, slots=True)
class McNemar:
    """b: questions only `a` passes; c: only `b` passes; p: exact two-sided."""

    b: int
    c: int
    p: float


def mcnemar(a: Sequence[bool], b: Sequence[bool]) -> McNemar:
    """Exact McNemar test: under H0 the discordant pairs split Binomial(b + c, 1/2)."""
    if len(a) != len(b):
        raise ValueError("McNemar needs paired outcomes of equal length")
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    n = only_a + only_b
    if n == 0:
        return McNemar(0, 0, 1.0)
    tail = sum(math.comb(n, i) for i in range(min(only_a, only_b) + 1))
    return McNemar(only_a, only_b, min(1.0, 2.0 * tail / 2**n))


def summarize(outcomes: Sequence[Outcome], seed: int = 0) -> dict[str, object]:
    """pass, stale, Hit@1, MRR and their 95 % intervals; Hit@1/MRR over ranked questions."""
    ranked = [o for o in outcomes if o.ranked]
    columns: dict[str, list[float]] = {
        "pass": [float(o.passed) for o in outcomes],
        "stale": [float(o.stale) for o in outcomes],
        "hit1": [o.hit1 for o in ranked],
        "mrr": [o.rr for o in ranked],
    }
    out: dict[str, object] = {k: _round(rate(v)) for k, v in columns.items()}
    out["n"] = len(outcomes)
    out["n_ranked"] = len(ranked)
    out["ci95"] = {k: _pair(bootstrap_ci(v, seed)) for k, v in columns.items()}
    return out


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _pair(ci: tuple[float, float] | None) -> list[float] | None:
    return None if ci is None else [round(ci[0], 4), round(ci[1], 4)]
