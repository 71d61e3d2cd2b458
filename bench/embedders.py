"""`frecall bench embedders`: what one sentence costs each offline embedder.

Two costs matter: a query is one short sentence embedded alone (its latency is part of
every query), and ingest embeds fact texts in batches (its cost per sentence bounds ingest
throughput). Each embedder is measured with 1 and 2 onnxruntime threads (`FR_ONNX_THREADS`)
on the same texts. The machine is shared and noisy, so the measurement runs in rounds;
within a round every (embedder, threads) variant runs once, in a shuffled order, and each
reported number is the median over rounds, with its ratio to the baseline (the first
embedder, at the same thread count) measured in the same run.

Texts: the generated corpus's questions and fact texts by default; with `--data` a LoCoMo
file's questions and dialogue turns (longer, conversational).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from itertools import islice
from pathlib import Path
from typing import Any, cast

import numpy as np

from bench.corpus import generate_facts, generate_queries
from frecall.bootstrap import make_embedder
from frecall.settings import OFFLINE_EMBEDDERS, EmbedderName, Settings
from workers.errors import ConfigError
from workers.ports import Embedder
from workers.progress import Progress

#: Ingest embeds in batches of this size (the ONNX embedders' default batch_size).
BATCH = 64
THREADS = (1, 2)


def _texts(data: Path | None, singles: int, batched: int) -> tuple[list[str], list[str]]:
    """(short queries to embed one by one, texts to embed in batches)."""
    if data is None:
        facts = [str(f["text"]) for f in islice(generate_facts(batched, seed=11), batched)]
        return generate_queries(singles, seed=12), facts
    from bench.locomo_data import load

    try:
        conversations = load(data)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"bench embedders: cannot read {data}: {exc}") from exc
    rng = random.Random(13)
    questions = [q.text for c in conversations for q in c.questions]
    turns = [t.text for c in conversations for t in c.turns]
    if len(questions) < singles or len(turns) < batched:
        raise ConfigError(f"bench embedders: {data} has too few questions or turns")
    return rng.sample(questions, singles), rng.sample(turns, batched)


def _single_ms(embed: Callable[[list[str]], object], texts: Sequence[str]) -> float:
    """Median milliseconds to embed one text alone."""
    times = []
    for text in texts:
        start = time.perf_counter_ns()
        embed([text])
        times.append((time.perf_counter_ns() - start) / 1e6)
    return float(np.median(times))


def _batched_ms(embed: Callable[[list[str]], object], texts: Sequence[str]) -> float:
    """Milliseconds per text, embedding `texts` in batches of `BATCH`."""
    start = time.perf_counter_ns()
    for i in range(0, len(texts), BATCH):
        embed(list(texts[i : i + BATCH]))
    return (time.perf_counter_ns() - start) / 1e6 / len(texts)


def measure(
    embedders: Mapping[str, Callable[[int], Embedder]],
    singles: Sequence[str],
    batched: Sequence[str],
    rounds: int,
    seed: int = 0,
) -> dict[str, Any]:
    """Per variant "name/tN": median single-text ms, median batched ms per text, and
    their ratios to the first embedder's at the same thread count."""
    variants = {
        f"{name}/t{threads}": make(threads)
        for name, make in embedders.items()
        for threads in THREADS
    }
    for embedder in variants.values():
        # Load the model and let onnxruntime settle before any clock starts.
        embedder.embed(list(batched[:BATCH]))
        embedder.embed([singles[0]])
    samples: dict[str, dict[str, list[float]]] = {
        v: {"single_ms": [], "batched_ms": []} for v in variants
    }
    rng = random.Random(seed)
    progress = Progress("bench embedders: rounds", total=rounds)
    for _ in range(rounds):
        order = list(variants)
        rng.shuffle(order)
        for v in order:
            samples[v]["single_ms"].append(_single_ms(variants[v].embed, singles))
            samples[v]["batched_ms"].append(_batched_ms(variants[v].embed, batched))
        progress.tick()
    progress.finish()
    out: dict[str, Any] = {}
    baseline = next(iter(embedders))
    for v, s in samples.items():
        name, threads = v.rsplit("/", 1)
        base = samples[f"{baseline}/{threads}"]
        row: dict[str, Any] = {"embedder": name, "threads": int(threads[1:])}
        row["model_id"] = variants[v].model_id
        for key in ("single_ms", "batched_ms"):
            median = float(np.median(s[key]))
            row[key] = round(median, 3)
            # Ratio of medians, both from this run's rounds.
            row[f"{key}_vs_{baseline}"] = round(median / float(np.median(base[key])), 2)
        out[v] = row
    return out


def run(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.embedders.split(",") if n.strip()]
    unknown = sorted(set(names) - set(OFFLINE_EMBEDDERS))
    if unknown:
        raise ConfigError(
            f"bench embedders: unknown embedder(s) {', '.join(unknown)}; "
            f"choose from {', '.join(OFFLINE_EMBEDDERS)}"
        )
    if not names or args.rounds < 1 or args.singles < 1 or args.batched < BATCH:
        raise ConfigError(
            f"bench embedders: need embedders, --rounds ≥ 1, --singles ≥ 1, --batched ≥ {BATCH}"
        )
    singles, batched = _texts(args.data, args.singles, args.batched)

    def factory(name: str) -> Callable[[int], Embedder]:
        return lambda threads: make_embedder(
            Settings(embedder=cast(EmbedderName, name), onnx_threads=threads)
        )

    print(
        f"bench embedders: {', '.join(names)}; {len(singles)} single texts, "
        f"{len(batched)} batched, {args.rounds} rounds",
        file=sys.stderr,
    )
    result = {
        "baseline": names[0],
        "batch": BATCH,
        "texts": "locomo" if args.data else "generated",
        "rounds": args.rounds,
        "variants": measure({n: factory(n) for n in names}, singles, batched, args.rounds),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    base = result["baseline"]
    print(
        f"Embedding cost per sentence ({result['texts']} texts; medians of {args.rounds} "
        f"interleaved rounds; ratios to {base} at the same thread count)"
    )
    print(f"{'embedder':<28}{'single ms':>11}{'×':>7}{'batched ms/text':>17}{'×':>7}")
    for v, row in result["variants"].items():
        print(
            f"{v:<28}{row['single_ms']:>11.2f}{row[f'single_ms_vs_{base}']:>7.2f}"
            f"{row['batched_ms']:>17.3f}{row[f'batched_ms_vs_{base}']:>7.2f}"
        )
    return 0
