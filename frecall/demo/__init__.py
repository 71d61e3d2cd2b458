"""`frecall demo`: a bundled story, answered by the lifecycle ranking and, side by side, by
plain similarity ranking (what a flat memory store returns), then a replay check.

Runs embedded, offline, in a temporary data dir unless --data-dir is given.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import textwrap
from contextlib import closing
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from frecall.settings import Settings
from frecall.wiring import open_deployment
from schemas.query import QueryRequest, QueryResult
from workers.export import dumps_stable
from workers.inputs import EdgeInput, read_jsonl

USER = "maya"
AS_OF = datetime(2026, 9, 21, 9, 0, tzinfo=UTC)
QUERIES = (
    ("Where does Maya live?", "supersession: moved to London beats Istanbul and the maybe"),
    ("What does Maya eat? Is she vegetarian?", "preference replaced: eats fish again"),
    ("How much rent does Maya pay?", "numbers survive; the raise supersedes $950"),
    ("Is Maya getting a dog?", "retraction: the dog plan is dead"),
    ("What appointments or deadlines are coming up for Maya?", "upcoming: past events drop"),
    ("Where did Maya live before moving to London?", "history: 'before moving' asks for it"),
    ("Does Maya have a chronic illness?", "a June health fact is not buried by age"),
    ("What plans did Maya cancel?", "cancelled plans are served on request"),
)


def _line(rank: int, fact_text: str, state: str, score: float) -> str:
    text = textwrap.shorten(fact_text, 62, placeholder="…")
    return f"{rank}. {text:<63} {state:<11} {score:.3f}"


def _block(title: str, result: QueryResult, n: int = 3) -> list[str]:
    lines = [f"  {title}"]
    if not result.results:
        lines.append("     (nothing current)")
    for rank, fact in enumerate(result.results[:n], start=1):
        # '*': outside the relevance tier, so it ranks after the relevant facts whatever
        # its score (workers/query/service.py).
        weaker = any(why.startswith("ranked after the relevant tier") for why in fact.why)
        state = fact.state.value + ("*" if weaker else "")
        lines.append("     " + _line(rank, fact.text, state, fact.score))
    return lines


def run(args: argparse.Namespace) -> int:
    owned = args.data_dir is None
    data_dir = Path(tempfile.mkdtemp(prefix="frecall-demo-")) if owned else args.data_dir
    story = resources.files("frecall.demo").joinpath("story.jsonl")
    try:
        with resources.as_file(story) as story_path:
            return _run(data_dir, story_path)
    finally:
        if owned and not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
        elif owned:
            print(f"\ndemo data kept in {data_dir}")


def _run(data_dir: Path, story_path: Path) -> int:
    print("Fortunate Recall demo — embedded deployment, no services, no network")
    print(f"data dir: {data_dir}\n")
    # Embedded whatever FR_* services the environment names: the demo needs none.
    settings = Settings(data_dir=data_dir, kafka_bootstrap=None, redis_url=None, qdrant_url=None)
    with closing(open_deployment(settings)) as deployment:
        report = deployment.ingest_edges(read_jsonl(story_path, EdgeInput), str(story_path))
        print(
            f"ingested Maya's story: {report.accepted} facts over four months "
            f"({', '.join(f'{k} {v}' for k, v in sorted(report.transitions.items()))})"
        )
        print(
            f"every query below is asked as of {AS_OF:%Y-%m-%d %H:%M} UTC; "
            "* marks a weaker match, ranked after the relevant facts\n"
        )
        for query, point in QUERIES:
            request = QueryRequest(user_id=USER, query=query, as_of=AS_OF, k=5)
            life = deployment.query(request)
            plain = deployment.query(request, ranking="similarity")
            print(f"Q: {query}   [{point}]")
            print(
                f"  intent: {life.intent.value}; routed to "
                f"{', '.join(c.value for c in list(life.categories)[:2])}"
            )
            for line in _block("lifecycle ranking", life) + _block("similarity only", plain):
                print(line)
            if life.results:
                print(f"  why #1: {'; '.join(life.results[0].why)}")
            print()
        before = dumps_stable(deployment.export(USER).model_dump())
        print(deployment.replay().describe())
        after = dumps_stable(deployment.export(USER).model_dump())
    verdict = "identical" if after == before else "DIFFERENT"
    print(f"replay from the log rebuilt every store; export before vs after: {verdict}")
    return 0
