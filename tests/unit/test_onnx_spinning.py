"""The ONNX embedder's intra-op threads sleep between parallel sections instead of spinning
(workers/embedding/onnx_bert.py, `_load`): less CPU taken from the other stages of ingest and
from the other processes on the machine, and the same vectors, byte for byte — spinning is
scheduling only, the work is split between the threads the same way."""

from __future__ import annotations

import numpy as np

from workers.embedding.minilm import MINILM_L6, MiniLMEmbedder
from workers.embedding.onnx_bert import OnnxSentenceEmbedder

#: Mixed lengths and a small batch size: several onnxruntime calls of different widths.
TEXTS = [
    "My rent is $950",
    "I moved to London last spring because my partner found a job there " * 5,
    "ok",
    "Where do I live now?",
    "I have two cats, Miso and Tofu, and a very old goldfish " * 3,
    "",
    "I am allergic to peanuts",
    "we cancelled the Lisbon trip, the flights were far too expensive this year",
]


def _allow_spinning(embedder: OnnxSentenceEmbedder) -> str:
    embedder.load()
    runtime = embedder._runtime
    assert runtime is not None
    options = runtime.session.get_session_options()
    return str(options.get_session_config_entry("session.intra_op.allow_spinning"))


def test_the_embedder_does_not_spin_by_default() -> None:
    assert _allow_spinning(MiniLMEmbedder(intra_op_threads=2)) == "0"
    assert _allow_spinning(OnnxSentenceEmbedder(MINILM_L6, intra_op_threads=2, spin=True)) == "1"


def test_spinning_or_not_the_vectors_are_byte_identical() -> None:
    sleeping = MiniLMEmbedder(intra_op_threads=2, batch_size=3)
    spinning = OnnxSentenceEmbedder(MINILM_L6, intra_op_threads=2, batch_size=3, spin=True)
    a, b = sleeping.embed(TEXTS), spinning.embed(TEXTS)
    assert a.tobytes() == b.tobytes()
    # Not a trivial comparison: the texts' vectors differ from one another.
    assert len({row.tobytes() for row in a}) == len(TEXTS)
    assert np.all(np.isfinite(a))
