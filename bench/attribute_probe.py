"""`frecall bench train-attributes` / `bench attribute-probe`: train the attribute probe and
compare it with the prototype classifier on the same held-out items (issue 11).

Training is deterministic: the items come from a fixed generator seed and the prototype
table, the vectors from the product's MiniLM embedder, and the fit is full-batch gradient
descent with a fixed step and number of steps from zero weights (no random draw at all),
in float64; the weights are rounded to 1e-4 before they are stored as float32, so the same
items give the same bytes (`tests/e2e/test_attribute_probe.py` regenerates the asset).

Evaluation: attribute accuracy and macro-F1 (over the attribute classes, `none` left out of
the mean) and how well a threshold on the winning score separates right answers from wrong
ones (AUROC), for statements and questions of the generator's TEST half and of each
development set; both classifiers see the same items and read the same vectors.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.attribute_items import (
    DEV_SETS,
    NONE,
    Item,
    dev_items,
    generator_items,
    labels,
    prototype_items,
    set_items,
    validation_items,
)
from workers.extraction.attribute_probe import ASSET, Probe, load_probe
from workers.extraction.prototypes import PrototypeClassifier
from workers.ports import Embedder

#: The training set: personas and seed of the generator's TRAIN half.
TRAIN_PERSONAS = 40
TRAIN_SEED = 7
#: Vectors are unit length: scaled so a component is ~1 and one step size fits every class.
SCALE = 384**0.5
L2 = 1e-2
STEPS = 400
STEP_SIZE = 0.5
#: `none` items weigh this much of what an attribute class weighs in total (the rest are
#: balanced: every attribute class weighs alike, however many items it has).
NONE_WEIGHT = 4.0
#: A human-written item (a development set's turn or question) weighs this many generator
#: items within its class: there are ~10x fewer of them, and they are the wording the probe
#: meets in use. Chosen by leave-one-set-out accuracy (`--leave-one-out`), never by a
#: validation set.
HUMAN_WEIGHT = 3.0


def training_items() -> list[Item]:
    """Prototypes, the generator's TRAIN half and the development sets (`DEV_SETS`);
    `leave_one_out` drops one set at a time from these."""
    items = [*prototype_items(), *generator_items("train", TRAIN_PERSONAS, TRAIN_SEED)]
    return items + [i for _, chosen in dev_items() for i in chosen]


def embed(embedder: Embedder, texts: Sequence[str], batch: int = 64) -> np.ndarray:
    out = [embedder.embed(list(texts[i : i + batch])) for i in range(0, len(texts), batch)]
    return np.asarray([v for chunk in out for v in chunk], dtype=np.float32)


def fit(x: np.ndarray, y: np.ndarray, classes: int, base: np.ndarray | None = None) -> np.ndarray:
    """Multinomial logistic regression with L2, by a fixed number of full-batch gradient
    steps from zero (with Nesterov momentum): deterministic, no random state. `base` is each
    item's weight within its class (default 1)."""
    xs = np.hstack([x.astype(np.float64) * SCALE, np.ones((len(x), 1))])
    base = np.ones(len(y)) if base is None else base.astype(np.float64)
    counts = np.bincount(y, weights=base, minlength=classes).astype(np.float64)
    per_class = np.where(counts > 0, 1.0 / np.where(counts > 0, counts, 1.0), 0.0)
    attributes = float(np.count_nonzero(counts[:-1]))
    per_class[-1] *= NONE_WEIGHT  # the last class is `none`
    weight = base * per_class[y] / (attributes + NONE_WEIGHT)
    onehot = np.eye(classes)[y]
    w = np.zeros((xs.shape[1], classes))
    velocity = np.zeros_like(w)
    penalty = np.ones((xs.shape[1], 1))
    penalty[-1] = 0.0  # no penalty on the bias
    for _ in range(STEPS):
        ahead = w + 0.9 * velocity
        logits = xs @ ahead
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = xs.T @ ((p - onehot) * weight[:, None]) + L2 * penalty * ahead
        velocity = 0.9 * velocity - STEP_SIZE * grad
        w = w + velocity
    return np.round(w, 4).astype(np.float32)


def human(item: Item) -> bool:
    return item.source in DEV_SETS


