"""Run the paper cases: ingest the conversations through an extractor, ask every question.

The cases go through the product's own ingest path (`EmbeddedPipeline`, the extractor given:
the offline rule extractor unless an LLM one is passed) and query path (`App.queries`), in
one data dir. A result stands for the turn it came from (`source_turns`: a fact edge or a raw
chunk of the turn). Scored as LifecycleBench scores (paper C.5): pass — a gold turn in the top
10 (all gold turns for `all`; no stale turn for `absent`); stale — a stale turn in the top 5.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.lifecycle.metrics import PASS_K, score
from bench.paper_turns.cases import Persona, Question
from frecall.embedded.pipeline import EmbeddedPipeline
from schemas.query import QueryRequest
from workers.app import App
from workers.ports import FactExtractor


@dataclass(frozen=True, slots=True)
class Answer:
    question: Question
    passed: bool
    stale: bool
    #: (source turn, state, text) of the top results, for the report.
    top: tuple[tuple[str, str, str], ...]


@dataclass
class Report:
    answers: list[Answer] = field(default_factory=list)
    ingest: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        by_av: dict[str, list[Answer]] = defaultdict(list)
        for a in self.answers:
            by_av[a.question.av].append(a)
        return {
            **_rates(self.answers),
            "per_av": {av: _rates(by_av[av]) for av in sorted(by_av, key=lambda x: int(x[2:]))},
            "failed": sorted(
                {
                    f"{a.question.case}: {a.question.text}"
                    for a in self.answers
                    if not a.passed or a.stale
                }
            ),
            "ingest": self.ingest,
        }


def _rates(answers: Sequence[Answer]) -> dict[str, Any]:
    n = len(answers)
    return {
        "n": n,
        "pass": round(sum(a.passed for a in answers) / n, 4) if n else None,
        "stale": round(sum(a.stale for a in answers) / n, 4) if n else None,
    }


def judge(question: Question, served: Sequence[Sequence[str]]) -> tuple[bool, bool]:
    """(pass, stale) of one answer; `served[i]` is the source turns of result i (LifecycleBench's
    scoring, `bench.lifecycle.metrics.score`, with turn labels for fact ids)."""
    outcome = score(served, question.mode, question.gold, question.stale)
    return outcome.passed, outcome.stale


def run(app: App, extractor: FactExtractor, personas: Sequence[Persona]) -> Report:
    """Ingest every persona's turns into `app`, then ask every question (k = 10)."""
    report = Report()
    items = [
        (i, t.model_dump_json(), t)
        for i, t in enumerate((t for p in personas for t in p.turns), start=1)
    ]
    ingested = EmbeddedPipeline(app).ingest_turn_items(items, extractor, "paper-turns")
    report.ingest = {
        "turns": ingested.turns,
        "edges": ingested.accepted,
        "rejected": ingested.rejected,
        "failed": ingested.failed,
    }
    for persona in personas:
        for q in persona.questions:
            result = app.queries.query(
                QueryRequest(user_id=q.user_id, query=q.text, as_of=q.as_of, k=PASS_K)
            )
            served = [r.source_turns for r in result.results]
            passed, stale = judge(q, served)
            top = tuple(
                (",".join(r.source_turns), r.state.value, r.text[:120]) for r in result.results
            )
            report.answers.append(Answer(q, passed, stale, top))
    return report
