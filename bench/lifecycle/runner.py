"""`frecall bench lifecycle run DIR`: ingest a generated set once, ask every question of
every configuration on that one store, and score the answers (paper §6.2, Appendix C.5).

Tracks: `gold` ingests the gold edges (`ingest-edges`: metadata as ground truth states it);
`text` ingests the conversations through the rule extractor, and a result stands for the
facts told in its `source_turns` (a fact edge or the raw turn kept beside it, Appendix AA).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from bench.lifecycle.configs import CONFIGS
from bench.lifecycle.metrics import (
    PASS_K,
    Outcome,
    mcnemar,
    paired_delta_ci,
    score,
    summarize,
)
from bench.lifecycle.scenarios import AV_NAMES
from frecall.bootstrap import build, rule_extractor
from frecall.embedded.pipeline import EmbeddedPipeline
from frecall.settings import Settings
from schemas.query import QueryRequest, QueryResult
from workers.app import App
from workers.embedding.cached import CachedEmbedder
from workers.errors import ConfigError
from workers.progress import Progress
from workers.query.routing import CategoryRouter

TRACKS = ("gold", "text")


@dataclass(frozen=True, slots=True)
class BenchQuestion:
    qid: str
    user_id: str
    av: str
    text: str
    as_of: datetime
    mode: str
    gold: tuple[str, ...]
    stale: tuple[str, ...]
    kind: str
    variant: str


@dataclass(frozen=True, slots=True)
class GoldFacts:
    """Fact id ↔ the user turn that told it, and the gold statement (for reports)."""

    turn_of: Mapping[str, str]
    facts_of_turn: Mapping[str, tuple[str, ...]]
    text: Mapping[str, str]


def load_questions(path: Path) -> list[BenchQuestion]:
    out = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                q = json.loads(line)
                out.append(BenchQuestion(
                    q["qid"], q["user_id"], q["av"], q["question"],
                    datetime.fromisoformat(q["as_of"]), q["mode"], tuple(q["gold"]),
                    tuple(q["stale"]), q.get("kind", ""), q.get("variant", ""),
                ))  # fmt: skip
    return out


def load_facts(path: Path) -> GoldFacts:
    turn_of: dict[str, str] = {}
    by_turn: dict[str, list[str]] = defaultdict(list)
    text: dict[str, str] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                e = json.loads(line)
                text[e["edge_id"]] = e["text"]
                for turn in e.get("source_turns", ()):
                    turn_of[e["edge_id"]] = turn
                    by_turn[turn].append(e["edge_id"])
    return GoldFacts(turn_of, {t: tuple(f) for t, f in by_turn.items()}, text)


def _ingest(app: App, data: Path, track: str) -> dict[str, Any]:
    app.embedder.embed(["warm-up"])  # model load is not ingest time
    pipeline = EmbeddedPipeline(app)
    start = time.perf_counter()
    if track == "gold":
        report = pipeline.ingest_edges(data / "edges.jsonl")
    else:
        report = pipeline.ingest_turns(
            data / "turns.jsonl", rule_extractor(app.policy, app.embedder)
        )
    seconds = time.perf_counter() - start
    print(f"bench lifecycle: ingested {report.accepted} edges in {seconds:.1f} s",
          file=sys.stderr)  # fmt: skip
    return {
        "seconds": round(seconds, 2), "edges": report.accepted, "turns": report.turns,
        "rejected": report.rejected, "failed": report.failed,
        "transitions": dict(sorted(report.transitions.items())),
    }  # fmt: skip


def result_facts(result: QueryResult, track: str, facts: GoldFacts) -> list[tuple[str, ...]]:
    """The fact ids each result stands for."""
    if track == "gold":
        return [(r.edge_id,) for r in result.results]
    return [tuple(f for t in r.source_turns for f in facts.facts_of_turn.get(t, ())) for r in
            result.results]  # fmt: skip


def _ask(app: App, questions: Sequence[BenchQuestion], track: str, facts: GoldFacts,
         k: int) -> tuple[dict[str, list[Outcome]], dict[str, list[QueryResult]],
                          dict[str, list[float]]]:  # fmt: skip
    embedder = CachedEmbedder(app.embedder)
    router = CategoryRouter(embedder)
    services = {c.name: c.make(app.vectors, embedder, app.policy, router) for c in CONFIGS}
    outcomes: dict[str, list[Outcome]] = {name: [] for name in services}
    answers: dict[str, list[QueryResult]] = {name: [] for name in services}
    latency: dict[str, list[float]] = {name: [] for name in services}
    progress = Progress("bench lifecycle: questions", total=len(questions))
    # Interleaved per question, so that drift affects every configuration alike.
    for q in questions:
        request = QueryRequest(user_id=q.user_id, query=q.text, as_of=q.as_of, k=k)
        for name, service in services.items():
            start = time.perf_counter()
            result = service.query(request)
            latency[name].append((time.perf_counter() - start) * 1000.0)
            answers[name].append(result)
            outcomes[name].append(
                score(result_facts(result, track, facts), q.mode, q.gold, q.stale)
            )
        progress.tick()
    progress.finish()
    return outcomes, answers, latency


def _per_av(questions: Sequence[BenchQuestion], outcomes: Sequence[Outcome]) -> dict[str, Any]:
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for q, o in zip(questions, outcomes, strict=True):
        groups[q.av].append(o)
    out = {}
    for av in sorted(groups, key=lambda a: int(a[2:])):
        s = summarize(groups[av])
        out[av] = {key: s[key] for key in ("pass", "stale", "hit1", "mrr", "n")}
    return out


def _oracle(app: App, questions: Sequence[BenchQuestion], facts: GoldFacts) -> dict[str, Any]:
    """Text track: how many questions' gold facts the extractor turned into fact edges."""
    extracted: set[str] = set()
    for user in sorted({q.user_id for q in questions}):
        for record in app.vectors.scroll(user):
            if not record.edge.episodic:
                extracted.update(record.edge.source_turns)
    with_gold = [q for q in questions if q.gold]
    hit = [all(facts.turn_of.get(f) in extracted for f in q.gold) for q in with_gold]
    return {"gold_extracted": round(float(np.mean(hit)), 4) if hit else None,
            "questions_with_gold": len(with_gold)}  # fmt: skip


