"""What `frecall bench scale` ingests at each step: facts carrying their vectors, as a platform
importing its users' histories sends them (`frecall ingest-edges` with an `embedding` field).

Vectors are made here, by the deployment's own embedder (so the ingest accepts them as its
own), chunk by chunk as the ingest pulls the stream; the time spent making them — the
platform's side — is kept apart (`Clock.outside`), so that the ingest rate is the product's
bulk path alone: validation, log, lifecycle resolution, vector and slot indexes.

Order (`--order`): `user` (default), each user's facts together and in time order, users in
turn — an import, user by user; `time`, all users' facts interleaved in ingest-time order —
the live stream, where each batch of the bulk path holds a few facts of many users.

Late edges — a fact ingested before facts of its user already stored — make the lifecycle's
bookkeeping look again at the user's later free edges and retractions (order independence,
`workers/lifecycle/association.py`, `retargeting.py`): the scale steps therefore move
forward in time (`bench.scale`), as a growing store does.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice
from typing import Any

from bench.corpus import generate_facts
from schemas.events import Embedding
from workers.inputs import EdgeInput, Item
from workers.ports import Embedder

CHUNK = 4096
ORDERS = ("user", "time")


@dataclass
class Clock:
    """Seconds the stream spent making its input (outside the product), and progress."""

    total: int
    label: str
    outside: float = 0.0
    done: int = 0
    started: float = field(default_factory=time.perf_counter)
    every: int = 50_000
    _next: int = 0

    def inside(self) -> float:
        """Seconds the consumer (the product) has taken so far."""
        return time.perf_counter() - self.started - self.outside

    def report(self) -> None:
        if self.done < self._next and self.done < self.total:
            return
        self._next = self.done + self.every
        inside = max(self.inside(), 1e-9)
        rate = self.done / inside
        left = (self.total - self.done) / rate if rate else 0.0
        print(
            f"bench scale: {self.label} {self.done:,}/{self.total:,} facts, "
            f"{rate:,.0f} facts/s ingest, ~{left / 60:.0f} min left",
            file=sys.stderr,
            flush=True,
        )


def step_facts(
    n: int, step: int, shares: Mapping[str, float], end: datetime, order: str
) -> list[dict[str, Any]]:
    """`n` ingest-edges facts of step `step`: the corpus's episodes, edge ids made unique per
    step (the corpus numbers each user's facts from 0), in `order`."""
    facts = list(generate_facts(n, seed=1000 + step, users=shares, end=end))
    for fact in facts:
        fact["edge_id"] = f"s{step}.{fact['edge_id']}"
    if order == "user":  # stable: each user's facts stay in time order
        facts.sort(key=lambda f: str(f["user_id"]))
    return facts


def carrying_vectors(
    facts: list[dict[str, Any]], embedder: Embedder, clock: Clock
) -> Iterator[Item[EdgeInput]]:
    """The facts as ingest items with their vectors, made a chunk at a time."""
    position = 0
    source = iter(facts)
    while chunk := list(islice(source, CHUNK)):
        began = time.perf_counter()
        inputs = [EdgeInput.model_validate(f) for f in chunk]
        texts = list(dict.fromkeys(i.text for i in inputs))
        vectors = dict(zip(texts, embedder.embed(texts), strict=True))
        items = []
        for fact, item in zip(chunk, inputs, strict=True):
            vector = Embedding.from_array(embedder.model_id, vectors[item.text])
            carried = item.model_copy(update={"embedding": vector})
            items.append((position, json.dumps(fact), carried))
            position += 1
        clock.outside += time.perf_counter() - began
        yield from items
        clock.done += len(chunk)
        clock.report()
