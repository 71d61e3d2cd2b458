"""`frecall bench throughput`: how fast the embedded deployment ingests and replays, the bulk
path against the one-by-one path (the baseline) in the same run, and where the time goes.

Paths, each run `--rounds` times per mode in a fresh data dir, the two modes alternating
(medians; the ratio is bulk / one-by-one):

* `ingest-edges (embedded here)`: `--embed-facts` synthetic facts (bench/corpus.py) without
  vectors: parse → embed → log (fsync) → lifecycle → Qdrant Edge + SQLite;
* `ingest-edges (with vectors)`: `--facts` facts that carry their vectors (made once, before
  any timing, by the same embedder): nothing is embedded;
* `replay`: `frecall replay` of the data dir the previous path built;
* `ingest (turns)`: `--turns` conversation turns of LoCoMo (`--data`) or, without it, of
  bench/data/corpus.toml's synthetic chat: rule extractor → embed → log → lifecycle.

Every run is profiled by `bench/stages.py` (exclusive milliseconds per item per stage).
One-by-one is `EmbeddedPipeline(bulk=False)` / `replay_data_dir(bulk=False)`: one `apply`
per edge, as before the bulk path existed. Both must end in the same exports: the bench
checks it on every path (a digest of every user's export) and fails otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench import embed_workers
from bench.corpus import generate_facts
from bench.stages import StageClock
from frecall.bootstrap import build, make_embedder, make_extractor
from frecall.embedded.pipeline import EmbeddedPipeline
from frecall.embedded.replay import replay_data_dir
from frecall.settings import Settings, settings_from
from schemas.events import EdgeEvent, TurnEvent
from schemas.policy import load_policy
from schemas.results import IngestReport
from workers.embedding.attach import with_embeddings
from workers.errors import BenchError, ConfigError
from workers.export import dumps_stable, export_user
from workers.inputs import EdgeInput, Item, listed
from workers.ports import Embedder, FactExtractor

MODES = ("one-by-one", "bulk")
#: One ingest through a pipeline; returns its `IngestReport`.
Ingest = Callable[[EmbeddedPipeline], IngestReport]
GOALS = {  # issue 13's goals, per second
    "ingest-edges (embedded here)": 500,
    "ingest-edges (with vectors)": 5000,
    "replay": 10000,
    "ingest (turns)": 300,
}


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- input ----------------------------------------------------------------------------------


def _facts(n: int, users: int, seed: int) -> list[EdgeInput]:
    shares = {f"user{i:04d}": 1.0 for i in range(users)}
    return [EdgeInput.model_validate(f) for f in generate_facts(n, seed, shares)]


def _with_vectors(
    embedder: Embedder, settings: Settings, items: list[EdgeInput]
) -> list[EdgeInput]:
    policy = load_policy(settings.policy_file)
    now = datetime.now(UTC)
    events = with_embeddings(embedder, [i.to_event(policy, now, None) for i in items])
    return [
        i.model_copy(update={"embedding": e.embedding}) for i, e in zip(items, events, strict=True)
    ]


def _turns(args: argparse.Namespace) -> list[TurnEvent]:
    if args.data is not None:
        from bench.locomo_data import load

        turns = [t for conv in load(args.data) for t in conv.turns]
        return turns[: args.turns]
    facts = _facts(args.turns, args.users, 3)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    return [  # a chat line per fact: the extractor finds what the rules know of them
        TurnEvent(
            user_id=f.user_id,
            session_id=f"s-{f.user_id}",
            turn_id=f"t{i:06d}",
            role="user",
            text=f"I guess {f.text[0].lower()}{f.text[1:]}.",
            timestamp=start + timedelta(minutes=i),
        )
        for i, f in enumerate(facts)
    ]


# --- one run ---------------------------------------------------------------------------------


def _digest(settings: Settings) -> str:
    """A digest of every user's export (`frecall export`'s stable JSON)."""
    app = build(settings)
    try:
        users = sorted({r.user_id for r in app.log.read() if isinstance(r, EdgeEvent)})
        text = "".join(dumps_stable(export_user(app.vectors, u)) for u in users)
    finally:
        app.close()
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _ingest(
    settings: Settings,
    embedder: Embedder,
    bulk: bool,
    ingest: Ingest,
    items: int,
) -> dict[str, Any]:
    app = build(settings)
    app.embedder = embedder  # one ONNX session for the whole benchmark: kept hot
    clock = StageClock()
    try:
        with clock.running():
            start, cpu = time.perf_counter(), time.process_time()
            report = ingest(EmbeddedPipeline(app, quiet=True, bulk=bulk))
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        app.close()
    if not report.ok:
        raise BenchError("throughput", "ingest", f"{report.failures[:3]}")
    return _measured(wall, cpu, items, clock)


def _measured(wall: float, cpu: float, items: int, clock: StageClock) -> dict[str, Any]:
    """A run's rate, and its CPU time per item: this process's CPU seconds (every thread),
    which other jobs on a shared machine move far less than the wall time."""
    return {
        "wall": wall,
        "rate": items / wall,
        "cpu_ms": cpu * 1000 / max(items, 1),
        "stages": clock.per_item_ms(wall, max(items, 1)),
    }


def _replay(settings: Settings, bulk: bool) -> dict[str, Any]:
    clock = StageClock()
    with clock.running():
        start, cpu = time.perf_counter(), time.process_time()
        report = replay_data_dir(settings, bulk=bulk)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return _measured(wall, cpu, report.edges, clock)


def _summary(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode, got in runs.items():
        rates = [r["rate"] for r in got]
        median_run = sorted(got, key=lambda r: r["rate"])[len(got) // 2]
        out[mode] = {
            "per_s": round(statistics.median(rates), 1),
            "runs_per_s": [round(r, 1) for r in rates],
            "cpu_ms_per_item": round(statistics.median(r["cpu_ms"] for r in got), 3),
            "stages_ms_per_item": median_run["stages"],
        }
    base, bulk = out[MODES[0]]["per_s"], out[MODES[1]]["per_s"]
    out["ratio"] = round(bulk / base, 2) if base else None
    digests = {r["digest"] for got in runs.values() for r in got if "digest" in r}
    out["same_exports"] = len(digests) == 1
    return out


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name)


def _path(
    name: str,
    rounds: int,
    root: Path,
    one: Callable[[Path, bool], dict[str, Any]],
) -> dict[str, Any]:
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
    for r in range(rounds):
        order = MODES if r % 2 == 0 else MODES[::-1]
        for mode in order:
            data = root / f"{_slug(name)}-{mode}-{r}"
            result = one(data, mode == "bulk")
            say(f"  {name}, {mode}, round {r + 1}: {result['rate']:,.0f}/s")
            runs[mode].append(result)
    summary = _summary(runs)
    if not summary["same_exports"]:
        raise BenchError("throughput", name, "bulk and one-by-one exports differ")
    return summary


def _run(args: argparse.Namespace, settings: Settings, root: Path) -> dict[str, Any]:
    embedder = make_embedder(settings)
    embedder.embed(["warm up the session"])

    def at(data: Path) -> Settings:
        return settings.model_copy(update={"data_dir": data})

    def ingesting(items: int, ingest: Ingest) -> Callable[[Path, bool], dict[str, Any]]:
        def one(data: Path, bulk: bool) -> dict[str, Any]:
            result = _ingest(at(data), embedder, bulk, ingest, items)
            return {**result, "digest": _digest(at(data))}

        return one

    out: dict[str, Any] = {}
    plain = _facts(args.embed_facts, args.users, 1)
    if args.workers:
        counts = [int(n) for n in args.workers.split(",") if n.strip()]
        say(f"bench throughput: embedding {len(plain)} texts with {counts} workers")
        texts = [f.text for f in plain]
        out["embedding workers"] = embed_workers.measure(settings, texts, counts, args.rounds)
    name = "ingest-edges (embedded here)"
    say(f"bench throughput: {name}, {len(plain)} facts")
    edges: Ingest = lambda p: p.ingest_edge_items(listed(plain), "bench")  # noqa: E731
    out[name] = _path(name, args.rounds, root, ingesting(len(plain), edges))

    say(f"bench throughput: embedding {args.facts} facts once (not timed)")
    carried = _with_vectors(embedder, settings, _facts(args.facts, args.users, 2))
    name = "ingest-edges (with vectors)"
    say(f"bench throughput: {name}")
    vectors: Ingest = lambda p: p.ingest_edge_items(listed(carried), "bench")  # noqa: E731
    out[name] = _path(name, args.rounds, root, ingesting(len(carried), vectors))

    source = root / f"{_slug(name)}-bulk-0"
    say(f"bench throughput: replay of {len(carried)} edges")

    def replay(data: Path, bulk: bool) -> dict[str, Any]:
        shutil.rmtree(data, ignore_errors=True)
        shutil.copytree(source, data)
        return {**_replay(at(data), bulk), "digest": _digest(at(data))}

    out["replay"] = _path("replay", args.rounds, root, replay)

    turns = _turns(args)
    extractor = make_extractor(settings, "rules")
    name = "ingest (turns)"
    say(f"bench throughput: {name}, {len(turns)} turns (rule extractor)")
    chat: Ingest = lambda p: _ingest_turns(p, turns, extractor)  # noqa: E731
    out[name] = _path(name, args.rounds, root, ingesting(len(turns), chat))
    return out


def _ingest_turns(
    p: EmbeddedPipeline, turns: Sequence[TurnEvent], ex: FactExtractor
) -> IngestReport:
    items: list[Item[TurnEvent]] = [(i, "", t) for i, t in enumerate(turns)]
    return p.ingest_turn_items(items, ex, "bench")


# --- output ---------------------------------------------------------------------------------


def _table(document: dict[str, Any]) -> str:
    lines = [
        f"frecall bench throughput ({document['date']}): embedder {document['embedder']}, "
        f"{document['rounds']} rounds per mode, medians",
        f"{'path':<30} {'one-by-one/s':>12} {'bulk/s':>9} {'ratio':>6} {'goal/s':>7}  "
        f"{'cpu ms/item 1-by-1 | bulk':>26}  exports",
    ]
    for name, row in document["paths"].items():
        if name == "embedding workers":
            continue
        cpu = f"{row['one-by-one']['cpu_ms_per_item']:.3f} | {row['bulk']['cpu_ms_per_item']:.3f}"
        lines.append(
            f"{name:<30} {row['one-by-one']['per_s']:>12,.0f} {row['bulk']['per_s']:>9,.0f} "
            f"{row['ratio']:>5.1f}x {GOALS.get(name, 0):>7,}  {cpu:>26}  "
            f"{'identical' if row['same_exports'] else 'DIFFERENT'}"
        )
    workers = document["paths"].get("embedding workers")
    if workers:
        variants = list(next(iter(workers.values())))
        lines += ["", "embedding, texts/s by workers: " + " | ".join(variants)]
        for n, row in workers.items():
            lines.append(f"  {n:>3}: " + " | ".join(f"{row[v]:,.0f}" for v in variants))
    lines.append("")
    lines.append("where the time goes, ms per item (exclusive; the median run of each mode):")
    for name, row in document["paths"].items():
        if name == "embedding workers":
            continue
        for mode in MODES:
            stages = row[mode]["stages_ms_per_item"]
            parts = ", ".join(
                f"{k} {v:.3f}" for k, v in sorted(stages.items(), key=lambda kv: -kv[1])
            )
            lines.append(f"  {name}, {mode}: {parts}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if min(args.facts, args.embed_facts, args.turns, args.users, args.rounds) < 1:
        raise ConfigError("--facts, --embed-facts, --turns, --users and --rounds must be ≥ 1")
    base = settings_from(args)
    # The embedded deployment in temporary data dirs, whatever services the shell names.
    settings = base.model_copy(
        update={
            "embedder": args.embedder,
            "qdrant_url": None,
            "redis_url": None,
            "kafka_bootstrap": None,
        }
    )
    root = Path(tempfile.mkdtemp(prefix="frecall-bench-throughput-"))
    try:
        paths = _run(args, settings, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    document = {
        "date": datetime.now(UTC).date().isoformat(),
        "embedder": args.embedder,
        "rounds": args.rounds,
        "facts": args.facts,
        "embed_facts": args.embed_facts,
        "turns": args.turns,
        "users": args.users,
        "paths": paths,
    }
    print(json.dumps(document) if args.json else _table(document))
    return 0
