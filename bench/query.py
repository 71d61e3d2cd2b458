"""`frecall bench query`: end-to-end query latency at 1k / 10k / 50k facts, and ingest speed.

Each question is also answered with every search exact (the baseline of the search plan,
workers/stores/search_plan.py), and the heavy user's dense top-60 is compared with the
exact one (recall@60); the HNSW graphs are built after the ingest, as a bulk load does.

For each store size N, in a fresh data dir: the synthetic corpus (`bench.corpus`,
five users, one heavy user with 70 % of the facts) goes through the real ingest path,
`EmbeddedPipeline.ingest_edges` (parse → embed → log → lifecycle rules → Qdrant Edge and
the SQLite slot index), timed as a whole and per stage. Then the heavy user's questions are
timed end to end through `QueryService.query` (query embedding, routing, hybrid candidates,
lifecycle scorer, explanations), after 10 warm-up queries. Side by side, on the same
questions and store: the flat similarity ranking (the same service with the lifecycle layer
off), the bare dense search (store cost only, the question embedded beforehand), and the
user's lexical statistics (the per-term counts BM25's IDF is computed from), so the cost of
the lifecycle layer and of per-user statistics can be read off directly.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np

from bench.corpus import HEAVY_USER, generate_facts, generate_queries
from bench.scratch import bench_root
from bench.stats import pct
from frecall.bootstrap import build
from frecall.embedded.pipeline import EmbeddedPipeline
from frecall.settings import Settings
from schemas.events import EdgeEvent, LogRecord
from schemas.query import QueryRequest
from scorer.score import ScoringOptions
from workers.app import App
from workers.errors import BenchError
from workers.lifecycle.service import LifecycleService, Transition
from workers.ports import Embedder, EventLog, SearchFilter
from workers.progress import Progress
from workers.query.service import QueryService
from workers.stores.qdrant_edge import QdrantEdgeIndex
from workers.stores.search_plan import EXACT_ALWAYS
from workers.text import bm25

CORPUS_SEED = 0
QUERY_SEED = 1
WARMUP_SEED = 2
WARMUP = 10
K = 10
T = TypeVar("T")


class _Stopwatch:
    """Seconds spent per ingest stage, summed over calls."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def timed(self, stage: str, fn: Callable[[], T]) -> T:
        start = time.perf_counter()
        try:
            return fn()
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start


class _TimedEmbedder:
    def __init__(self, inner: Embedder, watch: _Stopwatch) -> None:
        self._inner, self._watch = inner, watch

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dim(self) -> int:
        return self._inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._watch.timed("embed", lambda: self._inner.embed(texts))


class _TimedLog:
    def __init__(self, inner: EventLog, watch: _Stopwatch) -> None:
        self._inner, self._watch = inner, watch

    def append(self, records: Sequence[LogRecord]) -> None:
        self._watch.timed("log", lambda: self._inner.append(records))

    def read(self) -> Iterator[LogRecord]:
        return self._inner.read()

    def redact(self, keep: Callable[[LogRecord], bool]) -> int:
        return self._inner.redact(keep)

    def close(self) -> None:
        self._inner.close()


class _TimedLifecycle:
    """Only `apply` is called during ingest; it is timed and delegated."""

    def __init__(self, inner: LifecycleService, watch: _Stopwatch) -> None:
        self._inner, self._watch = inner, watch

    def apply(self, edge: EdgeEvent) -> list[Transition]:
        return self._watch.timed("lifecycle", lambda: self._inner.apply(edge))


def _write_corpus(path: Path, n: int, end: datetime) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for fact in generate_facts(n, CORPUS_SEED, end=end):
            fh.write(json.dumps(fact, ensure_ascii=False) + "\n")


def _ingest(app: App, corpus: Path, n: int) -> dict[str, Any]:
    """Ingest through the real pipeline with its stages timed by thin wrappers."""
    watch = _Stopwatch()
    embedder, log, lifecycle = app.embedder, app.log, app.lifecycle
    app.embedder = _TimedEmbedder(embedder, watch)
    app.log = _TimedLog(log, watch)
    # The pipeline calls only `apply` on it; the wrapper stands in for the whole service.
    app.lifecycle = cast(LifecycleService, _TimedLifecycle(lifecycle, watch))
    try:
        start = time.perf_counter()
        report = EmbeddedPipeline(app).ingest_edges(corpus)
        seconds = time.perf_counter() - start
    finally:
        app.embedder, app.log, app.lifecycle = embedder, log, lifecycle
    if not report.ok or report.accepted != n:
        raise BenchError(
            "query", f"at {n} facts", f"ingest accepted {report.accepted} of {n} lines ({report})"
        )
    stages = {k: round(v, 2) for k, v in sorted(watch.seconds.items())}
    stages["other"] = round(seconds - sum(watch.seconds.values()), 2)
    return {
        "seconds": round(seconds, 2),
        "facts_per_s": round(n / seconds, 1),
        "stages_s": stages,
        "transitions": dict(sorted(report.transitions.items())),
    }


