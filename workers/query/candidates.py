"""From store hits to scorer candidates: merge sources, normalize σ per source (App. Z)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from schemas.categories import CATEGORY_ORDER, Category, UpdateSemantics
from schemas.events import EdgeEvent
from schemas.policy import Policy
from schemas.records import FactRecord
from scorer.pool import Candidate
from scorer.tables import STATE_CODES
from workers.lifecycle.raw_turns import scored_as_other, told_after
from workers.ports import Hit
from workers.query.similarity import MIN_SPREAD, Scale, SigmaMode, cosines, fuse

__all__ = [
    "MIN_SPREAD",
    "MergedCandidate",
    "dynamics_category",
    "hours",
    "merge_hits",
    "relevance_tier",
    "scored_as_other",
    "to_candidate",
    "told_after",
]

#: Sources whose hit score is a BM25 score (the masked-state search has a lexical half too).
BM25_SOURCES = frozenset({"bm25", "masked_bm25"})


def hours(t: datetime) -> float:
    """Hours since the Unix epoch: the scorer's time unit (λ is per hour)."""
    return t.timestamp() / 3600.0


@dataclass(frozen=True, slots=True)
class MergedCandidate:
    record: FactRecord
    sigma: float
    sources: tuple[str, ...]
    #: The stored dense vector (L2-normalized), when a source returned it.
    vector: np.ndarray | None = None


def merge_hits(
    query_vector: np.ndarray,
    by_source: Mapping[str, Sequence[Hit]],
    bm25_weight: float = 0.5,
    mode: SigmaMode = "minmax",
    scale: Scale | None = None,
) -> list[MergedCandidate]:
    """Union of the sources, deduplicated by edge id, with σ in [0, 1] (`similarity.fuse`).

    σ_dense comes from the exact cosine to the query (every hit carries its dense vector,
    so BM25- and category-forced hits get one too); BM25 scores count for the candidates
    in the BM25 top only. σ = w·σ_bm25 + (1 - w)·σ_dense: a convex fusion, so a fact that
    matches both the words and the meaning of the query beats one that matches only one of
    them (measured on LoCoMo: fusing by max ranked below BM25 alone). With only one of the
    two sources present, σ is that source's.
    """
    if "bm25" not in by_source:
        bm25_weight = 0.0
    elif not {"dense", "forced", "masked_dense"} & by_source.keys():
        bm25_weight = 1.0
    q = np.asarray(query_vector, dtype=np.float64)
    q = q / (np.linalg.norm(q) or 1.0)
    records: dict[str, FactRecord] = {}
    vectors: dict[str, np.ndarray] = {}
    sources: dict[str, list[str]] = {}
    bm25: dict[str, float] = {}
    for source, hits in by_source.items():
        for hit in hits:
            eid = hit.record.edge_id
            records.setdefault(eid, hit.record)
            sources.setdefault(eid, []).append(source)
            if eid not in vectors and hit.dense is not None:
                v = np.asarray(hit.dense, dtype=np.float64)
                vectors[eid] = v / (np.linalg.norm(v) or 1.0)
            if source in BM25_SOURCES:
                bm25[eid] = max(bm25.get(eid, 0.0), hit.score)
    sigma = fuse(cosines(q, vectors, mode), bm25, bm25_weight, mode, scale)
    return [
        MergedCandidate(records[e], sigma[e], tuple(sources[e]), vectors.get(e))
        for e in sorted(records)
    ]


_OTHER_ONLY = tuple(1.0 if c is Category.OTHER else 0.0 for c in CATEGORY_ORDER)


def _weights(categories: Mapping[Category, float]) -> tuple[float, ...]:
    return tuple(categories.get(c, 0.0) for c in CATEGORY_ORDER)


def dynamics_category(edge: EdgeEvent, policy: Policy) -> Category:
    """The category whose λ, α and floor a fact is scored with (for explanations)."""
    return Category.OTHER if scored_as_other(edge, policy) else edge.primary_category


def to_candidate(record: FactRecord, sigma: float, policy: Policy | None = None) -> Candidate:
    """The scorer's plain-value view of a stored fact (`scored_as_other` with a policy)."""
    edge, lc = record.edge, record.lifecycle
    fallback_text = policy is not None and scored_as_other(edge, policy)
    ingest = hours(edge.ingest_time)
    return Candidate(
        key=edge.edge_id,
        weights=_OTHER_ONLY if fallback_text else _weights(edge.categories),
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


def relevance_tier(
    merged: Sequence[MergedCandidate],
    limit: int,
    ratio: float,
    admissible: np.ndarray | None = None,
) -> np.ndarray:
    """True for the candidates an LLM distillation step would keep (our stand-in).

    The paper distills the merged pool to the top 20 with an LLM before scoring (§3.5,
    Appendix Z). Without an LLM we keep the `limit` most similar candidates with
    σ ≥ ratio · max σ in the first tier; lifecycle activation then reorders relevant facts
    instead of lifting unrelated ones (an upcoming dentist appointment is no answer to "is
    Maya getting a dog?"). The rest still rank, after the first tier, so recall@k holds.
    Only `admissible` candidates (those the query may be served) take part.
    """
    sigma = np.array([m.sigma for m in merged], dtype=np.float64)
    tier = np.zeros(len(merged), dtype=bool)
    ok = np.ones(len(merged), dtype=bool) if admissible is None else admissible
    if not ok.any():
        return tier
    eligible = np.flatnonzero(ok & (sigma >= ratio * sigma[ok].max()))
    best = eligible[np.argsort(-sigma[eligible], kind="stable")][:limit]
    tier[best] = True
    return tier
