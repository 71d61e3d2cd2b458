"""`frecall bench paper-cases`: the paper's worked examples as a benchmark and a test.

Every worked example of the paper (Table 1 transitions, Table 13 personas, Table 29,
Appendix F, the Theorem 1 and A.7 witnesses, A.13, A.14 and the attack-vector examples)
is told as gold-metadata facts among filler facts about the same person, then asked in
several phrasings (`bench.paper_cases_data`). Scoring is the lifecycle
benchmark's (Appendix C.5): pass = a gold fact in the top 10 (all of them for aggregation
questions; no stale fact in the top 10 for questions whose answer is "nothing current"),
stale = a stale fact in the top 5. `order` additionally checks exact-order requirements
(the witnesses: e_o ≻ e_n in H′, the nearer deadline first, …).

The product and the flat similarity ranking run side by side on one store; development
and held-out phrasings are reported apart.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.lifecycle.metrics import PASS_K, score
from bench.paper_cases_data import PaperQuestion, Suite, load_suite
from frecall.bootstrap import build
from frecall.embedded.pipeline import EmbeddedPipeline
from frecall.settings import Settings
from schemas.query import QueryRequest, QueryResult
from scorer.score import ScoringOptions
from workers.embedding.cached import CachedEmbedder
from workers.errors import ConfigError
from workers.query.routing import CategoryRouter
from workers.query.service import QueryService

#: The repository's suite (an editable install runs from the checkout).
DEFAULT_CASES = Path(__file__).resolve().parents[1] / "tests" / "paper_cases" / "data"
CONFIGS: Mapping[str, ScoringOptions] = {
    "product": ScoringOptions(),
    "flat": ScoringOptions(lifecycle=False),
}


@dataclass(frozen=True, slots=True)
class Answer:
    question: PaperQuestion
    passed: bool
    stale: bool
    order: bool
    served: tuple[str, ...]
    why: tuple[tuple[str, ...], ...]
    intent: str

    @property
    def ok(self) -> bool:
        return self.passed and not self.stale and self.order


def order_holds(served: Sequence[str], before: Sequence[tuple[str, str]]) -> bool:
    """Each (a, b): a is served in the top k and ranks above b (or b is not served)."""
    rank = {e: i for i, e in enumerate(served)}
    return all(a in rank and rank[a] < rank.get(b, len(served)) for a, b in before)


def judge(question: PaperQuestion, result: QueryResult) -> Answer:
    served = tuple(r.edge_id for r in result.results)
    outcome = score([(e,) for e in served], question.mode, question.gold, question.stale)
    return Answer(
        question,
        outcome.passed,
        outcome.stale,
        order_holds(served[:PASS_K], question.before),
        served,
        tuple(tuple(r.why) for r in result.results),
        result.intent.value,
    )


def _rate(answers: Sequence[Answer], attr: str) -> float | None:
    if not answers:
        return None
    return round(sum(bool(getattr(a, attr)) for a in answers) / len(answers), 4)


def _summary(answers: Sequence[Answer]) -> dict[str, Any]:
    return {
        "n": len(answers),
        "pass": _rate(answers, "passed"),
        "stale": _rate(answers, "stale"),
        "order": _rate(answers, "order"),
        "ok": _rate(answers, "ok"),
    }


def summarize(answers: Mapping[str, Sequence[Answer]], texts: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"configs": {}}
    for name, rows in answers.items():
        by_source: dict[str, list[Answer]] = defaultdict(list)
        for a in rows:
            by_source[a.question.source].append(a)
        out["configs"][name] = {
            **_summary(rows),
            "development": _summary([a for a in rows if not a.question.heldout]),
            "heldout": _summary([a for a in rows if a.question.heldout]),
            "per_source": {s: _summary(v) for s, v in sorted(by_source.items())},
        }
    out["failures"] = [
        {
            "qid": a.question.qid,
            "question": a.question.text,
            "heldout": a.question.heldout,
            "intent": a.intent,
            "pass": a.passed,
            "stale": a.stale,
            "order": a.order,
            "gold": list(a.question.gold),
            "stale_facts": list(a.question.stale),
            "served": [
                {"edge_id": e, "text": texts.get(e, "?"), "why": list(w)}
                for e, w in zip(a.served[:PASS_K], a.why[:PASS_K], strict=True)
            ],
        }
        for a in answers.get("product", ())
        if not a.ok
    ]
    return out


def measure(suite: Suite, work: Path, embedder: str) -> dict[str, Any]:
    """Ingest the suite into a fresh store under `work`, ask every phrasing, summarize."""
    edges = work / "paper-cases-edges.jsonl"
    with edges.open("w", encoding="utf-8") as fh:
        for line in suite.edges:
            fh.write(json.dumps(line) + "\n")
    app = build(Settings(data_dir=work / "store", embedder=embedder), fsync=False)
    try:
        report = EmbeddedPipeline(app).ingest_edges(edges)
        if not report.ok:
            raise ConfigError(f"paper cases: {report.rejected + report.failed} facts rejected")
        cached = CachedEmbedder(app.embedder)
        router = CategoryRouter(cached)
        services = {
            name: QueryService(app.vectors, cached, app.policy, router, options=options)
            for name, options in CONFIGS.items()
        }
        answers: dict[str, list[Answer]] = {name: [] for name in services}
        for q in suite.questions:
            request = QueryRequest(user_id=q.user_id, query=q.text, as_of=q.as_of, k=PASS_K)
            for name, service in services.items():
                answers[name].append(judge(q, service.query(request)))
    finally:
        app.close()
    out = summarize(answers, suite.fact_texts)
    out.update(
        embedder=embedder,
        facts=len(suite.edges),
        questions=len({q.qid for q in suite.questions}),
        phrasings=len(suite.questions),
    )
    return out


def run(args: argparse.Namespace) -> int:
    suite = load_suite(Path(args.cases) if args.cases else DEFAULT_CASES)
    owned = args.data_dir is None
    root = Path(tempfile.mkdtemp(prefix="frecall-paper-cases-")) if owned else args.data_dir
    root.mkdir(parents=True, exist_ok=True)
    try:
        result = measure(suite, Path(tempfile.mkdtemp(prefix="run-", dir=root)), args.embedder)
    finally:
        if owned:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(result))
    else:
        _print_report(result)
    product = result["configs"]["product"]
    return 0 if product["ok"] == 1.0 else 1


def _print_report(result: Mapping[str, Any]) -> None:
    print(
        f"paper cases: {result['questions']} questions in {result['phrasings']} phrasings, "
        f"{result['facts']} facts, embedder {result['embedder']}"
    )
    print(f"{'':<28}{'n':>5}{'pass':>8}{'stale':>8}{'order':>8}")
    for name, c in result["configs"].items():
        for label, s in (("all", c), ("development", c["development"]), ("held-out", c["heldout"])):
            print(
                f"{name + ' ' + label:<28}{s['n']:>5}{_pct(s['pass'])}{_pct(s['stale'])}"
                f"{_pct(s['order'])}"
            )
    for f in result["failures"]:
        flags = ", ".join(k for k in ("pass", "order") if not f[k]) or ""
        flags += ", stale" if f["stale"] else ""
        print(f"\nFAIL [{flags.strip(', ')}] {f['qid']}: {f['question']} (intent {f['intent']})")
        print(f"  gold {f['gold']}  stale {f['stale_facts']}")
        for i, s in enumerate(f["served"], 1):
            print(f"  {i:>2}. {s['edge_id']}: {s['text']}  [{'; '.join(s['why'])}]")


def _pct(x: float | None) -> str:
    return f"{'-':>8}" if x is None else f"{100 * x:>7.1f}%"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(argparse.Namespace(cases=None, data_dir=None, embedder="minilm", json=False)))
