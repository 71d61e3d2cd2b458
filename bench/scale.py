"""`frecall bench scale`: how cost grows with the store, 10k → 100k → 1M facts.

One embedded deployment grows through the sizes asked for (default 10k, 100k, 1M facts)
over `--users` users (default 10,000) with a Zipf skew: user r (r = 1, 2, …) owns a share
∝ 1/r^s of the facts (s = `--skew`, default 1.0: at 1M the largest user has ≈ 100k facts,
the tenth ≈ 10k, the median user ≈ 20), the shape of a chat platform with a few heavy users
and many light ones. Facts are `bench.corpus` episodes (replacements, soft updates,
events, retractions), a new seeded batch per step with its own edge ids, so that each step
adds to what the previous ones stored, in the same slots.

At each size, through the `Deployment` port (the product's own paths):

* ingest: the step's facts through `ingest_edges` — the bulk path (`workers/lifecycle/
  bulk.py`: validation, log, each batch's touched slots resolved once, vector and slot
  indexes) — carrying their vectors as an importing platform sends them, each user's facts
  together (`--order user`; `--order time` interleaves all users: `bench.scale_input`),
  facts/s of the product's time alone, with progress lines;
* queries: `--queries` questions (`bench.corpus` phrasings) spread over users drawn by
  their share of the facts (so heavy users are asked more often, as they talk more),
  end to end with the question's embedding: p50/p95/p99, and the same for the largest
  user alone (the worst case of per-user search);
* replay: `frecall replay` of the whole log into fresh stores, edges/s (skipped above
  `--replay-up-to`, to bound the run);
* resident memory of the process (VmRSS) and disk of the data dir, per fact.

Sizes above `--direct-above` are loaded straight into the vector index instead
(`bench.scale_direct`, from before the bulk path): their rows measure queries, memory and
disk at that size, not ingest or replay.

Searches are exact unless `--hnsw-above N` (the deployment's `exact_search_max_facts`):
Qdrant Edge builds its HNSW graphs for the whole shard at once, which at a million facts
takes longer than the rest of the run on two cores.

Vectors: the hashing embedder (`workers/embedding/hashing.py`: feature hashing of the
text, deterministic, no model), so that a million facts fit in a bounded run on two cores;
`frecall bench query` measures the MiniLM path. Each size's query baseline is the
smallest size of the same run (the table's ratio column).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from bench import scale_direct
from bench.corpus import SPAN, generate_facts, generate_queries
from bench.scale_input import Clock, carrying_vectors
from bench.scale_input import step_facts as import_facts
from bench.scratch import bench_root
from bench.stats import pct
from frecall.deployment import Deployment
from frecall.embedded.deployment import EmbeddedDeployment
from frecall.settings import Settings
from frecall.wiring import open_deployment
from schemas.query import QueryRequest
from workers.errors import BenchError
from workers.progress import Progress

DEFAULT_SIZES = (10_000, 100_000, 1_000_000)
WARMUP = 10


def user_shares(users: int, skew: float) -> dict[str, float]:
    """Zipf shares: user r owns ∝ 1/r^skew of the facts (ids sort by rank)."""
    width = len(str(users))
    return {f"u{r:0{width}d}": 1.0 / r**skew for r in range(1, users + 1)}


def step_facts(n: int, step: int, shares: Mapping[str, float], end: datetime) -> Iterator[str]:
    """`n` ingest-edges lines of step `step`: the corpus's episodes, edge ids made unique
    per step (the corpus numbers each user's facts from 0)."""
    for fact in generate_facts(n, seed=1000 + step, users=shares, end=end):
        fact["edge_id"] = f"s{step}.{fact['edge_id']}"
        yield json.dumps(fact, ensure_ascii=False)


def resident_bytes() -> int:
    """This process's resident memory now (VmRSS), 0 where /proc is not there."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def disk_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def _questions(
    shares: Mapping[str, float], present: Sequence[str], count: int, seed: int
) -> list[tuple[str, str]]:
    """(user, question) pairs, users drawn by their share among those holding facts."""
    rng = random.Random(seed)
    weights = [shares[u] for u in present]
    users = rng.choices(present, weights=weights, k=count)
    out = []
    for i, user in enumerate(users):
        out.append((user, generate_queries(1, seed * 100_003 + i, user)[0]))
    return out


def _time_queries(deployment: Deployment, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    out = np.empty(len(pairs))
    for i, (user, text) in enumerate(pairs):
        request = QueryRequest(user_id=user, query=text, k=10)
        start = time.perf_counter_ns()
        deployment.query(request)
        out[i] = (time.perf_counter_ns() - start) / 1e6
    return out


def _measure_step(
    deployment: Deployment,
    root: Path,
    size: int,
    added: int,
    step: int,
    shares: Mapping[str, float],
    args: argparse.Namespace,
    end: datetime,
) -> dict[str, Any]:
    direct = args.direct_above is not None and size > args.direct_above
    row: dict[str, Any] = {"facts": size, "loaded": "direct" if direct else "ingest"}
    if direct:
        app = deployment.app if isinstance(deployment, EmbeddedDeployment) else None
        if app is None:
            raise BenchError("scale", "--direct-above", "needs the embedded deployment")
        print(f"bench scale: loading {added} facts into the index (to {size})", file=sys.stderr)
        lines = step_facts(added, step, shares, end)
        scale_direct.load(lines, app.vectors, app.embedder, app.policy, added)
        # No HNSW build here: building the largest users' graphs at a million facts takes
        # longer than the run's bound on two cores; their searches are exact scans.
        row["ingest_s"] = row["ingest_facts_per_s"] = None
    else:
        app = deployment.app if isinstance(deployment, EmbeddedDeployment) else None
        if app is None:
            raise BenchError("scale", "ingest", "needs the embedded deployment")
        facts = import_facts(added, step, shares, end, args.order)
        print(f"bench scale: ingesting {added} facts (to {size})", file=sys.stderr)
        clock = Clock(total=added, label=f"to {size:,}:")
        report = deployment.ingest_edges(carrying_vectors(facts, app.embedder, clock), "scale")
        ingest_s = clock.inside()  # the HNSW build after it included, if any
        del facts
        if not report.ok or report.accepted != added:
            raise BenchError("scale", f"at {size} facts", f"ingest accepted {report.accepted}")
        row["ingest_s"] = round(ingest_s, 1)
        row["ingest_facts_per_s"] = round(added / ingest_s, 1)
        row["vectors_s"] = round(clock.outside, 1)
    # `users()` reads the log and every fact: a count per user is what is needed here.
    stored = {u: deployment.count(u) for u in shares}
    present = sorted(u for u in shares if stored.get(u))
    largest = max(present, key=lambda u: (stored[u], u))
    pairs = _questions(shares, present, args.queries + WARMUP, seed=step)
    _time_queries(deployment, pairs[:WARMUP])
    mixed = _time_queries(deployment, pairs[WARMUP:])
    heavy = _time_queries(
        deployment, [(largest, q) for q in generate_queries(args.queries, step, largest)]
    )
    row |= {
        "users_with_facts": len(present),
        "largest_user_facts": stored[largest],
        "query_p50_ms": pct(mixed, 50),
        "query_p95_ms": pct(mixed, 95),
        "query_p99_ms": pct(mixed, 99),
        "largest_user_p50_ms": pct(heavy, 50),
        "largest_user_p95_ms": pct(heavy, 95),
        "largest_user_p99_ms": pct(heavy, 99),
        "rss_mb": round(resident_bytes() / 2**20, 1),
        "disk_mb": round(disk_bytes(args.store) / 2**20, 1),
    }
    row["rss_bytes_per_fact"] = round(row["rss_mb"] * 2**20 / size)
    row["disk_bytes_per_fact"] = round(row["disk_mb"] * 2**20 / size)
    # A replay rebuilds from the log, which a direct load does not write.
    if size <= args.replay_up_to and not direct:
        print(f"bench scale: replaying {size} facts", file=sys.stderr)
        start = time.perf_counter()
        replay = deployment.replay()  # and the HNSW build after it (wall time of the call)
        replay_s = time.perf_counter() - start
        row["replay_s"] = round(replay_s, 1)
        row["replay_edges_per_s"] = round(replay.edges / replay_s, 1)
    else:
        row["replay_s"] = row["replay_edges_per_s"] = None
    return row


def measure(args: argparse.Namespace, sizes: Sequence[int], root: Path) -> dict[str, Any]:
    shares = user_shares(args.users, args.skew)
    end = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    args.store = root / "store"
    exact = 10**12 if args.hnsw_above is None else args.hnsw_above
    settings = Settings(data_dir=args.store, embedder="hashing", exact_search_max_facts=exact)
    deployment = open_deployment(settings, fsync=False, quiet=True)
    rows = []
    started = time.perf_counter()
    try:
        have = 0
        progress = Progress("bench scale sizes", total=len(sizes))
        for step, size in enumerate(sizes):
            # The store grows forward in time, as a platform's does: each step's facts span
            # the corpus's 18 months before the next step's (the last ends today), so none
            # arrives before facts already stored (`bench.scale_input`: late edges).
            step_end = end - (len(sizes) - 1 - step) * SPAN
            rows.append(
                _measure_step(deployment, root, size, size - have, step, shares, args, step_end)
            )
            have = size
            print(f"bench scale: {json.dumps(rows[-1])}", file=sys.stderr)
            progress.tick()
        progress.finish()
    finally:
        deployment.close()
    base = rows[0]["query_p50_ms"] or 1.0
    for row in rows:
        row["query_p50_vs_smallest"] = round(row["query_p50_ms"] / base, 2)
    return {
        "rows": rows,
        "users": args.users,
        "skew": args.skew,
        "queries": args.queries,
        "embedder": "hashing",
        "order": args.order,
        "hnsw_above": args.hnsw_above,
        "cpus": os.cpu_count(),
        "wall_s": round(time.perf_counter() - started, 1),
    }


def run(args: argparse.Namespace, sizes: list[int]) -> int:
    if not sizes or sorted(sizes) != sizes or min(sizes) < 1 or args.queries < 1:
        raise BenchError("scale", "arguments", "sizes must be increasing and positive")
    if args.users < 1:
        raise BenchError("scale", "arguments", "--users must be positive")
    with bench_root("scale", args.data_dir) as root:
        result = measure(args, sizes, root)
    if args.report is not None:
        from bench.scale_report import write_report

        for path in write_report(result, args.report):
            print(f"bench scale: wrote {path}", file=sys.stderr)
    if args.json:
        print(json.dumps(result))
    else:
        from bench.scale_report import table

        print(table(result))
    return 0
