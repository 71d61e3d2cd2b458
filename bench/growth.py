"""`frecall bench growth`: store growth over two years, flat retention vs compaction.

Paper Appendix L (Table 39) projects, for a heavy user after two years, ~30,000 retrievable
edges under flat retention against ~5,000–8,000 under lifecycle management, with 3–5
contradictions and 2–4 expired events in a flat system's top-20 against ~0. This measures
it on our stores, side by side in one run:

* one heavy user's ~30k gold-metadata facts over 730 days (`growth_data.life`) go through
  the real ingest path (`EmbeddedPipeline.ingest_edge_items`: embed → log → lifecycle rules
  → Qdrant Edge + SQLite slot index) into two embedded stores, checkpoint by checkpoint;
* the *flat* store keeps everything; the *compacted* store runs the compaction job
  (`workers.lifecycle.compaction.compact`, docs/architecture.md) at every checkpoint;
* at each checkpoint T, the same questions (`as_of` = T) are timed, interleaved, on both
  stores with the lifecycle ranking, and on the flat store with the flat similarity ranking
  (the uniform-retention baseline); their top-k are checked for contradictions
  (superseded or retracted facts) and expired events served to current-state questions.

Embeddings are computed once and shared by both stores (a caching embedder), so the two
stores hold identical vectors. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench import growth_data as data
from bench.scratch import bench_root
from bench.stats import pct
from frecall.bootstrap import build
from frecall.embedded.pipeline import EmbeddedPipeline
from frecall.settings import Settings
from schemas.categories import Intent, LifecycleState
from schemas.query import QueryRequest, QueryResult
from scorer.score import ScoringOptions
from workers.app import App
from workers.embedding.cached import CachedEmbedder
from workers.errors import ConfigError, FRError
from workers.inputs import EdgeInput, Item
from workers.lifecycle.compaction import compact, expires_at
from workers.query.intent import detect_intent
from workers.query.service import QueryService
from workers.stores.archive import ARCHIVE_FILE, Archive

#: Top-k of every question; Appendix L counts contradictions and expired events in top-20.
K = 20
WARMUP = 5
QUERY_SEED_OFFSET = 1
#: Table 39's projection after two years.
PAPER = {"flat_edges": 30000, "lifecycle_edges": [5000, 8000], "contradictions_top20_flat":
         [3, 5], "expired_top20_flat": [2, 4]}  # fmt: skip
VARIANTS = ("flat", "compacted", "flat_ranking")
_S = LifecycleState


class GrowthError(FRError):
    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(f"bench growth: {detail}")


def _log(message: str) -> None:
    print(f"bench growth: {message}", file=sys.stderr, flush=True)


def _items(facts: Sequence[dict[str, Any]], first: int) -> Iterator[Item[EdgeInput]]:
    for i, fact in enumerate(facts, start=first):
        yield i, json.dumps(fact), EdgeInput.model_validate(fact)


def _ingest(app: App, facts: Sequence[dict[str, Any]], first: int) -> None:
    report = EmbeddedPipeline(app).ingest_edge_items(_items(facts, first), "growth")
    if not report.ok or report.accepted != len(facts):
        raise GrowthError(f"ingest accepted {report.accepted} of {len(facts)} facts")


def _census(app: App, as_of: datetime) -> dict[str, int]:
    """Facts in the store by their state at `as_of` (expiry from the scorer's rule)."""
    counts: Counter[str] = Counter()
    for record in app.vectors.scroll(data.USER):
        state = record.lifecycle.state
        expiry = expires_at(record, app.policy)
        if state is _S.ACTIVE and expiry is not None and expiry < as_of:
            state = _S.EXPIRED
        counts[state.value] += 1
    return dict(sorted(counts.items()))


def _stale(result: QueryResult, states: dict[str, tuple[_S, datetime | None]]) -> tuple[int, int]:
    """(contradictions, expired events) in a current-state question's top-k."""
    contradictions = expired = 0
    for fact in result.results:
        state, expiry = states[fact.edge_id]
        if state in (_S.SUPERSEDED, _S.RETRACTED):
            contradictions += 1
        elif state is _S.ACTIVE and expiry is not None and expiry < result.as_of:
            expired += 1
    return contradictions, expired


def _queries(
    flat: App, compacted: App, questions: Sequence[str], as_of: datetime
) -> dict[str, Any]:
    """Latency of the same questions on each variant, interleaved; staleness of top-k."""
    services = {
        "flat": flat.queries,
        "compacted": compacted.queries,
        "flat_ranking": QueryService(
            flat.vectors, flat.embedder, flat.policy, options=ScoringOptions(lifecycle=False)
        ),
    }
    states = {
        r.edge_id: (r.lifecycle.state, expires_at(r, flat.policy))
        for r in flat.vectors.scroll(data.USER)
    }
    requests = [QueryRequest(user_id=data.USER, query=q, as_of=as_of, k=K) for q in questions]
    for request in requests[:WARMUP]:
        for service in services.values():
            service.query(request)
    ms: dict[str, list[float]] = {v: [] for v in VARIANTS}
    stale: dict[str, list[tuple[int, int]]] = {v: [] for v in VARIANTS}
    for request in requests:
        # Appendix L counts what current-state questions are served.
        current = detect_intent(request.query, request.intent) is Intent.CURRENT
        for name, service in services.items():
            start = time.perf_counter_ns()
            result = service.query(request)
            ms[name].append((time.perf_counter_ns() - start) / 1e6)
            if current:
                stale[name].append(_stale(result, states))
    out: dict[str, Any] = {}
    for name in VARIANTS:
        samples = np.array(ms[name])
        pairs = np.array(stale[name]).reshape(-1, 2)
        out[name] = {
            "p50_ms": pct(samples, 50),
            "p95_ms": pct(samples, 95),
            "contradictions_per_query": round(float(pairs[:, 0].mean()), 3) if len(pairs) else 0,
            "expired_per_query": round(float(pairs[:, 1].mean()), 3) if len(pairs) else 0,
        }
    out["current_questions"] = len(stale["flat"])
    return out


def measure(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    facts = data.life(args.facts, args.days, args.seed)
    if not facts:
        raise GrowthError("no facts generated")
    questions = data.questions(args.queries, args.seed + QUERY_SEED_OFFSET)
    start = data.END - timedelta(days=args.days)
    root = Path(tempfile.mkdtemp(prefix="run-", dir=root))
    flat = build(Settings(data_dir=root / "flat", embedder=args.embedder), fsync=False)
    compacted = build(Settings(data_dir=root / "compacted", embedder=args.embedder), fsync=False)
    try:
        shared = CachedEmbedder(flat.embedder)
        flat.embedder = compacted.embedder = shared
        flat.queries = QueryService(flat.vectors, shared, flat.policy)
        compacted.queries = QueryService(compacted.vectors, shared, compacted.policy)
        archive = Archive(root / "compacted" / ARCHIVE_FILE)
        retention = compacted.policy.compaction.model_dump()
        _log(
            f"{len(facts)} facts of user {data.USER!r} over {args.days} days, "
            f"{args.checkpoints} checkpoints × {len(questions)} questions ({args.embedder})"
        )
        done, archived, rows = 0, 0, []
        for i in range(1, args.checkpoints + 1):
            as_of = start + timedelta(days=args.days * i / args.checkpoints)
            batch = list(data.until(facts[done:], as_of))
            began = time.perf_counter()
            for app in (flat, compacted):
                _ingest(app, batch, done + 1)
            ingest_s = time.perf_counter() - began
            done += len(batch)
            began = time.perf_counter()
            report = compact(compacted.vectors, archive, [data.USER], as_of, compacted.policy)
            compact_s = time.perf_counter() - began
            archived += report.archived
            row = {
                "day": round(args.days * i / args.checkpoints, 1),
                "as_of": as_of.isoformat(),
                "ingested": done,
                "flat_facts": flat.vectors.count(data.USER),
                "compacted_facts": compacted.vectors.count(data.USER),
                "archived": archived,
                "archived_by_reason": dict(sorted(report.by_reason.items())),
                "flat_states": _census(flat, as_of),
                "compacted_states": _census(compacted, as_of),
                "ingest_s": round(ingest_s, 2),
                "compact_s": round(compact_s, 2),
                "queries": _queries(flat, compacted, questions, as_of),
            }
            rows.append(row)
            q = row["queries"]
            _log(f"day {row['day']:g}: {done} ingested; flat {row['flat_facts']}, compacted "
                 f"{row['compacted_facts']} facts; p50 flat {q['flat']['p50_ms']} ms, compacted "
                 f"{q['compacted']['p50_ms']} ms (compaction {compact_s:.1f} s)")  # fmt: skip
    finally:
        flat.close()
        compacted.close()
    return _document(args, len(facts), len(questions), rows, retention)


def _document(
    args: argparse.Namespace,
    facts: int,
    questions: int,
    rows: list[dict[str, Any]],
    retention: dict[str, Any],
) -> dict[str, Any]:
    last = rows[-1]

    def series(variant: str, key: str) -> list[float]:
        return [r["queries"][variant][key] for r in rows]

    return {
        "facts": facts,
        "days": args.days,
        "user": data.USER,
        "embedder": args.embedder,
        "queries": questions,
        "k": K,
        "seed": args.seed,
        "end": data.END.isoformat(),
        "retention": retention,
        "day": [r["day"] for r in rows],
        "flat_facts": [r["flat_facts"] for r in rows],
        "compacted_facts": [r["compacted_facts"] for r in rows],
        "current_facts": [r["compacted_states"].get("active", 0) for r in rows],
        "p50_ms": {v: series(v, "p50_ms") for v in VARIANTS},
        "p95_ms": {v: series(v, "p95_ms") for v in VARIANTS},
        "contradictions_per_query": {v: series(v, "contradictions_per_query") for v in VARIANTS},
        "expired_per_query": {v: series(v, "expired_per_query") for v in VARIANTS},
        "final": {
            "flat_facts": last["flat_facts"],
            "compacted_facts": last["compacted_facts"],
            "reduction": round(1 - last["compacted_facts"] / max(last["flat_facts"], 1), 3),
            "archived_by_reason": _total_reasons(rows),
        },
        "checkpoints": rows,
        "paper": PAPER,
    }


def _total_reasons(rows: list[dict[str, Any]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for row in rows:
        total.update(row["archived_by_reason"])
    return dict(sorted(total.items()))


def run(args: argparse.Namespace) -> int:
    if args.facts < 1 or args.days < 1 or args.checkpoints < 1 or args.queries < 1:
        raise ConfigError("bench growth: --facts, --days, --checkpoints, --queries must be ≥ 1")
    with bench_root("growth", args.data_dir) as root:
        result = measure(args, root)
    if args.report is not None:
        from bench.growth_report import write_report

        paths = write_report(result, Path(args.report))
        _log(f"wrote {', '.join(str(p) for p in paths)}")
    if args.json:
        print(json.dumps(result))
    else:
        from bench.growth_report import table

        print(table(result))
    return 0
