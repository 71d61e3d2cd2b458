"""The Qdrant Edge shard's schema: its index configuration, and our points, filters and records
spelled as qdrant-edge-py objects.

`QdrantEdgeIndex` (`qdrant_edge.py`) owns the shard, its lock and its calls; these are the pure
translations it makes on the way in and out — the per-tenant HNSW layout and the payload
indexes a shard is created with, a `qdrant_payload` point as a `qe.Point`, a user's (and a
search filter's) `qe.Filter`, a returned payload as a `FactRecord`. Nothing here opens a shard.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import qdrant_edge as qe

from schemas.records import FactRecord
from workers.errors import StorageError
from workers.ports import SearchFilter
from workers.stores import qdrant_payload as layout

STORE = "qdrant-edge"

#: Exact search: scores must not depend on an approximate index's build history.
EXACT = qe.SearchParams(exact=True)
#: The payload a search reads before the cut.
EDGE_ID_ONLY = ["edge_id"]
#: HNSW for many small tenants and a few huge ones (Qdrant's multitenancy layout): no
#: graph over all points (`m=0`: no search crosses users), a graph per tenant (`payload_m`
#: on the `is_tenant` field) built only for tenants too large to scan (Qdrant scans a
#: filter matching fewer than `full_scan_threshold` KB of vectors, ≈ 6,600 of 384-d).
#: Built by `optimize`. A shard created before keeps its data: the config is rewritten.
TENANT_HNSW = qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000, payload_m=16)


def payload_indexes() -> dict[str, Any]:
    return {
        "user_id": qe.KeywordIndexParams(is_tenant=True),
        "category": qe.PayloadSchemaType.Keyword,
        "state": qe.PayloadSchemaType.Keyword,
        "ingest_ts": qe.PayloadSchemaType.Float,
        layout.TERMS: qe.IntegerIndexParams(lookup=True, range=False),
    }


def edge_point(point: layout.PointData) -> qe.Point:
    vectors: dict[str, qe.NamedVector] = {layout.DENSE: point.dense}
    # An empty sparse vector is left out: it matches nothing, and Qdrant's engines disagree
    # on whether it counts in the IDF corpus size N.
    if point.sparse_indices:
        vectors[layout.SPARSE] = qe.SparseVector(point.sparse_indices, point.sparse_values)
    return qe.Point(point.id, vectors, point.payload)


def owner_filter(user_id: str, term: int | None = None) -> qe.Filter:
    """The user's facts (containing `term`, when given)."""
    must: list[qe.ConditionType] = [qe.FieldCondition("user_id", match=qe.MatchValue(user_id))]
    if term is not None:
        must.append(qe.FieldCondition(layout.TERMS, match=qe.MatchValue(term)))
    return qe.Filter(must=must)


def search_filter(user_id: str, flt: SearchFilter) -> qe.Filter:
    must: list[qe.ConditionType] = [qe.FieldCondition("user_id", match=qe.MatchValue(user_id))]
    if flt.states is not None:
        must.append(
            qe.FieldCondition("state", match=qe.MatchAny(sorted(s.value for s in flt.states)))
        )
    if flt.categories is not None:
        values = sorted(c.value for c in flt.categories)
        must.append(qe.FieldCondition("category", match=qe.MatchAny(values)))
    if flt.ingested_before is not None:
        before = layout.epoch(flt.ingested_before)
        must.append(qe.FieldCondition("ingest_ts", range=qe.RangeFloat(lt=before)))
    return qe.Filter(must=must)


def record_of(
    payload: Mapping[str, Any] | None, dense: np.ndarray | None, *, restore_embedding: bool = True
) -> FactRecord:
    if payload is None:
        raise StorageError(STORE, "read", "a point came back without its payload")
    if not restore_embedding:
        return layout.to_record_without_embedding(payload)
    return layout.to_record(payload, dense)
