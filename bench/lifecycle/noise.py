"""`frecall bench lifecycle noise DIR`: robustness of the gold track to metadata noise
(paper §6.7, Appendix AH) and the per-category λ-multiplier sweep (Table 36).

Each perturbation corrupts one field of a fraction p of the gold edges (deterministic for
the seed); the perturbed edges are ingested into a fresh store and the `full` configuration
answers the same questions. Reported per (perturbation, p): the mean Jaccard@10 of each
question's top-10 ids against the clean run's, and the pass / stale rates and their deltas.
The λ sweep re-scores the clean store with one category's decay rate multiplied, all else
clean; a multiplier is feasible when the mean Jaccard@10 stays ≥ 0.95.

Entry point (wired by the CLI): `noise_cmd(args)` — reads `args.dir` (Path), `args.levels`
(str, comma-separated), `args.seed` (int), `args.json` (bool), `args.embedder` (str).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.lifecycle.configs import CONFIGS
from bench.lifecycle.metrics import PASS_K, Outcome, score
from bench.lifecycle.runner import BenchQuestion, _ingest, load_questions
from frecall.bootstrap import build
from frecall.settings import Settings
from schemas.categories import Category
from schemas.policy import Policy
from schemas.query import QueryRequest
from workers.app import App
from workers.embedding.cached import CachedEmbedder
from workers.errors import ConfigError
from workers.query.routing import CategoryRouter

Edge = dict[str, Any]

DEFAULT_LEVELS = (0.05, 0.1, 0.2, 0.5)
MULTIPLIERS = (0.25, 0.5, 1.0, 2.0, 4.0)
FEASIBLE_JACCARD = 0.95
SHIFT = timedelta(days=7)
#: Appendix AH's reference points (Jaccard@10 at p = 0.1).
PAPER = {"slot_merge@0.1": 0.764, "slot_split@0.1": 0.837, "category_flip@0.1": 0.917}
#: Categories an extractor plausibly confuses (used by `category_flip(confused=True)`).
CONFUSED = {
    "OBLIGATIONS": "LOGISTICAL_CONTEXT", "LOGISTICAL_CONTEXT": "OBLIGATIONS",
    "PROJECTS_ENDEAVORS": "HOBBIES_RECREATION", "HOBBIES_RECREATION": "PROJECTS_ENDEAVORS",
    "IDENTITY_SELF_CONCEPT": "PREFERENCES_HABITS", "PREFERENCES_HABITS": "IDENTITY_SELF_CONCEPT",
}  # fmt: skip
_FULL = next(c for c in CONFIGS if c.name == "full")


# --- perturbations ---------------------------------------------------------------------


def _pick(rng: random.Random, eligible: Sequence[int], total: int, p: float) -> list[int]:
    """round(p · total) indices (at least one when p > 0 and any is eligible)."""
    if p <= 0 or not eligible:
        return []
    n = min(len(eligible), max(1, round(p * total)))
    return sorted(rng.sample(list(eligible), n))


def _slot_merge(edges: list[Edge], rng: random.Random, p: float) -> None:
    slotted = [i for i, e in enumerate(edges) if e.get("slot_key")]
    family: dict[tuple[str, str], set[str]] = defaultdict(set)
    for i in slotted:
        family[(edges[i]["user_id"], edges[i]["category"])].add(edges[i]["slot_key"])

    def others(e: Edge) -> list[str]:
        return sorted(family[(e["user_id"], e["category"])] - {e["slot_key"]})

    eligible = [i for i in slotted if others(edges[i])]
    for i in _pick(rng, eligible, len(slotted), p):
        edges[i]["slot_key"] = rng.choice(others(edges[i]))


def _slot_split(edges: list[Edge], rng: random.Random, p: float) -> None:
    slotted = [i for i, e in enumerate(edges) if e.get("slot_key")]
    for i in _pick(rng, slotted, len(slotted), p):
        edges[i]["slot_key"] = f"{edges[i]['slot_key']}~split-{edges[i]['edge_id']}"


def category_flip(edges: list[Edge], rng: random.Random, p: float, confused: bool = False) -> None:
    """A fraction p gets a random other category; with `confused`, edges of a confused
    pair (Obligations↔Logistical, Projects↔Hobbies, Identity↔Preferences) get the partner."""
    names = [c.value for c in Category]
    for i in _pick(rng, range(len(edges)), len(edges), p):
        own = edges[i]["category"]
        if confused and own in CONFUSED:
            edges[i]["category"] = CONFUSED[own]
        else:
            edges[i]["category"] = rng.choice([c for c in names if c != own])


def _flip(edges: list[Edge], rng: random.Random, p: float) -> None:
    category_flip(edges, rng, p)


def _anchor_delete(edges: list[Edge], rng: random.Random, p: float) -> None:
    anchored = [i for i, e in enumerate(edges) if e.get("event_time")]
    for i in _pick(rng, anchored, len(anchored), p):
        del edges[i]["event_time"]


def _time_shift(edges: list[Edge], rng: random.Random, p: float) -> None:
    anchored = [i for i, e in enumerate(edges) if e.get("event_time")]
    for i in _pick(rng, anchored, len(anchored), p):
        t = datetime.fromisoformat(edges[i]["event_time"].replace("Z", "+00:00"))
        t = t + SHIFT if rng.random() < 0.5 else t - SHIFT
        edges[i]["event_time"] = t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _retraction_drop(edges: list[Edge], rng: random.Random, p: float) -> None:
    flagged = [i for i, e in enumerate(edges) if e.get("retracts")]
    for i in _pick(rng, flagged, len(flagged), p):
        del edges[i]["retracts"]


PERTURBATIONS: dict[str, Callable[[list[Edge], random.Random, float], None]] = {
    "slot_merge": _slot_merge,
    "slot_split": _slot_split,
    "category_flip": _flip,
    "anchor_delete": _anchor_delete,
    "time_shift": _time_shift,
    "retraction_drop": _retraction_drop,
}


def perturb(edges: Sequence[Edge], name: str, p: float, seed: int) -> list[Edge]:
    """A perturbed copy of `edges` (the input is left alone); deterministic for the seed."""
    if name not in PERTURBATIONS:
        raise ConfigError(f"bench lifecycle noise: unknown perturbation {name!r}")
    out = [dict(e) for e in edges]
    PERTURBATIONS[name](out, random.Random(f"{seed}:{name}:{p:g}"), p)
    return out


def load_edges(path: Path) -> list[Edge]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def write_edges(edges: Sequence[Edge], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for e in edges:
            fh.write(json.dumps(e) + "\n")


# --- stores and answers ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Answers:
    top: list[list[str]]  # top-k edge ids per question
    outcomes: list[Outcome]

    def rates(self) -> dict[str, float]:
        return {
            "pass": _mean([float(o.passed) for o in self.outcomes]),
            "stale": _mean([float(o.stale) for o in self.outcomes]),
        }


def _mean(values: Sequence[float]) -> float:
    return round(float(np.mean(values)), 4) if values else 0.0


def answer(app: App, policy: Policy, questions: Sequence[BenchQuestion], k: int) -> Answers:
    """The `full` configuration (with `policy`) over `app`'s store."""
    service = _FULL.make(app.vectors, app.embedder, policy, CategoryRouter(app.embedder))
    top, outcomes = [], []
    for q in questions:
        request = QueryRequest(user_id=q.user_id, query=q.text, as_of=q.as_of, k=k)
        ids = [r.edge_id for r in service.query(request).results]
        top.append(ids[:PASS_K])
        outcomes.append(score([(i,) for i in ids], q.mode, q.gold, q.stale))
    return Answers(top, outcomes)


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    sa, sb = set(a), set(b)
    return 1.0 if not (sa | sb) else len(sa & sb) / len(sa | sb)


