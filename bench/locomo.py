"""`frecall bench locomo`: evidence recall on real dialogue (LoCoMo, ACL 2024).

Every conversation of the file goes through the product's ingest path in one data dir:
turns (both speakers as users, `bench.locomo_data`) → rule extractor → fact edges
plus one raw-turn edge per turn, each carrying its `dia_id` in `source_turns` → log →
lifecycle → Qdrant Edge. Each question then hits at k when any of its top-k results came
from one of its evidence turns. Side by side, on the same store and questions:

* `hybrid`: the full query service (all candidate sources, lifecycle scoring): the product;
* `hybrid_flat`: the same candidates ranked by similarity alone (lifecycle off);
* `bm25`, `dense`: one candidate source each, ranked by similarity.

The oracle is the share of questions whose evidence turns exist as edges in the store at
all (always, through the raw turns) and as extracted facts (what the extractor caught).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.locomo_ablations import ABLATIONS
from bench.locomo_data import CATEGORY_NAMES, Conversation, Question, load, write_turns
from bench.locomo_store import open_store, stamp_of
from bench.scratch import bench_root
from frecall.bootstrap import rule_extractor
from frecall.embedded.pipeline import EmbeddedPipeline
from schemas.query import QueryRequest, QueryResult
from scorer.score import ScoringOptions
from workers.app import App
from workers.errors import ConfigError
from workers.progress import Progress
from workers.query.intent import detect_intent
from workers.query.routing import CategoryRouter
from workers.query.service import ALL_SOURCES, QueryService

FLAT = ScoringOptions(lifecycle=False)
#: name → (candidate sources, scoring). The first is the product.
CONFIGS: Mapping[str, tuple[frozenset[str], ScoringOptions]] = {
    "hybrid": (ALL_SOURCES, ScoringOptions()),
    "hybrid_flat": (ALL_SOURCES, FLAT),
    "bm25": (frozenset({"bm25"}), FLAT),
    "dense": (frozenset({"dense"}), FLAT),
}
#: Cutoffs always reported: the contract's recall@5 and recall@10.
BASE_KS = (5, 10)


def first_hit(result: QueryResult, evidence: frozenset[str]) -> int | None:
    """1-based rank of the first result that came from an evidence turn, None if none did."""
    for rank, fact in enumerate(result.results, start=1):
        if evidence.intersection(fact.source_turns):
            return rank
    return None


def _recall(ranks: Sequence[int | None], k: int) -> float | None:
    if not ranks:
        return None
    return round(sum(1 for r in ranks if r is not None and r <= k) / len(ranks), 4)


def _ingest(app: App, conversations: Sequence[Conversation], run_dir: Path) -> dict[str, Any]:
    path = run_dir / "locomo-turns.jsonl"
    turns = write_turns(conversations, path)
    # Load the model before the clock starts: ingest speed, not ONNX start-up, is measured.
    app.embedder.embed(["warm-up"])
    print(f"bench locomo: ingesting {turns} turns", file=sys.stderr)
    start = time.perf_counter()
    report = EmbeddedPipeline(app).ingest_turns(path, rule_extractor(app.policy, app.embedder))
    seconds = time.perf_counter() - start
    if not report.ok:
        print(
            f"bench locomo: {report.rejected} turns rejected, {report.failed} failed",
            file=sys.stderr,
        )
    print(
        f"bench locomo: {turns} turns → {report.accepted} edges in {seconds:.1f} s",
        file=sys.stderr,
    )
    return {
        "seconds": round(seconds, 2),
        "turns": report.turns,
        "turns_per_s": round(report.turns / seconds, 1) if seconds > 0 else None,
        "edges": report.accepted,
        "rejected": report.rejected,
        "failed": report.failed,
        "transitions": dict(sorted(report.transitions.items())),
    }


def _oracle(app: App, conversations: Sequence[Conversation]) -> dict[str, Any]:
    """Shares of questions whose evidence turns are in the store (any edge / a fact edge)."""
    any_edge = fact_edge = total = 0
    fact_edges = 0
    for conv in conversations:
        anywhere: set[str] = set()
        as_fact: set[str] = set()
        for record in app.vectors.scroll(conv.sample_id):
            anywhere.update(record.edge.source_turns)
            if not record.edge.episodic:
                as_fact.update(record.edge.source_turns)
                fact_edges += 1
        for q in conv.questions:
            total += 1
            any_edge += bool(q.evidence & anywhere)
            fact_edge += bool(q.evidence & as_fact)
    return {
        "any_edge": round(any_edge / total, 4) if total else None,
        "fact_edge": round(fact_edge / total, 4) if total else None,
        "fact_edges": fact_edges,
    }


def _services(app: App, ablations: bool) -> dict[str, QueryService]:
    router = CategoryRouter(app.embedder)  # shared: its prototypes are embedded once
    services = {
        name: QueryService(
            app.vectors, app.embedder, app.policy, router, options=options, sources=sources
        )
        for name, (sources, options) in CONFIGS.items()
    }
    if ablations:
        for name, (_, change, options) in ABLATIONS.items():
            policy = app.policy.model_copy(update=change(app.policy))
            services[name] = QueryService(app.vectors, app.embedder, policy, router, options)
    return services


def _ask(
    app: App, questions: Sequence[Question], depth: int, ablations: bool = False
) -> tuple[dict[str, list[int | None]], dict[str, np.ndarray]]:
    """First-hit ranks and per-query latencies (ms) of every configuration."""
    services = _services(app, ablations)
    requests = [
        QueryRequest(user_id=q.user_id, query=q.text, as_of=q.as_of, k=depth) for q in questions
    ]
    for service in services.values():
        service.query(requests[0])  # warm-up: prototypes, caches
    ranks: dict[str, list[int | None]] = {name: [] for name in services}
    latency: dict[str, list[float]] = {name: [] for name in services}
    progress = Progress("bench locomo: questions", total=len(requests))
    # Interleaved per question, so that any drift affects every configuration alike.
    for q, request in zip(questions, requests, strict=True):
        for name, service in services.items():
            start = time.perf_counter()
            result = service.query(request)
            latency[name].append((time.perf_counter() - start) * 1000.0)
            ranks[name].append(first_hit(result, q.evidence))
        progress.tick()
    progress.finish()
    return ranks, {name: np.array(v) for name, v in latency.items()}


def _summarize(
    questions: Sequence[Question],
    ranks: Mapping[str, Sequence[int | None]],
    latency: Mapping[str, np.ndarray],
    ks: Sequence[int],
) -> dict[str, Any]:
    out: dict[str, Any] = {
        f"recall@{k}": {name: _recall(r, k) for name, r in ranks.items()} for k in ks
    }
    per_category: dict[str, Any] = {}
    for code, label in CATEGORY_NAMES.items():
        idx = [i for i, q in enumerate(questions) if q.category == code]
        if idx:
            per_category[label] = {
                name: {
                    **{f"recall@{k}": _recall([r[i] for i in idx], k) for k in ks},
                    "n": len(idx),
                }
                for name, r in ranks.items()
            }
    out["per_category"] = per_category
    out["categories"] = {str(code): label for code, label in CATEGORY_NAMES.items()}
    # Which intent the product reads into each question, and what each ranking does there.
    intents = [detect_intent(q.text).value for q in questions]
    out["per_intent"] = {
        intent: {
            "n": n,
            **{
                name: _recall([r[i] for i, x in enumerate(intents) if x == intent], max(ks))
                for name, r in ranks.items()
            },
        }
        for intent, n in Counter(intents).most_common()
    }
    k = max(ks)
    hit = {name: [x is not None and x <= k for x in r] for name, r in ranks.items()}
    if "hybrid" in hit and "hybrid_flat" in hit:
        out[f"lifecycle_vs_flat@{k}"] = _gained_lost(hit["hybrid"], hit["hybrid_flat"])
        extra = [n for n in hit if n not in CONFIGS]
        if extra:
            out[f"vs_flat@{k}"] = {n: _gained_lost(hit[n], hit["hybrid_flat"]) for n in extra}
    out["latency_ms"] = {
        "p50": {name: round(float(np.percentile(v, 50)), 2) for name, v in latency.items()},
        "p95": {name: round(float(np.percentile(v, 95)), 2) for name, v in latency.items()},
    }
    return out


def _hit(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def _changed(
    questions: Sequence[Question], ranks: Mapping[str, Sequence[int | None]], k: int
) -> list[dict[str, Any]]:
    """Every question the product answers at k and the flat ranking does not, or the other
    way round, with both ranks (`--failures`): what a ranking change gained and lost.

    With `--ablations`, `undone_by` names the ablations under which the product's answer at
    k becomes the flat ranking's (a loss recovered, a gain given back): the stage of the
    ranking that made the difference, question by question.
    """
    # The product with one stage undone; the similarity rankings (flat_sigma_*) undo all.
    ablations = [n for n in ranks if n in ABLATIONS and ABLATIONS[n][2].lifecycle]
    out = []
    for i, q in enumerate(questions):
        product, flat = ranks["hybrid"][i], ranks["hybrid_flat"][i]
        hit_p, hit_f = _hit(product, k), _hit(flat, k)
        if hit_p != hit_f:
            entry: dict[str, Any] = {
                "change": "gained" if hit_p else "lost",
                "user": q.user_id,
                "question": q.text,
                "category": q.category_name,
                "intent": detect_intent(q.text).value,
                "product_rank": product,
                "flat_rank": flat,
                "evidence": sorted(q.evidence),
            }
            if ablations:
                entry["undone_by"] = [n for n in ablations if _hit(ranks[n][i], k) == hit_f]
            out.append(entry)
    return out


def _gained_lost(a: Sequence[bool], b: Sequence[bool]) -> dict[str, int]:
    """Questions `a` hits and `b` misses (gained), and the other way round (lost)."""
    pairs = list(zip(a, b, strict=True))
    return {
        "gained": sum(1 for x, y in pairs if x and not y),
        "lost": sum(1 for x, y in pairs if y and not x),
    }


def measure(
    conversations: Sequence[Conversation],
    run_dir: Path,
    embedder: str,
    ks: Sequence[int],
    ablations: bool = False,
    failures: bool = False,
    stamp: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The `--json` document (with `failures`: the questions gained and lost vs flat at
    every k). `run_dir` holds the store; with a `stamp` (`--store`), a store already
    ingested there with the same stamp is asked again without ingesting."""
    questions = [q for conv in conversations for q in conv.questions]
    if not questions:
        raise ConfigError("bench locomo: no question with usable evidence in the data")
    print(
        f"bench locomo: {len(conversations)} conversations, "
        f"{sum(len(c.turns) for c in conversations)} turns, {len(questions)} questions",
        file=sys.stderr,
    )
    app, ingest = open_store(
        run_dir,
        stamp or {"fresh": str(run_dir)},
        embedder,
        lambda app: _ingest(app, conversations, run_dir),
    )
    try:
        oracle = _oracle(app, conversations)
        ranks, latency = _ask(app, questions, max(ks), ablations)
    finally:
        app.close()
    out = _summarize(questions, ranks, latency, ks)
    if failures:
        for k in ks:
            out[f"changed_vs_flat@{k}"] = _changed(questions, ranks, k)
    out["oracle"] = oracle
    out["ingest"] = ingest
    out["counts"] = {
        "conversations": len(conversations),
        "turns": sum(len(c.turns) for c in conversations),
        "questions": len(questions),
        "skipped": sum(c.skipped_empty + c.skipped_unknown for c in conversations),
        "skipped_empty_evidence": sum(c.skipped_empty for c in conversations),
        "skipped_unknown_evidence": sum(c.skipped_unknown for c in conversations),
        "evidence_ids_dropped": sum(c.dropped_evidence for c in conversations),
    }
    out.update(embedder=embedder, k=max(ks), configs=list(ranks))
    if ablations:
        out["ablations"] = {name: entry[0] for name, entry in ABLATIONS.items()}
    return out