def code_version() -> dict[str, Any] | None:
    """The commit measured and whether tracked files differ from it: the system under test
    changes between runs, so a number without its version cannot be compared. Read-only
    git calls (no index refresh); None outside a git checkout."""
    root = Path(__file__).resolve().parents[3]
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5
        )
        status = subprocess.run(
            ["git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=no"],
            cwd=root, capture_output=True, text=True, timeout=5,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    dirty = sorted(line[3:] for line in status.stdout.splitlines() if line.strip())
    return {"commit": head.stdout.strip(), "dirty": dirty}


def measure(
    data: Path, track: str, embedder: str, work: Path, k: int = PASS_K, seed: int = 0
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The `--json` document and the per-question records (for reports)."""
    if track not in TRACKS:
        raise ConfigError(f"bench lifecycle: --track must be one of {', '.join(TRACKS)}")
    for name in ("edges.jsonl", "turns.jsonl", "questions.jsonl"):
        if not (data / name).is_file():
            raise ConfigError(f"bench lifecycle: {data / name} is missing (run generate first)")
    questions = load_questions(data / "questions.jsonl")
    facts = load_facts(data / "edges.jsonl")
    threads = max(1, min(4, os.cpu_count() or 1))
    settings = Settings(data_dir=work / "store", embedder=embedder, onnx_threads=threads)
    app = build(settings, fsync=False)  # a bulk load a crash would simply restart
    try:
        ingest = _ingest(app, data, track)
        start = time.perf_counter()
        outcomes, answers, latency = _ask(app, questions, track, facts, k)
        query_s = time.perf_counter() - start
        oracle = _oracle(app, questions, facts) if track == "text" else None
        records = question_records(questions, outcomes, answers, track, facts, app)
    finally:
        app.close()
    configs: dict[str, Any] = {}
    for name, outs in outcomes.items():
        configs[name] = {**summarize(outs, seed), "per_av": _per_av(questions, outs)}
    full = [o.passed for o in outcomes["full"]]
    tests = {}
    for name, outs in outcomes.items():
        if name != "full":
            other = [o.passed for o in outs]
            m = mcnemar(full, other)
            ci = paired_delta_ci(full, other, seed)
            tests[name] = {"b": m.b, "c": m.c, "p": round(m.p, 6),
                           "delta": round(float(np.mean(full) - np.mean(other)), 4),
                           "delta_ci95": [round(x, 4) for x in ci] if ci else None}  # fmt: skip
    result: dict[str, Any] = {
        "configs": configs, "mcnemar": tests, "track": track, "questions": len(questions),
        "personas": len({q.user_id for q in questions}), "embedder": embedder, "k": k,
        "ingest": ingest, "timings": {
            "ingest_s": ingest["seconds"], "query_s": round(query_s, 2),
            "query_p50_ms": {n: round(float(np.percentile(v, 50)), 2) for n, v in latency.items()},
            "query_p95_ms": {n: round(float(np.percentile(v, 95)), 2) for n, v in latency.items()},
        },
        "descriptions": {c.name: c.description for c in CONFIGS}, "av_names": AV_NAMES,
        "code": code_version(),
    }  # fmt: skip
    if oracle is not None:
        result["oracle"] = oracle
    return result, records


def question_records(
    questions: Sequence[BenchQuestion],
    outcomes: Mapping[str, list[Outcome]],
    answers: Mapping[str, list[QueryResult]],
    track: str,
    facts: GoldFacts,
    app: App,
) -> list[dict[str, Any]]:
    """Per question: each configuration's pass/stale, and the full stack's answer in detail
    when it failed or served a stale fact (for the failure analysis of the report)."""
    records = []
    for i, q in enumerate(questions):
        rec: dict[str, Any] = {
            "qid": q.qid, "av": q.av, "question": q.text, "mode": q.mode, "kind": q.kind,
            "variant": q.variant, "gold": list(q.gold), "stale": list(q.stale),
            "outcomes": {n: {"pass": o[i].passed, "stale": o[i].stale, "rank": o[i].rank}
                         for n, o in outcomes.items()},
        }  # fmt: skip
        full = outcomes["full"][i]
        if not full.passed or full.stale:
            answer = answers["full"][i]
            rec["intent"] = answer.intent.value
            rec["expected"] = {f: facts.text.get(f, "?") for f in (*q.gold, *q.stale)}
            rec["returned"] = [
                {"edge_id": r.edge_id, "facts": list(ids), "text": r.text, "state": r.state.value,
                 "score": r.score, "why": r.why}
                for r, ids in zip(answer.results[:PASS_K],
                                  result_facts(answer, track, facts)[:PASS_K], strict=True)
            ]  # fmt: skip
            if track == "text":
                rec["extracted"] = _extracted(app, q, facts)
            else:
                got = app.vectors.get(q.user_id, list(q.gold))
                rec["gold_state"] = {r.edge_id: r.lifecycle.state.value for r in got}
        records.append(rec)
    return records


def _extracted(app: App, q: BenchQuestion, facts: GoldFacts) -> dict[str, list[str]]:
    """What the extractor made of the gold and stale facts' turns (text track failures)."""
    wanted = {facts.turn_of[f]: f for f in (*q.gold, *q.stale) if f in facts.turn_of}
    out: dict[str, list[str]] = defaultdict(list)
    for record in app.vectors.scroll(q.user_id):
        for turn in record.edge.source_turns:
            if turn in wanted and not record.edge.episodic:
                e = record.edge
                out[wanted[turn]].append(
                    f"{e.text} [slot={e.slot_key} {e.update.value} {e.confidence:.2f} "
                    f"state={record.lifecycle.state.value}]"
                )
    return dict(out)
