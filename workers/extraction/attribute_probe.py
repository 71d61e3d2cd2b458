"""Which single-valued attribute a vector is about: a trained linear probe (issue 11).

The prototype classifier (`prototypes.py`) takes the best cosine to a handful of hand-written
sentences per attribute; for real turns and questions those scores bunch at 0.25–0.45, so a
threshold separates right from wrong poorly. The probe reads the same all-MiniLM-L6-v2 vector
(no model of its own, no embedding call: one matrix product) through a multinomial logistic
regression trained on labelled sentences — the generator's TRAIN phrasing half, the
prototype sentences and the human-written development sets, with a "none of these" class
(`bench/attribute_probe.py` trains it, `frecall bench train-attributes` regenerates the asset
bit for bit).

Its scores are class probabilities: `Verdict.attribute_scores` holds one per attribute and
one for `none`, so the query-time rule's "near, and within a margin of the best" reads the
same on either classifier (`workers/query/latest_value.py`, policy `latest_value.classifier`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Protocol

import numpy as np

from workers.extraction.prototypes import Verdict

ASSET = "attribute_probe"


class AttributeClassifier(Protocol):
    """What the query-time rule needs of a classifier: one verdict per vector."""

    def classify(self, vectors: np.ndarray) -> list[Verdict]: ...


@dataclass(frozen=True, slots=True)
class Probe:
    labels: tuple[str, ...]
    #: The embedder the probe was trained on: another one's vectors mean nothing to it.
    model_id: str
    weights: np.ndarray  # (dim + 1, len(labels)): the last row is the bias
    scale: float  # the vectors are multiplied by this before the product (as in training)
    #: Whether the human-written development sets were training data (then only a
    #: leave-one-set-out evaluation judges it on them).
    trained_on_development: bool = False

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        x = np.asarray(vectors, dtype=np.float32) * self.scale
        logits = x @ self.weights[:-1] + self.weights[-1]
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return np.asarray(e / e.sum(axis=1, keepdims=True))

    def classify(self, vectors: np.ndarray) -> list[Verdict]:
        """One verdict per row: attribute_scores are the class probabilities (with `none`)."""
        if len(vectors) == 0:
            return []
        rows = self.probabilities(vectors).tolist()
        return [
            Verdict({}, None, max(row), {}, dict(zip(self.labels, row, strict=True)))
            for row in rows
        ]


def load_probe(weights: np.ndarray, meta: dict[str, object]) -> Probe:
    labels = meta["labels"]
    scale = meta["scale"]
    assert isinstance(labels, list) and isinstance(scale, int | float)
    if weights.shape[1] != len(labels):
        raise ValueError(f"probe weights have {weights.shape[1]} classes, labels {len(labels)}")
    model = str(meta["model"])
    training = meta.get("training")
    development = isinstance(training, dict) and bool(training.get("development"))
    return Probe(
        tuple(str(x) for x in labels), model, weights.astype(np.float32), float(scale), development
    )


def load_asset(name: str) -> Probe:
    """A shipped linear probe (package data `workers/extraction/assets/NAME.{npy,json}`)."""
    assets = resources.files("workers.extraction").joinpath("assets")
    with assets.joinpath(f"{name}.npy").open("rb") as f:
        weights = np.load(f)
    meta = json.loads(assets.joinpath(f"{name}.json").read_text("utf-8"))
    return load_probe(weights, meta)


@cache
def default_probe() -> Probe:
    """The shipped attribute probe (`assets/attribute_probe.*`)."""
    return load_asset(ASSET)