def fit_items(items: Sequence[Item], x: np.ndarray, names: Sequence[str]) -> np.ndarray:
    index = {n: i for i, n in enumerate(names)}
    y = np.array([index[i.label] for i in items])
    base = np.array([HUMAN_WEIGHT if human(i) else 1.0 for i in items])
    return fit(x, y, len(names), base)


def train(embedder: Embedder) -> tuple[np.ndarray, dict[str, Any]]:
    names = labels()
    items = training_items()
    x = embed(embedder, [i.text for i in items])
    weights = fit_items(items, x, names)
    meta = {
        "labels": names, "model": embedder.model_id, "scale": SCALE, "l2": L2, "steps": STEPS,
        "step_size": STEP_SIZE, "none_weight": NONE_WEIGHT, "human_weight": HUMAN_WEIGHT,
        "training": {"generator": {"phrasings": "train", "personas": TRAIN_PERSONAS,
                                   "seed": TRAIN_SEED}, "development": list(DEV_SETS),
                     "items": len(items),
                     "per_label": {n: sum(i.label == n for i in items) for n in names}},
    }  # fmt: skip
    return weights, meta


def write(out: Path, weights: np.ndarray, meta: dict[str, Any], asset: str = ASSET) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    npy, js = out / f"{asset}.npy", out / f"{asset}.json"
    with npy.open("wb") as f:
        np.save(f, weights, allow_pickle=False)
    js.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return [npy, js]


def read(directory: Path, asset: str = ASSET) -> Probe:
    """The probe `write` put in `directory` (what `--weights DIR` measures)."""
    meta = json.loads((directory / f"{asset}.json").read_text("utf-8"))
    return load_probe(np.load(directory / f"{asset}.npy"), meta)


# ---- evaluation ------------------------------------------------------------------------


def predictions(scores: list[dict[str, float]], known: Sequence[str], minimum: float,
                margin: float) -> list[tuple[str, str, float]]:  # fmt: skip
    """(predicted label, best attribute, its score) per item: the prediction is the best
    attribute if it reaches `minimum` and is within `margin` of every other score (`none`
    included, when the classifier has one) — the rule `latest_value` applies — else `none`."""
    out = []
    for s in scores:
        best = max((k for k in known if k in s), key=lambda k: (s[k], k))
        ok = s[best] >= minimum and s[best] >= max(s.values()) - margin
        out.append((best if ok else NONE, best, s[best]))
    return out


def auroc(scores: np.ndarray, right: np.ndarray) -> float:
    """P(a right item outscores a wrong one): how well a threshold separates them."""
    pos, neg = scores[right], scores[~right]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    order = np.argsort(np.concatenate([pos, neg]), kind="stable")
    ranks = np.empty(len(order))
    ranks[order] = np.arange(1, len(order) + 1)
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def metrics(items: Sequence[Item], predicted: list[tuple[str, str, float]],
            known: Sequence[str]) -> dict[str, float]:  # fmt: skip
    gold = np.array([i.label for i in items])
    pred = np.array([p for p, _, _ in predicted])
    best = np.array([b for _, b, _ in predicted])
    score = np.array([s for _, _, s in predicted])
    f1s = []
    for k in known:
        tp = float(((pred == k) & (gold == k)).sum())
        fp, fn = float(((pred == k) & (gold != k)).sum()), float(((pred != k) & (gold == k)).sum())
        if tp + fp + fn:
            f1s.append(2 * tp / (2 * tp + fp + fn))
    attr = gold != NONE
    return {
        "n": len(items), "attribute_items": int(attr.sum()),
        "accuracy": float((pred == gold).mean()),
        "attribute_recall": float((pred[attr] == gold[attr]).mean()) if attr.any() else 0.0,
        "false_attribute": float((pred[~attr] != NONE).mean()) if (~attr).any() else 0.0,
        "macro_f1": float(np.mean(f1s)) if f1s else 0.0,
        # Calibration: how well a threshold on the best attribute's score separates items
        # whose best attribute is the right one from the rest (wrong attribute, or none).
        "auroc": auroc(score, best == gold),
    }  # fmt: skip


