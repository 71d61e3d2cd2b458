"""One contract for every `VectorIndex`: the in-memory fake, Qdrant Edge and qdrant-client.

qdrant-client runs in local mode (`:memory:`), which shares the adapter's code path with a
server. Each test gets its own index (a fresh directory or collection).
"""

from __future__ import annotations

import itertools
import json
import math
import socket
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qdrant_client import QdrantClient

from schemas.categories import Category, LifecycleState
from schemas.events import EdgeEvent, Embedding
from schemas.records import FactRecord, Lifecycle, SoftPressure
from workers.errors import StorageError
from workers.ports import Hit, IndexedFact, SearchFilter, SparseVector, TermCounts, VectorIndex
from workers.query.lexical import search_lexical
from workers.stores import qdrant_payload
from workers.stores.memory_vectors import InMemoryVectorIndex
from workers.stores.qdrant_edge import QdrantEdgeIndex
from workers.stores.qdrant_server import QdrantServerIndex
from workers.text.bm25 import document_vector, query_vector

DIM = 8
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
ALL = SearchFilter()
ACTIVE = LifecycleState.ACTIVE
SUPERSEDED = LifecycleState.SUPERSEDED


def vec(*head: float) -> np.ndarray:
    """A unit float32 vector whose first components are proportional to `head`."""
    arr = np.zeros(DIM, dtype=np.float32)
    arr[: len(head)] = head
    return (arr / np.linalg.norm(arr.astype(np.float64))).astype(np.float32)


def fact(
    user: str,
    edge_id: str,
    text: str = "a plain fact",
    dense: np.ndarray | None = None,
    *,
    category: Category | dict[str, float] = Category.OTHER,
    state: LifecycleState = ACTIVE,
    ingest: datetime = T0,
    event: datetime | None = None,
    embed: bool = True,
) -> IndexedFact:
    dense = vec(1.0) if dense is None else dense
    edge = EdgeEvent(
        edge_id=edge_id,
        user_id=user,
        text=text,
        categories=category if isinstance(category, dict) else category.value,
        ingest_time=ingest,
        event_time=event,
        embedding=Embedding.from_array("test-embedder", dense) if embed else None,
    )
    record = FactRecord(edge=edge, lifecycle=Lifecycle(state=state))
    return IndexedFact(record=record, dense=dense, sparse=document_vector(text))


def ids(hits: list[Hit]) -> list[str]:
    return [h.record.edge_id for h in hits]


def _memory(tmp_path: Path) -> VectorIndex:
    return InMemoryVectorIndex(DIM)


def _edge(tmp_path: Path) -> VectorIndex:
    return QdrantEdgeIndex(tmp_path / "edge", DIM)


def _local(tmp_path: Path) -> VectorIndex:
    return QdrantServerIndex(QdrantClient(location=":memory:"), f"t_{uuid.uuid4().hex}", DIM)


FACTORIES: dict[str, Callable[[Path], VectorIndex]] = {
    "memory": _memory,
    "qdrant-edge": _edge,
    "qdrant-local": _local,
}


@pytest.fixture(params=list(FACTORIES))
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorIndex]:
    idx = FACTORIES[request.param](tmp_path)
    yield idx
    idx.close()


# -- writes and reads ------------------------------------------------------------------------


def test_upsert_get_round_trip(index: VectorIndex) -> None:
    rich = fact("u1", "e1", "Moved to Lisbon in May", vec(1, 2, 3), event=T0 + timedelta(days=3))
    rich = IndexedFact(
        record=rich.record.model_copy(
            update={
                "lifecycle": Lifecycle(
                    mentions=3,
                    last_mentioned_at=T0,
                    soft_pressures=(SoftPressure(by="e9", at=T0, gamma=0.25),),
                )
            }
        ),
        dense=rich.dense,
        sparse=rich.sparse,
    )
    # Weights whose re-normalization moves a last bit; a record without an embedding; an
    # embedding that is not unit length (the store keeps a normalized copy as the vector).
    odd_weights = fact(
        "u1",
        "e2",
        "Takes vitamin D",
        category={"OTHER": 1, "OBLIGATIONS": 1, "HEALTH_WELLBEING": 4},
    )
    bare = fact("u1", "e3", "Likes tea", vec(0, 1), embed=False)
    raw = np.arange(1, DIM + 1, dtype=np.float32)
    long = fact("u1", "e4", "Owns a bike", raw)
    items = [rich, odd_weights, bare, long]
    index.upsert("u1", items)

    got = {r.edge_id: r for r in index.get("u1", ["e1", "e2", "e3", "e4", "missing", "e1"])}
    assert got == {i.record.edge_id: i.record for i in items}
    assert got["e4"].edge.embedding is not None
    assert np.array_equal(got["e4"].edge.embedding.to_array(), raw)
    assert index.get("u1", []) == []


