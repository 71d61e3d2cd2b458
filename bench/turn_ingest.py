"""`frecall bench turn-ingest`: the product's default ingest of conversation turns (`frecall
ingest`: rule extractor, the default offline embedder, embedded deployment), this checkout
against another one's code (`--baseline DIR`) in the same invocation.

Each round runs every tree once, in a child process over its code (`bench/trees.py`), the
order alternating from round to round so that a drift of the machine's load falls on both;
each run starts from an empty data dir. A run first ingests a few turns of another user (the
model is loaded, the stores opened: one-off costs of a process, not of a turn), then times
`Deployment.ingest_turns` of the fixed input: wall seconds and the process's CPU seconds (all
its threads). On a shared machine CPU ms per turn is the steadier of the two. Reported:
medians over rounds, and this tree's median over the baseline's (a ratio below 1 for ms per
turn, above 1 for turns/s, means this tree is faster).

Input: the turns of the first `--conversations` conversations of a LoCoMo file (`--data`), at
most `--turns`; the same JSONL file goes to every run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
#: Turns of another user ingested before the timing (loads the model, opens the stores).
WARM_UP = 12


def timed_ingest(turns_file: Path, embedder: str) -> dict[str, Any]:
    """One run in this process's code: wall and CPU seconds of ingesting `turns_file`."""
    from frecall.settings import Settings
    from frecall.wiring import open_deployment
    from schemas.events import TurnEvent
    from workers.inputs import read_jsonl

    items = list(read_jsonl(turns_file, TurnEvent))
    warm = []
    for lineno, raw, turn in items[:WARM_UP]:
        if isinstance(turn, TurnEvent):
            other = turn.model_copy(update={"user_id": "warm-up", "turn_id": f"w{lineno}"})
            warm.append((lineno, raw, other))
    with tempfile.TemporaryDirectory(prefix="fr-bench-turn-ingest-") as tmp:
        settings = Settings(data_dir=Path(tmp) / "data", embedder=embedder)
        with closing(open_deployment(settings, extractor="rule", quiet=True)) as deployment:
            deployment.ingest_turns(warm, "warm-up")
            wall, cpu = time.perf_counter(), time.process_time()
            report = deployment.ingest_turns(items, str(turns_file))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if report.rejected or report.failed:
        raise RuntimeError(f"rejected {report.rejected}, failed {report.failed}")
    import workers  # which tree's code ran: the check that the child measured its tree

    code = str(Path(workers.__file__).resolve().parent.parent)
    return {"turns": report.turns, "edges": report.accepted, "wall_s": wall, "cpu_s": cpu,
            "code": code}  # fmt: skip


def write_input(args: argparse.Namespace, path: Path) -> int:
    """The fixed input: LoCoMo turns as `frecall ingest` JSONL; the number of turns."""
    from bench.locomo_data import load

    turns = [t for conv in load(args.data, args.conversations) for t in conv.turns]
    turns = turns[: args.turns]
    path.write_text("".join(t.model_dump_json() + "\n" for t in turns), encoding="utf-8")
    return len(turns)


def run(args: argparse.Namespace) -> int:
    from bench import trees

    if min(args.rounds, args.turns, args.conversations) < 1:
        print("bench turn-ingest: --rounds, --turns, --conversations must be ≥ 1", file=sys.stderr)
        return 2
    runs_over = {"this": trees.HERE}
    if args.baseline is not None:
        baseline = trees.checkout(args.baseline)
        if baseline is None:
            print(f"bench turn-ingest: {args.baseline} is not a checkout", file=sys.stderr)
            return 2
        runs_over["baseline"] = baseline
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in runs_over}
    with tempfile.TemporaryDirectory(prefix="fr-bench-turn-ingest-input-") as tmp:
        turns_file = Path(tmp) / "turns.jsonl"
        n = write_input(args, turns_file)
        names = list(runs_over)
        for r in range(args.rounds):
            for name in names if r % 2 == 0 else names[::-1]:
                print(f"bench turn-ingest: round {r + 1}/{args.rounds}, {name}: {n} turns",
                      file=sys.stderr, flush=True)  # fmt: skip
                done = trees.run_child(HERE, runs_over[name], [str(turns_file), args.embedder])
                if done["result"]["code"] != str(runs_over[name]):
                    raise RuntimeError(f"{name}: ran {done['result']['code']}'s code")
                samples[name].append({**done["result"], "load": done["load"]})
    result = summary(samples, n, args)
    for name, tree in runs_over.items():
        result["runs"][name]["tree"] = str(tree)
    print(json.dumps(result) if args.json else table(result))
    return 0


def summary(
    samples: dict[str, list[dict[str, Any]]], n: int, args: argparse.Namespace
) -> dict[str, Any]:
    out: dict[str, Any] = {"turns": n, "rounds": args.rounds, "embedder": args.embedder}
    rows = {}
    for name, runs in samples.items():
        rows[name] = {
            "turns_per_s": statistics.median(n / s["wall_s"] for s in runs),
            "wall_ms_per_turn": statistics.median(1000 * s["wall_s"] / n for s in runs),
            "cpu_ms_per_turn": statistics.median(1000 * s["cpu_s"] / n for s in runs),
            "edges": statistics.median(s["edges"] for s in runs),
            "samples": runs,
        }
    out["runs"] = rows
    if "baseline" in rows:
        this, base = rows["this"], rows["baseline"]
        out["ratio"] = {  # this / baseline
            key: this[key] / base[key]
            for key in ("turns_per_s", "wall_ms_per_turn", "cpu_ms_per_turn")
        }
    return out


def table(result: dict[str, Any]) -> str:
    lines = [
        f"{result['turns']} turns, {result['rounds']} rounds alternated, embedder "
        f"{result['embedder']}; medians",
        "| tree | turns/s | wall ms/turn | CPU ms/turn | edges | CPU ms/turn per round |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in result["runs"].items():
        rounds = ", ".join(f"{1000 * s['cpu_s'] / result['turns']:.1f}" for s in row["samples"])
        lines.append(
            f"| {name} | {row['turns_per_s']:.1f} | {row['wall_ms_per_turn']:.1f} | "
            f"{row['cpu_ms_per_turn']:.1f} | {row['edges']:.0f} | {rounds} |"
        )
    if "ratio" in result:
        r = result["ratio"]
        lines.append(
            f"this / baseline: turns/s {r['turns_per_s']:.3f}×, wall ms/turn "
            f"{r['wall_ms_per_turn']:.3f}×, CPU ms/turn {r['cpu_ms_per_turn']:.3f}×"
        )
    return "\n".join(lines)


if __name__ == "__main__":  # the child: python turn_ingest.py --child TURNS EMBEDDER
    sys.path[0] = os.environ.get("PYTHONPATH", sys.path[0])  # the tree, not bench/
    print(json.dumps(timed_ingest(Path(sys.argv[2]), sys.argv[3])))