def compare(items: Sequence[Item], x: np.ndarray, probe: Probe,
            prototypes: PrototypeClassifier, thresholds: dict[str, dict[str, float]]
            ) -> dict[str, dict[str, float]]:  # fmt: skip
    known = [n for n in probe.labels if n != NONE]
    proto = [dict(v.attribute_scores) for v in prototypes.classify(x)]
    trained = [dict(v.attribute_scores) for v in probe.classify(x)]
    kind = "question" if items and items[0].kind == "question" else "statement"
    pt, pr = thresholds["prototypes"], thresholds["probe"]
    return {
        "prototypes": metrics(items, predictions(proto, known, pt[kind], pt["margin"]), known),
        "probe": metrics(items, predictions(trained, known, pr[kind], pr["margin"]), known),
    }


def evaluate(embedder: Embedder, probe: Probe, thresholds: dict[str, dict[str, float]],
             personas: int, seed: int) -> dict[str, Any]:  # fmt: skip
    prototypes = PrototypeClassifier(embedder)
    sets = [("generator-test", generator_items("test", personas, seed)), *validation_items()]
    if not probe.trained_on_development:  # else they are no test: see --leave-one-out
        sets += list(dev_items())
    out: dict[str, Any] = {}
    for name, items in sets:
        out.update(_by_kind(name, items, embedder, probe, prototypes, thresholds))
    return out


def _by_kind(name: str, items: Sequence[Item], embedder: Embedder, probe: Probe,
             prototypes: PrototypeClassifier, thresholds: dict[str, dict[str, float]]
             ) -> dict[str, Any]:  # fmt: skip
    """`compare` on the statements and on the questions of one set."""
    out = {}
    for kind in ("statement", "question"):
        chosen = [i for i in items if i.kind == kind]
        x = embed(embedder, [i.text for i in chosen])
        out[f"{name}/{kind}"] = compare(chosen, x, probe, prototypes, thresholds)
    return out


def leave_one_out(embedder: Embedder, thresholds: dict[str, dict[str, float]]) -> dict[str, Any]:
    """Each development set judged by a probe trained on everything else (prototypes, the
    generator's TRAIN half, the other development sets): the honest accuracy of training on
    human-written material. The vectors are embedded once."""
    names = labels()
    everything = training_items()
    x = embed(embedder, [i.text for i in everything])
    prototypes = PrototypeClassifier(embedder)
    out: dict[str, Any] = {}
    for name in DEV_SETS:
        judged = set_items(name)
        held = {i.text for i in judged}
        keep = [k for k, i in enumerate(everything) if i.source != name and i.text not in held]
        weights = fit_items([everything[k] for k in keep], x[keep], names)
        probe = Probe(tuple(names), embedder.model_id, weights, SCALE, True)
        out.update(_by_kind(name, judged, embedder, probe, prototypes, thresholds))
    return out


def thresholds_from(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    from schemas.policy import LatestValuePolicy

    p = LatestValuePolicy()
    return {
        "prototypes": {"question": p.question_min, "statement": p.candidate_min,
                       "margin": p.question_margin},
        "probe": {"question": args.probe_min, "statement": args.probe_min,
                  "margin": args.probe_margin},
    }  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from frecall.bootstrap import make_embedder
    from frecall.settings import Settings

    embedder = make_embedder(Settings(embedder="minilm"))
    if args.bench == "train-attributes":
        weights, meta = train(embedder)
        for path in write(args.out, weights, meta):
            print(f"wrote {path}")
        return 0
    from workers.extraction.attribute_probe import default_probe

    probe = read(args.weights) if args.weights else default_probe()
    thresholds = thresholds_from(args)
    if args.leave_one_out:
        result = leave_one_out(embedder, thresholds)
    else:
        result = evaluate(embedder, probe, thresholds, args.personas, args.seed)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{'set/kind':28} {'clf':10} {'n':>4} {'acc':>6} {'attrR':>6} {'falseA':>6} "
          f"{'mF1':>6} {'AUROC':>6}")  # fmt: skip
    for name, both in result.items():
        for clf, m in both.items():
            print(f"{name:28} {clf:10} {m['n']:4d} {m['accuracy']:6.3f} "
                  f"{m['attribute_recall']:6.3f} {m['false_attribute']:6.3f} "
                  f"{m['macro_f1']:6.3f} {m['auroc']:6.3f}")  # fmt: skip
    return 0