def test_count_and_idempotent_reupsert(index: VectorIndex) -> None:
    index.upsert("u1", [fact("u1", "e1", "first text"), fact("u1", "e2")])
    index.upsert("u2", [fact("u2", "e1")])
    newer = fact("u1", "e1", "second text", vec(0, 1), state=SUPERSEDED)
    index.upsert("u1", [newer])
    index.upsert("u1", [newer])
    assert (index.count("u1"), index.count("u2"), index.count("nobody"), index.count()) == (
        2,
        1,
        0,
        3,
    )
    assert index.get("u1", ["e1"]) == [newer.record]
    hits = index.search_dense("u1", vec(0, 1), 10, ALL)
    assert ids(hits) == ["e1", "e2"]


def test_update_lifecycle(index: VectorIndex) -> None:
    item = fact("u1", "e1", "Works at Acme", vec(1, 1))
    index.upsert("u1", [item, fact("u1", "e2")])
    lifecycle = Lifecycle(state=SUPERSEDED, superseded_by="e2", superseded_at=T0, mentions=2)
    index.update_lifecycle("u1", {"e1": lifecycle, "unknown": Lifecycle()})
    index.update_lifecycle("u1", {})

    [record] = index.get("u1", ["e1"])
    assert record == item.record.model_copy(update={"lifecycle": lifecycle})
    assert index.count("u1") == 2
    only_superseded = SearchFilter(states=frozenset({SUPERSEDED}))
    assert ids(index.search_dense("u1", vec(1), 10, only_superseded)) == ["e1"]
    assert ids(index.search_sparse("u1", query_vector("acme"), 10, only_superseded)) == ["e1"]
    assert index.get("u1", ["unknown"]) == []


def test_delete(index: VectorIndex) -> None:
    index.upsert("u1", [fact("u1", f"e{i}", f"fact number {i} about cats") for i in range(3)])
    assert index.delete("u1", ["e0", "e1", "e1", "missing"]) == 2
    assert index.delete("u1", ["e0"]) == 0
    assert index.delete("u1", []) == 0
    assert [r.edge_id for r in index.get("u1", ["e0", "e1", "e2"])] == ["e2"]
    assert ids(index.search_dense("u1", vec(1), 10, ALL)) == ["e2"]
    assert ids(index.search_sparse("u1", query_vector("cats"), 10, ALL)) == ["e2"]
    assert [r.edge_id for r in index.scroll("u1")] == ["e2"]
    assert index.count("u1") == 1


def test_delete_user(index: VectorIndex) -> None:
    index.upsert("u1", [fact("u1", f"e{i}") for i in range(4)])
    index.upsert("u2", [fact("u2", "e0")])
    assert index.delete_user("u1") == 4
    assert index.delete_user("u1") == 0
    assert (index.count("u1"), index.count("u2")) == (0, 1)
    assert list(index.scroll("u1")) == []


