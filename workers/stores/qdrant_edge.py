"""`QdrantEdgeIndex`: the embedded default `VectorIndex`, Qdrant Edge (qdrant-edge-py) on disk.

One shard in one directory holds every user's facts; every read filters on `user_id` (a
keyword index marked as the tenant field). The point layout is `qdrant_payload`'s.

Concurrency: one process. Qdrant Edge locks the shard's write-ahead log, so a second open of
the same directory, from this process or another, fails with `StorageError`. Within the
process, reads run concurrently and writes are serialized by a lock, which also makes the
read-modify-write of `update_lifecycle` atomic with respect to other writes.

Sparse vectors carry BM25 term-frequency weights without Qdrant's IDF modifier: Qdrant
Edge keeps its IDF statistics for the whole shard (every user) and leaves deleted points in
them until the shard is reopened, so one user's words, and erased ones, would move another
user's scores. Per-user document frequencies come from `term_counts` (counts over the
integer-indexed `terms` payload), exact and live. Searches are exact (`SearchParams(exact)`)
for users up to the `SearchPlan`'s size and approximate (HNSW, built by `optimize`) for the
dense searches of larger ones, and cut by (score, edge id) (workers/stores/search_plan.py).

qdrant-edge-py raises bare `Exception`s; every call into it goes through `_calling`, which
turns them into `StorageError`.
The shard's index configuration and the translations of points, filters and records into
qdrant-edge-py objects are `qdrant_edge_schema.py`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import qdrant_edge as qe

from schemas.records import FactRecord, Lifecycle
from workers.errors import StorageError
from workers.ports import Hit, IndexedFact, SearchFilter, SparseVector, TermCounts
from workers.stores import qdrant_edge_schema as edge_schema
from workers.stores import qdrant_payload as layout
from workers.stores.search_plan import SearchPlan
from workers.stores.stable_top import ScoredId, stable_top

log = logging.getLogger(__name__)

_STORE = edge_schema.STORE
_CONFIG_FILE = "edge_config.json"  # written by EdgeShard.create: its presence means "load"

T = TypeVar("T")


class QdrantEdgeIndex:
    """The `VectorIndex` port over a Qdrant Edge shard at `path` (created if absent).

    Reopening a directory keeps its data; opening it with another `dim` raises `StorageError`.
    """

    def __init__(self, path: Path, dim: int, plan: SearchPlan | None = None) -> None:
        self._path = Path(path)
        self._dim = dim
        self._plan = plan or SearchPlan()
        self._write_lock = threading.Lock()
        # Facts per user and per (user, term), counted by the store and forgotten on every
        # write of that user: every search asks the first (`SearchPlan`), every lexical
        # query both (`term_counts`: counting a term over a large user's facts costs
        # milliseconds, and a user's questions reuse their words). `_writes` is odd while a
        # write is under way (a seqlock): a count that overlapped a write is answered but
        # not kept, so what is kept is always the count of the facts stored now.
        self._sizes: dict[str, int] = {}
        self._terms: dict[str, dict[int, int]] = {}
        self._writes = 0
        self._closed = False
        self._shard = self._calling("open", self._open)

    @property
    def plan(self) -> SearchPlan:
        """When searches are exact; benchmarks set it to compare both paths on one shard."""
        return self._plan

    @plan.setter
    def plan(self, plan: SearchPlan) -> None:
        self._plan = plan

    # -- writes -------------------------------------------------------------------------

    def upsert(self, user_id: str, items: Sequence[IndexedFact]) -> None:
        layout.check_owner(user_id, items)
        if not items:
            return
        points = [edge_schema.edge_point(layout.to_point(item)) for item in items]
        with self._write_lock, self._writing(user_id):
            self._calling("upsert", self._shard.update, qe.UpdateOperation.upsert_points(points))

    def update_lifecycle(self, user_id: str, updates: Mapping[str, Lifecycle]) -> None:
        if not updates:
            return
        with self._write_lock:
            for record in self._retrieve(user_id, list(updates), ["user_id", "edge_id", "record"]):
                payload = record.payload or {}
                fields = layout.lifecycle_payload(payload, updates[payload["edge_id"]])
                op = qe.UpdateOperation.set_payload([record.id], fields)
                self._calling("update_lifecycle", self._shard.update, op)

    def delete(self, user_id: str, edge_ids: Sequence[str]) -> int:
        with self._write_lock, self._writing(user_id):
            ids = [r.id for r in self._retrieve(user_id, edge_ids, ["user_id"])]
            if ids:
                op = qe.UpdateOperation.delete_points(ids)
                self._calling("delete", self._shard.update, op)
            return len(ids)

    def delete_user(self, user_id: str) -> int:
        with self._write_lock, self._writing(user_id):
            existing = self._count(user_id)
            if existing:
                op = qe.UpdateOperation.delete_points_by_filter(edge_schema.owner_filter(user_id))
                self._calling("delete_user", self._shard.update, op)
            return existing

    # -- reads --------------------------------------------------------------------------

    def get(self, user_id: str, edge_ids: Sequence[str]) -> list[FactRecord]:
        records = self._retrieve(user_id, edge_ids, True, with_dense=True)
        return [edge_schema.record_of(r.payload, layout.dense_of(r.vector)) for r in records]

    def search_dense(
        self, user_id: str, vector: np.ndarray, limit: int, flt: SearchFilter,
        *, exact: bool = False,
    ) -> list[Hit]:  # fmt: skip
        query = qe.Query.Nearest(layout.unit(vector).tolist(), using=layout.DENSE)
        approximate = not exact and self._plan.approximate(self.count(user_id))
        return self._search("search_dense", user_id, query, limit, flt, approximate=approximate)

    def search_sparse(
        self, user_id: str, sparse: SparseVector, limit: int, flt: SearchFilter
    ) -> list[Hit]:
        if not sparse.indices:
            return []
        named = qe.SparseVector(list(sparse.indices), list(sparse.values))
        query = qe.Query.Nearest(named, using=layout.SPARSE)
        return self._search("search_sparse", user_id, query, limit, flt, with_sparse=True)

    def term_counts(self, user_id: str, terms: Sequence[int]) -> TermCounts:
        seen = self._writes
        facts = self.count(user_id)
        known = self._terms.get(user_id, {})
        containing = {}
        for term in dict.fromkeys(terms):
            found = known.get(term)
            if found is None:
                request = qe.CountRequest(
                    exact=True, filter=edge_schema.owner_filter(user_id, term)
                )
                found = (
                    int(self._calling("term_counts", self._shard.count, request)) if facts else 0
                )
            containing[term] = found
        if seen % 2 == 0 and seen == self._writes:
            self._terms.setdefault(user_id, {}).update(containing)
        return TermCounts(facts, containing)

    def scroll(self, user_id: str) -> Iterator[FactRecord]:
        offset: Any = None
        while True:
            request = qe.ScrollRequest(
                offset=offset,
                limit=layout.SCROLL_PAGE,
                filter=edge_schema.owner_filter(user_id),
                with_payload=True,
                with_vector=[layout.DENSE],
            )
            records, offset = self._calling("scroll", self._shard.scroll, request)
            for record in records:
                yield edge_schema.record_of(record.payload, layout.dense_of(record.vector))
            if offset is None:
                return

    def count(self, user_id: str | None = None) -> int:
        if user_id is None:
            return self._count(None)
        known = self._sizes.get(user_id)
        if known is not None:
            return known
        seen = self._writes
        counted = self._count(user_id)
        if seen % 2 == 0 and seen == self._writes:
            self._sizes[user_id] = counted
        return counted

    def close(self) -> None:
        """Flush and release the directory; closing twice is harmless."""
        with self._write_lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._calling("flush", self._shard.flush)
            finally:
                # Close even if the flush failed: the WAL lock must go, or nothing could
                # reopen the directory until the process exits (the WAL replays the rest).
                self._calling("close", self._shard.close)

    def build_graphs(self) -> bool:
        """Build the HNSW graphs (`optimize`) if some user is large enough for the search
        plan to use one; True if it ran. A build costs minutes at 50k facts on two cores
        (`frecall bench query`), wasted where every search is exact anyway."""
        request = qe.FacetRequest("user_id", limit=1, exact=True)
        hits = self._calling("facet", self._shard.facet, request).hits
        if not hits or not self._plan.approximate(int(hits[0].count)):
            return False
        self.optimize()
        return True

    def optimize(self) -> bool:
        """Run Qdrant Edge's segment optimizers now (it has no background optimizer).

        Not part of the port. Slow (~25-45 s at 50k points of 384-d) and of no use to
        user-filtered queries, which scan a tenant's few points through the payload index;
        it matters only for very large tenants. True if anything changed.
        """
        with self._write_lock:
            return bool(self._calling("optimize", self._shard.optimize))

    # -- internals ----------------------------------------------------------------------

    def _count(self, user_id: str | None) -> int:
        flt = None if user_id is None else edge_schema.owner_filter(user_id)
        request = qe.CountRequest(exact=True, filter=flt)
        return int(self._calling("count", self._shard.count, request))

    @contextmanager
    def _writing(self, user_id: str) -> Iterator[None]:
        """Around a write of `user_id`'s facts (under the write lock): its count is stale."""
        self._writes += 1
        self._forget_counts(user_id)
        try:
            yield
        finally:
            self._forget_counts(user_id)
            self._writes += 1

    def _forget_counts(self, user_id: str) -> None:
        self._sizes.pop(user_id, None)
        self._terms.pop(user_id, None)

    def _open(self) -> qe.EdgeShard:
        config = qe.EdgeConfig(
            vectors={layout.DENSE: qe.EdgeVectorParams(size=self._dim, distance=qe.Distance.Dot)},
            sparse_vectors={layout.SPARSE: qe.EdgeSparseVectorParams()},
            hnsw_config=edge_schema.TENANT_HNSW,
        )
        if (self._path / _CONFIG_FILE).exists():
            # Passing the config makes Qdrant Edge check it against the stored segments.
            try:
                shard = qe.EdgeShard.load(str(self._path), config)
            except Exception as exc:
                if "modifier" in str(exc):
                    hint = layout.rebuild_hint(str(self._path))
                    raise StorageError(_STORE, "open", hint) from exc
                raise
            log.info("opened Qdrant Edge shard %s", self._path)
        else:
            self._path.mkdir(parents=True, exist_ok=True)
            shard = qe.EdgeShard.create(str(self._path), config)
            log.info("created Qdrant Edge shard %s (dim %d)", self._path, self._dim)
        try:
            indexed = set(shard.info().payload_schema)
            for field, schema in edge_schema.payload_indexes().items():
                if field not in indexed:
                    shard.update(qe.UpdateOperation.create_field_index(field, schema))
        except BaseException:
            shard.close()  # release the WAL lock, or nothing could reopen the directory
            raise
        return shard

    def _search(
        self,
        operation: str,
        user_id: str,
        query: qe.Query,
        limit: int,
        flt: SearchFilter,
        *,
        with_sparse: bool = False,
        approximate: bool = False,
    ) -> list[Hit]:
        if limit <= 0 or layout.is_empty(flt):
            return []
        vectors = [layout.DENSE, layout.SPARSE] if with_sparse else [layout.DENSE]

        def fetch(n: int) -> list[ScoredId]:
            params = (
                qe.SearchParams(hnsw_ef=self._plan.beam(n)) if approximate else edge_schema.EXACT
            )
            request = qe.QueryRequest(
                limit=n,
                query=query,
                filter=edge_schema.search_filter(user_id, flt),
                with_payload=edge_schema.EDGE_ID_ONLY,
                with_vector=False,
                params=params,
            )
            points = self._calling(operation, self._shard.query, request)
            return [ScoredId(float(p.score), (p.payload or {})["edge_id"], p.id) for p in points]

        # Cut on scores and ids alone: equal scores (the same words, the same text) can make
        # the cut ask for many more hits than are kept, and reading a record costs more than
        # finding it. Then one read of the kept hits' records and vectors.
        kept = stable_top(fetch, limit)
        if not kept:
            return []
        records = self._calling(
            operation, self._shard.retrieve, [k.point_id for k in kept], True, vectors
        )
        by_id = {r.id: r for r in records}
        hits = []
        for k in kept:
            point = by_id.get(k.point_id)
            if point is None:
                continue  # erased between the search and the read
            # The query path reads σ from `dense`; rebuilding the edge's embedding blob for
            # every hit would cost more than the search itself (base64 of 384 floats).
            record = edge_schema.record_of(point.payload, None, restore_embedding=False)
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
    ) -> list[qe.Record]:
        ids: list[qe.PointId] = [layout.point_id(user_id, e) for e in dict.fromkeys(edge_ids)]
        if not ids:
            return []
        vectors: list[str] | bool = [layout.DENSE] if with_dense else False
        # retrieve() needs all three arguments, positionally: the stub's defaults are not real.
        records = self._calling("get", self._shard.retrieve, ids, with_payload, vectors)
        # Ids are derived from the user id, so this is a second line of defence only.
        return [r for r in records if (r.payload or {}).get("user_id") == user_id]

    def _calling(self, operation: str, fn: Callable[..., T], *args: Any) -> T:
        try:
            return fn(*args)
        except StorageError:
            raise
        except Exception as exc:  # qdrant-edge-py raises bare Exception for everything
            raise StorageError(_STORE, operation, f"{self._path}: {exc}") from exc
