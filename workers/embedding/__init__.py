"""Embedders behind the `Embedder` port (workers/ports.py).

* `MiniLMEmbedder`: all-MiniLM-L6-v2 int8 ONNX, offline (the default).
* `OpenAIEmbedder`: any OpenAI-compatible `/v1/embeddings` endpoint.
* `HashingEmbedder`: deterministic feature hashing, for unit tests only.

Exports are resolved on first attribute access, so `import workers.embedding` loads neither
onnxruntime, tokenizers nor openai (CONVENTIONS 4: nothing heavy at import time).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workers.embedding.hashing import HashingEmbedder
    from workers.embedding.minilm import MiniLMEmbedder
    from workers.embedding.openai_embedder import OpenAIEmbedder

__all__ = ["HashingEmbedder", "MiniLMEmbedder", "OpenAIEmbedder"]

_SUBMODULE = {
    "HashingEmbedder": "workers.embedding.hashing",
    "MiniLMEmbedder": "workers.embedding.minilm",
    "OpenAIEmbedder": "workers.embedding.openai_embedder",
}


def __getattr__(name: str) -> Any:
    module = _SUBMODULE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
