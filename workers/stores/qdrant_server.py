"""`QdrantServerIndex`: the `VectorIndex` port over a Qdrant server, through qdrant-client.

The same code runs against qdrant-client's local mode (`QdrantClient(":memory:")` or
`QdrantClient(path=…)`), which is how it is tested where no server can run. Point layout:
`qdrant_payload`. The collection is created on first use with the payload indexes; an existing
collection must have the same vector configuration, or the constructor raises `StorageError`.

Sparse vectors have no IDF modifier and searches are cut by (score, edge id), exact except the
dense searches of users above the `SearchPlan` size (HNSW, which the server builds in the
background): see the `VectorIndex` port and `qdrant_edge`'s docstring for why.

`update_lifecycle` reads a record and writes it back: it assumes one writer per user at a
time, which partitioning the lifecycle stage by user_id provides.

Every client call goes through `_calling`, which turns qdrant-client's errors (HTTP and gRPC
from a server, ValueError/KeyError/RuntimeError from local mode) into `StorageError`.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import grpc  # type: ignore[import-untyped]  # no stubs; qdrant-client depends on it
import numpy as np
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ApiException

from schemas.records import FactRecord, Lifecycle
from workers.errors import StorageError
from workers.ports import Hit, IndexedFact, SearchFilter, SparseVector, TermCounts
from workers.stores import qdrant_payload as layout
from workers.stores.search_plan import SearchPlan
from workers.stores.stable_top import ScoredId, stable_top

log = logging.getLogger(__name__)

_STORE = "qdrant"
_CLIENT_ERRORS: tuple[type[BaseException], ...] = (
    ApiException,  # UnexpectedResponse (HTTP status), ResponseHandlingException (transport)
    grpc.RpcError,
    ValueError,  # local mode: bad input (wrong dimension, unknown vector name)
    KeyError,  # local mode: unknown point id in set_payload
    RuntimeError,  # local mode: closed client
    OSError,  # local mode on a path: disk errors; the path's lock
)

T = TypeVar("T")


class QdrantServerIndex:
    """The `VectorIndex` port over `collection` (created if missing) of a Qdrant `client`.

    The index owns the client from here on: `close()` closes it.
    """

    def __init__(
        self, client: QdrantClient, collection: str, dim: int, plan: SearchPlan | None = None
    ) -> None:
        self._client = client
        self._collection = collection
        self._dim = dim
        self._plan = plan or SearchPlan()
        self._calling("open", self._ensure_collection)

    # -- writes -------------------------------------------------------------------------

    def upsert(self, user_id: str, items: Sequence[IndexedFact]) -> None:
        layout.check_owner(user_id, items)
        if not items:
            return
        points = [_point_struct(layout.to_point(item)) for item in items]
        self._calling("upsert", self._client.upsert, self._collection, points, wait=True)

    def update_lifecycle(self, user_id: str, updates: Mapping[str, Lifecycle]) -> None:
        records = self._retrieve(user_id, list(updates), ["user_id", "edge_id", "record"])
        operations: list[models.UpdateOperation] = []
        for record in records:
            payload = record.payload or {}
            fields = layout.lifecycle_payload(payload, updates[payload["edge_id"]])
            set_payload = models.SetPayload(payload=fields, points=[record.id])
            operations.append(models.SetPayloadOperation(set_payload=set_payload))
        if operations:
            self._calling(
                "update_lifecycle",
                self._client.batch_update_points,
                self._collection,
                operations,
                wait=True,
            )

    def delete(self, user_id: str, edge_ids: Sequence[str]) -> int:
        ids = [r.id for r in self._retrieve(user_id, edge_ids, ["user_id"])]
        if ids:
            selector = models.PointIdsList(points=ids)
            self._calling("delete", self._client.delete, self._collection, selector, wait=True)
        return len(ids)

    def delete_user(self, user_id: str) -> int:
        existing = self.count(user_id)
        if existing:
            selector = models.FilterSelector(filter=_owner_filter(user_id))
            self._calling("delete_user", self._client.delete, self._collection, selector, wait=True)
        return existing

    # -- reads --------------------------------------------------------------------------

    def get(self, user_id: str, edge_ids: Sequence[str]) -> list[FactRecord]:
        records = self._retrieve(user_id, edge_ids, True, with_dense=True)
        return [_record(r.payload, layout.dense_of(r.vector)) for r in records]

    def search_dense(
        self, user_id: str, vector: np.ndarray, limit: int, flt: SearchFilter,
        *, exact: bool = False,
    ) -> list[Hit]:  # fmt: skip
        query = layout.unit(vector).tolist()
        # Several processes may write the collection: the user's size is counted each time.
        approximate = not exact and self._plan.approximate(self.count(user_id))
        return self._search(
            "search_dense", user_id, query, layout.DENSE, limit, flt, approximate=approximate
        )

    def search_sparse(
        self, user_id: str, sparse: SparseVector, limit: int, flt: SearchFilter
    ) -> list[Hit]:
        if not sparse.indices:
            return []
        query = models.SparseVector(indices=list(sparse.indices), values=list(sparse.values))
        return self._search("search_sparse", user_id, query, layout.SPARSE, limit, flt)

    def term_counts(self, user_id: str, terms: Sequence[int]) -> TermCounts:
        facts = self.count(user_id)
        containing = {}
        for term in dict.fromkeys(terms):
            found = 0
            if facts:
                found = self._calling(
                    "term_counts",
                    self._client.count,
                    self._collection,
                    count_filter=_owner_filter(user_id, term),
                    exact=True,
                ).count
            containing[term] = int(found)
        return TermCounts(facts, containing)

    def scroll(self, user_id: str) -> Iterator[FactRecord]:
        offset: Any = None
        while True:
            records, offset = self._calling(
                "scroll",
                self._client.scroll,
                self._collection,
                scroll_filter=_owner_filter(user_id),
                limit=layout.SCROLL_PAGE,
                offset=offset,
                with_payload=True,
                with_vectors=[layout.DENSE],
            )
            for record in records:
                yield _record(record.payload, layout.dense_of(record.vector))
            if offset is None:
                return

    def count(self, user_id: str | None = None) -> int:
        flt = None if user_id is None else _owner_filter(user_id)
        result = self._calling(
            "count", self._client.count, self._collection, count_filter=flt, exact=True
        )
        return int(result.count)

    def close(self) -> None:
        self._calling("close", self._client.close)

    # -- internals ----------------------------------------------------------------------

    def _ensure_collection(self) -> None:
        if self._client.collection_exists(self._collection):
            self._check_collection()
        else:
            try:
                self._client.create_collection(
                    self._collection,
                    vectors_config={
                        layout.DENSE: models.VectorParams(
                            size=self._dim, distance=models.Distance.DOT
                        )
                    },
                    sparse_vectors_config={layout.SPARSE: models.SparseVectorParams()},
                    hnsw_config=_TENANT_HNSW,
                )
                log.info("created Qdrant collection %s (dim %d)", self._collection, self._dim)
            except _CLIENT_ERRORS:
                # Another worker may have created it in between; if so, it must match.
                if not self._client.collection_exists(self._collection):
                    raise
                self._check_collection()
        with warnings.catch_warnings():
            # Local mode warns that payload indexes do nothing there; we know, and a server
            # needs them. Creating an index that exists is a no-op on a server.
            warnings.filterwarnings(
                "ignore", message="Payload indexes have no effect", category=UserWarning
            )
            for field, schema in _INDEXES.items():
                self._client.create_payload_index(self._collection, field, field_schema=schema)

    def _check_collection(self) -> None:
        params = self._client.get_collection(self._collection).config.params
        dense = params.vectors.get(layout.DENSE) if isinstance(params.vectors, dict) else None
        sparse = (params.sparse_vectors or {}).get(layout.SPARSE)
        if sparse is not None and sparse.modifier == models.Modifier.IDF:
            hint = layout.rebuild_hint(f"collection {self._collection!r}")
            raise StorageError(_STORE, "open", hint)
        if (
            dense is None
            or dense.size != self._dim
            or dense.distance != models.Distance.DOT
            or sparse is None
            or sparse.modifier not in (None, models.Modifier.NONE)
        ):
            raise StorageError(
                _STORE,
                "open",
                f"collection {self._collection!r} exists with another vector configuration "
                f"(want {layout.DENSE!r}: {self._dim}-d dot, {layout.SPARSE!r}: sparse)",
            )

    def _search(
        self,
        operation: str,
        user_id: str,
        query: list[float] | models.SparseVector,
        using: str,
        limit: int,
        flt: SearchFilter,
        *,
        approximate: bool = False,
    ) -> list[Hit]:
        if limit <= 0 or layout.is_empty(flt):
            return []
        with_sparse = using == layout.SPARSE
        vectors = [layout.DENSE, layout.SPARSE] if with_sparse else [layout.DENSE]

        def fetch(n: int) -> list[ScoredId]:
            with warnings.catch_warnings():
                # Local mode warns that it is always exact; a server needs to be told.
                warnings.filterwarnings(
                    "ignore", message="Local mode performs exact", category=UserWarning
                )
                response = self._calling(
                    operation,
                    self._client.query_points,
                    self._collection,
                    query=query,
                    using=using,
                    query_filter=_search_filter(user_id, flt),
                    search_params=(
                        models.SearchParams(hnsw_ef=self._plan.beam(n)) if approximate else _EXACT
                    ),
                    limit=n,
                    with_payload=["edge_id"],
                    with_vectors=False,
                )
            return [
                ScoredId(float(p.score), (p.payload or {})["edge_id"], p.id)
                for p in response.points
            ]

        # As in `qdrant_edge`: cut on scores and ids (ties may ask for many hits), then read
        # the kept hits' records and vectors at once.
        kept = stable_top(fetch, limit)
        if not kept:
            return []
        records = self._calling(
            operation,
            self._client.retrieve,
            self._collection,
            [k.point_id for k in kept],
            with_payload=True,
            with_vectors=vectors,
        )
        by_id = {str(r.id): r for r in records}
        hits = []
        for k in kept:
            point = by_id.get(str(k.point_id))
            if point is None:
                continue  # erased between the search and the read
            record = _record(point.payload, None)  # search hit: σ comes from `dense`
            sparse = layout.sparse_of(point.vector) if with_sparse else None
            hits.append(Hit(record, k.score, layout.dense_of(point.vector), sparse))
        return hits

    def _retrieve(
        self,
        user_id: str,
        edge_ids: Sequence[str],
        with_payload: bool | list[str],
        *,
        with_dense: bool = False,
    ) -> list[models.Record]:
        ids: list[models.ExtendedPointId] = [
            layout.point_id(user_id, e) for e in dict.fromkeys(edge_ids)
        ]
        if not ids:
            return []
        records = self._calling(
            "get",
            self._client.retrieve,
            self._collection,
            ids,
            with_payload=with_payload,
            with_vectors=[layout.DENSE] if with_dense else False,
        )
        # Ids are derived from the user id, so this is a second line of defence only.
        return [r for r in records if (r.payload or {}).get("user_id") == user_id]

    def _calling(self, operation: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, **kwargs)
        except _CLIENT_ERRORS as exc:
            raise StorageError(_STORE, operation, f"{self._collection}: {exc}") from exc


_INDEXES: dict[
    str, models.PayloadSchemaType | models.KeywordIndexParams | models.IntegerIndexParams
] = {
    "user_id": models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
    "category": models.PayloadSchemaType.KEYWORD,
    "state": models.PayloadSchemaType.KEYWORD,
    "ingest_ts": models.PayloadSchemaType.FLOAT,
    layout.TERMS: models.IntegerIndexParams(
        type=models.IntegerIndexType.INTEGER, lookup=True, range=False
    ),
}
#: Exact search: scores must not depend on an approximate index's build history.
_EXACT = models.SearchParams(exact=True)
#: Qdrant's multitenancy layout (see `qdrant_edge_schema.TENANT_HNSW`): no graph across users,
#: one per tenant large enough to need it; the server builds them in the background.
_TENANT_HNSW = models.HnswConfigDiff(
    m=0, payload_m=16, ef_construct=100, full_scan_threshold=10_000
)


def _point_struct(point: layout.PointData) -> models.PointStruct:
    vectors: dict[str, Any] = {layout.DENSE: point.dense}
    # An empty sparse vector is left out: it matches nothing, and local mode would count it
    # in the IDF corpus size N where the server does not.
    if point.sparse_indices:
        vectors[layout.SPARSE] = models.SparseVector(
            indices=point.sparse_indices, values=point.sparse_values
        )
    return models.PointStruct(id=point.id, vector=vectors, payload=point.payload)


def _owner_filter(user_id: str, term: int | None = None) -> models.Filter:
    """The user's facts (containing `term`, when given)."""
    must: list[models.Condition] = [
        models.FieldCondition(key="user_id", match=models.MatchValue(value=user_id))
    ]
    if term is not None:
        must.append(models.FieldCondition(key=layout.TERMS, match=models.MatchValue(value=term)))
    return models.Filter(must=must)


def _search_filter(user_id: str, flt: SearchFilter) -> models.Filter:
    must: list[models.Condition] = [
        models.FieldCondition(key="user_id", match=models.MatchValue(value=user_id))
    ]
    if flt.states is not None:
        states = sorted(s.value for s in flt.states)
        must.append(models.FieldCondition(key="state", match=models.MatchAny(any=states)))
    if flt.categories is not None:
        categories = sorted(c.value for c in flt.categories)
        must.append(models.FieldCondition(key="category", match=models.MatchAny(any=categories)))
    if flt.ingested_before is not None:
        before = layout.epoch(flt.ingested_before)
        must.append(models.FieldCondition(key="ingest_ts", range=models.Range(lt=before)))
    return models.Filter(must=must)


def _record(payload: Mapping[str, Any] | None, dense: np.ndarray | None) -> FactRecord:
    """The stored record; with `dense=None` a split-off embedding is not rebuilt."""
    if payload is None:
        raise StorageError(_STORE, "read", "a point came back without its payload")
    if dense is None:
        return layout.to_record_without_embedding(payload)
    return layout.to_record(payload, dense)
