"""Straight into the vector index: how `frecall bench scale` reaches sizes its time bound
cannot ingest (`--direct-above N`).

The product's ingest resolves every fact's slot one at a time (≈ 1-3 ms a fact on the 2-core
machine: 1M facts would take hours, twice with the replay). Above `N` facts the scale
benchmark therefore writes a step's facts into the embedded deployment's vector index in
batches, each as a current (active) fact with its embedding and BM25 vector, exactly as
the lifecycle stage would index a fact nothing supersedes: the store the queries search
has the size asked for, so query latency, resident memory and disk are measured at that
size; ingest and replay rates are not (they are the product's paths, which this skips),
and the log and the slot index do not grow. The HNSW graphs are not built (see `bench.scale`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime

from schemas.policy import Policy
from schemas.records import FactRecord, Lifecycle
from workers.embedding.attach import with_embeddings
from workers.inputs import EdgeInput
from workers.ports import Embedder, IndexedFact, VectorIndex
from workers.progress import Progress
from workers.text import bm25

BATCH = 2_000


def load(
    lines: Iterable[str], vectors: VectorIndex, embedder: Embedder, policy: Policy, total: int
) -> int:
    """Index every fact of `lines` (ingest-edges JSON) as current; returns how many."""
    now = datetime.now(UTC)
    progress = Progress("bench scale: direct load", total=total)
    written = 0
    batch: list[str] = []

    def flush() -> None:
        nonlocal written
        edges = [EdgeInput.model_validate_json(line).to_event(policy, now, None) for line in batch]
        by_user: dict[str, list[IndexedFact]] = defaultdict(list)
        for edge in with_embeddings(embedder, edges):
            assert edge.embedding is not None
            record = FactRecord(edge=edge, lifecycle=Lifecycle())
            fact = IndexedFact(record, edge.embedding.to_array(), bm25.document_vector(edge.text))
            by_user[edge.user_id].append(fact)
        for user, facts in by_user.items():
            vectors.upsert(user, facts)
        written += len(batch)
        progress.tick(len(batch))
        batch.clear()

    for line in lines:
        batch.append(line)
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    progress.finish()
    return written
