"""The load generator of `frecall bench load`: concurrent writers and readers over HTTP.

asyncio + httpx: `--writers` tasks post batches of new facts (`POST /v1/edges`, ids chosen
here so that the export afterwards can account for every one), `--readers` tasks ask
questions (`POST /v1/query`), each for a user drawn at random from `--users`, for a
bounded time. Every request's latency and status are recorded per endpoint; an error is
any status other than 200 or any transport failure. Deterministic input (seeded).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import numpy as np

from bench.stats import pct
from schemas.categories import Category

_CITIES = ("Lisbon", "Oslo", "Tokyo", "Berlin", "Nairobi", "Lima", "Seoul", "Denver", "Porto")
_THINGS = ("tea", "running", "chess", "jazz", "sushi", "climbing", "poetry", "cycling")
_FACTS = (
    ("{u} lives in {c}", Category.LOGISTICAL_CONTEXT.value),
    ("{u} likes {t}", Category.PREFERENCES_HABITS.value),
    ("{u} has a dentist appointment in {c} on day {n}", Category.OBLIGATIONS.value),
    ("{u} is learning about {t} (note {n})", Category.INTELLECTUAL_INTERESTS.value),
    ("{u} met a friend from {c} at {t} club, visit {n}", Category.RELATIONAL_BONDS.value),
)
_QUESTIONS = (
    "Where does {u} live?",
    "What does {u} like?",
    "What appointments does {u} have coming up?",
    "What is {u} learning about?",
    "Who did {u} meet at the club?",
)


@dataclass
class Tally:
    """Latencies (ms) and failures per endpoint, and what the writers were told was stored."""

    ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    examples: list[str] = field(default_factory=list)
    written: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def failed(self, endpoint: str, why: str) -> None:
        self.errors[endpoint] += 1
        if len(self.examples) < 5:
            self.examples.append(f"{endpoint}: {why}")

    def summary(self, seconds: float) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for endpoint in sorted(set(self.ms) | set(self.errors)):
            samples = np.array(self.ms.get(endpoint, []) or [np.nan])
            out[endpoint] = {
                "requests": len(self.ms.get(endpoint, [])) + self.errors.get(endpoint, 0),
                "errors": self.errors.get(endpoint, 0),
                "per_s": round(len(self.ms.get(endpoint, [])) / seconds, 1),
                "p50_ms": pct(samples, 50),
                "p95_ms": pct(samples, 95),
                "p99_ms": pct(samples, 99),
            }
        return out


@dataclass(frozen=True)
class Load:
    users: int
    writers: int
    readers: int
    seconds: float
    batch: int
    seed: int

    def user(self, rng: random.Random) -> str:
        return f"load-u{rng.randrange(self.users):04d}"


async def _call(
    client: httpx.AsyncClient, tally: Tally, endpoint: str, path: str, body: dict[str, Any]
) -> dict[str, Any] | None:
    start = time.perf_counter()
    try:
        response = await client.post(path, json=body)
    except httpx.HTTPError as exc:
        tally.failed(endpoint, f"{type(exc).__name__}: {exc}")
        return None
    elapsed = (time.perf_counter() - start) * 1000
    if response.status_code != 200:
        tally.failed(endpoint, f"HTTP {response.status_code}: {response.text[:200]}")
        return None
    tally.ms[endpoint].append(elapsed)
    result: dict[str, Any] = response.json()
    return result


async def _writer(client: httpx.AsyncClient, load: Load, tally: Tally, index: int) -> None:
    rng = random.Random(load.seed * 1000 + index)
    deadline = time.monotonic() + load.seconds
    sent = 0
    base = datetime.now(UTC) - timedelta(days=30)
    while time.monotonic() < deadline:
        user = load.user(rng)
        edges = []
        for _ in range(load.batch):
            sent += 1
            template, category = rng.choice(_FACTS)
            text = template.format(
                u=user, c=rng.choice(_CITIES), t=rng.choice(_THINGS), n=f"{index}.{sent}"
            )
            at = base + timedelta(minutes=sent)
            edges.append(
                {
                    "user_id": user,
                    "edge_id": f"w{index}-{sent}",
                    "text": text,
                    "category": category,
                    "ingest_time": at.isoformat(),
                }
            )
        got = await _call(client, tally, "POST /v1/edges", "/v1/edges", {"edges": edges})
        if got is not None:
            tally.written[user].update(got.get("edge_ids", []))


async def _reader(client: httpx.AsyncClient, load: Load, tally: Tally, index: int) -> None:
    rng = random.Random(load.seed * 1000 + 500 + index)
    deadline = time.monotonic() + load.seconds
    while time.monotonic() < deadline:
        user = load.user(rng)
        body = {"user_id": user, "query": rng.choice(_QUESTIONS).format(u=user), "k": 10}
        await _call(client, tally, "POST /v1/query", "/v1/query", body)


async def drive(base_url: str, load: Load) -> tuple[Tally, float]:
    """Run the writers and readers against `base_url` for `load.seconds`."""
    tally = Tally()
    limits = httpx.Limits(max_connections=load.writers + load.readers + 2)
    timeout = httpx.Timeout(60.0)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=timeout) as client:
        start = time.perf_counter()
        await asyncio.gather(
            *(_writer(client, load, tally, i) for i in range(load.writers)),
            *(_reader(client, load, tally, i) for i in range(load.readers)),
        )
        seconds = time.perf_counter() - start
    return tally, seconds


def missing_after_export(
    base_url: str, written: dict[str, set[str]], timeout_s: float
) -> tuple[int, dict[str, float]]:
    """Edge ids acknowledged to the writers that the users' exports lack, polling until
    none is missing or `timeout_s` passed (the distributed deployment applies writes
    asynchronously); with the latencies of every export and the number of passes."""
    deadline = time.monotonic() + timeout_s
    pending = {u: set(ids) for u, ids in written.items() if ids}
    ms: list[float] = []
    passes = 0
    with httpx.Client(base_url=base_url, timeout=60.0) as client:
        while True:
            passes += 1
            for user in sorted(pending):
                start = time.perf_counter()
                response = client.get(f"/v1/users/{user}/memory")
                ms.append((time.perf_counter() - start) * 1000)
                response.raise_for_status()
                have = {f["edge"]["edge_id"] for f in response.json()["facts"]}
                pending[user] -= have
            pending = {u: ids for u, ids in pending.items() if ids}
            if not pending or time.monotonic() > deadline:
                break
            time.sleep(1.0)
    samples = np.array(ms or [np.nan])
    stats = {
        "exports": len(ms),
        "passes": passes,
        "p50_ms": pct(samples, 50),
        "p95_ms": pct(samples, 95),
    }
    return sum(len(ids) for ids in pending.values()), stats
