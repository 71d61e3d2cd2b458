"""Edges with their MiniLM embeddings, for the query-path witnesses that run the real model."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from schemas.events import EdgeEvent, Embedding, ForgetCommand
from schemas.policy import Policy
from workers.embedding.minilm import MiniLMEmbedder
from workers.lifecycle.service import LifecycleService
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex


def with_embeddings(embedder: MiniLMEmbedder, edges: Sequence[EdgeEvent]) -> dict[str, EdgeEvent]:
    """Edge id → the edge with its MiniLM embedding (one batch for all of them)."""
    vectors = embedder.embed([e.text for e in edges])
    return {
        e.edge_id: e.model_copy(update={"embedding": Embedding.from_array(embedder.model_id, v)})
        for e, v in zip(edges, vectors, strict=True)
    }


def stored(edges: Sequence[EdgeEvent], policy: Policy) -> InMemoryVectorIndex:
    """A fresh in-memory store after the lifecycle applied `edges` in the order given."""
    vectors = InMemoryVectorIndex()
    service = LifecycleService(InMemorySlotIndex(), vectors, policy)
    for edge in edges:
        service.apply(edge)
    return vectors


def stored_forgetting(
    edges: Sequence[EdgeEvent], forgotten: str, at: datetime, policy: Policy
) -> tuple[InMemoryVectorIndex, InMemoryVectorIndex]:
    """(`edges` applied then `forgotten` forgotten, `edges` without it never told)."""
    vectors = InMemoryVectorIndex()
    service = LifecycleService(InMemorySlotIndex(), vectors, policy)
    for edge in edges:
        service.apply(edge)
    service.forget(ForgetCommand(command_id="c", user_id=edges[0].user_id, edge_id=forgotten,
                                 issued_at=at))  # fmt: skip
    return vectors, stored([e for e in edges if e.edge_id != forgotten], policy)
