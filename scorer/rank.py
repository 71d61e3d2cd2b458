"""Rank a candidate pool: the scalar loop for small pools, the vectorized one for large.

Both compute the same terms (a property test holds them equal to 1e-9); which one is
faster depends only on k — measured crossover ≈ 90 candidates on our machines.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scorer.pool import Candidate, build_pool
from scorer.scalar import ScalarScores, score_candidates, top_k_scalar
from scorer.score import DEFAULT_OPTIONS, QueryContext, Scores, ScoringOptions, score_pool, top_k
from scorer.tables import PolicyTables

#: Largest pool scored by the scalar loop.
SCALAR_MAX = 80


def rank(
    candidates: Sequence[Candidate],
    ctx: QueryContext,
    tables: PolicyTables,
    k: int,
    options: ScoringOptions = DEFAULT_OPTIONS,
    first: np.ndarray | None = None,
) -> tuple[list[int], Scores | ScalarScores]:
    """(indices of the k best with a positive score, best first; every candidate's terms)."""
    if len(candidates) <= SCALAR_MAX:
        scalar = score_candidates(candidates, ctx, tables, options)
        return top_k_scalar(scalar, k, first), scalar
    scores = score_pool(build_pool(candidates), ctx, tables, options)
    return [int(i) for i in top_k(scores, k, first)], scores
