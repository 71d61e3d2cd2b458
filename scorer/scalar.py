"""The same lifecycle score as `scorer.score.score_pool`, one candidate at a time.

At the paper's k = 20 the fixed cost of ~60 small numpy calls dominates; a plain loop
over the candidates is faster there, and it doubles as a readable reference: a property
test holds the two implementations equal on random pools. `scorer.rank` picks one by k.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import starmap
from operator import attrgetter
from struct import Struct

import numpy as np

from scorer.context import (
    DEFAULT_OPTIONS,
    EVENT_TIME_MEMBERSHIP,
    TERM_NAMES,
    IntentTerms,
    QueryContext,
    ScoringOptions,
)
from scorer.pool import Candidate
from scorer.tables import ACTIVE, EXPIRED, RETRACTED, STATES, SUPERSEDED, PolicyTables

_SCORE = len(TERM_NAMES) - 1
_WEIGHTS = attrgetter("weights")


@dataclass(frozen=True, slots=True)
class ScalarScores:
    """Per-candidate term tuples (in `TERM_NAMES` order) and lifecycle states as of t.

    `score` is the last term of every row, kept as its own list: the query path reads it
    once per candidate, and a property rebuilding it on each read made that quadratic.
    """

    rows: Sequence[tuple[float, ...]]
    states: Sequence[int]
    score: list[float]

    def terms(self, i: int) -> dict[str, float]:
        return dict(zip(TERM_NAMES, self.rows[i], strict=True))

    def state_name(self, i: int) -> str:
        return STATES[self.states[i]].value


@lru_cache(maxsize=8)
def _packer(count: int) -> Struct:
    """Packs one candidate's `count` category weights as doubles. Joining k packed rows is
    the cheapest way found from k tuples of Python floats to one numpy table (≈ 40 %
    under `np.fromiter` or `np.array` at k = 20), and a tuple of the wrong length fails."""
    return Struct(f"{count}d")


def _mix_columns(tables: PolicyTables, routing: np.ndarray | None) -> np.ndarray:
    """The (C, 7) matrix the candidates' weights are mixed with: the policy's columns and
    the routing prior (zeros without one) — the same C-ordered array `np.column_stack`
    gives, so the same matmul and the same floats, at a third of its cost."""
    if routing is None:
        return tables.mix_columns
    mix = tables.mix_columns.copy()
    mix[:, -1] = routing
    return mix


def score_candidates(
    candidates: Sequence[Candidate],
    ctx: QueryContext,
    tables: PolicyTables,
    options: ScoringOptions = DEFAULT_OPTIONS,
) -> ScalarScores:
    """Score every candidate; see `scorer.score` for the formula and its sources.

    Written for speed at the paper's k = 20 without changing one bit of any result (a
    test holds it equal to the plain loop, `tests/unit/scalar_reference.py`): the
    builtin `max`/`min` calls are spelled as the comparisons they make (first of equals
    kept), fields are read only on the branches that use them, factors that are exactly
    1 on a branch (V of unanchored facts, S of anchored ones, Ω without pressure, D
    without a direction) are not multiplied in — x·1.0 is x in IEEE 754 — and the
    category mix is one matmul over a weight table packed in one call.
    """
    if not options.lifecycle:
        flat = [
            (c.sigma, 1.0, 1.0, 1.0, 0.0, c.sigma, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, c.sigma)
            for c in candidates
        ]
        return ScalarScores(flat, [c.state for c in candidates], [c.sigma for c in candidates])
    now = ctx.as_of_h
    terms = IntentTerms.resolve(tables, ctx.intent)
    routing = ctx.routing if options.routing else None
    # Every soft-membership mix (Lemma 1) and routing prior at once: one small matmul
    # beats mixing 11 weights per candidate in Python (≈ 60 % of this loop's time at
    # k = 20, measured with `frecall bench scorer`).
    k = len(candidates)
    if k:
        n_cat = len(tables.columns)
        packed = b"".join(starmap(_packer(n_cat).pack, map(_WEIGHTS, candidates)))
        weights = np.frombuffer(packed, np.float64).reshape(k, n_cat)
        mixed = (weights @ _mix_columns(tables, routing)).tolist()
    else:
        mixed = []
    routed = routing is not None
    rho_floor = tables.routing_floor
    # np.maximum.reduce is what ndarray.max calls, without the method's Python wrapper.
    top = float(np.maximum.reduce(routing)) if routing is not None else 1.0
    rho_scale = (1.0 - rho_floor) / (top or 1.0)
    mask_row, tentative_w, recency = terms.mask, terms.tentative, terms.recency
    raw_mask_row = terms.raw_turn_mask
    episodic_w = tables.episodic_weight
    unanchored, omega_applies = terms.unanchored, terms.omega
    upcoming, past = terms.direction > 0, terms.direction < 0
    reinforce, buffer_h = tables.reinforcement, tables.expiry_buffer_hours
    # The reinforcement divisor of a single mention: 1 + r·0, computed as the plain loop
    # computes it so that even a non-finite r gives the same bits.
    once = 1.0 + reinforce * 0.0
    emo_alpha, emo_rate = tables.emotion_alpha, tables.emotion_rate
    num_factor, num_min = tables.numeric_factor, tables.numeric_min_similarity
    exp, log, log1p = math.exp, math.log, math.log1p
    rows: list[tuple[float, ...]] = []
    states: list[int] = []
    scores: list[float] = []
    add_row, add_state, add_score = rows.append, states.append, scores.append
    for c, (inv, alpha, floor_w, et, nu, mu, prior) in zip(candidates, mixed, strict=True):
        alpha *= recency
        sigma = c.sigma
        event = c.event_h
        if event is None:
            ahead = 0.0
            anchored = False
        else:
            ahead = event - now
            anchored = et >= EVENT_TIME_MEMBERSHIP
        if anchored:
            decay = 1.0
            scale = 1e-12 if et < 1e-12 else et  # max(et, 1e-12)
            valid = activation = exp(-(nu * ahead if ahead > 0.0 else -mu * ahead) / scale)
        else:
            valid = 1.0
            mentions = c.mentions
            age = now - c.last_mention_h
            if age < 0.0:  # max(age, 0.0)
                age = 0.0
            if mentions > 1:
                decay = exp(-age / (inv * (1.0 + reinforce * log(mentions))))
            else:
                decay = exp(-age / (inv * once))
            activation = decay
        emotion = c.emotion
        if emotion:
            since = now - c.ingest_h
            if since < 0.0:
                since = 0.0
            activation = activation + emo_alpha * emotion * exp(-emo_rate * since)
            if activation > 1.0:  # min(activation, 1.0)
                activation = 1.0
        blend = alpha * (activation - sigma) + sigma
        floor = 0.0 if anchored and ahead < 0.0 else floor_w * sigma
        rescue = num_factor * sigma if c.numeric and sigma >= num_min else 0.0
        base = blend  # max(blend, floor, rescue): the first of equals is kept
        if floor > base:
            base = floor
        if rescue > base:
            base = rescue
        rho = rho_floor + rho_scale * prior if routed else 1.0
        score = base * rho
        omega = 1.0
        pressures = c.pressures
        if pressures and omega_applies:
            omega = exp(sum(log1p(-min(g, 0.999)) for at, g in pressures if at <= now))
            score *= omega
        state = c.state
        if state <= RETRACTED:
            state = ACTIVE
        at = c.superseded_at_h
        if at is not None and at <= now:
            state = SUPERSEDED
        at = c.retracted_at_h
        if at is not None and at <= now:
            state = RETRACTED
        if state == ACTIVE and anchored and ahead + buffer_h < 0.0:
            state = EXPIRED
        row = raw_mask_row if c.episodic else mask_row
        mask = row[state] if c.ingest_h <= now else 0.0
        if c.tentative:
            mask *= tentative_w
        if c.episodic:
            mask *= episodic_w
        score *= mask
        if upcoming:
            direction = unanchored if event is None else float(ahead >= 0.0)
            score *= direction
        elif past:
            direction = unanchored if event is None else float(ahead < 0.0)
            score *= direction
        else:
            direction = 1.0
        add_row(
            (
                sigma,
                decay,
                valid,
                activation,
                alpha,
                blend,
                floor,
                rescue,
                rho,
                omega,
                mask,
                direction,
                score,
            )
        )
        add_state(state)
        add_score(score)
    return ScalarScores(rows, states, scores)


def top_k_scalar(scores: ScalarScores, k: int, first: np.ndarray | None = None) -> list[int]:
    """Same order as `scorer.score.top_k`: tier, score, σ, then position.

    Scores rarely tie: they are sorted as plain floats (a stable sort, so equal keys keep
    their positions), and only a pool with a tie among its positive scores pays for the
    full (score, σ, position) key. The tier is a stable partition of that order.
    """
    score = scores.score
    eligible = [i for i, s in enumerate(score) if s > 0.0]
    if len({score[i] for i in eligible}) == len(eligible):
        order = sorted(eligible, key=score.__getitem__, reverse=True)
    else:
        rows = scores.rows
        order = [i for _, _, i in sorted((-score[i], -rows[i][0], i) for i in eligible)]
    if first is not None:
        tier = first.tolist()
        order = [i for i in order if tier[i]] + [i for i in order if not tier[i]]
    return order[:k]
