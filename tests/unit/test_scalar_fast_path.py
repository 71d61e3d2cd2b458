"""The tuned scalar scorer gives exactly the reference loop's floats, states and order.

Not "close": the same bits (`float.hex`), because query JSON must stay byte-identical
across versions. Pools carry exact duplicates and shared similarities so that the tie
rules of the ranking (score, then σ, then position; the tier ahead) are exercised.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.categories import Intent
from scorer.context import QueryContext, ScoringOptions
from scorer.pool import Candidate
from scorer.scalar import ScalarScores, score_candidates, top_k_scalar
from tests.unit import scalar_reference as reference
from tests.unit.scorer_helpers import NOW_H, TABLES
from tests.unit.test_scorer_properties import candidates, intents, routings


def _bits(row: tuple[float, ...]) -> tuple[str, ...]:
    return tuple(float(x).hex() for x in row)


@st.composite
def tied_pools(draw: st.DrawFn) -> list[Candidate]:
    """Random candidates, some repeated verbatim and some sharing another's σ."""
    pool = draw(st.lists(candidates(), min_size=0, max_size=30))
    for _ in range(draw(st.integers(0, 4)) if pool else 0):
        source = pool[draw(st.integers(0, len(pool) - 1))]
        twin = draw(st.sampled_from(["copy", "sigma"]))
        if twin == "copy":
            pool.insert(draw(st.integers(0, len(pool))), source)
        else:
            other = draw(candidates())
            fields = {f: getattr(other, f) for f in Candidate.__slots__}
            pool.append(Candidate(**{**fields, "sigma": source.sigma}))
    return pool


@settings(max_examples=400, deadline=None)
@given(tied_pools(), intents, routings, st.booleans(), st.booleans(), st.data())
def test_fast_scalar_path_is_bit_identical_to_the_reference(
    pool: list[Candidate],
    intent: Intent,
    routing: np.ndarray | None,
    lifecycle: bool,
    routed: bool,
    data: st.DataObject,
) -> None:
    ctx = QueryContext(NOW_H, intent, routing)
    options = ScoringOptions(lifecycle=lifecycle, routing=routed)
    got = score_candidates(pool, ctx, TABLES, options)
    want = reference.score_candidates(pool, ctx, TABLES, options)
    assert [_bits(r) for r in got.rows] == [_bits(r) for r in want.rows]
    assert list(got.states) == list(want.states)
    assert [x.hex() for x in got.score] == [x.hex() for x in want.score]
    assert [got.terms(i) for i in range(len(pool))] == [want.terms(i) for i in range(len(pool))]
    tier = np.array(data.draw(st.lists(st.booleans(), min_size=len(pool), max_size=len(pool))))
    for k in (1, 10, len(pool)):
        assert top_k_scalar(got, k) == reference.top_k_scalar(want, k)
        assert top_k_scalar(got, k, tier) == reference.top_k_scalar(want, k, tier)


def test_a_tie_on_score_keeps_pool_order() -> None:
    """Three candidates with one score keep their pool order; the tier goes first."""
    base = dict(weights=(1.0,) + (0.0,) * 10, ingest_h=NOW_H - 1.0, last_mention_h=NOW_H - 1.0)
    pool = [
        Candidate(key="a", sigma=0.5, **base),  # type: ignore[arg-type]
        Candidate(key="b", sigma=0.5, **base),  # type: ignore[arg-type]
        Candidate(key="c", sigma=0.5, **base),  # type: ignore[arg-type]
    ]
    scores = score_candidates(pool, QueryContext(NOW_H), TABLES)
    assert len(set(scores.score)) == 1
    assert top_k_scalar(scores, 3) == [0, 1, 2]
    assert top_k_scalar(scores, 3, np.array([False, True, False])) == [1, 0, 2]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, -0.0, 0.25, 0.5, 0.75]), st.sampled_from([0.1, 0.9])),
        max_size=25,
    ),
    st.data(),
)
def test_top_k_orders_ties_like_the_reference(
    pairs: list[tuple[float, float]], data: st.DataObject
) -> None:
    """Equal scores with different σ (rare from Eq. 2, so drawn directly): σ decides."""
    rows = [(sigma, *([1.0] * 11), score) for score, sigma in pairs]
    got = ScalarScores(rows, [0] * len(rows), [r[-1] for r in rows])
    want = reference.ScalarScores(rows, [0] * len(rows))
    tier = np.array(data.draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows))))
    for k in (1, 5, len(rows)):
        assert top_k_scalar(got, k) == reference.top_k_scalar(want, k)
        assert top_k_scalar(got, k, tier) == reference.top_k_scalar(want, k, tier)
