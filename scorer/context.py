"""What the score of one query depends on besides its candidates: the one source of the
formula's constants and of every intent-dependent term, shared by the vectorized
(`scorer.score`) and the scalar (`scorer.scalar`) implementations."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schemas.categories import Intent
from scorer.tables import PolicyTables

#: Soft weight from which a fact counts as belonging to event-time categories.
EVENT_TIME_MEMBERSHIP = 0.5
#: Intents for which soft-supersession survival Ω applies: a value that a later soft update
#: puts in doubt matters to questions about the present (and what is coming), not to
#: questions about history (our policy; Model 1 leaves the intent dependence open).
OMEGA_INTENTS = frozenset({Intent.CURRENT, Intent.UPCOMING})

#: The named terms of every explained result, in the order the score multiplies them out.
TERM_NAMES = (
    "sigma",
    "decay",
    "validity",
    "activation",
    "alpha",
    "blend",
    "floor",
    "numeric_rescue",
    "rho",
    "omega",
    "mask",
    "direction",
    "score",
)


@dataclass(frozen=True, slots=True)
class QueryContext:
    """Per-query inputs: time (hours since epoch), intent, routing prior p(c|q) or None."""

    as_of_h: float
    intent: Intent = Intent.CURRENT
    routing: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class ScoringOptions:
    """Switches for ablations and baselines (flat similarity ranking = lifecycle off)."""

    lifecycle: bool = True
    routing: bool = True


DEFAULT_OPTIONS = ScoringOptions()


@dataclass(frozen=True, slots=True)
class IntentTerms:
    """The terms of Eq. 2 that depend on the query intent alone, resolved once per query.

    mask: M_q weight per stored-state code (A.1, A.7.3), raw_turn_mask the same for raw
    turns (`Policy.raw_turn_masks`); tentative: weight of soft updates;
    recency: w_q, the share of α_c the intent gives to activation (α_eff = w_q·α_c);
    omega: whether Ω applies; direction: +1 upcoming (future anchors), -1 past, 0 none
    (A.7.4); unanchored: D_q of facts without an anchor under a directed intent.
    """

    mask: tuple[float, ...]
    raw_turn_mask: tuple[float, ...]
    tentative: float
    recency: float
    omega: bool
    direction: int
    unanchored: float

    @classmethod
    def resolve(cls, tables: PolicyTables, intent: Intent) -> IntentTerms:
        cached: IntentTerms | None = tables.intent_cache.get(intent)
        if cached is not None:
            return cached
        terms = tables.intent_cache[intent] = cls._resolve(tables, intent)
        return terms

    @classmethod
    def _resolve(cls, tables: PolicyTables, intent: Intent) -> IntentTerms:
        direction = {Intent.UPCOMING: 1, Intent.PAST: -1}.get(intent, 0)
        return cls(
            mask=tuple(float(w) for w in tables.masks[intent]),
            raw_turn_mask=tuple(float(w) for w in tables.raw_turn_masks[intent]),
            tentative=tables.tentative_weight[intent],
            recency=tables.recency_weight[intent],
            omega=intent in OMEGA_INTENTS,
            direction=direction,
            unanchored=tables.unanchored_direction[intent],
        )
