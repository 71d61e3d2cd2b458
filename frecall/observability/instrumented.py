"""`Instrumented`: the `Deployment` port with metrics and spans around every call.

The serving processes wrap the deployment they opened once (`frecall serve`, `frecall mcp
--http`), below the tenant views, so that every entry point's calls are counted the same
way: ingest counts and transitions, dead letters, query latency, a span per call.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime

from frecall.deployment import Deployment, LogSource, Ranking
from frecall.observability.metrics import Metrics
from frecall.observability.tracing import Tracing
from schemas.events import TurnEvent
from schemas.policy import Policy
from schemas.query import QueryRequest, QueryResult
from schemas.results import (
    ForgetReceipt,
    IngestReport,
    Inspection,
    ItemFailure,
    MemoryExport,
    ReplayReport,
    UserSummary,
)
from workers.inputs import EdgeInput, Item
from workers.lifecycle.compaction import CompactionReport


class Instrumented:
    """`inner` with `metrics` (None: none) and `tracing`; closing closes `inner`."""

    def __init__(self, inner: Deployment, metrics: Metrics | None, tracing: Tracing) -> None:
        self.inner = inner
        self.metrics = metrics
        self.tracing = tracing

    @property
    def policy(self) -> Policy:
        return self.inner.policy

    def _ingested(self, report: IngestReport) -> IngestReport:
        if self.metrics is not None:
            self.metrics.ingested(report)
        return report

    def ingest_turns(self, items: Iterable[Item[TurnEvent]], source: str) -> IngestReport:
        with self.tracing.span("frecall.ingest_turns", source=source):
            return self._ingested(self.inner.ingest_turns(items, source))

    def ingest_edges(self, items: Iterable[Item[EdgeInput]], source: str) -> IngestReport:
        with self.tracing.span("frecall.ingest_edges", source=source):
            return self._ingested(self.inner.ingest_edges(items, source))

    def query(
        self,
        request: QueryRequest,
        *,
        ranking: Ranking = "lifecycle",
        wait_for: Sequence[str] = (),
        timeout: float = 10.0,
    ) -> QueryResult:
        start = time.perf_counter()
        with self.tracing.span("frecall.query", k=request.k, ranking=ranking):
            result = self.inner.query(request, ranking=ranking, wait_for=wait_for, timeout=timeout)
        if self.metrics is not None:
            self.metrics.query.observe(time.perf_counter() - start)
        return result

    def query_batch(
        self, items: Iterable[Item[QueryRequest]], source: str
    ) -> Iterator[QueryResult | ItemFailure]:
        return self.inner.query_batch(items, source)

    def export(self, user_id: str) -> MemoryExport:
        with self.tracing.span("frecall.export"):
            return self.inner.export(user_id)

    def forget(
        self, user_id: str, edge_id: str | None = None, *, wait: bool = True
    ) -> ForgetReceipt:
        with self.tracing.span("frecall.forget", whole_user=edge_id is None):
            return self.inner.forget(user_id, edge_id, wait=wait)

    def inspect(self, user_id: str, as_of: datetime | None = None) -> Inspection:
        with self.tracing.span("frecall.inspect"):
            return self.inner.inspect(user_id, as_of)

    def users(self) -> list[UserSummary]:
        return self.inner.users()

    def count(self, user_id: str | None = None) -> int:
        return self.inner.count(user_id)

    def replay(self, source: LogSource = "log") -> ReplayReport:
        with self.tracing.span("frecall.replay"):
            return self.inner.replay(source)

    def compact(self, as_of: datetime) -> CompactionReport:
        with self.tracing.span("frecall.compact"):
            return self.inner.compact(as_of)

    def close(self) -> None:
        self.inner.close()
