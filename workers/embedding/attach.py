"""Edges as the log keeps them: with their embedding and the model that made it, so that
replay needs no model (docs/architecture.md, "Replay and generations")."""

from __future__ import annotations

from collections.abc import Sequence

from schemas.events import EdgeEvent, Embedding
from workers.ports import Embedder


def with_embeddings(embedder: Embedder, edges: Sequence[EdgeEvent]) -> list[EdgeEvent]:
    """The edges with their texts embedded: one call to the embedder for all of them, each
    distinct text once (a raw turn and the fact that repeats it word for word, a fact said
    again: the same text, the same vector)."""
    if not edges:
        return []
    texts = list(dict.fromkeys(e.text for e in edges))
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    return [
        edge.model_copy(
            update={"embedding": Embedding.from_array(embedder.model_id, vectors[edge.text])}
        )
        for edge in edges
    ]
