"""σ: one similarity in [0, 1] from the dense cosine and the BM25 score of each candidate.

The paper normalizes each source and merges (Appendix Z, D.5 "per-source normalization");
it does not say how. Four ways, compared on LoCoMo dev (README, "σ normalization"):

* `minmax` — per query, the best dense cosine maps to 1 and the pool's weakest to 0, with
  a minimum spread; BM25 divided by the query's best BM25 score. Stretches weak pools: when
  every fact names the user, cosines bunch and an unrelated fact can reach σ 0.9.
* `raw` — the cosine itself (clipped at 0) and BM25 over its best.
* `calibrated` — the cosine mapped through the embedder's own scale: its median cosine on
  unrelated sentence pairs → 0, on paraphrase pairs → 1 (`Calibration`), so σ means the
  same for every query; BM25 over its best.
* `rank` — weighted reciprocal-rank fusion (Cormack et al. 2009, k = 60), rescaled so that
  rank 1 in a source gives 1: σ_s = (k + 1) / (k + rank_s).

Whatever the mode, σ = w·σ_bm25 + (1 - w)·σ_dense (w = the policy's `bm25_weight`).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import median
from typing import Literal

import numpy as np

from workers.ports import Embedder

SigmaMode = Literal["minmax", "raw", "calibrated", "ceiling", "centered", "rank"]
SIGMA_MODES: tuple[SigmaMode, ...] = (
    "minmax", "raw", "calibrated", "ceiling", "centered", "rank"
)  # fmt: skip

#: minmax: never stretch a spread narrower than this (a pool of near-equal matches stays
#: near-equal). Our default.
MIN_SPREAD = 0.25
#: rank: the reciprocal-rank constant of Cormack et al. (2009).
RRF_K = 60

#: Calibration pairs: general English, about no benchmark. (a, b, paraphrase?)
CALIBRATION_PAIRS: tuple[tuple[str, str, bool], ...] = (
    ("She moved to a new apartment last month.", "Last month she relocated to another flat.", True),
    ("He works as a nurse at the hospital.", "His job is nursing at the hospital.", True),
    ("They adopted a puppy in the spring.", "In spring they got a young dog.", True),
    ("My rent went up to 1,200 a month.", "The monthly rent is now 1,200.", True),
    ("She is allergic to peanuts.", "Peanuts give her an allergic reaction.", True),
    ("He plays chess on Sunday mornings.", "On Sunday mornings he plays chess.", True),
    ("Where does she work now?", "Her current job is at a bank.", True),
    ("When is his dentist appointment?", "He sees the dentist on Tuesday at 3pm.", True),
    ("She moved to a new apartment last month.", "He plays chess on Sunday mornings.", False),
    ("He works as a nurse at the hospital.", "My rent went up to 1,200 a month.", False),
    ("They adopted a puppy in the spring.", "She is allergic to peanuts.", False),
    ("Where does she work now?", "They adopted a puppy in the spring.", False),
    ("When is his dentist appointment?", "She prefers tea to coffee.", False),
    ("The weather has been grey all week.", "He sees the dentist on Tuesday at 3pm.", False),
    ("She is learning Spanish online.", "The car needs new tyres.", False),
    ("He likes spicy food.", "Her sister lives in another city.", False),
)


@dataclass(frozen=True, slots=True)
class Scale:
    """Cosine levels of an embedder: unrelated pairs (σ 0) and paraphrases (σ 1)."""

    unrelated: float
    paraphrase: float

    def apply(self, cosine: float) -> float:
        span = max(self.paraphrase - self.unrelated, 1e-6)
        return min(max((cosine - self.unrelated) / span, 0.0), 1.0)


class Calibration:
    """The embedder's `Scale`, measured once on `CALIBRATION_PAIRS` (lazily, thread-safe)."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._lock = threading.Lock()
        self._scale: Scale | None = None

    def scale(self) -> Scale:
        with self._lock:
            if self._scale is None:
                a = self._embedder.embed([p[0] for p in CALIBRATION_PAIRS])
                b = self._embedder.embed([p[1] for p in CALIBRATION_PAIRS])
                a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
                b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
                cos = (a * b).sum(axis=1)
                para = [float(c) for c, p in zip(cos, CALIBRATION_PAIRS, strict=True) if p[2]]
                other = [float(c) for c, p in zip(cos, CALIBRATION_PAIRS, strict=True) if not p[2]]
                self._scale = Scale(median(other), median(para))
            return self._scale


def cosines(
    query: np.ndarray, vectors: Mapping[str, np.ndarray], mode: SigmaMode
) -> dict[str, float]:
    """Cosine of each (unit) vector to the (unit) query. `centered` first removes the pool's
    common direction from both: when every fact names the same person, that direction is
    mostly the person, and what is left is what tells the facts apart."""
    if not vectors:
        return {}
    if mode != "centered":
        return {e: float(v @ query) for e, v in vectors.items()}
    ids = list(vectors)
    m = np.stack([vectors[e] for e in ids])
    mu = m.mean(axis=0)
    mu /= np.linalg.norm(mu) or 1.0
    m = m - np.outer(m @ mu, mu)
    q = query - (query @ mu) * mu
    norms = np.linalg.norm(m, axis=1) * (np.linalg.norm(q) or 1.0)
    c = (m @ q) / np.maximum(norms, 1e-12)
    return {e: float(x) for e, x in zip(ids, c, strict=True)}


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """1-based ranks, best first; ties broken by edge id (deterministic)."""
    order = sorted(scores, key=lambda e: (-scores[e], e))
    return {e: i for i, e in enumerate(order, start=1)}


def fuse(
    cosines: Mapping[str, float],
    bm25: Mapping[str, float],
    bm25_weight: float,
    mode: SigmaMode = "minmax",
    scale: Scale | None = None,
) -> dict[str, float]:
    """σ for every id in `cosines` ∪ `bm25` (an id missing from a source scores 0 there)."""
    ids = set(cosines) | set(bm25)
    if mode == "rank":
        dense_rank, bm25_rank = _ranks(cosines), _ranks(bm25)

        def rr(rank: int | None) -> float:
            return 0.0 if rank is None else (RRF_K + 1) / (RRF_K + rank)

        dense = {e: rr(dense_rank.get(e)) for e in ids}
        lexical = {e: rr(bm25_rank.get(e)) for e in ids}
    else:
        best = max(bm25.values(), default=0.0)
        lexical = {e: bm25.get(e, 0.0) / best if best > 0 else 0.0 for e in ids}
        normalized = _dense(cosines, mode, scale)
        dense = {e: normalized.get(e, 0.0) for e in ids}
    return {e: bm25_weight * lexical[e] + (1.0 - bm25_weight) * dense[e] for e in ids}


def _dense(cosines: Mapping[str, float], mode: SigmaMode, scale: Scale | None) -> dict[str, float]:
    if not cosines:
        return {}
    if mode == "raw":
        return {e: min(max(c, 0.0), 1.0) for e, c in cosines.items()}
    if mode == "centered":
        mode = "minmax"
    if mode in ("calibrated", "ceiling") and scale is None:
        raise ValueError(f"{mode} σ needs the embedder's scale")
    if mode == "calibrated":
        assert scale is not None
        return {e: scale.apply(c) for e, c in cosines.items()}
    top = max(cosines.values())
    base = min(min(cosines.values()), top - MIN_SPREAD)
    if mode == "ceiling":
        assert scale is not None
        top = max(top, scale.paraphrase)
    return {e: min(max((c - base) / (top - base), 0.0), 1.0) for e, c in cosines.items()}
