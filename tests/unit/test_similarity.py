"""σ normalization modes (failure class 4): what each does to a pool whose cosines bunch
because every fact names the same person. The shipped choice (minmax) and the measurement
behind it are pinned in test_policy_tables."""

from __future__ import annotations

import numpy as np
import pytest

from workers.embedding.hashing import HashingEmbedder
from workers.query.similarity import MIN_SPREAD, Calibration, Scale, cosines, fuse

#: Cosines of a weak, bunched pool: nothing matches well, one fact is unrelated.
BUNCHED = {"best": 0.62, "unrelated": 0.59, "weakest": 0.45}
SCALE = Scale(unrelated=0.11, paraphrase=0.84)  # MiniLM's, measured by `Calibration`


def test_minmax_stretches_a_weak_pool() -> None:
    """The observation of issue 10: the best of a weak pool gets σ 1 and an unrelated fact
    close to it ~0.9, whatever the absolute level."""
    sigma = fuse(BUNCHED, {}, 0.0, "minmax")
    assert sigma["best"] == 1.0
    assert sigma["unrelated"] == pytest.approx(1 - 0.03 / MIN_SPREAD)  # 0.88


def test_calibrated_and_ceiling_do_not_stretch_a_weak_pool() -> None:
    calibrated = fuse(BUNCHED, {}, 0.0, "calibrated", SCALE)
    assert calibrated["best"] == pytest.approx((0.62 - 0.11) / 0.73)
    ceiling = fuse(BUNCHED, {}, 0.0, "ceiling", SCALE)
    assert ceiling["best"] < 0.7 and ceiling["unrelated"] < 0.6
    strong = fuse({**BUNCHED, "best": 0.9}, {}, 0.0, "ceiling", SCALE)
    assert strong["best"] == 1.0  # a real match still reaches 1


def test_raw_and_rank_fusion() -> None:
    assert fuse(BUNCHED, {}, 0.0, "raw") == BUNCHED
    ranked = fuse(BUNCHED, {"weakest": 3.0, "best": 1.0}, 0.5, "rank")
    # weakest: dense rank 3, BM25 rank 1; best: dense rank 1, BM25 rank 2.
    assert ranked["weakest"] == pytest.approx(0.5 * 61 / 63 + 0.5)
    assert ranked["best"] == pytest.approx(0.5 + 0.5 * 61 / 62)


def test_convex_fusion_with_bm25_over_its_best() -> None:
    sigma = fuse({"a": 0.62, "b": 0.37}, {"b": 4.0, "c": 2.0}, 0.5, "minmax")
    assert sigma == pytest.approx({"a": 0.5, "b": 0.5, "c": 0.25})


def test_centered_cosines_remove_the_pools_common_direction() -> None:
    common = np.array([1.0, 0.0, 0.0])
    vectors = {
        "a": np.array([0.9, 0.43, 0.0]),
        "b": np.array([0.9, 0.0, 0.43]),
    }
    vectors = {k: v / np.linalg.norm(v) for k, v in vectors.items()}
    query = np.array([0.9, 0.43, 0.0]) / np.linalg.norm([0.9, 0.43, 0.0])
    plain = cosines(query, vectors, "minmax")
    centered = cosines(query, vectors, "centered")
    assert plain["b"] > 0.6  # the shared component makes b look related
    assert centered["a"] == pytest.approx(1.0) and centered["b"] < 0.0
    assert common @ vectors["a"] == pytest.approx(common @ vectors["b"])


def test_calibration_measures_the_embedders_own_scale() -> None:
    scale = Calibration(HashingEmbedder(dim=256)).scale()
    assert scale.paraphrase > scale.unrelated
    assert scale.apply(scale.unrelated) == 0.0 and scale.apply(scale.paraphrase) == 1.0
