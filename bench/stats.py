"""Timing helpers: percentiles over repeated runs (benchmarks, never timed tests)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


def time_calls(fn: Callable[[], object], iterations: int, warmup: int = 50) -> np.ndarray:
    """Per-call wall times in microseconds."""
    for _ in range(warmup):
        fn()
    out = np.empty(iterations)
    clock = time.perf_counter_ns
    for i in range(iterations):
        start = clock()
        fn()
        out[i] = (clock() - start) / 1000.0
    return out


def pct(samples: np.ndarray, q: float) -> float:
    return round(float(np.percentile(samples, q)), 2)