def test_scroll_pages_through_every_fact(
    index: VectorIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(qdrant_payload, "SCROLL_PAGE", 3)
    items = [fact("u1", f"e{i:02d}", dense=vec(1, i)) for i in range(10)]
    index.upsert("u1", items)
    index.upsert("u2", [fact("u2", "x")])
    assert sorted(index.scroll("u1"), key=lambda r: r.edge_id) == [i.record for i in items]


# -- search ---------------------------------------------------------------------------------


def test_dense_ranking_is_by_cosine(index: VectorIndex) -> None:
    index.upsert(
        "u1",
        [
            fact("u1", "far", dense=vec(-1, 0.1)),
            fact("u1", "best", dense=vec(1, 0.05)),
            fact("u1", "orth", dense=vec(0, 1)),
            fact("u1", "near", dense=vec(1, 1)),
        ],
    )
    hits = index.search_dense("u1", 3 * vec(1), 3, ALL)  # the query's length does not matter
    assert ids(hits) == ["best", "near", "orth"]
    assert [h.score for h in hits] == pytest.approx(
        [float(vec(1, 0.05)[0]), math.sqrt(0.5), 0.0], abs=1e-6
    )
    assert hits[1].dense is not None
    assert np.allclose(hits[1].dense, vec(1, 1), atol=1e-7)
    assert index.search_dense("u1", vec(1), 0, ALL) == []


def test_sparse_ranking_exact_rare_word_wins(index: VectorIndex) -> None:
    texts = {
        "commute": "I drive to work every day",
        "toyota": "My car is a Toyota Corolla",
        "highway": "I like to drive fast on the highway",
        "roadtrip": "We drive to the coast and drive back on Sundays",
        "unrelated": "My sister lives in Porto",
    }
    index.upsert("u1", [fact("u1", k, v) for k, v in texts.items()])
    hits = search_lexical(index, "u1", "Which Toyota do I drive?", 10, ALL)
    assert ids(hits)[0] == "toyota"
    assert set(ids(hits)) == {"commute", "toyota", "highway", "roadtrip"}  # overlap only
    assert all(a.score >= b.score > 0 for a, b in itertools.pairwise(hits))
    assert all(h.dense is not None and h.dense.shape == (DIM,) for h in hits)
    assert search_lexical(index, "u1", "the of and", 10, ALL) == []
    assert search_lexical(index, "u1", "zebra", 10, ALL) == []  # no fact has the word


def test_sparse_search_is_the_plain_dot_product_with_the_stored_weights(
    index: VectorIndex,
) -> None:
    # No IDF of the store's own: the score is Σ query weight · stored weight, and the hit
    # carries the stored weights (float32, as Qdrant keeps them).
    index.upsert("u1", [fact("u1", "a", "lisbon lisbon porto"), fact("u1", "b", "porto")])
    doc = document_vector("lisbon lisbon porto")
    lisbon, porto = query_vector("lisbon").indices[0], query_vector("porto").indices[0]
    query = SparseVector((lisbon, porto), (3.0, 0.5))
    hits = index.search_sparse("u1", query, 10, ALL)
    assert ids(hits) == ["a", "b"]
    stored = dict(zip(doc.indices, (float(np.float32(v)) for v in doc.values), strict=True))
    assert hits[0].sparse is not None
    assert dict(zip(hits[0].sparse.indices, hits[0].sparse.values, strict=True)) == stored
    want = 3.0 * stored[lisbon] + 0.5 * stored[porto]
    assert hits[0].score == pytest.approx(want, rel=1e-6)


def test_term_counts_are_per_user_and_live(index: VectorIndex) -> None:
    # Each user's memory is its own corpus: N and n(t) count that user's live facts only.
    index.upsert(
        "u1", [fact("u1", "a", "lisbon"), fact("u1", "b", "porto"), fact("u1", "c", "the")]
    )
    index.upsert("u2", [fact("u2", "a", "lisbon"), fact("u2", "b", "madrid lisbon")])
    lisbon, porto, madrid = (query_vector(w).indices[0] for w in ("lisbon", "porto", "madrid"))
    assert index.term_counts("u1", [lisbon, porto, madrid]) == TermCounts(
        3, {lisbon: 1, porto: 1, madrid: 0}
    )
    assert index.term_counts("u2", [lisbon]) == TermCounts(2, {lisbon: 2})
    assert index.term_counts("nobody", [lisbon]) == TermCounts(0, {lisbon: 0})
    index.delete("u1", ["a"])
    assert index.term_counts("u1", [lisbon, porto]) == TermCounts(2, {lisbon: 0, porto: 1})
    index.delete_user("u2")
    assert index.term_counts("u1", [porto]) == TermCounts(2, {porto: 1})
    index.upsert("u1", [fact("u1", "b", "lisbon")])  # re-upsert replaces the terms
    assert index.term_counts("u1", [lisbon, porto]) == TermCounts(2, {lisbon: 1, porto: 0})


def test_search_filter(index: VectorIndex) -> None:
    index.upsert(
        "u1",
        [
            fact("u1", "old", "paris trip", vec(1, 0.1), ingest=T0 - timedelta(days=2)),
            fact(
                "u1",
                "edge",
                "paris flat",
                vec(1, 0.2),
                ingest=T0,
                category=Category.FINANCIAL_MATERIAL,
            ),
            fact(
                "u1",
                "sup",
                "paris job",
                vec(1, 0.3),
                ingest=T0 - timedelta(days=1),
                state=SUPERSEDED,
            ),
            fact("u1", "new", "paris cafe", vec(1, 0.4), ingest=T0 + timedelta(seconds=1)),
        ],
    )
    query = query_vector("paris")

    def both(flt: SearchFilter) -> set[str]:
        dense = set(ids(index.search_dense("u1", vec(1), 10, flt)))
        sparse = set(ids(index.search_sparse("u1", query, 10, flt)))
        assert dense == sparse
        return dense

    assert both(ALL) == {"old", "edge", "sup", "new"}
    assert both(SearchFilter(states=frozenset({ACTIVE}))) == {"old", "edge", "new"}
    assert both(SearchFilter(states=frozenset({ACTIVE, SUPERSEDED}))) == {
        "old",
        "edge",
        "sup",
        "new",
    }
    assert both(SearchFilter(ingested_before=T0)) == {"old", "sup"}  # strictly before
    naive_t0 = T0.replace(tzinfo=None)  # naive means UTC, as in the schemas
    assert both(SearchFilter(ingested_before=naive_t0 + timedelta(microseconds=1))) == {
        "old",
        "sup",
        "edge",
    }
    fin = frozenset({Category.FINANCIAL_MATERIAL})
    assert both(SearchFilter(categories=fin)) == {"edge"}
    assert both(
        SearchFilter(categories=frozenset({Category.OTHER, Category.FINANCIAL_MATERIAL}))
    ) == {"old", "edge", "sup", "new"}
    combined = SearchFilter(
        states=frozenset({ACTIVE}), ingested_before=T0, categories=frozenset({Category.OTHER})
    )
    assert both(combined) == {"old"}
    assert both(SearchFilter(states=frozenset())) == set()
    assert both(SearchFilter(categories=frozenset())) == set()


def test_tenant_isolation(index: VectorIndex) -> None:
    index.upsert(
        "alice",
        [fact("alice", "e1", "alice secret zebra", vec(1)), fact("alice", "e2", "x", vec(0, 1))],
    )
    index.upsert("bob", [fact("bob", "b1", "bob likes apples", vec(0, 0, 1))])

    assert index.get("bob", ["e1", "e2"]) == []
    assert ids(index.search_dense("bob", vec(1), 10, ALL)) == ["b1"]
    assert index.search_sparse("bob", query_vector("secret zebra"), 10, ALL) == []
    assert [r.edge_id for r in index.scroll("bob")] == ["b1"]
    assert index.count("bob") == 1
    index.update_lifecycle("bob", {"e1": Lifecycle(state=SUPERSEDED)})
    assert index.delete("bob", ["e1", "e2"]) == 0
    assert index.delete_user("bob") == 1
    assert index.count("alice") == 2
    assert all(r.lifecycle.state is ACTIVE for r in index.get("alice", ["e1", "e2"]))
    with pytest.raises(ValueError, match="belongs to 'alice'"):
        index.upsert("bob", [fact("alice", "e3")])


def test_wrong_dimension_is_a_storage_error(index: VectorIndex) -> None:
    with pytest.raises(StorageError):
        index.upsert("u1", [fact("u1", "e1", dense=np.ones(DIM + 1, dtype=np.float32))])
    index.upsert("u1", [fact("u1", "e1")])
    with pytest.raises(StorageError):
        index.search_dense("u1", np.ones(DIM - 1, dtype=np.float32), 5, ALL)


# -- the Qdrant payload mapping ---------------------------------------------------------------


def test_payload_fields_and_lossless_round_trip() -> None:
    item = fact(
        "u1",
        "e1",
        "Dentist on Friday",
        vec(1, 2),
        category=Category.OBLIGATIONS,
        event=T0 + timedelta(days=4),
    )
    point = qdrant_payload.to_point(item)
    payload = point.payload
    assert point.id == qdrant_payload.point_id("u1", "e1") != qdrant_payload.point_id("u2", "e1")
    assert payload["user_id"] == "u1" and payload["edge_id"] == "e1"
    assert (payload["category"], payload["state"]) == ("OBLIGATIONS", "active")
    assert payload["ingest_ts"] == T0.timestamp()
    assert payload["event_ts"] == (T0 + timedelta(days=4)).timestamp()
    assert payload["embedding_model"] == "test-embedder"
    assert '"embedding":null' in payload["record"]  # not stored twice
    assert qdrant_payload.to_record(payload, point.dense) == item.record


def test_payload_keeps_an_embedding_the_vector_cannot_restore() -> None:
    other = fact("u1", "e1", dense=vec(1, 2))
    item = IndexedFact(record=other.record, dense=vec(0, 1), sparse=other.sparse)
    point = qdrant_payload.to_point(item)
    assert point.payload["embedding_model"] is None
    assert qdrant_payload.to_record(point.payload, point.dense) == item.record


@settings(max_examples=200, deadline=None)
@given(
    weights=st.dictionaries(
        st.sampled_from([c.value for c in Category]), st.floats(0.001, 1000), min_size=1, max_size=4
    ),
    head=st.lists(st.floats(-100, 100, width=32), min_size=1, max_size=DIM).filter(any),
    unit_vector=st.booleans(),
    confidence=st.floats(0, 1),
)
def test_payload_round_trip_property(
    weights: dict[str, float], head: list[float], unit_vector: bool, confidence: float
) -> None:
    raw = np.zeros(DIM, dtype=np.float32)
    raw[: len(head)] = head
    dense = vec(*head) if unit_vector else raw
    item = fact("u1", "e1", "some text", dense, category=weights)
    edge = item.record.edge.model_copy(update={"confidence": confidence})
    item = IndexedFact(record=FactRecord(edge=edge), dense=dense, sparse=item.sparse)
    point = qdrant_payload.to_point(item)
    stored = json.loads(json.dumps(point.payload))  # what a store gives back
    assert qdrant_payload.to_record(stored, np.asarray(point.dense)) == item.record


# -- persistence and adapter specifics ---------------------------------------------------------


def test_edge_reopen_keeps_data_and_locks_the_directory(tmp_path: Path) -> None:
    items = [fact("u1", f"e{i}", f"note {i} about lisbon", vec(1, i)) for i in range(5)]
    first = QdrantEdgeIndex(tmp_path / "shard", DIM)
    first.upsert("u1", items)
    first.update_lifecycle("u1", {"e0": Lifecycle(state=SUPERSEDED)})
    with pytest.raises(StorageError):
        QdrantEdgeIndex(tmp_path / "shard", DIM)  # one open at a time
    first.close()
    first.close()

    with pytest.raises(StorageError):
        QdrantEdgeIndex(tmp_path / "shard", DIM + 1)
    again = QdrantEdgeIndex(tmp_path / "shard", DIM)
    try:
        assert again.count("u1") == 5
        records = {r.edge_id: r for r in again.get("u1", [f"e{i}" for i in range(5)])}
        assert records["e0"].lifecycle.state is SUPERSEDED
        assert records["e3"] == items[3].record
        active = SearchFilter(states=frozenset({ACTIVE}))
        assert ids(search_lexical(again, "u1", "lisbon", 2, active))[0] != "e0"
        assert ids(again.search_dense("u1", vec(1, 4), 1, active)) == ["e4"]
    finally:
        again.close()
    with pytest.raises(StorageError):
        again.count()


def test_local_path_reopen_and_config_check(tmp_path: Path) -> None:
    client = QdrantClient(path=str(tmp_path / "local"))
    index = QdrantServerIndex(client, "facts", DIM)
    index.upsert("u1", [fact("u1", "e1", "hello world")])
    index.close()

    client = QdrantClient(path=str(tmp_path / "local"))
    with pytest.raises(StorageError, match="another vector configuration"):
        QdrantServerIndex(client, "facts", DIM * 2)
    index = QdrantServerIndex(client, "facts", DIM)
    try:
        assert [r.edge_id for r in index.scroll("u1")] == ["e1"]
    finally:
        index.close()
    with pytest.raises(StorageError):
        index.count()


def test_server_errors_become_storage_errors() -> None:
    with socket.socket() as sock:  # a port that nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = QdrantClient(url=f"http://127.0.0.1:{port}", check_compatibility=False, timeout=2)
    try:
        with pytest.raises(StorageError, match="open failed"):
            QdrantServerIndex(client, "facts", DIM)
    finally:
        client.close()


def test_an_index_built_with_the_stores_idf_asks_for_a_replay(tmp_path: Path) -> None:
    """Before per-user statistics the sparse vectors had Qdrant's IDF modifier and no term
    payload: such an index cannot answer the new queries, and says how to rebuild it."""
    import qdrant_edge as qe
    from qdrant_client import models

    old = qe.EdgeConfig(
        vectors={"dense": qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Dot)},
        sparse_vectors={"bm25": qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
    )
    (tmp_path / "edge").mkdir()
    qe.EdgeShard.create(str(tmp_path / "edge"), old).close()
    with pytest.raises(StorageError, match="frecall replay"):
        QdrantEdgeIndex(tmp_path / "edge", DIM)
    client = QdrantClient(location=":memory:")
    client.create_collection(
        "facts",
        vectors_config={"dense": models.VectorParams(size=DIM, distance=models.Distance.DOT)},
        sparse_vectors_config={"bm25": models.SparseVectorParams(modifier=models.Modifier.IDF)},
    )
    with pytest.raises(StorageError, match="replay --from-kafka"):
        QdrantServerIndex(client, "facts", DIM)
    client.close()
