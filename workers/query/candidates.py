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


#: Per-source normalization (Appendix Z) maps the query's best dense match to σ = 1 and the
#: pool's weakest to 0 — but never stretches a spread narrower than this, so a pool of
#: near-equal matches stays near-equal. Embedders differ in their cosine baselines (MiniLM
#: puts unrelated sentences about one person near 0.5); min-max makes σ comparable.
MIN_SPREAD = 0.25


def merge_hits(
    query_vector: np.ndarray, by_source: Mapping[str, Sequence[Hit]], bm25_weight: float = 0.5
) -> list[MergedCandidate]:
    """Union of the sources, deduplicated by edge id, with σ in [0, 1].

    σ_dense is the exact cosine to the query (every hit carries its dense vector, so BM25-
    and category-forced hits get one too), min-max normalized over the pool with a
    minimum spread. BM25 scores are divided by the best BM25 score of this query (0 for
    candidates outside the BM25 top). σ = w·σ_bm25 + (1 - w)·σ_dense: a convex fusion, so a
    fact that both matches the words and the meaning of the query beats one that matches
    only one of them (measured on LoCoMo: fusing by max ranked below BM25 alone). With only
    one of the two sources present, σ is that source's.
    """
    if "bm25" not in by_source:
        bm25_weight = 0.0
    elif not {"dense", "forced"} & by_source.keys():
        bm25_weight = 1.0
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
                dense_sigma[eid] = float(v @ q / (np.linalg.norm(v) or 1.0))
    if dense_sigma:
        top = max(dense_sigma.values())
        base = min(min(dense_sigma.values()), top - MIN_SPREAD)
        dense_sigma = {
            e: min(max((c - base) / (top - base), 0.0), 1.0) for e, c in dense_sigma.items()
        }
    bm25 = {h.record.edge_id: h.score for h in by_source.get("bm25", ())}
    best_bm25 = max(bm25.values(), default=0.0)
    merged = []
    for eid in sorted(records):
        lexical = bm25.get(eid, 0.0) / best_bm25 if best_bm25 > 0 else 0.0
        sigma = bm25_weight * lexical + (1.0 - bm25_weight) * dense_sigma.get(eid, 0.0)
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