def _ms(fn: Callable[[], object]) -> float:
    start = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - start) / 1e6


def _queries(app: App, size: int, count: int) -> dict[str, np.ndarray]:
    """Per-query milliseconds: full lifecycle query, flat ranking, query embedding, dense
    search, and the user's lexical statistics (the term counts BM25's IDF is made of)."""
    flat = QueryService(
        app.vectors, app.embedder, app.policy, options=ScoringOptions(lifecycle=False)
    )
    questions = generate_queries(count, QUERY_SEED, HEAVY_USER)
    warmup = generate_queries(WARMUP, WARMUP_SEED, HEAVY_USER)
    # The dense baseline measures the store alone: its query vectors are made up front.
    vectors = app.embedder.embed(questions)
    dense_k, everything = app.policy.dense_candidates, SearchFilter()

    shard = app.vectors if isinstance(app.vectors, QdrantEdgeIndex) else None
    plan = shard.plan if shard is not None else None

    def exactly(fn: Callable[[], T]) -> T:
        """`fn` with every search exact (the baseline of the search plan)."""
        if shard is None or plan is None:
            return fn()
        shard.plan = EXACT_ALWAYS
        try:
            return fn()
        finally:
            shard.plan = plan

    def one(text: str, vector: np.ndarray) -> tuple[float, ...]:
        request = QueryRequest(user_id=HEAVY_USER, query=text, k=K)
        terms = bm25.query_vector(text).indices

        def dense() -> list[str]:
            hits = app.vectors.search_dense(HEAVY_USER, vector, dense_k, everything)
            return [h.record.edge_id for h in hits]

        want = set(exactly(dense))
        return (
            _ms(lambda: app.queries.query(request)),
            _ms(lambda: exactly(lambda: app.queries.query(request))),
            _ms(lambda: flat.query(request)),
            _ms(lambda: app.embedder.embed([text])),
            _ms(dense),
            _ms(lambda: exactly(dense)),
            _ms(lambda: app.vectors.term_counts(HEAVY_USER, terms)),
            len(want & set(dense())) / max(len(want), 1),
        )

    for text, vector in zip(warmup, app.embedder.embed(warmup), strict=True):
        one(text, vector)
    progress = Progress(f"queries at {size} facts", total=count)
    rows = []
    # Interleaved, so that any drift (page cache, CPU clock) affects every variant alike.
    for text, vector in zip(questions, vectors, strict=True):
        rows.append(one(text, vector))
        progress.tick()
    progress.finish()
    columns = np.array(rows).T
    names = ("lifecycle", "exact", "flat", "embed", "dense", "dense_exact", "lexical", "recall")
    return dict(zip(names, columns, strict=True))


def _measure_size(root: Path, size: int, args: argparse.Namespace, end: datetime) -> dict[str, Any]:
    run_dir = Path(tempfile.mkdtemp(prefix=f"n{size}-", dir=root))
    corpus = run_dir / "corpus.jsonl"
    _write_corpus(corpus, size, end)
    settings = Settings(data_dir=run_dir / "store", embedder=args.embedder)
    # No fsync: a bulk load that a crash would simply restart.
    app = build(settings, fsync=False)
    try:
        app.embedder.embed(["load the model before the clock starts"])
        print(f"bench query: ingesting {size} facts ({args.embedder})", file=sys.stderr)
        ingest = _ingest(app, corpus, size)
        if isinstance(app.vectors, QdrantEdgeIndex):
            # What the deployment does after a bulk load: build the HNSW graphs of the
            # users above the exact-search size (workers/stores/search_plan.py).
            start = time.perf_counter()
            app.vectors.optimize()
            ingest["index_build_s"] = round(time.perf_counter() - start, 1)
        print(
            f"bench query: {size} facts in {ingest['seconds']} s "
            f"({ingest['facts_per_s']}/s; {ingest['stages_s']})",
            file=sys.stderr,
        )
        samples = _queries(app, size, args.queries)
        return {
            "ingest": ingest,
            "samples": samples,
            "facts": app.vectors.count(),
            "user_facts": app.vectors.count(HEAVY_USER),
            "onnx_threads": settings.onnx_threads,
        }
    finally:
        app.close()


