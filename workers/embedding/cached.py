"""An embedder that embeds each distinct text once (benchmarks and replays into several
stores: the same texts, the same questions, the same vectors)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workers.ports import Embedder


class CachedEmbedder:
    """`Embedder` over another one, remembering every vector it made.

    `cache` may be shared between several instances (one run, many stores).
    """

    def __init__(self, inner: Embedder, cache: dict[str, np.ndarray] | None = None) -> None:
        self._inner = inner
        self._cache: dict[str, np.ndarray] = {} if cache is None else cache

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dim(self) -> int:
        return self._inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return self._inner.embed(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            for text, vector in zip(missing, self._inner.embed(missing), strict=True):
                self._cache[text] = np.asarray(vector)
        return np.stack([self._cache[t] for t in texts])
