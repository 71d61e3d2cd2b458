"""The query path embeds a question text once, however often it is asked."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from workers.query.query_vectors import QueryVectors


class _CountingEmbedder:
    model_id = "counting"
    dim = 3

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float32)


def test_a_repeated_question_is_embedded_once() -> None:
    embedder = _CountingEmbedder()
    vectors = QueryVectors(embedder)
    first = vectors("where do I live?")
    again = vectors("where do I live?")
    assert embedder.texts == ["where do I live?"]
    assert np.array_equal(first, again)
    assert first.dtype == np.float32  # the embedder's own vector, not a converted one


def test_cached_vectors_cannot_be_changed_by_a_caller() -> None:
    vector = QueryVectors(_CountingEmbedder())("what's coming up?")
    with pytest.raises(ValueError):
        vector[0] = 0.0


def test_the_least_recently_used_text_is_evicted_first() -> None:
    embedder = _CountingEmbedder()
    vectors = QueryVectors(embedder, size=2)
    vectors("a")
    vectors("bb")
    vectors("a")  # "a" is now the most recent
    vectors("ccc")  # evicts "bb"
    vectors("a")
    vectors("bb")
    assert embedder.texts == ["a", "bb", "ccc", "bb"]


def test_a_cache_without_room_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        QueryVectors(_CountingEmbedder(), size=0)
