"""Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama …).

The client is built by the wiring code (base URL, key, timeout, retries); this adapter only
batches, checks the answer's shape and normalizes, and turns every `openai` error into
`EmbeddingError`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

import numpy as np
import openai

from workers.errors import EmbeddingError

logger = logging.getLogger(__name__)

# OpenAI accepts at most 2,048 inputs per request (and ~300k tokens); 128 short facts stay
# well inside both, and a failed request re-sends little.
_DEFAULT_BATCH_SIZE = 128
# Used only to learn the vector size when it was not configured.
_PROBE_TEXT = "dimension probe"


class OpenAIEmbedder:
    """Vectors from `client.embeddings.create`, L2-normalized float32, shape (n, dim).

    dim: the vector size. When given it is also sent as `dimensions` (text-embedding-3-*
    can shorten vectors; pass `request_dimensions=False` for models and servers that reject
    the parameter) and every answer is checked against it. When None, it is learned from
    the first answer; reading `dim` before any `embed` makes one small probe request.
    Raises `EmbeddingError` on any API, network or shape error; the client's own retry
    policy applies first.
    """

    def __init__(
        self,
        client: openai.OpenAI,
        model: str,
        dim: int | None = None,
        *,
        batch_size: int = _DEFAULT_BATCH_SIZE,
        request_dimensions: bool = True,
    ) -> None:
        if not model:
            raise ValueError("model must not be empty")
        if dim is not None and dim < 1:
            raise ValueError(f"dim must be ≥ 1, got {dim}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be ≥ 1, got {batch_size}")
        self._client = client
        self._model = model
        self._dim = dim
        self._requested_dim = dim if request_dimensions else None
        self._batch_size = batch_size
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return f"openai:{self._model}"

    def close(self) -> None:
        """Close the HTTP client and its pooled connections."""
        self._client.close()

    @property
    def dim(self) -> int:
        if self._dim is None:
            return int(self.embed([_PROBE_TEXT]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            # A str is a Sequence[str]: embedding its characters one by one is never meant.
            raise TypeError("embed() takes a sequence of texts, not a single str")
        if not texts:
            return np.empty((0, self._dim or 0), dtype=np.float32)
        batches = [
            self._embed_batch(list(texts[start : start + self._batch_size]))
            for start in range(0, len(texts), self._batch_size)
        ]
        return np.vstack(batches)

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        # The API rejects empty strings ("input is invalid"); a lone space embeds as
        # "no content", which is what an empty text means here too.
        inputs = [text if text.strip() else " " for text in texts]
        try:
            if self._requested_dim is not None:
                response = self._client.embeddings.create(
                    model=self._model, input=inputs, dimensions=self._requested_dim
                )
            else:
                response = self._client.embeddings.create(model=self._model, input=inputs)
        # ValueError: the client's base64 decoder rejects an answer without data.
        except (openai.OpenAIError, ValueError) as exc:
            raise EmbeddingError(self.model_id, f"{type(exc).__name__}: {exc}") from exc
        data = sorted(response.data, key=lambda item: item.index)
        if [item.index for item in data] != list(range(len(inputs))):
            raise EmbeddingError(
                self.model_id,
                f"expected {len(inputs)} embeddings indexed 0..{len(inputs) - 1}, "
                f"got indices {[item.index for item in data]}",
            )
        try:
            vectors = np.asarray([item.embedding for item in data], dtype=np.float32)
        except (TypeError, ValueError) as exc:  # ragged rows or non-numbers
            raise EmbeddingError(self.model_id, f"malformed embeddings: {exc}") from exc
        self._check_dim(vectors)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if not np.all(np.isfinite(vectors)) or np.any(norms == 0.0):
            raise EmbeddingError(self.model_id, "the API returned a zero or non-finite vector")
        return (vectors / norms).astype(np.float32)

    def _check_dim(self, vectors: np.ndarray) -> None:
        got = int(vectors.shape[1]) if vectors.ndim == 2 else -1
        with self._lock:
            if self._dim is None and got > 0:
                logger.info("%s returns %d-d vectors", self.model_id, got)
                self._dim = got
                return
        if got != self._dim:
            raise EmbeddingError(self.model_id, f"expected {self._dim}-d vectors, got {got}-d")
