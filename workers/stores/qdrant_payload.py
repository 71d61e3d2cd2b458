"""How a `FactRecord` is laid out as a Qdrant point; shared by the Edge and server adapters.

Point id: uuid5 of (user_id, edge_id), so re-upserting an edge replaces its point and two
users' edges never share a point. Payload:

    user_id, edge_id, category (primary), state      keyword-indexed, filterable
    ingest_ts, event_ts                               epoch seconds (float) or null
    terms                                             the sparse vector's indices (integer-
                                                      indexed: per-user document frequencies)
    record                                            the FactRecord as a JSON string
    embedding_model                                   see below

Vectors: "dense" (L2-normalized, `Distance.DOT`) and "bm25" (sparse: BM25 term-frequency
weights, with no IDF modifier — the store's IDF statistics would span every user and keep
deleted points until segments are rebuilt; the query path computes each user's IDF from
`terms` instead: workers/query/lexical.py).

Why DOT and not COSINE: both Qdrant engines would re-normalize vectors on a cosine collection,
and qdrant-client's local mode does so unconditionally, changing the last bit of ~40% of
already-unit float32 vectors. We normalize here instead (leaving vectors that are unit to
1e-5 untouched), so the stored bits are the ones we send, and DOT over unit vectors is cosine.

The edge's embedding is not stored twice: when it is exactly the stored dense vector (the
normal case: the embedder's unit vector), the record is stored without it and
`embedding_model` names its model; `to_record` puts it back from the dense vector. Any other
embedding (absent, not unit length, different from `IndexedFact.dense`) stays inside the
record JSON and `embedding_model` is null. Either way `to_record(to_point(x)) == x.record`.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import numpy as np

from schemas.events import Embedding
from schemas.records import FactRecord, Lifecycle
from workers.ports import IndexedFact, SearchFilter, SparseVector

DENSE = "dense"
SPARSE = "bm25"
KEYWORD_FIELDS = ("user_id", "category", "state")
FLOAT_FIELDS = ("ingest_ts",)
TERMS = "terms"
#: Points per scroll page; a module constant so that tests can make pages small.
SCROLL_PAGE = 256

_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "fortunate-recall/vector-index/fact")
_UNIT_TOLERANCE = 1e-5


@dataclass(frozen=True, slots=True)
class PointData:
    """A point, independent of the client library that will send it."""

    id: str
    dense: list[float]
    sparse_indices: list[int]
    sparse_values: list[float]
    payload: dict[str, Any]


def point_id(user_id: str, edge_id: str) -> str:
    # A user id has no whitespace (schemas.events.UserId), so the newline cannot be forged.
    return str(uuid.uuid5(_NAMESPACE, f"{user_id}\n{edge_id}"))


def unit(vector: np.ndarray | Sequence[float]) -> np.ndarray:
    """float32, L2-normalized; a vector already of unit length keeps its exact bits."""
    arr = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(arr.astype(np.float64)))
    if norm == 0.0 or abs(norm - 1.0) <= _UNIT_TOLERANCE:
        return arr
    return (arr.astype(np.float64) / norm).astype(np.float32)


def epoch(value: datetime) -> float:
    """Epoch seconds; a naive datetime is read as UTC, as the schemas do."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


def check_owner(user_id: str, items: Sequence[IndexedFact]) -> None:
    """Every store call is scoped to one user: a foreign record is a caller bug."""
    for item in items:
        if item.record.user_id != user_id:
            raise ValueError(
                f"record {item.record.edge_id!r} belongs to {item.record.user_id!r}, "
                f"not {user_id!r}"
            )


def to_point(item: IndexedFact) -> PointData:
    record = item.record
    dense = unit(item.dense)
    embedding = record.edge.embedding
    model: str | None = None
    # The embedding is split off when it is the dense vector, bit for bit (compared as
    # base64 text: building an `Embedding` to compare cost as much as the rest of the point).
    if embedding is not None and _same_bits(embedding, dense):
        model = embedding.model
        record = record.model_copy(
            update={"edge": record.edge.model_copy(update={"embedding": None})}
        )
    edge = record.edge
    return PointData(
        id=point_id(edge.user_id, edge.edge_id),
        dense=dense.tolist(),
        sparse_indices=list(item.sparse.indices),
        # Qdrant keeps sparse weights as float32 (local mode as float64): rounded here, every
        # adapter holds, and gives back, the same bits (the query path scores from them).
        sparse_values=np.asarray(item.sparse.values, dtype=np.float32).tolist(),
        payload={
            "user_id": edge.user_id,
            "edge_id": edge.edge_id,
            "category": edge.primary_category.value,
            "state": record.lifecycle.state.value,
            "ingest_ts": epoch(edge.ingest_time),
            "event_ts": None if edge.event_time is None else epoch(edge.event_time),
            TERMS: list(item.sparse.indices),
            "record": record.model_dump_json(),
            "embedding_model": model,
        },
    )


