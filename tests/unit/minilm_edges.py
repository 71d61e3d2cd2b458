"""Edges with their MiniLM embeddings, for the query-path witnesses that run the real model."""

from __future__ import annotations

from collections.abc import Sequence

from schemas.events import EdgeEvent, Embedding
from workers.embedding.minilm import MiniLMEmbedder


def with_embeddings(embedder: MiniLMEmbedder, edges: Sequence[EdgeEvent]) -> dict[str, EdgeEvent]:
    """Edge id → the edge with its MiniLM embedding (one batch for all of them)."""
    vectors = embedder.embed([e.text for e in edges])
    return {
        e.edge_id: e.model_copy(update={"embedding": Embedding.from_array(embedder.model_id, v)})
        for e, v in zip(edges, vectors, strict=True)
    }
