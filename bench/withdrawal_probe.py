"""`frecall bench train-withdrawals` / `bench withdrawal-probe`: train the withdrawal probe
(does a user turn give up an earlier plan of the speaker? paper §3.3 AV7) and measure it.

The probe is the attribute probe's machinery with two classes (`withdrawal`, `none`): the
same deterministic full-batch fit (`bench.attribute_probe.fit`, no random draw, weights
rounded to 1e-4), over the same MiniLM vectors the product stores for a user turn. The items
are `bench.withdrawal_items`: the generator's TRAIN half and the human-written development
sets (`DEV_SETS`).

Measurements (none of them tunes anything; the policy threshold is chosen from the
leave-one-set-out numbers and the LoCoMo positive rate, never from a validation set):

* `--leave-one-out`: each development set judged by a probe trained without it;
* default: precision / recall / AUROC on the validation sets (heldout3/4/5, never trained on)
  and on the generator's TEST half, at each threshold of `THRESHOLDS`;
* `--locomo FILE`: the share of LoCoMo dev turns the probe flags (no LoCoMo turn withdraws
  anything by label: a false-positive estimate) and a sample of them to read.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.attribute_items import Item
from bench.attribute_probe import HUMAN_WEIGHT, auroc, embed, fit, read, write
from bench.withdrawal_items import (
    DEV_SETS,
    LABELS,
    VALIDATION_SETS,
    WITHDRAWAL,
    generator_items,
    set_items,
)
from workers.extraction.attribute_probe import Probe
from workers.extraction.withdrawal_probe import ASSET, default_withdrawal_probe
from workers.ports import Embedder

TRAIN_PERSONAS = 40
TRAIN_SEED = 7
SCALE = 384**0.5
THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98)


def training_items() -> list[Item]:
    items = generator_items("train", TRAIN_PERSONAS, TRAIN_SEED)
    return items + [i for name in DEV_SETS for i in set_items(name)]


def fit_items(items: Sequence[Item], x: np.ndarray) -> np.ndarray:
    y = np.array([LABELS.index(i.label) for i in items])
    base = np.array([HUMAN_WEIGHT if i.source in DEV_SETS else 1.0 for i in items])
    return fit(x, y, len(LABELS), base)


def train(embedder: Embedder) -> tuple[np.ndarray, dict[str, Any]]:
    items = training_items()
    weights = fit_items(items, embed(embedder, [i.text for i in items]))
    meta = {
        "labels": list(LABELS), "model": embedder.model_id, "scale": SCALE,
        "human_weight": HUMAN_WEIGHT,
        "training": {"generator": {"phrasings": "train", "personas": TRAIN_PERSONAS,
                                   "seed": TRAIN_SEED}, "development": list(DEV_SETS),
                     "items": len(items),
                     "per_label": {n: sum(i.label == n for i in items) for n in LABELS}},
    }  # fmt: skip
    return weights, meta


def scores(probe: Probe, x: np.ndarray) -> np.ndarray:
    """P(withdrawal) per row."""
    if len(x) == 0:
        return np.zeros(0)
    return probe.probabilities(x)[:, probe.labels.index(WITHDRAWAL)]


def metrics(items: Sequence[Item], p: np.ndarray) -> dict[str, Any]:
    gold = np.array([i.label == WITHDRAWAL for i in items])
    out: dict[str, Any] = {"n": len(items), "positives": int(gold.sum()), "auroc": auroc(p, gold)}
    for t in THRESHOLDS:
        flagged = p >= t
        tp = int((flagged & gold).sum())
        out[f"@{t}"] = {
            "flagged": int(flagged.sum()), "tp": tp,
            "precision": tp / int(flagged.sum()) if flagged.any() else float("nan"),
            "recall": tp / int(gold.sum()) if gold.any() else float("nan"),
        }  # fmt: skip
    return out


def evaluate(embedder: Embedder, probe: Probe, personas: int, seed: int) -> dict[str, Any]:
    sets = [("generator-test", generator_items("test", personas, seed))]
    sets += [(name, set_items(name)) for name in VALIDATION_SETS]
    out = {}
    for name, items in sets:
        out[name] = metrics(items, scores(probe, embed(embedder, [i.text for i in items])))
    return out


def leave_one_out(embedder: Embedder) -> dict[str, Any]:
    everything = training_items()
    x = embed(embedder, [i.text for i in everything])
    out = {}
    for name in DEV_SETS:
        judged = set_items(name)
        held = {i.text for i in judged}
        keep = [k for k, i in enumerate(everything) if i.source != name and i.text not in held]
        weights = fit_items([everything[k] for k in keep], x[keep])
        probe = Probe(LABELS, embedder.model_id, weights, SCALE, True)
        out[name] = metrics(judged, scores(probe, embed(embedder, [i.text for i in judged])))
    return out


def locomo(embedder: Embedder, probe: Probe, path: Path, sample: int) -> dict[str, Any]:
    """How many LoCoMo dev turns the probe flags, and the most confident of them to read."""
    from bench.locomo_data import load

    texts = [t.text for c in load(path) for t in c.turns]
    p = scores(probe, embed(embedder, texts))
    out: dict[str, Any] = {"turns": len(texts)}
    for t in THRESHOLDS:
        out[f"@{t}"] = {"flagged": int((p >= t).sum()), "rate": float((p >= t).mean())}
    order = np.argsort(-p, kind="stable")[:sample]
    out["top"] = [{"p": round(float(p[k]), 4), "text": texts[k]} for k in order]
    return out


def run(args: argparse.Namespace) -> int:
    from frecall.bootstrap import make_embedder
    from frecall.settings import Settings

    embedder = make_embedder(Settings(embedder="minilm"))
    if args.bench == "train-withdrawals":
        weights, meta = train(embedder)
        for path in write(args.out, weights, meta, ASSET):
            print(f"wrote {path}")
        return 0
    probe = read(args.weights, ASSET) if args.weights else default_withdrawal_probe()
    if args.leave_one_out:
        result = leave_one_out(embedder)
    elif args.locomo:
        result = {"locomo": locomo(embedder, probe, args.locomo, args.sample)}
    else:
        result = evaluate(embedder, probe, args.personas, args.seed)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    for name, m in result.items():
        if "top" in m:
            print(f"{name}: {m['turns']} turns")
            for t in THRESHOLDS:
                print(f"  @{t}: flagged {m[f'@{t}']['flagged']} ({m[f'@{t}']['rate']:.4f})")
            for row in m["top"]:
                print(f"  {row['p']:.4f}  {row['text'][:150]}")
            continue
        print(f"{name}: n={m['n']} positives={m['positives']} AUROC={m['auroc']:.3f}")
        for t in THRESHOLDS:
            r = m[f"@{t}"]
            print(f"  @{t}: flagged {r['flagged']:4d} tp {r['tp']:3d} "
                  f"P {r['precision']:.3f} R {r['recall']:.3f}")  # fmt: skip
    return 0