def run(args: argparse.Namespace) -> int:
    if args.k < 1 or (args.conversations is not None and args.conversations < 1):
        raise ConfigError("bench locomo: --k and --conversations must be positive")
    try:
        conversations = load(args.data, args.conversations)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"bench locomo: cannot read {args.data}: {exc}") from exc
    ks = sorted({*BASE_KS, args.k})
    flags = bool(getattr(args, "ablations", False)), bool(getattr(args, "failures", False))
    store: Path | None = getattr(args, "store", None)
    if store is not None:
        stamp = stamp_of(args.data, conversations, args.embedder)
        result = measure(conversations, store, args.embedder, ks, *flags, stamp=stamp)
    else:
        with bench_root("locomo", args.data_dir) as root:
            run_dir = Path(tempfile.mkdtemp(prefix="locomo-", dir=root))
            result = measure(conversations, run_dir, args.embedder, ks, *flags)
    if args.json:
        print(json.dumps(result))
        return 0
    _print_report(result, ks)
    return 0


def _cell(value: float | None) -> str:
    return f"{value:>8.3f}" if value is not None else f"{'-':>8}"


def _print_report(result: Mapping[str, Any], ks: Sequence[int]) -> None:
    c, ing = result["counts"], result["ingest"]
    print(
        f"LoCoMo evidence recall, embedder {result['embedder']}: {c['conversations']} "
        f"conversations, {c['turns']} turns, {c['questions']} questions "
        f"({c['skipped']} skipped)"
    )
    print(f"ingest: {ing['edges']} edges in {ing['seconds']:.1f} s ({ing['turns_per_s']} turns/s)")
    names = [n for n in result[f"recall@{ks[0]}"] if n in CONFIGS]
    print(f"{'':<24}" + "".join(f"{n:>12}" for n in names))
    for k in ks:
        row = result[f"recall@{k}"]
        print(f"{f'recall@{k}':<24}" + "".join(f"{_cell(row[n]):>12}" for n in names))
    for label, per in result["per_category"].items():
        cells = "".join(f"{_cell(per[n][f'recall@{ks[-1]}']):>12}" for n in names)
        title = f"  {label} (n={per[names[0]]['n']}) @{ks[-1]}"
        print(f"{title:<24}{cells}")
    print(
        f"{'latency p50 (ms)':<24}"
        + "".join(f"{result['latency_ms']['p50'][n]:>12.2f}" for n in names)
    )
    o = result["oracle"]
    print(f"oracle: evidence in store {o['any_edge']}, as an extracted fact {o['fact_edge']}")
    vs = result.get(f"lifecycle_vs_flat@{ks[-1]}")
    if vs:
        print(f"product vs flat ranking @{ks[-1]}: {vs['gained']} gained, {vs['lost']} lost")
    for k in ks:
        changed = result.get(f"changed_vs_flat@{k}", [])
        if changed:
            print(f"changed against the flat ranking @{k}:")
        for q in changed:
            ranks = f"product {q['product_rank'] or '-'} / flat {q['flat_rank'] or '-'}"
            undone = (
                f"  [undone by: {', '.join(q['undone_by']) or '-'}]" if "undone_by" in q else ""
            )
            print(
                f"  {q['change']:<7}{q['category']:<12}{q['intent']:<11}{ranks:<24}"
                f"{q['user']}: {q['question']}{undone}"
            )
    for name, what in result.get("ablations", {}).items():
        row = " ".join(f"@{k} {_cell(result[f'recall@{k}'][name]).strip()}" for k in ks)
        gl = result[f"vs_flat@{ks[-1]}"][name]
        print(f"  {name:<24}{row}  vs flat +{gl['gained']}/-{gl['lost']}  ({what})")