def mean_jaccard(a: Answers, b: Answers) -> float:
    values = [jaccard(x, y) for x, y in zip(a.top, b.top, strict=True)]
    return round(float(np.mean(values)), 4) if values else 1.0


def scaled_policy(policy: Policy, category: Category, multiplier: float) -> Policy:
    """A copy of `policy` with one category's λ multiplied (cf. `configs.uniform_policy`)."""
    cp = policy.categories[category]
    categories = dict(policy.categories)
    categories[category] = cp.model_copy(update={"decay_per_hour": cp.decay_per_hour * multiplier})
    return policy.model_copy(update={"categories": categories})


def _open(work: Path, embedder: str, cache: dict[str, np.ndarray]) -> App:
    threads = max(1, min(4, os.cpu_count() or 1))
    settings = Settings(data_dir=work / "store", embedder=embedder, onnx_threads=threads)
    app = build(settings, fsync=False)
    app.embedder = CachedEmbedder(app.embedder, cache)
    return app


def _log(message: str) -> None:
    print(f"bench lifecycle noise: {message}", file=sys.stderr)


def measure_noise(
    data: Path,
    levels: Sequence[float],
    seed: int,
    embedder: str,
    work: Path,
    perturbations: Sequence[str] | None = None,
    multipliers: Sequence[float] | None = None,
    k: int = PASS_K,
) -> dict[str, Any]:
    """The `--json` document (every perturbation and multiplier unless narrowed)."""
    perturbations = list(PERTURBATIONS) if perturbations is None else perturbations
    multipliers = MULTIPLIERS if multipliers is None else multipliers
    for name in ("edges.jsonl", "questions.jsonl"):
        if not (data / name).is_file():
            raise ConfigError(f"bench lifecycle: {data / name} is missing (run generate first)")
    questions = load_questions(data / "questions.jsonl")
    edges = load_edges(data / "edges.jsonl")
    cache: dict[str, np.ndarray] = {}
    _log("clean store")
    app = _open(work / "clean", embedder, cache)
    try:
        _ingest(app, data, "gold")
        clean = answer(app, app.policy, questions, k)
        sweep: dict[str, Any] = {}
        for category in Category:
            row: dict[str, Any] = {}
            for m in multipliers:
                policy = scaled_policy(app.policy, category, m)
                row[f"{m:g}"] = (
                    1.0 if m == 1.0 else mean_jaccard(clean, answer(app, policy, questions, k))
                )
            ok = [m for m in multipliers if row[f"{m:g}"] >= FEASIBLE_JACCARD]
            row["feasible"] = [min(ok), max(ok)] if ok else None
            sweep[category.value] = row
            _log(f"λ sweep {category.value}: {row['feasible']}")
    finally:
        app.close()
        shutil.rmtree(work / "clean", ignore_errors=True)
    base = clean.rates()
    noise: dict[str, Any] = {}
    for name in perturbations:
        noise[name] = {}
        for p in levels:
            run = work / f"{name}-{p:g}"
            write_edges(perturb(edges, name, p, seed), run / "edges.jsonl")
            _log(f"{name} @ {p:g}")
            app = _open(run, embedder, cache)
            try:
                _ingest(app, run, "gold")
                got = answer(app, app.policy, questions, k)
            finally:
                app.close()
                shutil.rmtree(run, ignore_errors=True)
            rates = got.rates()
            noise[name][f"{p:g}"] = {
                "jaccard10": mean_jaccard(clean, got), **rates,
                "pass_delta": round(rates["pass"] - base["pass"], 4),
                "stale_delta": round(rates["stale"] - base["stale"], 4),
            }  # fmt: skip
    return {
        "noise": noise, "lambda_sweep": sweep, "clean": base, "paper": dict(PAPER),
        "questions": len(questions), "levels": [float(p) for p in levels], "seed": seed,
        "embedder": embedder,
    }  # fmt: skip