def _same_bits(embedding: Embedding, dense: np.ndarray) -> bool:
    """`Embedding.from_array(embedding.model, dense) == embedding`, without building the
    model: the same length, the same base64 text of the float32 bytes."""
    arr = np.asarray(dense, dtype="<f4")
    return embedding.dim == arr.shape[0] and base64.b64encode(arr.tobytes()) == (
        embedding.b64.encode("ascii", "replace")
    )


def to_record(payload: Mapping[str, Any], dense: Sequence[float] | np.ndarray | None) -> FactRecord:
    """The stored record, with its embedding restored from the dense vector when it was split."""
    embedding: Embedding | None = None
    model = payload.get("embedding_model")
    if model is not None:
        if dense is None:
            raise ValueError(f"point {payload.get('edge_id')!r} was read without its dense vector")
        embedding = Embedding.from_array(str(model), np.asarray(dense, dtype=np.float32))
    return _load_record(payload["record"], embedding)


def to_record_without_embedding(payload: Mapping[str, Any]) -> FactRecord:
    """The stored record as is: a split-off embedding is not rebuilt (search hits)."""
    return _parsed(payload["record"])


@lru_cache(maxsize=8192)
def _parsed(text: str) -> FactRecord:
    """Search hits, parsed once per stored text: parsing and validating a record was the
    largest cost of a query after the embedding (≈ 150 hits a query; `frecall bench
    query`). Keyed by the whole text, so a changed record is parsed anew; the records are
    frozen, so sharing one between results is safe. ≈ 8k records of a few KB at most."""
    return _load_record(text)


def lifecycle_payload(payload: Mapping[str, Any], lifecycle: Lifecycle) -> dict[str, Any]:
    """The payload fields to set when a stored record's lifecycle changes."""
    record = _load_record(payload["record"]).model_copy(update={"lifecycle": lifecycle})
    return {"state": lifecycle.state.value, "record": record.model_dump_json()}


def _load_record(text: str, embedding: Embedding | None = None) -> FactRecord:
    # The hot path of every search hit: pydantic-core parses and validates the JSON in one
    # pass. Category weights come back bit-identical because normalization is idempotent.
    record = FactRecord.model_validate_json(text)
    if embedding is not None:
        record = record.model_copy(
            update={"edge": record.edge.model_copy(update={"embedding": embedding})}
        )
    return record


def dense_of(vector: Any) -> np.ndarray | None:
    """The "dense" vector out of a point's named vectors, as float32."""
    if isinstance(vector, Mapping) and vector.get(DENSE) is not None:
        return np.asarray(vector[DENSE], dtype=np.float32)
    return None


def rebuild_hint(where: str) -> str:
    """Why an index built with the store's IDF modifier (before per-user statistics) cannot
    be opened, and what to do."""
    return (
        f"{where} was built by an earlier version (sparse vectors with the store's own IDF "
        "statistics, no per-user term counts): rebuild it from the log with `frecall replay` "
        "(distributed: `frecall replay --from-kafka`)"
    )


def sparse_of(vector: Any) -> SparseVector | None:
    """The "bm25" vector out of a point's named vectors (either client's SparseVector)."""
    if not isinstance(vector, Mapping) or vector.get(SPARSE) is None:
        return None
    sparse = vector[SPARSE]
    return SparseVector(tuple(sparse.indices), tuple(float(v) for v in sparse.values))


def is_empty(flt: SearchFilter) -> bool:
    """True when the filter admits nothing (an empty any-of set), so no query is needed."""
    return (flt.states is not None and not flt.states) or (
        flt.categories is not None and not flt.categories
    )
