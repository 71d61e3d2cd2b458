"""Fixtures the unit tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from workers.embedding.minilm import MiniLMEmbedder


@pytest.fixture(scope="module")
def embedder() -> Iterator[MiniLMEmbedder]:
    """The packaged MiniLM, one per test module (a module may define its own `embedder`)."""
    yield MiniLMEmbedder(intra_op_threads=2)
