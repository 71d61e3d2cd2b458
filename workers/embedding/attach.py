"""Edges as the log keeps them: with their embedding and the model that made it, so that
replay needs no model (docs/architecture.md, "Replay and generations")."""

from __future__ import annotations

from collections.abc import Sequence

from schemas.events import EdgeEvent, Embedding
from workers.ports import Embedder


def with_embeddings(embedder: Embedder, edges: Sequence[EdgeEvent]) -> list[EdgeEvent]:
    """The edges with their texts embedded: one call to the embedder for all of them, each
    distinct text once (a raw turn and the fact that repeats it word for word, a fact said
    again: the same text, the same vector). An edge that carries a vector of this embedder
    keeps it; one of another model is embedded again (`foreign_vector` lets an entry point
    reject it first)."""
    if not edges:
        return []
    todo = [e for e in edges if foreign_vector(embedder, e) is not False]
    texts = list(dict.fromkeys(e.text for e in todo))
    vectors = dict(zip(texts, embedder.embed(texts), strict=True)) if texts else {}
    return [
        edge
        if edge.text not in vectors or foreign_vector(embedder, edge) is False
        else edge.model_copy(
            update={"embedding": Embedding.from_array(embedder.model_id, vectors[edge.text])}
        )
        for edge in edges
    ]


def foreign_vector(embedder: Embedder, edge: EdgeEvent) -> bool | None:
    """None: the edge carries no vector; False: one of this embedder (model and size);
    True: one of another model, which cannot be stored beside this embedder's."""
    if edge.embedding is None:
        return None
    return edge.embedding.model != embedder.model_id or edge.embedding.dim != embedder.dim