# --- entry point -----------------------------------------------------------------------


def parse_levels(text: str | None) -> list[float]:
    if not text:
        return list(DEFAULT_LEVELS)
    try:
        levels = [float(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise ConfigError(f"bench lifecycle noise: bad --levels {text!r}") from exc
    if not levels or any(not 0.0 <= p <= 1.0 for p in levels):
        raise ConfigError(f"bench lifecycle noise: --levels must be in [0, 1], got {text!r}")
    return levels


def tables(result: Mapping[str, Any]) -> str:
    levels = [f"{p:g}" for p in result["levels"]]
    lines = [f"clean: pass {result['clean']['pass']:.3f}, stale {result['clean']['stale']:.3f}",
             "", "noise: Jaccard@10 vs clean (Δpass)",
             f"{'perturbation':<16}" + "".join(f"{p:>18}" for p in levels)]  # fmt: skip
    for name, row in result["noise"].items():
        cells = [f"{row[p]['jaccard10']:.3f} ({row[p]['pass_delta']:+.3f})" for p in levels]
        lines.append(f"{name:<16}" + "".join(f"{c:>18}" for c in cells))
    lines += ["", "λ-multiplier sweep: Jaccard@10 vs unperturbed (feasible ≥ 0.95)"]
    sweep = result["lambda_sweep"]
    mults = [m for m in next(iter(sweep.values()), {}) if m != "feasible"]
    lines.append(f"{'category':<24}" + "".join(f"{'×' + m:>8}" for m in mults) + "  feasible")
    for cat, row in sweep.items():
        feasible = "-" if row["feasible"] is None else "{:g}–{:g}".format(*row["feasible"])
        values = "".join(f"{row[m]:>8.3f}" for m in mults)
        lines.append(f"{cat:<24}{values}  {feasible}")
    paper = ", ".join(f"{k} {v}" for k, v in result["paper"].items())
    lines += ["", f"paper (Appendix AH): {paper}"]
    return "\n".join(lines)


def noise_cmd(args: argparse.Namespace) -> int:
    levels = parse_levels(getattr(args, "levels", None))
    seed = int(getattr(args, "seed", None) or 0)
    embedder = getattr(args, "embedder", None) or "minilm"
    root = Path(tempfile.mkdtemp(prefix="frecall-bench-noise-"))
    try:
        result = measure_noise(Path(args.dir), levels, seed, embedder, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    paths = write_report(result, Path(args.dir) / "reports")
    print(f"bench lifecycle noise: wrote {', '.join(map(str, paths))}", file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps(result))
    else:
        print(tables(result))
    return 0


def write_report(result: Mapping[str, Any], out: Path) -> list[Path]:
    """noise.md, noise.json and noise.png (Jaccard@10 vs level per perturbation) in `out`
    (the command has no --report option: `out` is the benchmark dir's `reports/`)."""
    from bench.plots import noise_png

    out.mkdir(parents=True, exist_ok=True)
    png = noise_png(result, out / "noise.png")
    md = out / "noise.md"
    md.write_text(
        "# Metadata-noise robustness and λ sweep (gold track; paper §6.7, Appendix AH)\n\n"
        f"{result['questions']} questions, seed {result['seed']}, embedder "
        f"`{result['embedder']}`.\n\n```\n{tables(result)}\n```\n\n![noise]({png.name})\n",
        encoding="utf-8",
    )
    js = out / "noise.json"
    js.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return [md, js, png]
