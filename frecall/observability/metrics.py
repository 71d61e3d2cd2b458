"""The serving process's Prometheus metrics (`GET /metrics`, text format 0.0.4).

Names and labels (labels are bounded sets: a route template, never a raw path; no user,
tenant or key id — those go to the access log):

    frecall_http_request_duration_seconds{method,route,status}  histogram
    frecall_http_requests_refused_total{reason}                 401, 403, 429 by reason
    frecall_query_duration_seconds                              histogram, every entry point
    frecall_turns_ingested_total, frecall_facts_ingested_total  counters
    frecall_transitions_total{kind}                             e.g. kind="active->superseded"
    frecall_dead_letters_total{why}                             why="rejected"|"failed"
    frecall_embedding_duration_seconds{model}                   histogram, one per batch
    frecall_embedded_texts_total{model}                         counter
    frecall_indexer_lag_seconds                                 histogram (distributed): an
                                                                edge produced here → queryable
    frecall_consumer_lag_messages{group,topic}                  gauge (distributed, at scrape)
    frecall_dead_letter_topic_messages                          gauge (distributed): fr.dlq

Each `Metrics` has its own registry, so that several apps in one process (tests) never
clash; the serving process makes one.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from frecall.observability import timings
from schemas.results import IngestReport

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: Seconds: 1 ms … 30 s (queries are ms; an ingest of 1,000 turns or a forget may take s).
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
#: Produce → queryable in the distributed deployment: 10 ms … 2 min.
LAG_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
#: Edge ids whose produce time is kept for the indexer lag (oldest dropped first).
PENDING_LIMIT = 20_000

#: (group, topic) → messages not yet consumed, and the dead-letter topic's size.
LagReader = Callable[[], tuple[Mapping[tuple[str, str], int], int | None]]


class Metrics:
    """Every metric of one serving process, on its own registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.http = Histogram(
            "frecall_http_request_duration_seconds",
            "HTTP requests by method, route template and status",
            ["method", "route", "status"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.refused = Counter(
            "frecall_http_requests_refused",
            "requests refused before they reached the memory",
            ["reason"],
            registry=r,
        )
        self.query = Histogram(
            "frecall_query_duration_seconds", "queries", buckets=LATENCY_BUCKETS, registry=r
        )
        self.turns = Counter("frecall_turns_ingested", "turns accepted", registry=r)
        self.facts = Counter("frecall_facts_ingested", "facts (edges) accepted", registry=r)
        self.transitions = Counter(
            "frecall_transitions", "lifecycle transitions by kind", ["kind"], registry=r
        )
        self.dead_letters = Counter(
            "frecall_dead_letters", "items dead-lettered: invalid or failed", ["why"], registry=r
        )
        self.embedding = Histogram(
            "frecall_embedding_duration_seconds",
            "embedder calls (one batch each)",
            ["model"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.embedded = Counter("frecall_embedded_texts", "texts embedded", ["model"], registry=r)
        self.indexer_lag = Histogram(
            "frecall_indexer_lag_seconds",
            "distributed: from an edge produced by this process to its being queryable",
            buckets=LAG_BUCKETS,
            registry=r,
        )
        self._pending: OrderedDict[str, float] = OrderedDict()
        self._pending_lock = threading.Lock()
        self._unhooks = [timings.EMBEDDING.add(self._embedded), timings.INDEXED.add(self.indexed)]

    # --- what the entry points and the deployment report ----------------------------------

    def ingested(self, report: IngestReport) -> None:
        """An ingest's counts. Queued writes (distributed) are counted as produced here;
        their transitions when the indexer sees them (`indexed`)."""
        self.turns.inc(report.turns)
        self.facts.inc(report.accepted)
        if report.rejected:
            self.dead_letters.labels("rejected").inc(report.rejected)
        if report.failed:
            self.dead_letters.labels("failed").inc(report.failed)
        if report.queued:
            self.produced(report.edge_ids)
        else:
            self.transitioned(report.transitions)

    def transitioned(self, transitions: Mapping[str, int]) -> None:
        for kind, count in transitions.items():
            self.transitions.labels(kind).inc(count)

    def produced(self, edge_ids: Iterable[str]) -> None:
        now = time.monotonic()
        with self._pending_lock:
            for edge_id in edge_ids:
                self._pending[edge_id] = now
                self._pending.move_to_end(edge_id)
            while len(self._pending) > PENDING_LIMIT:
                self._pending.popitem(last=False)

    def indexed(
        self, edge_ids: Sequence[str], transitions: Iterable[tuple[str | None, str]]
    ) -> None:
        """The indexer applied an announcement: its transitions, and the lag of the edges
        this process produced."""
        now = time.monotonic()
        with self._pending_lock:
            produced = [self._pending.pop(e) for e in edge_ids if e in self._pending]
        for at in produced:
            self.indexer_lag.observe(now - at)
        for before, after in transitions:
            self.transitions.labels(f"{before or 'new'}->{after}").inc()

    def watch_lag(self, read: LagReader) -> None:
        """Report consumer lag at every scrape from `read` (the distributed deployment)."""
        self.registry.register(_LagCollector(read))

    def _embedded(self, model: str, texts: int, start_ns: int, end_ns: int) -> None:
        self.embedding.labels(model).observe((end_ns - start_ns) / 1e9)
        self.embedded.labels(model).inc(texts)

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def close(self) -> None:
        for unhook in self._unhooks:
            unhook()


class _LagCollector(Collector):
    def __init__(self, read: LagReader) -> None:
        self._read = read

    def collect(self) -> Iterable[GaugeMetricFamily]:
        lag = GaugeMetricFamily(
            "frecall_consumer_lag_messages",
            "distributed: messages not yet consumed, per consumer group and topic",
            labels=["group", "topic"],
        )
        dlq = GaugeMetricFamily(
            "frecall_dead_letter_topic_messages", "distributed: messages in fr.dlq"
        )
        try:
            lags, dead = self._read()
        except Exception:  # a scrape must answer even when the broker does not
            return []
        for (group, topic), value in sorted(lags.items()):
            lag.add_metric([group, topic], value)
        families = [lag]
        if dead is not None:
            dlq.add_metric([], dead)
            families.append(dlq)
        return families

    def describe(self) -> Iterable[GaugeMetricFamily]:
        return []  # collected at scrape time only


__all__ = ["CONTENT_TYPE", "Metrics"]
