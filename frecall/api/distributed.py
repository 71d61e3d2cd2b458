"""The HTTP API's backend in the distributed deployment.

Writes are produced to Kafka (turns to `fr.turns`, embedded edges to `fr.edges`, forget
commands to `fr.commands`) and applied by the workers; the answer lists the edge ids to
pass as `wait_for` for read-your-writes. Reads go to the vector index that this process's
indexer keeps (`ServingNode`); exports come from the fact store (the record of state).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime

from fastapi import HTTPException

from frecall.api.app import validate_edges, validate_turns
from frecall.api.models import ForgetReceiptOut, IngestResponse, TurnIn
from frecall.distributed import ServingNode, embedded_edges, produce_forget
from schemas.query import QueryRequest, QueryResult
from schemas.streams import EDGES, TURNS
from workers.errors import StorageError
from workers.export import dumps_stable, export_user
from workers.extraction.stage import raw_edge_id
from workers.inputs import EdgeInput
from workers.query.service import QueryService

#: How long a DELETE waits for the workers' receipt before answering 503.
FORGET_TIMEOUT_S = 30.0


class DistributedBackend:
    def __init__(self, node: ServingNode, queries: QueryService) -> None:
        self._node = node
        self._queries = queries

    def query(self, request: QueryRequest, wait_for: Sequence[str], timeout: float) -> QueryResult:
        indexer = self._node.indexer
        if wait_for and not indexer.wait_indexed(request.user_id, wait_for, timeout):
            missing = indexer.missing(request.user_id, wait_for)
            raise HTTPException(503, f"not queryable within {timeout:g} s: {', '.join(missing)}")
        with self._node.indexer.lock:
            return self._queries.query(request)

    def ingest_turns(self, turns: Sequence[TurnIn]) -> IngestResponse:
        events = validate_turns(turns)
        for event in events:
            self._node.produce(TURNS, event.user_id, event.model_dump_json().encode())
        self._node.producer.flush()
        return IngestResponse(
            turns=len(events),
            accepted=0,
            rejected=0,
            failed=0,
            transitions={},
            # The raw turn is a user turn's last edge: once it is queryable, so are its facts.
            edge_ids=[raw_edge_id(e) for e in events if e.role == "user"],
        )

    def ingest_edges(self, items: Sequence[EdgeInput]) -> IngestResponse:
        validate_edges(items, self._node.stores.policy)
        ids = []
        node = self._node
        for edge in embedded_edges(node.embedder, node.stores.policy, items):
            self._node.produce(EDGES, edge.user_id, edge.model_dump_json().encode())
            ids.append(edge.edge_id)
        self._node.producer.flush()
        return IngestResponse(accepted=len(ids), rejected=0, failed=0, transitions={}, edge_ids=ids)

    def forget(self, user_id: str, edge_id: str | None) -> ForgetReceiptOut:
        command = produce_forget(self._node.settings, user_id, edge_id)
        ledger = self._node.stores.ledger
        deadline = time.monotonic() + FORGET_TIMEOUT_S
        receipt = ledger.receipt(user_id, command.command_id)
        while receipt is None and time.monotonic() < deadline:
            time.sleep(0.05)
            receipt = ledger.receipt(user_id, command.command_id)
        if receipt is None:
            raise StorageError("workers", "forget", f"no receipt within {FORGET_TIMEOUT_S} s")
        # The workers erased it from Redis; the caller's proof includes the vector index.
        left = max(0.0, deadline - time.monotonic())
        if not self._node.indexer.wait_erased(user_id, edge_id, left):
            raise StorageError("indexer", "forget", "still in the vector index")
        removed = {**receipt, "vector_index": receipt.get("fact_store", 0)}
        return ForgetReceiptOut(
            user_id=user_id, edge_id=edge_id, removed=removed, at=datetime.now(UTC)
        )

    def export(self, user_id: str) -> str:
        return dumps_stable(export_user(self._node.stores.facts, user_id))

    def count(self) -> int:
        with self._node.indexer.lock:
            return self._node.vectors.count()
