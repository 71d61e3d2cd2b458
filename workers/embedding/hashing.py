"""A tiny deterministic embedder for unit tests: feature hashing, no model, no I/O.

Texts that share words or word pieces get a high cosine, unrelated texts a low one, which is
all the retrieval code needs to be exercised. It is *not* semantic ("London" and "moved" are
unrelated to it) and must not be used outside tests.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence

import numpy as np

_WORD = re.compile(r"\w+")
# Word unigrams carry the meaning; trigrams only make inflections ("move"/"moved") overlap,
# so they weigh less and a shared word still dominates a shared word piece.
_WORD_WEIGHT = 1.0
_TRIGRAM_WEIGHT = 0.5
# A text with no word characters ("", "?!") still needs a unit vector; all such texts share it.
_EMPTY_FEATURE = "\x00empty"


def _features(text: str) -> Iterator[tuple[str, float]]:
    words = _WORD.findall(text.lower())
    if not words:
        yield _EMPTY_FEATURE, 1.0
        return
    for word in words:
        yield "w:" + word, _WORD_WEIGHT
        # Boundary marks make "art" inside "start" differ from the word "art" itself.
        padded = f"<{word}>"
        for i in range(len(padded) - 2):
            yield "c:" + padded[i : i + 3], _TRIGRAM_WEIGHT


def _bucket_and_sign(feature: str, dim: int) -> tuple[int, float]:
    # blake2b, not hash(): Python salts str hashes per process (PYTHONHASHSEED), and vectors
    # written to the log by one process are compared with vectors made by another.
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    # The lowest bit picks the sign so that collisions cancel out on average instead of
    # piling up (Weinberger et al., feature hashing); the rest picks the bucket.
    sign = 1.0 if value & 1 else -1.0
    return (value >> 1) % dim, sign


class HashingEmbedder:
    """Signed feature hashing of lowercase word unigrams and character trigrams.

    Deterministic across processes and platforms; vectors are float32, L2-normalized,
    shape (n, dim). Never raises `EmbeddingError`.
    """

    def __init__(self, dim: int = 64) -> None:
        if dim < 1:
            raise ValueError(f"dim must be ≥ 1, got {dim}")
        self._dim = dim

    @property
    def model_id(self) -> str:
        return f"hashing-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            # A str is a Sequence[str]: embedding its characters one by one is never meant.
            raise TypeError("embed() takes a sequence of texts, not a single str")
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                bucket, sign = _bucket_and_sign(feature, self._dim)
                out[row, bucket] += sign * weight
            norm = float(np.linalg.norm(out[row]))
            if norm > 0.0:
                out[row] /= norm
            else:
                # Every feature cancelled out (possible for small dims): fall back to the
                # shared empty-text vector so that the result is still a unit vector.
                bucket, sign = _bucket_and_sign(_EMPTY_FEATURE, self._dim)
                out[row, bucket] = sign
        return out
