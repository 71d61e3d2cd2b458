"""The per-user choice between exact and HNSW search, and the counts Qdrant Edge keeps.

`SearchPlan` sends users above a size through the approximate index; the stores must accept
those parameters and still cut hits by (score, edge id). Qdrant Edge keeps each user's fact
and term counts between writes: every write of the user must make them live again.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient

from tests.unit.test_vector_index_contract import ALL, DIM, fact, ids
from workers.ports import VectorIndex
from workers.stores.qdrant_edge import QdrantEdgeIndex
from workers.stores.qdrant_server import QdrantServerIndex
from workers.stores.search_plan import EXACT_ALWAYS, SearchPlan
from workers.text.bm25 import query_vector

ALWAYS_APPROXIMATE = SearchPlan(exact_max_facts=0, hnsw_ef=16)


def test_small_users_are_searched_exactly_large_ones_through_hnsw() -> None:
    plan = SearchPlan(exact_max_facts=1000, hnsw_ef=64)
    assert not plan.approximate(0)
    assert not plan.approximate(1000)
    assert plan.approximate(1001)
    assert not EXACT_ALWAYS.approximate(10**12)


def test_the_beam_is_never_narrower_than_twice_the_hits_asked_for() -> None:
    plan = SearchPlan(hnsw_ef=64)
    assert plan.beam(10) == 64
    assert plan.beam(60) == 120


def _edge(path: Path, plan: SearchPlan) -> VectorIndex:
    return QdrantEdgeIndex(path / f"edge-{uuid.uuid4().hex[:6]}", DIM, plan)


def _local(path: Path, plan: SearchPlan) -> VectorIndex:
    return QdrantServerIndex(QdrantClient(location=":memory:"), f"t_{uuid.uuid4().hex}", DIM, plan)


@pytest.mark.parametrize("factory", [_edge, _local], ids=["qdrant-edge", "qdrant-local"])
def test_an_approximate_search_returns_the_exact_hits_in_the_stable_order(
    tmp_path: Path, factory: Callable[[Path, SearchPlan], VectorIndex]
) -> None:
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(300, DIM)).astype(np.float32)
    vectors[150:] = vectors[:150]  # ties: every vector twice, under different edge ids
    items = [fact("u1", f"e{i:03d}", dense=v / np.linalg.norm(v)) for i, v in enumerate(vectors)]
    exact, approximate = factory(tmp_path, EXACT_ALWAYS), factory(tmp_path, ALWAYS_APPROXIMATE)
    try:
        for index in (exact, approximate):
            index.upsert("u1", items)
            index.upsert("u2", [fact("u2", "other", dense=items[0].dense)])
        if isinstance(approximate, QdrantEdgeIndex):
            approximate.optimize()
        for q in rng.normal(size=(5, DIM)):
            want = exact.search_dense("u1", q, 21, ALL)
            got = approximate.search_dense("u1", q, 21, ALL)
            assert ids(got) == ids(want)
            assert "other" not in ids(got)
    finally:
        exact.close()
        approximate.close()


@pytest.mark.parametrize("factory", [_edge, _local], ids=["qdrant-edge", "qdrant-local"])
def test_an_exact_search_never_goes_through_the_graph(
    tmp_path: Path, factory: Callable[[Path, SearchPlan], VectorIndex],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    index = factory(tmp_path, ALWAYS_APPROXIMATE)
    asked: list[bool] = []
    search = index._search  # type: ignore[attr-defined]

    def recording(*args: object, approximate: bool = False, **kwargs: object) -> object:
        asked.append(approximate)
        return search(*args, approximate=approximate, **kwargs)

    monkeypatch.setattr(index, "_search", recording)
    try:
        index.upsert("u1", [fact("u1", "e1", dense=np.ones(DIM, dtype=np.float32) / DIM**0.5)])
        index.search_dense("u1", np.ones(DIM), 5, ALL)
        assert ids(index.search_dense("u1", np.ones(DIM), 5, ALL, exact=True)) == ["e1"]
        assert asked == [True, False]  # the plan's HNSW, then exact as asked
    finally:
        index.close()


def test_qdrant_edge_counts_stay_live_through_every_write(tmp_path: Path) -> None:
    index = QdrantEdgeIndex(tmp_path / "edge", DIM)
    lisbon = query_vector("lisbon").indices
    try:
        index.upsert("u1", [fact("u1", "e1", "moved to Lisbon"), fact("u1", "e2", "likes tea")])
        assert index.count("u1") == 2
        assert index.term_counts("u1", lisbon).containing == {lisbon[0]: 1}
        index.upsert("u1", [fact("u1", "e3", "Lisbon again")])
        assert index.count("u1") == 3
        assert index.term_counts("u1", lisbon).containing == {lisbon[0]: 2}
        index.upsert("u2", [fact("u2", "x", "Lisbon too")])  # another user's write
        assert index.term_counts("u1", lisbon).containing == {lisbon[0]: 2}
        assert index.delete("u1", ["e1"]) == 1
        assert (index.count("u1"), index.term_counts("u1", lisbon).facts) == (2, 2)
        assert index.term_counts("u1", lisbon).containing == {lisbon[0]: 1}
        assert index.delete_user("u1") == 2
        assert index.count("u1") == 0
        assert index.term_counts("u1", lisbon).containing == {lisbon[0]: 0}
        assert index.count("u2") == 1
    finally:
        index.close()
    reopened = QdrantEdgeIndex(tmp_path / "edge", DIM)
    try:
        assert (reopened.count("u1"), reopened.count("u2")) == (0, 1)
    finally:
        reopened.close()


def test_graphs_are_built_only_when_some_user_is_large_enough_to_use_them(tmp_path: Path) -> None:
    small = QdrantEdgeIndex(tmp_path / "small", DIM, SearchPlan(exact_max_facts=3))
    try:
        small.upsert("u1", [fact("u1", f"e{i}") for i in range(3)])
        assert not small.build_graphs()  # every search is exact: a build would be wasted
        small.upsert("u2", [fact("u2", f"e{i}") for i in range(4)])
        assert small.build_graphs()
    finally:
        small.close()
