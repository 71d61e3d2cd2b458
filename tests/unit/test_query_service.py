"""The query path over in-memory fakes: sources, σ normalization, tiers, distillation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from schemas.categories import Category
from schemas.events import EdgeEvent, Embedding
from schemas.policy import load_policy
from schemas.query import QueryRequest
from schemas.records import FactRecord
from tests.unit.edge_helpers import edge
from workers.embedding.hashing import HashingEmbedder
from workers.lifecycle.service import LifecycleService
from workers.ports import Hit
from workers.query.candidates import MIN_SPREAD, merge_hits, relevance_tier
from workers.query.service import QueryService
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

POLICY = load_policy()
EMBEDDER = HashingEmbedder(dim=64)
T0 = datetime(2026, 3, 1, tzinfo=UTC)
FACTS = [
    ("istanbul", "User lives in Istanbul", "user.city", 0, Category.IDENTITY_SELF_CONCEPT),
    ("london", "User moved to London", "user.city", 30, Category.IDENTITY_SELF_CONCEPT),
    ("tea", "User drinks green tea every morning", "user.drink", 5, Category.PREFERENCES_HABITS),
    ("chess", "User plays chess on Sundays", "hobby.chess", 6, Category.HOBBIES_RECREATION),
]


def _store() -> InMemoryVectorIndex:
    vectors = InMemoryVectorIndex()
    svc = LifecycleService(InMemorySlotIndex(), vectors, POLICY)
    for edge_id, text, slot, day, category in FACTS:
        vector = EMBEDDER.embed([text])[0]
        svc.apply(
            EdgeEvent(
                edge_id=edge_id,
                user_id="u",
                text=text,
                categories=category,
                slot_key=slot,
                update="replace",
                confidence=0.97,
                ingest_time=T0 + timedelta(days=day),
                embedding=Embedding.from_array(EMBEDDER.model_id, vector),
            )
        )
    return vectors


def _ask(service: QueryService, text: str) -> list[str]:
    result = service.query(QueryRequest(user_id="u", query=text, as_of=T0 + timedelta(days=40)))
    return [r.edge_id for r in result.results]


def test_current_value_first_and_superseded_hidden() -> None:
    ids = _ask(QueryService(_store(), EMBEDDER, POLICY), "Where does the user live? London?")
    assert ids[0] == "london" and "istanbul" not in ids


def test_each_source_alone_and_bad_sources() -> None:
    vectors = _store()
    for sources in ({"dense"}, {"bm25"}, {"dense", "bm25"}):
        svc = QueryService(vectors, EMBEDDER, POLICY, sources=frozenset(sources))
        assert _ask(svc, "green tea")[0] == "tea"
    with pytest.raises(ValueError, match="sources"):
        QueryService(vectors, EMBEDDER, POLICY, sources=frozenset({"graph"}))


def test_distiller_decides_the_first_tier() -> None:
    seen: list[list[str]] = []

    def distill(query: str, candidates: list[tuple[str, str]], k: int) -> list[str]:
        seen.append([edge_id for edge_id, _ in candidates])
        return ["chess"]

    svc = QueryService(_store(), EMBEDDER, POLICY, distill=distill)
    ids = _ask(svc, "green tea in the morning")
    assert ids[0] == "chess" and "tea" in ids
    assert seen and "tea" in seen[0]


def _hit(edge_id: str, vector: np.ndarray, score: float = 0.0) -> Hit:
    return Hit(record=FactRecord(edge=edge(edge_id)), score=score, dense=vector)


def test_sigma_is_min_max_normalized_with_a_minimum_spread() -> None:
    q = np.array([1.0, 0.0], dtype=np.float32)
    near = np.array([0.9, np.sqrt(1 - 0.81)], dtype=np.float32)
    far = np.array([0.8, 0.6], dtype=np.float32)
    merged = {
        m.record.edge_id: m.sigma
        for m in merge_hits(q, {"dense": [_hit("a", near), _hit("b", far)]})
    }
    assert merged["a"] == pytest.approx(1.0)
    assert merged["b"] == pytest.approx(1.0 - 0.1 / MIN_SPREAD)  # spread 0.1 < the minimum
    alone = merge_hits(q, {"dense": [_hit("a", near)]})
    assert alone[0].sigma == pytest.approx(1.0)


def test_sigma_fuses_bm25_and_dense_and_single_sources_stay_pure() -> None:
    q = np.array([1.0, 0.0], dtype=np.float32)
    orth = np.array([0.0, 1.0], dtype=np.float32)
    hits = {"dense": [_hit("a", q)], "bm25": [_hit("b", orth, 4.0), _hit("c", orth, 2.0)]}
    fused = {m.record.edge_id: m.sigma for m in merge_hits(q, hits, bm25_weight=0.5)}
    assert fused == pytest.approx({"a": 0.5, "b": 0.5, "c": 0.25})
    lexical = {m.record.edge_id: m.sigma for m in merge_hits(q, {"bm25": hits["bm25"]})}
    assert lexical == pytest.approx({"b": 1.0, "c": 0.5})


def test_relevance_tier_keeps_the_close_ones_up_to_a_limit() -> None:
    q = np.array([1.0, 0.0], dtype=np.float32)
    vecs = [np.array([c, np.sqrt(1 - c * c)], dtype=np.float32) for c in (1.0, 0.95, 0.5, 0.1)]
    merged = merge_hits(q, {"dense": [_hit(f"e{i}", v) for i, v in enumerate(vecs)]})
    tier = relevance_tier(merged, limit=20, ratio=0.6)
    assert [m.record.edge_id for m, t in zip(merged, tier, strict=True) if t] == ["e0", "e1"]
    assert relevance_tier(merged, limit=1, ratio=0.0).sum() == 1
