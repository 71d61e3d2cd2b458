"""From store hits to scorer candidates: merge sources, normalize σ per source (App. Z)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from schemas.categories import CATEGORY_ORDER, UpdateSemantics
from schemas.records import FactRecord
from scorer.pool import Candidate
from scorer.tables import STATE_CODES
from workers.ports import Hit


def hours(t: datetime) -> float:
    """Hours since the Unix epoch: the scorer's time unit (λ is per hour)."""
    return t.timestamp() / 3600.0


@dataclass(frozen=True, slots=True)
class MergedCandidate:
    record: FactRecord
    sigma: float
    sources: tuple[str, ...]


#: Cosine ranges of embedders, mapped onto σ ∈ [0, 1]: (unrelated, near-paraphrase).
#: The paper's σ comes from text-embedding-3-small after distillation, where relevant facts
#: sit at 0.85–0.99 (its numeric rescue fires at σ ≥ 0.85); MiniLM puts unrelated sentences
#: about the same person near 0.5 and paraphrases near 0.9. Measured on our demo story.
SIMILARITY_RANGES: dict[str, tuple[float, float]] = {
    "minilm-l6-v2-int8": (0.30, 0.90),
}


def calibrate(cosine: float, embedder_id: str) -> float:
    """Map a raw cosine onto σ ∈ [0, 1] with the embedder's range (identity if unknown)."""
    low, high = SIMILARITY_RANGES.get(embedder_id, (0.0, 1.0))
    return min(max((cosine - low) / (high - low), 0.0), 1.0)


def merge_hits(
    query_vector: np.ndarray, by_source: Mapping[str, Sequence[Hit]], embedder_id: str = ""
) -> list[MergedCandidate]:
    """Union of the sources, deduplicated by edge id, with σ in [0, 1].

    σ_dense is the calibrated exact cosine to the query (every hit carries its dense
    vector, so BM25- and category-forced hits get one too). BM25 scores are unbounded: they
    are divided by the best BM25 score of this query and scaled to the best dense σ, so the
    two sources meet on one scale; σ is the larger of the two.
    """
    q = np.asarray(query_vector, dtype=np.float64)
    q = q / (np.linalg.norm(q) or 1.0)
    records: dict[str, FactRecord] = {}
    dense_sigma: dict[str, float] = {}
    sources: dict[str, list[str]] = {}
    for source, hits in by_source.items():
        for hit in hits:
            eid = hit.record.edge_id
            records.setdefault(eid, hit.record)
            sources.setdefault(eid, []).append(source)
            if eid not in dense_sigma and hit.dense is not None:
                v = np.asarray(hit.dense, dtype=np.float64)
                cosine = float(v @ q / (np.linalg.norm(v) or 1.0))
                dense_sigma[eid] = calibrate(cosine, embedder_id)
    best_dense = max(dense_sigma.values(), default=1.0) or 1.0
    bm25 = {h.record.edge_id: h.score for h in by_source.get("bm25", ())}
    best_bm25 = max(bm25.values(), default=0.0)
    merged = []
    for eid in sorted(records):
        sigma = dense_sigma.get(eid, 0.0)
        if best_bm25 > 0 and eid in bm25:
            sigma = max(sigma, best_dense * bm25[eid] / best_bm25)
        merged.append(MergedCandidate(records[eid], sigma, tuple(sources[eid])))
    return merged


def to_candidate(record: FactRecord, sigma: float) -> Candidate:
    """The scorer's plain-value view of a stored fact."""
    edge, lc = record.edge, record.lifecycle
    ingest = hours(edge.ingest_time)
    return Candidate(
        key=edge.edge_id,
        weights=tuple(edge.categories.get(c, 0.0) for c in CATEGORY_ORDER),
        sigma=sigma,
        ingest_h=ingest,
        last_mention_h=hours(lc.last_mentioned_at) if lc.last_mentioned_at else ingest,
        mentions=lc.mentions,
        event_h=hours(edge.event_time) if edge.event_time else None,
        numeric=edge.numeric,
        emotion=edge.emotional_loading,
        state=STATE_CODES[lc.state],
        superseded_at_h=hours(lc.superseded_at) if lc.superseded_at else None,
        retracted_at_h=hours(lc.retracted_at) if lc.retracted_at else None,
        pressures=tuple((hours(p.at), p.gamma) for p in lc.soft_pressures),
        tentative=edge.update is UpdateSemantics.SOFT,
        episodic=edge.episodic,
    )


def relevance_tier(merged: Sequence[MergedCandidate], limit: int, ratio: float) -> np.ndarray:
    """True for the candidates an LLM distillation step would keep (our stand-in).

    The paper distills the merged pool to the top 20 with an LLM before scoring (§3.5,
    Appendix Z). Without an LLM we keep the `limit` most similar candidates with
    σ ≥ ratio · max σ in the first tier; lifecycle activation then reorders relevant facts
    instead of lifting unrelated ones (an upcoming dentist appointment is no answer to "is
    Maya getting a dog?"). The rest still rank, after the first tier, so recall@k holds.
    """
    sigma = np.array([m.sigma for m in merged], dtype=np.float64)
    tier = np.zeros(len(merged), dtype=bool)
    if not len(merged):
        return tier
    eligible = np.flatnonzero(sigma >= ratio * sigma.max())
    best = eligible[np.argsort(-sigma[eligible], kind="stable")][:limit]
    tier[best] = True
    return tier