def measure(root: Path, sizes: Sequence[int], args: argparse.Namespace) -> dict[str, Any]:
    """The `--json` document: percentiles per size (keys are sizes as strings)."""
    # The corpus ends today, so recency and "upcoming" mean what they would in production,
    # and queries run at the default as_of (now), the path a live deployment takes.
    end = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    out: dict[str, Any] = {
        key: {}
        for key in (
            "p50_ms", "p95_ms", "p99_ms", "mean_ms", "flat_p50_ms", "flat_p95_ms",
            "exact_p50_ms", "exact_p95_ms", "dense_exact_p50_ms", "dense_recall_at_60",
            "dense_recall_min", "index_build_s",
            "dense_search_p50_ms", "dense_search_p95_ms", "query_embed_p50_ms",
            "lexical_stats_p50_ms", "lexical_stats_p95_ms",
            "ingest_facts_per_s", "ingest_s", "ingest_stages_s", "ingest_transitions",
            "facts", "user_facts",
        )
    }  # fmt: skip
    for size in sorted(set(sizes)):
        got = _measure_size(root, size, args, end)
        s, key = got["samples"], str(size)
        out["p50_ms"][key] = pct(s["lifecycle"], 50)
        out["p95_ms"][key] = pct(s["lifecycle"], 95)
        out["p99_ms"][key] = pct(s["lifecycle"], 99)
        out["mean_ms"][key] = round(float(s["lifecycle"].mean()), 2)
        out["exact_p50_ms"][key] = pct(s["exact"], 50)
        out["exact_p95_ms"][key] = pct(s["exact"], 95)
        out["dense_exact_p50_ms"][key] = pct(s["dense_exact"], 50)
        out["dense_recall_at_60"][key] = round(float(s["recall"].mean()), 4)
        out["dense_recall_min"][key] = round(float(s["recall"].min()), 4)
        out["index_build_s"][key] = got["ingest"].get("index_build_s")
        out["flat_p50_ms"][key] = pct(s["flat"], 50)
        out["flat_p95_ms"][key] = pct(s["flat"], 95)
        out["dense_search_p50_ms"][key] = pct(s["dense"], 50)
        out["dense_search_p95_ms"][key] = pct(s["dense"], 95)
        out["query_embed_p50_ms"][key] = pct(s["embed"], 50)
        # Microseconds once the index keeps the user's counts: four decimals, not two.
        out["lexical_stats_p50_ms"][key] = round(float(np.percentile(s["lexical"], 50)), 4)
        out["lexical_stats_p95_ms"][key] = round(float(np.percentile(s["lexical"], 95)), 4)
        out["ingest_facts_per_s"][key] = got["ingest"]["facts_per_s"]
        out["ingest_s"][key] = got["ingest"]["seconds"]
        out["ingest_stages_s"][key] = got["ingest"]["stages_s"]
        out["ingest_transitions"][key] = got["ingest"]["transitions"]
        out["facts"][key] = got["facts"]
        out["user_facts"][key] = got["user_facts"]
        out["onnx_threads"] = got["onnx_threads"]
    out.update(embedder=args.embedder, queries=args.queries, user=HEAVY_USER, k=K)
    return out


def run(args: argparse.Namespace, sizes: list[int]) -> int:
    if not sizes or min(sizes) < 1 or args.queries < 1:
        raise BenchError("query", "arguments", "sizes and --queries must be positive")
    with bench_root("query", args.data_dir) as root:
        result = measure(root, sizes, args)
    if args.json:
        print(json.dumps(result))
        return 0
    _print_table(result)
    return 0


def _print_table(result: dict[str, Any]) -> None:
    print(
        f"end-to-end query latency, embedder {result['embedder']}, {result['queries']} queries "
        f"per size for user {result['user']!r}, k={result['k']} (ms)"
    )
    print(
        f"{'facts':>7} {'user':>6} {'ingest/s':>9} {'p50':>7} {'p95':>7} {'p99':>7} "
        f"{'exact p50':>10} {'flat p50':>9} {'dense p50':>10} {'exact':>7} {'r@60':>7} "
        f"{'embed p50':>10} {'idf p50':>8}"
    )
    for key in result["p50_ms"]:
        print(
            f"{result['facts'][key]:>7} {result['user_facts'][key]:>6} "
            f"{result['ingest_facts_per_s'][key]:>9.0f} {result['p50_ms'][key]:>7.2f} "
            f"{result['p95_ms'][key]:>7.2f} {result['p99_ms'][key]:>7.2f} "
            f"{result['exact_p50_ms'][key]:>10.2f} "
            f"{result['flat_p50_ms'][key]:>9.2f} {result['dense_search_p50_ms'][key]:>10.2f} "
            f"{result['dense_exact_p50_ms'][key]:>7.2f} {result['dense_recall_at_60'][key]:>7.4f} "
            f"{result['query_embed_p50_ms'][key]:>10.2f} "
            f"{result['lexical_stats_p50_ms'][key]:>8.4f}"
        )
    print(
        "exact p50: the same queries with every search exact (the search plan's baseline); "
        "r@60: recall of the dense top-60 against the exact one"
    )
    print("ingest time per stage (s):")
    for key, stages in result["ingest_stages_s"].items():
        parts = ", ".join(f"{stage} {seconds:.1f}" for stage, seconds in stages.items())
        print(f"{key:>7}: {result['ingest_s'][key]:.1f} total = {parts}")
