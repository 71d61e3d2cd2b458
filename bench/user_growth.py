"""`frecall bench user-growth`: does one user's ingest slow down as the user grows? (issue 13)

One heavy user's life (`bench.growth_data.life`, the facts `frecall bench inspector` loads:
replace chains, soft updates, events, free restatements, retractions) goes into a fresh
embedded deployment through `ingest_edges` (the bulk path), `--window` facts at a time; the
rate of each window is printed. Flat rates: per-fact cost independent of the user's size.

`--baseline DIR`: the same run with the code of another checkout (e.g. `/work/main`), in the
same invocation, one after the other: each run is a child process over its tree's code
(`bench/trees.py`), so the two differ only in the product's code. The machine's load average
is printed beside each run (rates on a shared machine are noisy: compare the shape of each
column, and the ratio).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()


def windows(facts: int, window: int, days: int, seed: int, embedder: str) -> list[float]:
    """Facts/s of each `window` of one user's ingest, in this process's code."""
    from bench import growth_data
    from frecall.settings import Settings
    from frecall.wiring import open_deployment
    from workers.inputs import EdgeInput

    lines = growth_data.life(facts, days, seed)
    items = [(i, json.dumps(f), EdgeInput.model_validate(f)) for i, f in enumerate(lines)]
    rates = []
    with tempfile.TemporaryDirectory(prefix="fr-bench-user-growth-") as tmp:
        settings = Settings(data_dir=Path(tmp) / "data", embedder=embedder)
        with closing(open_deployment(settings, quiet=True)) as deployment:
            for start in range(0, len(items), window):
                part = items[start : start + window]
                began = time.perf_counter()
                report = deployment.ingest_edges(part, "user-growth")
                rates.append(len(part) / (time.perf_counter() - began))
                if report.accepted != len(part):
                    raise RuntimeError(f"accepted {report.accepted} of {len(part)}")
    return rates


def _child(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One run in a child process over `tree`'s code."""
    from bench import trees  # the parent's; the child imports the tree it measures

    argv = ["--facts", str(args.facts), "--window", str(args.window), "--days", str(args.days)]
    argv += ["--seed", str(args.seed), "--embedder", args.embedder]
    done = trees.run_child(HERE, tree, argv)
    return {"tree": done["tree"], "rates": done["result"], "seconds": done["seconds"],
            "load": done["load"]}  # fmt: skip


def run(args: argparse.Namespace) -> int:
    if args.facts < 1 or args.window < 1:
        print("bench user-growth: --facts and --window must be positive", file=sys.stderr)
        return 2
    from bench import trees

    runs_over = [("this", trees.HERE)]
    if args.baseline is not None:
        baseline = trees.checkout(args.baseline)
        if baseline is None:
            print(f"bench user-growth: {args.baseline} is not a checkout", file=sys.stderr)
            return 2
        runs_over.append(("baseline", baseline))
    runs = {}
    for name, tree in runs_over:
        say = f"bench user-growth: {args.facts} facts of one user, {name} ({tree})"
        print(say, file=sys.stderr)
        runs[name] = _child(tree, args)
    result = {"facts": args.facts, "window": args.window, "embedder": args.embedder, "runs": runs}
    print(json.dumps(result) if args.json else table(result))
    return 0


def table(result: dict[str, Any]) -> str:
    runs = result["runs"]
    names = list(runs)
    out = ["| facts held | " + " | ".join(f"{n} facts/s" for n in names)]
    if len(names) == 2:
        out[0] += " | ratio"
    out[0] += " |"
    out.append("|---" * (len(names) + 1 + (len(names) == 2)) + "|")
    window = result["window"]
    for i, rate in enumerate(runs[names[0]]["rates"]):
        cells = [f"{(i + 1) * window:,}"] + [f"{runs[n]['rates'][i]:,.0f}" for n in names]
        if len(names) == 2:
            cells.append(f"{rate / runs[names[1]]['rates'][i]:.1f}×")
        out.append("| " + " | ".join(cells) + " |")
    for name in names:
        r = runs[name]
        total = sum(result["window"] / x for x in r["rates"])
        out.append(
            f"{name}: {len(r['rates']) * window / total:,.0f} facts/s overall, {r['seconds']} s, "
            f"load average {r['load'][0]} → {r['load'][1]}"
        )
    return "\n".join(out)


def _main() -> None:  # the child: python user_growth.py --child …
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--facts", type=int)
    parser.add_argument("--window", type=int)
    parser.add_argument("--days", type=int)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--embedder")
    a = parser.parse_args()
    print(json.dumps(windows(a.facts, a.window, a.days, a.seed, a.embedder)))


if __name__ == "__main__":
    sys.path[0] = os.environ.get("PYTHONPATH", sys.path[0])  # the tree, not bench/
    _main()
