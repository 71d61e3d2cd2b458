"""`frecall bench …`: the subcommand the benchmarks add to the `frecall` CLI.

`register` is this package's `frecall.commands` entry point (pyproject.toml; the contract is
`frecall.plugins.Register`). It runs on every `frecall` invocation, so it imports no
benchmark module and no plotting library: it only checks that the `bench` extra is installed
(an `ImportError` makes `frecall bench` say how to install it) and adds the parsers. The
benchmarks load when one is run.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from frecall.plugins import Subparsers
from frecall.settings import DEFAULT_EMBEDDER, OFFLINE_EMBEDDERS

#: Modules of the `bench` extra (pyproject.toml) that some benchmark imports.
EXTRA_MODULES = ("matplotlib",)


def register(
    commands: Subparsers[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    _require_extra()
    p = commands.add_parser("bench", parents=[common], help="benchmarks (medians, percentiles)")
    p.set_defaults(handler=run)
    bench = p.add_subparsers(dest="bench", required=True, metavar="BENCH")
    b = bench.add_parser("scorer", parents=[common], help="deterministic layer, per pool size")
    b.add_argument("--json", action="store_true")
    b.add_argument("--iterations", type=int, default=2000)
    b.add_argument("--sizes", default="20,50,100,200,500,1000")
    b = bench.add_parser("lifecycle", parents=[common], help="LifecycleBench-style suite")
    _lifecycle(b, common)
    b = bench.add_parser("growth", parents=[common], help="store growth, compaction vs flat")
    b.add_argument("--facts", type=int, default=30000, help="facts of the heavy user")
    b.add_argument("--days", type=int, default=730, help="simulated days (default 2 years)")
    b.add_argument("--checkpoints", type=int, default=8, help="latency measurements over time")
    b.add_argument("--queries", type=int, default=50, help="queries per checkpoint")
    b.add_argument("--seed", type=int, default=7)
    b.add_argument("--json", action="store_true")
    b.add_argument("--report", type=Path, help="write growth.md/json/png here")
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    b = bench.add_parser("pipeline", parents=[common], help="Kafka pipeline throughput/latency")
    b.add_argument("--json", action="store_true")
    b.add_argument("--edges", type=int, default=2000, help="edges through the lifecycle agent")
    b.add_argument("--turns", type=int, default=600, help="turns end to end")
    b.add_argument("--users", type=int, default=20)
    b.add_argument("--workers", default="1,2", help="worker process counts to compare")
    b.add_argument(
        "--one-by-one",
        action="store_true",
        help="also run each count with one edge at a time (FR_LIFECYCLE_BULK=false): baseline",
    )
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    b = bench.add_parser(
        "throughput", parents=[common], help="ingest/replay rates, bulk vs one by one, per stage"
    )
    b.add_argument("--json", action="store_true")
    b.add_argument("--facts", type=int, default=5000, help="facts with vectors; replayed")
    b.add_argument("--embed-facts", type=int, default=1000, help="facts embedded here")
    b.add_argument("--turns", type=int, default=600, help="turns through the rule extractor")
    b.add_argument("--users", type=int, default=20)
    b.add_argument("--rounds", type=int, default=3, help="runs per mode (medians)")
    b.add_argument("--data", type=Path, help="a LoCoMo JSON file: its turns (read only)")
    b.add_argument(
        "--workers", default="", help="e.g. 1,2: embedding in threads vs processes (texts/s)"
    )
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    b = bench.add_parser("query", parents=[common], help="end-to-end query latency")
    b.add_argument("--json", action="store_true")
    b.add_argument("--sizes", default="1000,10000,50000")
    b.add_argument("--queries", type=int, default=200)
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    b = bench.add_parser("scale", parents=[common], help="cost against store size, 10k → 1M facts")
    b.add_argument("--json", action="store_true")
    b.add_argument("--sizes", default="10000,100000,1000000", help="increasing store sizes")
    b.add_argument("--users", type=int, default=10_000)
    b.add_argument("--skew", type=float, default=1.0, help="Zipf exponent of facts per user")
    b.add_argument("--queries", type=int, default=200, help="queries per size")
    b.add_argument("--replay-up-to", type=int, default=10**9, help="replay at sizes ≤ this")
    b.add_argument("--direct-above", type=int, help="load sizes above this straight into the index")
    b.add_argument(
        "--order", choices=("user", "time"), default="user", help="facts by user or interleaved"
    )
    b.add_argument("--hnsw-above", type=int, help="HNSW search for users above N facts")
    b.add_argument("--report", type=Path, help="write scale.md/json/png here")
    b = bench.add_parser("load", parents=[common], help="HTTP API under concurrent load")
    b.add_argument("--json", action="store_true")
    b.add_argument("--deployment", default="embedded", help="embedded,distributed (or one)")
    b.add_argument("--seconds", type=float, default=20.0, help="duration of the load")
    b.add_argument("--writers", type=int, default=4)
    b.add_argument("--readers", type=int, default=8)
    b.add_argument("--users", type=int, default=200)
    b.add_argument("--batch", type=int, default=5, help="facts per POST /v1/edges")
    b.add_argument("--workers", type=int, default=1, help="distributed: frecall workers")
    b.add_argument("--settle", type=float, default=60.0, help="distributed: wait for the queue")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    b = bench.add_parser("locomo", parents=[common], help="evidence recall on LoCoMo dialogue")
    b.add_argument("--data", type=Path, required=True, help="a LoCoMo JSON file (read only)")
    b.add_argument("--json", action="store_true")
    b.add_argument("--k", type=int, default=10, help="retrieval depth (recall@5/@10 always)")
    b.add_argument("--conversations", type=int, default=None, help="first N (default all)")
    b.add_argument(
        "--ablations",
        action="store_true",
        help="also run the product with each policy choice undone",
    )
    b.add_argument(
        "--failures",
        action="store_true",
        help="list the questions the product gains and loses against the flat ranking at "
        "@5 and @10 (with --ablations: which ablations undo each)",
    )
    b.add_argument(
        "--store",
        type=Path,
        help="ingest into DIR once and reuse it on later runs with the same data, "
        "--conversations and embedder (query-time changes only)",
    )
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    b = bench.add_parser("paper-cases", parents=[common], help="the paper's worked examples")
    b.add_argument("--cases", type=Path, help="case directory (default tests/paper_cases/data)")
    b.add_argument("--json", action="store_true")
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    b = bench.add_parser("train-attributes", parents=[common], help="train the attribute probe")
    b.add_argument("--out", type=Path, required=True, help="directory for attribute_probe.*")
    b = bench.add_parser("train-withdrawals", parents=[common], help="train the withdrawal probe")
    b.add_argument("--out", type=Path, required=True, help="directory for withdrawal_probe.*")
    b = bench.add_parser("withdrawal-probe", parents=[common], help="measure the withdrawal probe")
    b.add_argument("--weights", type=Path, help="directory of a trained probe (default: shipped)")
    b.add_argument("--personas", type=int, default=20, help="of the generator's TEST half")
    b.add_argument("--seed", type=int, default=29)
    b.add_argument("--locomo", type=Path, help="LoCoMo JSON: rate of flagged turns (no training)")
    b.add_argument("--sample", type=int, default=40, help="flagged LoCoMo turns to print")
    b.add_argument("--json", action="store_true")
    b.add_argument(
        "--leave-one-out",
        action="store_true",
        help="judge each development set by a probe trained without it",
    )
    b = bench.add_parser("attribute-probe", parents=[common], help="probe vs prototypes")
    b.add_argument("--weights", type=Path, help="directory of a trained probe (default: shipped)")
    b.add_argument("--personas", type=int, default=20, help="of the generator's TEST half")
    b.add_argument("--seed", type=int, default=29)
    b.add_argument("--probe-min", type=float, default=0.5, help="probe's minimum probability")
    b.add_argument("--probe-margin", type=float, default=0.0)
    b.add_argument(
        "--leave-one-out",
        action="store_true",
        help="judge each development set by a probe trained without it",
    )
    b.add_argument("--json", action="store_true")
    b = bench.add_parser("user-growth", parents=[common], help="one user's ingest rate as it grows")
    b.add_argument("--facts", type=int, default=10000, help="facts of the user")
    b.add_argument("--window", type=int, default=1000, help="facts per measured window")
    b.add_argument("--days", type=int, default=730, help="over this many days")
    b.add_argument("--seed", type=int, default=7)
    b.add_argument("--baseline", type=Path, help="another checkout (e.g. /work/main), same run")
    b.add_argument("--json", action="store_true")
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default="hashing")
    b = bench.add_parser(
        "turn-ingest",
        parents=[common],
        help="frecall ingest of turns, this tree vs --baseline's code, alternated rounds",
    )
    b.add_argument("--data", type=Path, required=True, help="a LoCoMo JSON file (read only)")
    b.add_argument("--conversations", type=int, default=1, help="its first N conversations")
    b.add_argument("--turns", type=int, default=100000, help="at most this many turns")
    b.add_argument("--rounds", type=int, default=3, help="runs per tree (medians)")
    b.add_argument("--baseline", type=Path, help="another checkout (e.g. /work/main), same run")
    b.add_argument("--json", action="store_true")
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    b = bench.add_parser("inspector", parents=[common], help="the inspector's page of a big user")
    b.add_argument("--facts", type=int, default=10000, help="facts of the user")
    b.add_argument("--days", type=int, default=730, help="over this many days")
    b.add_argument("--rounds", type=int, default=15, help="requests per page (median, p95)")
    b.add_argument("--seed", type=int, default=7)
    b.add_argument("--no-browser", action="store_true", help="server times only")
    b.add_argument("--json", action="store_true")
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default="hashing")
    b = bench.add_parser(
        "paper-turns",
        parents=[common],
        help="the paper's worked examples as natural turns (extraction)",
    )
    b.add_argument(
        "--cases",
        default="cases",
        help="cases (the development set), heldout (the same facts in other words), heldout2 "
        "(a third telling, unsealed after stop 19), heldout3 (a fourth telling, a validation set "
        "since round 8), heldout4 "
        "(a fifth telling, a validation set since round 10), heldout5 (a sixth telling, a "
        "validation set since round 11), heldout6 (a seventh telling, a "
        "validation set since round 13), heldout7 (an "
        "eighth telling, a validation set since round 14), heldout8 (a ninth telling, a "
        "validation set since round 15), "
        "heldout9 (a tenth telling, a validation set since round 16), heldout10 (an eleventh "
        "telling, a validation set since round 18), heldout11 (a twelfth telling, a validation "
        "set since round 19), "
        "heldout12 (a thirteenth telling, a validation set since round 20), heldout13 (a "
        "fourteenth telling, a validation set since round 21), heldout14 (a fifteenth telling, "
        "a validation set since round 24), heldout15 (a sixteenth telling, a validation set "
        "since round 27), heldout16 (a seventeenth, sealed telling, audited in round 24), "
        "heldout17 (an eighteenth, sealed telling, audited in round 25), heldout18 (a "
        "nineteenth, sealed telling, audited in round 26), heldout19 (a twentieth, sealed telling, "
        "audited in round 27) or a directory of case files",
    )
    b.add_argument("--extractor", choices=("rules", "llm"), default="rules")
    b.add_argument("--json", action="store_true")
    b.add_argument("--failures", action="store_true", help="show what failed, and its top 5")
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    b = bench.add_parser(
        "extraction-ablation",
        parents=[common],
        help="what each pattern module of the rule extractor earns, one left out at a time",
    )
    b.add_argument(
        "--modules", default="", help="modules measured end to end on LoCoMo/lifecycle too"
    )
    b.add_argument(
        "--all-paper", action="store_true", help="paper turns without every module in turn"
    )
    b.add_argument(
        "--together", action="store_true", help="end to end: leave the --modules out at once"
    )
    b.add_argument("--locomo", type=Path, help="a LoCoMo JSON file (read only)")
    b.add_argument("--conversations", type=int, default=None, help="LoCoMo: first N")
    b.add_argument("--rounds", type=int, default=5, help="extraction timing passes per mode")
    b.add_argument(
        "--lifecycle", type=Path, action="append", default=[], help="a generated set (repeat)"
    )
    b.add_argument("--json", action="store_true")
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    b = bench.add_parser(
        "association", parents=[common], help="cosines behind the slot-association thresholds"
    )
    b.add_argument("dir", type=Path, help="a directory written by `lifecycle generate`")
    b.add_argument("--personas", type=int, default=None, help="first N personas (default all)")
    b.add_argument("--json", action="store_true")
    b.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    b = bench.add_parser("embedders", parents=[common], help="embedding cost per sentence")
    b.add_argument("--json", action="store_true")
    b.add_argument(
        "--embedders",
        default=",".join(e for e in OFFLINE_EMBEDDERS if e != "hashing"),
        help="comma-separated; the first is the baseline",
    )
    b.add_argument("--rounds", type=int, default=7, help="interleaved rounds (medians)")
    b.add_argument("--singles", type=int, default=40, help="texts embedded one by one")
    b.add_argument("--batched", type=int, default=256, help="texts embedded in batches of 64")
    b.add_argument("--data", type=Path, default=None, help="a LoCoMo JSON file (read only)")


def _lifecycle(p: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
    lc = p.add_subparsers(dest="lifecycle", required=True, metavar="STEP")
    g = lc.add_parser("generate", parents=[common], help="generate personas, facts, questions")
    g.add_argument("--personas", type=int, default=40)
    g.add_argument("--seed", type=int, default=7)
    g.add_argument(
        "--phrasings",
        choices=("all", "train", "test"),
        default="all",
        help="draw wordings from this half of every phrasing family (train: the extractor "
        "may be tuned on it; test: never looked at while tuning)",
    )
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--json", action="store_true")
    r = lc.add_parser("run", parents=[common], help="answer the questions in every config")
    r.add_argument("dir", type=Path, help="a directory written by `generate`")
    r.add_argument("--track", choices=["gold", "text"], default="gold")
    r.add_argument("--json", action="store_true")
    r.add_argument("--report", type=Path, help="write report.md and report.json here")
    r.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)
    n = lc.add_parser("noise", parents=[common], help="metadata-noise robustness, λ sweep")
    n.add_argument("dir", type=Path, help="a directory written by `generate`")
    n.add_argument("--levels", default="0.05,0.1,0.2,0.5")
    n.add_argument("--seed", type=int, default=0)
    n.add_argument("--json", action="store_true")
    n.add_argument("--embedder", choices=OFFLINE_EMBEDDERS, default=DEFAULT_EMBEDDER)


def _require_extra() -> None:
    """Raise ModuleNotFoundError when a module of the extra is missing (found, not imported:
    importing matplotlib would slow down every `frecall` command)."""
    for name in EXTRA_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a broken install, or a module without a spec
            found = False
        if not found:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def run(args: argparse.Namespace) -> int:
    if args.bench == "scorer":
        from bench import scorer

        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        return scorer.run(sizes, args.iterations, args.json)
    if args.bench == "query":
        from bench import query

        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        return query.run(args, sizes)
    if args.bench == "scale":
        from bench import scale

        return scale.run(args, [int(s) for s in args.sizes.split(",") if s.strip()])
    if args.bench == "load":
        from bench import load

        return load.run(args)
    if args.bench == "locomo":
        from bench import locomo

        return locomo.run(args)
    if args.bench == "lifecycle":
        from bench import lifecycle

        if args.lifecycle == "generate":
            return lifecycle.generate_cmd(args)
        if args.lifecycle == "noise":
            from bench.lifecycle.noise import noise_cmd

            return noise_cmd(args)
        return lifecycle.run_cmd(args)
    if args.bench == "paper-cases":
        from bench import paper_cases

        return paper_cases.run(args)
    if args.bench in ("train-withdrawals", "withdrawal-probe"):
        from bench import withdrawal_probe

        return withdrawal_probe.run(args)
    if args.bench in ("train-attributes", "attribute-probe"):
        from bench import attribute_probe

        return attribute_probe.run(args)
    if args.bench == "growth":
        from bench import growth

        return growth.run(args)
    if args.bench == "association":
        from bench import association

        return association.run(args)
    if args.bench == "paper-turns":
        from bench import paper_turns

        return paper_turns.run_cmd(args)
    if args.bench == "extraction-ablation":
        from bench import extraction_ablation

        return extraction_ablation.run(args)
    if args.bench == "embedders":
        from bench import embedders

        return embedders.run(args)
    if args.bench == "user-growth":
        from bench import user_growth

        return user_growth.run(args)
    if args.bench == "turn-ingest":
        from bench import turn_ingest

        return turn_ingest.run(args)
    if args.bench == "inspector":
        from bench import inspector

        return inspector.run(args)
    if args.bench == "throughput":
        from bench import throughput

        return throughput.run(args)
    if args.bench == "pipeline":
        from bench import pipeline

        return pipeline.run(args)
    raise AssertionError(f"unknown bench {args.bench}")
