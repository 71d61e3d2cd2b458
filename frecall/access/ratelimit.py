"""Per-key rate limits: a token bucket per key id (HTTP 429 with `Retry-After`).

A bucket holds up to `burst` tokens and refills at `rate` tokens a second; a request takes
one. The buckets are this process's (each serving process limits what it serves); they are
created on a key's first request and forgotten after a minute idle (a full bucket again).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

#: A bucket idle this long is full again: dropping it changes nothing.
_IDLE_S = 60.0


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


class RateLimiter:
    """Token buckets by key. `rate` ≤ 0 turns limiting off."""

    def __init__(
        self, rate: float, burst: int, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = max(1, burst)
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()
        self._swept = clock()

    def take(self, key: str) -> float:
        """Take a token for `key`: 0.0 if allowed, else the seconds until one is there."""
        if self.rate <= 0:
            return 0.0
        now = self._clock()
        with self._lock:
            self._sweep(now)
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = _Bucket(float(self.burst), now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
            bucket.at = now
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                return 0.0
            return (1.0 - bucket.tokens) / self.rate

    def _sweep(self, now: float) -> None:
        if now - self._swept < _IDLE_S:
            return
        self._swept = now
        for key in [k for k, b in self._buckets.items() if now - b.at > _IDLE_S]:
            del self._buckets[key]


def retry_after(wait_s: float) -> str:
    """The `Retry-After` header value: whole seconds, at least 1."""
    return str(max(1, math.ceil(wait_s)))
