"""Two lifecycle workers racing on one user (a rebalance) on a real Redis: no update is
lost or duplicated — the result equals applying the same edges in one process."""

from __future__ import annotations

import json
import random
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from schemas.events import EdgeEvent, Embedding
from schemas.policy import load_policy
from workers.embedding.hashing import HashingEmbedder
from workers.export import dumps_stable, export_user
from workers.inputs import EdgeInput
from workers.lifecycle.service import LifecycleService
from workers.ports import IndexedFact, SparseVector
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex
from workers.stores.redis_client import connect
from workers.stores.redis_facts import RedisFactStore
from workers.stores.redis_slots import RedisSlotIndex

pytestmark = pytest.mark.integration

STORY = Path(__file__).resolve().parents[2] / "frecall" / "demo" / "story.jsonl"


def story_edges(user: str) -> list[EdgeEvent]:
    policy = load_policy(None)
    embedder = HashingEmbedder()
    edges = []
    for line in STORY.read_text().splitlines():
        row = json.loads(line)
        row.update(user_id=user, edge_id=f"{user}/{row['edge_id']}")
        edge = EdgeInput.model_validate(row).to_event(policy, datetime.now(UTC), None)
        vector = embedder.embed([edge.text])[0]
        edges.append(
            edge.model_copy(update={"embedding": Embedding.from_array(embedder.model_id, vector)})
        )
    return edges


@pytest.fixture
def prefix(redis_url: str) -> Iterator[str]:
    tag = "race" + uuid.uuid4().hex[:8]
    yield tag
    client = connect(redis_url)
    for key in client.scan_iter(f"{tag}*"):
        client.delete(key)
    client.close()


def worker(redis_url: str, prefix: str) -> tuple[LifecycleService, RedisFactStore]:
    client = connect(redis_url)
    facts = RedisFactStore(client, prefix)
    return LifecycleService(RedisSlotIndex(client, prefix), facts, load_policy(None)), facts


def test_a_stale_snapshot_cannot_commit(redis_url: str, prefix: str) -> None:
    _, facts = worker(redis_url, prefix)
    edge = story_edges("u")[0]
    service, _ = worker(redis_url, prefix)
    snapshot = facts.snapshot("u")
    service.apply(edge)  # another writer commits meanwhile
    assert facts.snapshot("u") > snapshot
    record = facts.get("u", [edge.edge_id])[0]
    assert record.edge.embedding is not None
    item = IndexedFact(record, record.edge.embedding.to_array(), SparseVector((), ()))
    assert facts.commit("u", snapshot, [item], {}) is False
    assert facts.commit("u", facts.snapshot("u"), [item], {}) is True


@pytest.mark.parametrize("seed", range(6))
def test_racing_workers_converge_to_the_single_worker_state(
    redis_url: str, prefix: str, seed: int
) -> None:
    edges = story_edges("u")
    reference_vectors = InMemoryVectorIndex()
    reference = LifecycleService(InMemorySlotIndex(), reference_vectors, load_policy(None))
    for edge in edges:
        reference.apply(edge)

    rng = random.Random(seed)
    shuffled = edges[:]
    rng.shuffle(shuffled)
    # Each worker gets every edge (a rebalance hands a partition over mid-stream: both
    # may apply the same messages), in its own order.
    orders = [shuffled, list(reversed(shuffled))]
    barrier = threading.Barrier(len(orders))
    errors: list[BaseException] = []

    def run(order: list[EdgeEvent]) -> None:
        service, _ = worker(redis_url, prefix)
        barrier.wait()
        try:
            for edge in order:
                service.apply(edge)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(o,)) for o in orders]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    _, facts = worker(redis_url, prefix)
    assert facts.count("u") == len(edges)
    assert dumps_stable(export_user(facts, "u")) == dumps_stable(
        export_user(reference_vectors, "u")
    )
