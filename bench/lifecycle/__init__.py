"""`frecall bench lifecycle`: a LifecycleBench-style benchmark (paper §5, Appendix C).

Entry points (wired by the CLI):

* `generate_cmd(args)` — `generate --personas N --seed S --out DIR`; reads `args.personas`
  (int), `args.seed` (int), `args.out` (Path), optional `args.json` (bool).
* `run_cmd(args)` — `run DIR --track gold|text [--json] [--report DIR] [--embedder
  minilm|hashing]`; reads `args.dir` (Path), `args.track` (str), `args.json` (bool),
  `args.report` (Path | None), `args.embedder` (str), optional `args.data_dir` (Path | None:
  where the temporary store lives; default a temp dir, removed afterwards), optional
  `args.k` (int, default 10).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path


def generate_cmd(args: argparse.Namespace) -> int:
    from bench.lifecycle.generator import generate

    written = generate(
        int(args.personas), int(args.seed), Path(args.out), getattr(args, "phrasings", "all")
    )
    summary = {
        "personas": written.personas, "facts": written.facts, "turns": written.turns,
        "questions": written.questions, "out": str(written.out),
    }  # fmt: skip
    if getattr(args, "json", False):
        print(json.dumps(summary))
    else:
        print(f"lifecycle benchmark: {written.personas} personas, {written.facts} facts, "
              f"{written.turns} turns, {written.questions} questions → {written.out}")  # fmt: skip
    return 0


def run_cmd(args: argparse.Namespace) -> int:
    from bench.lifecycle.metrics import PASS_K
    from bench.lifecycle.report import table, write_report
    from bench.lifecycle.runner import measure

    data_dir = getattr(args, "data_dir", None)
    owned = data_dir is None
    root = Path(data_dir or tempfile.mkdtemp(prefix="frecall-bench-lifecycle-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        work = Path(tempfile.mkdtemp(prefix=f"{args.track}-", dir=root))
        result, records = measure(
            Path(args.dir), args.track, getattr(args, "embedder", "minilm") or "minilm", work,
            k=int(getattr(args, "k", None) or PASS_K),
        )  # fmt: skip
    finally:
        if owned:
            shutil.rmtree(root, ignore_errors=True)
    report = getattr(args, "report", None)
    if report is not None:
        paths = write_report(result, records, Path(report))
        print(f"bench lifecycle: wrote {', '.join(str(p) for p in paths)}", file=sys.stderr)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"lifecycle benchmark, {result['track']} track: {result['questions']} questions, "
              f"{result['personas']} personas, embedder {result['embedder']}")  # fmt: skip
        print(table(result))
    return 0
