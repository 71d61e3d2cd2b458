"""`InMemoryVectorIndex`: an exact, in-process fake of the `VectorIndex` port for unit tests.

It computes what Qdrant computes, exactly and without an index: cosine similarity over
L2-normalized float32 vectors, and the sparse dot product of the query's weights with the
stored ones (kept as float32, as Qdrant stores them). Like the Qdrant adapters it applies no
IDF of its own: `term_counts` gives the user's document frequencies to the caller.

Ties are broken by edge id, as the port promises.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from schemas.records import FactRecord, Lifecycle
from workers.errors import StorageError
from workers.ports import Hit, IndexedFact, SearchFilter, SparseVector, TermCounts

_STORE = "memory vector index"
_UNIT_TOLERANCE = 1e-5


@dataclass(frozen=True, slots=True)
class _Point:
    record: FactRecord
    dense: np.ndarray
    sparse: dict[int, float]


class InMemoryVectorIndex:
    """The `VectorIndex` port over a dict; `dim` None takes the first upserted vector's size."""

    def __init__(self, dim: int | None = None) -> None:
        self._dim = dim
        self._points: dict[tuple[str, str], _Point] = {}
        self._lock = threading.Lock()
        self._closed = False

    def upsert(self, user_id: str, items: Sequence[IndexedFact]) -> None:
        points: list[_Point] = []
        for item in items:
            if item.record.user_id != user_id:
                raise ValueError(
                    f"record {item.record.edge_id!r} belongs to {item.record.user_id!r}, "
                    f"not {user_id!r}"
                )
            dense = _unit(item.dense)
            sparse: dict[int, float] = {}
            for index, value in zip(item.sparse.indices, item.sparse.values, strict=True):
                sparse[index] = sparse.get(index, 0.0) + value
            # Qdrant keeps sparse weights as float32: so does the fake, to the same bits.
            sparse = {i: float(np.float32(v)) for i, v in sorted(sparse.items())}
            points.append(_Point(item.record, dense, sparse))
        with self._lock:
            self._check_open("upsert")
            if not points:
                return
            dim = points[0].dense.size if self._dim is None else self._dim
            for point in points:
                if point.dense.size != dim:
                    raise StorageError(
                        _STORE, "upsert", f"dense vector has {point.dense.size} values, not {dim}"
                    )
            self._dim = dim
            for point in points:
                self._points[(user_id, point.record.edge_id)] = point

    def update_lifecycle(self, user_id: str, updates: Mapping[str, Lifecycle]) -> None:
        with self._lock:
            self._check_open("update_lifecycle")
            for edge_id, lifecycle in updates.items():
                point = self._points.get((user_id, edge_id))
                if point is not None:
                    record = point.record.model_copy(update={"lifecycle": lifecycle})
                    self._points[(user_id, edge_id)] = _Point(record, point.dense, point.sparse)

    def get(self, user_id: str, edge_ids: Sequence[str]) -> list[FactRecord]:
        with self._lock:
            self._check_open("get")
            found = (self._points.get((user_id, e)) for e in dict.fromkeys(edge_ids))
            return [p.record for p in found if p is not None]

    def delete(self, user_id: str, edge_ids: Sequence[str]) -> int:
        with self._lock:
            self._check_open("delete")
            keys = [(user_id, e) for e in dict.fromkeys(edge_ids) if (user_id, e) in self._points]
            for key in keys:
                del self._points[key]
            return len(keys)

    def delete_user(self, user_id: str) -> int:
        with self._lock:
            self._check_open("delete_user")
            keys = [key for key in self._points if key[0] == user_id]
            for key in keys:
                del self._points[key]
            return len(keys)

    def search_dense(
        self, user_id: str, vector: np.ndarray, limit: int, flt: SearchFilter,
        *, exact: bool = False,
    ) -> list[Hit]:  # fmt: skip
        del exact  # every search here is exact
        query = _unit(vector)
        with self._lock:
            self._check_open("search_dense")
            if self._dim is not None and query.size != self._dim:
                raise StorageError(
                    _STORE, "search_dense", f"query has {query.size} values, not {self._dim}"
                )
            scored = [(float(np.dot(p.dense, query)), p) for p in self._candidates(user_id, flt)]
        return _top(scored, limit)

    def search_sparse(
        self, user_id: str, sparse: SparseVector, limit: int, flt: SearchFilter
    ) -> list[Hit]:
        query: dict[int, float] = {}
        for index, value in zip(sparse.indices, sparse.values, strict=True):
            query[index] = query.get(index, 0.0) + value
        with self._lock:
            self._check_open("search_sparse")
            scored: list[tuple[float, _Point]] = []
            for point in self._candidates(user_id, flt):
                common = sorted(query.keys() & point.sparse.keys())
                # Qdrant only scores points found in the query terms' posting lists.
                if common:
                    scored.append((sum(query[i] * point.sparse[i] for i in common), point))
        return _top(scored, limit, with_sparse=True)

    def term_counts(self, user_id: str, terms: Sequence[int]) -> TermCounts:
        with self._lock:
            self._check_open("term_counts")
            mine = [p for (owner, _), p in self._points.items() if owner == user_id]
            containing = {t: sum(1 for p in mine if t in p.sparse) for t in dict.fromkeys(terms)}
        return TermCounts(len(mine), containing)

    def scroll(self, user_id: str) -> Iterator[FactRecord]:
        with self._lock:
            self._check_open("scroll")
            records = [p.record for (owner, _), p in self._points.items() if owner == user_id]
        return iter(records)

    def count(self, user_id: str | None = None) -> int:
        with self._lock:
            self._check_open("count")
            if user_id is None:
                return len(self._points)
            return sum(1 for owner, _ in self._points if owner == user_id)

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def _check_open(self, operation: str) -> None:
        if self._closed:
            raise StorageError(_STORE, operation, "the index is closed")

    def _candidates(self, user_id: str, flt: SearchFilter) -> list[_Point]:
        before = None if flt.ingested_before is None else _aware(flt.ingested_before)
        return [
            point
            for (owner, _), point in self._points.items()
            if owner == user_id
            and (flt.states is None or point.record.lifecycle.state in flt.states)
            and (before is None or point.record.edge.ingest_time < before)
            and (flt.categories is None or point.record.edge.primary_category in flt.categories)
        ]


def _unit(vector: np.ndarray) -> np.ndarray:
    # Same rule as the Qdrant adapters (qdrant_payload.unit): unit vectors keep their bits.
    arr = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(arr.astype(np.float64)))
    if norm == 0.0 or abs(norm - 1.0) <= _UNIT_TOLERANCE:
        return arr.copy()
    return (arr.astype(np.float64) / norm).astype(np.float32)


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def _top(scored: list[tuple[float, _Point]], limit: int, *, with_sparse: bool = False) -> list[Hit]:
    scored.sort(key=lambda sp: (-sp[0], sp[1].record.edge_id))
    return [
        Hit(p.record, score, p.dense.copy(), _sparse(p.sparse) if with_sparse else None)
        for score, p in scored[: max(limit, 0)]
    ]


def _sparse(weights: Mapping[int, float]) -> SparseVector:
    return SparseVector(tuple(weights), tuple(weights.values()))
