"""The deterministic lifecycle score (paper Eq. 2) with every factor kept as a named term.

score = max(α·a + (1-α)·σ, floor·σ, numeric rescue) · ρ(c|q) · Ω · M_q(ξ) · D_q(h)

* a = S(Δt)·V(t, h) (+ a short-lived emotional boost), λ_eff the harmonic mean of the
  soft category rates (Lemma 1), slowed by repeated mentions (Appendix G);
* for event-anchored facts of event-time categories activation follows the distance to
  the event, not age (§3.3): S is 1 and the kernel V governs (A.13);
* the semantic floor (Appendix K, Table 48) keeps near-perfect matches of stable
  categories from being buried by zero activation; it does not rescue events that have
  passed — those must stay suppressible (Logistical floor 0, §A.7.1);
* numeric rescue (Appendix H): numeric facts keep ≥ 0.95·σ when σ ≥ 0.85;
* ρ routing prior, Ω soft-supersession survival (Model 1), M_q the lifecycle-state mask
  for the query intent (A.1, A.7.3) evaluated on the state *as of* the query time
  (bi-temporal), D_q the event-direction factor of upcoming/past queries (A.7.4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scorer.context import (
    DEFAULT_OPTIONS,
    EVENT_TIME_MEMBERSHIP,
    OMEGA_INTENTS,
    TERM_NAMES,
    IntentTerms,
    QueryContext,
    ScoringOptions,
)
from scorer.pool import (
    EMOTION,
    EPISODIC,
    EVENT,
    INGEST,
    LAST_MENTION,
    LOG_MENTIONS,
    NUMERIC,
    RETRACTED_AT,
    SIGMA,
    STATE,
    SUPERSEDED_AT,
    TENTATIVE,
    Pool,
)
from scorer.tables import ACTIVE, EXPIRED, RETRACTED, STATES, SUPERSEDED, PolicyTables

__all__ = [
    "DEFAULT_OPTIONS",
    "EVENT_TIME_MEMBERSHIP",
    "OMEGA_INTENTS",
    "TERM_NAMES",
    "QueryContext",
    "Scores",
    "ScoringOptions",
    "score_pool",
    "top_k",
]


@dataclass(frozen=True, slots=True)
class Scores:
    """Every term as a column over the pool; `score` is their product."""

    sigma: np.ndarray
    decay: np.ndarray
    validity: np.ndarray
    activation: np.ndarray
    alpha: np.ndarray
    blend: np.ndarray
    floor: np.ndarray
    numeric_rescue: np.ndarray
    rho: np.ndarray
    omega: np.ndarray
    mask: np.ndarray
    direction: np.ndarray
    state: np.ndarray  # int codes, as of the query time
    score: np.ndarray

    def terms(self, i: int) -> dict[str, float]:
        """The named terms of candidate i (the `terms` of an explained result)."""
        return {name: float(getattr(self, name)[i]) for name in TERM_NAMES}

    def state_name(self, i: int) -> str:
        return STATES[int(self.state[i])].value


def _state_as_of(pool: Pool, now: float, anchored: np.ndarray, buffer_h: float) -> np.ndarray:
    """ξ at the query time from stored state and transition times (bi-temporal)."""
    t = pool.table
    event = t[:, EVENT]
    if pool.any_transition:
        stored = t[:, STATE]
        # NaN comparisons are False: a transition that never happened does not apply.
        state = np.where(stored > RETRACTED, stored, float(ACTIVE))
        state[t[:, SUPERSEDED_AT] <= now] = SUPERSEDED
        state[t[:, RETRACTED_AT] <= now] = RETRACTED
    else:
        state = np.zeros(len(pool))
    # Date-aware expiry with a buffer (Appendix K): only event-time categories.
    state[(state == ACTIVE) & anchored & (event + buffer_h < now)] = EXPIRED
    return state.astype(np.intp)


def score_pool(
    pool: Pool,
    ctx: QueryContext,
    tables: PolicyTables,
    options: ScoringOptions = DEFAULT_OPTIONS,
) -> Scores:
    """Score every candidate. O(k): a fixed number of vector operations over the pool."""
    now = ctx.as_of_h
    t = pool.table
    sigma = t[:, SIGMA]
    k = len(pool)
    ones = np.ones(k)
    if not options.lifecycle:
        zeros = np.zeros(k)
        return Scores(
            sigma,
            ones,
            ones,
            ones,
            zeros,
            sigma,
            zeros,
            zeros,
            ones,
            ones,
            ones,
            ones,
            pool.state,
            sigma.copy(),
        )

    terms = IntentTerms.resolve(tables, ctx.intent)
    routing = ctx.routing if options.routing else None
    # One matmul gives every soft-membership mix at once (Lemma 1 for the rate).
    per_category = tables.columns if routing is None else np.column_stack((tables.columns, routing))
    mixed = pool.weights @ per_category
    inv_rate, floor_w, et = mixed[:, 0], mixed[:, 2], mixed[:, 3]
    # w_q·α_c: questions about what happened or what was true before (past, historical)
    # give activation no weight: an old fact is no less an answer to them (policy
    # `recency_weight`, measured on LoCoMo).
    alpha = mixed[:, 1] * terms.recency

    event = t[:, EVENT]
    ahead = event - now  # NaN when unanchored
    anchored = (et >= EVENT_TIME_MEMBERSHIP) & (ahead == ahead)
    # V = exp(-ν (h-t)+ - μ (t-h)+); fmax maps NaN to 0, and the mask zeroes the exponent
    # of facts outside event-time categories, so their V is exactly 1.
    exponent = (mixed[:, 4] * np.fmax(ahead, 0.0) + mixed[:, 5] * np.fmax(-ahead, 0.0)) / (
        np.maximum(et, 1e-12)
    )
    valid = np.exp(-exponent * anchored)

    # λ' = λ_eff / (1 + r ln mentions) (Appendix G) → age · λ' = age / (inv_rate (1 + r ln m)).
    age = np.maximum(now - t[:, LAST_MENTION], 0.0)
    decay = np.exp(-age / (inv_rate * (1.0 + tables.reinforcement * t[:, LOG_MENTIONS])))
    decay[anchored] = 1.0
    activation = decay * valid
    if pool.any_emotion:
        activation = np.minimum(
            activation
            + tables.emotion_alpha
            * t[:, EMOTION]
            * np.exp(-tables.emotion_rate * np.maximum(now - t[:, INGEST], 0.0)),
            1.0,
        )

    blend = alpha * (activation - sigma) + sigma
    floor = floor_w * sigma
    floor[anchored & (ahead < 0.0)] = 0.0  # passed events are not rescued by the floor
    base = np.maximum(blend, floor)
    if pool.any_numeric:
        rescue = (t[:, NUMERIC] * (sigma >= tables.numeric_min_similarity)) * (
            tables.numeric_factor * sigma
        )
        base = np.maximum(base, rescue)
    else:
        rescue = np.zeros(k)

    if routing is not None:
        top = float(routing.max()) or 1.0
        rho = tables.routing_floor + ((1.0 - tables.routing_floor) / top) * mixed[:, 6]
    else:
        rho = ones

    if pool.pressure_owner.size and terms.omega:
        live = pool.pressure_at_h <= now
        omega = np.exp(
            np.bincount(pool.pressure_owner, weights=pool.pressure_log_survival * live, minlength=k)
        )
    else:
        omega = ones

    state = _state_as_of(pool, now, anchored, tables.expiry_buffer_hours)
    mask = np.asarray(terms.mask)[state]
    if pool.any_episodic and terms.raw_turn_mask != terms.mask:
        mask = np.where(t[:, EPISODIC] > 0.0, np.asarray(terms.raw_turn_mask)[state], mask)
    if pool.any_transition or ctx.as_of_h < float(t[:, INGEST].max(initial=-np.inf)):
        mask = mask * (t[:, INGEST] <= now)  # stated after as_of: not yet known
    tentative = terms.tentative
    if pool.any_tentative and tentative != 1.0:
        # "Where do I live?" / "where did I live before?" ask for committed values; a soft
        # update ("thinking about moving") never was one (App. F: both kept, not equal).
        mask = mask * np.where(t[:, TENTATIVE] > 0.0, tentative, 1.0)
    if pool.any_episodic:
        # A fact outranks the raw turn it came from on equal evidence (Appendix AA).
        mask = mask * np.where(t[:, EPISODIC] > 0.0, tables.episodic_weight, 1.0)

    if terms.direction > 0:
        direction = np.where(ahead == ahead, (ahead >= 0.0) * 1.0, terms.unanchored)
    elif terms.direction < 0:
        direction = np.where(ahead == ahead, (ahead < 0.0) * 1.0, terms.unanchored)
    else:
        direction = ones

    score = base * rho * omega * mask * direction
    return Scores(
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
        state,
        score,
    )


def top_k(scores: Scores, k: int, first: np.ndarray | None = None) -> np.ndarray:
    """Indices of the k best candidates with a positive score, best first.

    `first` (optional, bool per candidate) puts a tier ahead of the rest: the query path
    passes its relevance tier. Ties break on σ, then pool position: deterministic.
    """
    s = scores.score
    eligible: np.ndarray = np.flatnonzero(s > 0.0)
    if eligible.size == 0:
        return eligible
    keys = [eligible, -scores.sigma[eligible], -s[eligible]]
    if first is not None:
        keys.append(~first[eligible])
    order: np.ndarray = np.lexsort(keys)
    return eligible[order[:k]]
