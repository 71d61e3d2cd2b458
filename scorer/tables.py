"""The policy compiled into per-category numpy columns, in `CATEGORY_ORDER`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schemas.categories import CATEGORY_ORDER, Intent, LifecycleState
from schemas.policy import Policy

#: Integer codes of lifecycle states inside the scorer's arrays.
STATE_CODES: dict[LifecycleState, int] = {s: i for i, s in enumerate(LifecycleState)}
STATES: tuple[LifecycleState, ...] = tuple(LifecycleState)
ACTIVE = STATE_CODES[LifecycleState.ACTIVE]
SUPERSEDED = STATE_CODES[LifecycleState.SUPERSEDED]
EXPIRED = STATE_CODES[LifecycleState.EXPIRED]
RETRACTED = STATE_CODES[LifecycleState.RETRACTED]


@dataclass(frozen=True)
class PolicyTables:
    """Columns indexed by category position; masks indexed by [intent][state code]."""

    rate: np.ndarray
    inv_rate: np.ndarray
    alpha: np.ndarray
    floor: np.ndarray
    event_time: np.ndarray
    anticipation: np.ndarray
    post_event: np.ndarray
    masks: dict[Intent, np.ndarray]
    #: M_q of raw turns (`Policy.raw_turn_masks`, else `masks`).
    raw_turn_masks: dict[Intent, np.ndarray]
    #: (C, 6): inv_rate, alpha, floor, event_time, ν, μ — mixed by one matmul per query.
    columns: np.ndarray
    #: (C, 7): `columns` and a zero routing-prior column; the scalar path copies it and
    #: sets the query's prior (cheaper per query than stacking the columns anew).
    mix_columns: np.ndarray
    expiry_buffer_hours: float
    reinforcement: float
    routing_floor: float
    emotion_alpha: float
    emotion_rate: float
    numeric_factor: float
    numeric_min_similarity: float
    tentative_weight: dict[Intent, float]
    recency_weight: dict[Intent, float]
    episodic_weight: float
    unanchored_direction: dict[Intent, float]
    #: Per-intent terms resolved once (`scorer.context.IntentTerms.resolve`): resolving
    #: them cost ≈ 10 % of scoring a k = 20 pool.
    intent_cache: dict[Intent, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def compile(cls, policy: Policy) -> PolicyTables:
        cats = [policy.categories[c] for c in CATEGORY_ORDER]

        def col(values: list[float]) -> np.ndarray:
            return np.asarray(values, dtype=np.float64)

        masks = {
            intent: col([policy.masks[intent].get(s, 0.0) for s in STATES]) for intent in Intent
        }
        raw_turn_masks = {
            intent: col([policy.raw_turn_masks[intent].get(s, 0.0) for s in STATES])
            if intent in policy.raw_turn_masks
            else masks[intent]
            for intent in Intent
        }
        inv_rate = col([1.0 / c.decay_per_hour for c in cats])
        alpha = col([c.alpha for c in cats])
        floor = col([c.floor for c in cats])
        event_time = col([1.0 if c.event_time else 0.0 for c in cats])
        anticipation = col([c.anticipation_per_hour for c in cats])
        post_event = col([c.post_event_per_hour for c in cats])
        return cls(
            columns=(
                columns := np.column_stack(
                    (inv_rate, alpha, floor, event_time, anticipation, post_event)
                )
            ),
            mix_columns=np.column_stack((columns, np.zeros(len(cats)))),
            rate=col([c.decay_per_hour for c in cats]),
            inv_rate=col([1.0 / c.decay_per_hour for c in cats]),
            alpha=col([c.alpha for c in cats]),
            floor=col([c.floor for c in cats]),
            event_time=col([1.0 if c.event_time else 0.0 for c in cats]),
            anticipation=col([c.anticipation_per_hour for c in cats]),
            post_event=col([c.post_event_per_hour for c in cats]),
            masks=masks,
            raw_turn_masks=raw_turn_masks,
            expiry_buffer_hours=policy.expiry_buffer_hours,
            reinforcement=policy.reinforcement,
            routing_floor=policy.routing_floor,
            emotion_alpha=policy.emotion.alpha,
            emotion_rate=policy.emotion.decay_per_hour,
            numeric_factor=policy.numeric_rescue.factor,
            numeric_min_similarity=policy.numeric_rescue.min_similarity,
            tentative_weight={i: policy.tentative_weight.get(i, 1.0) for i in Intent},
            recency_weight={i: policy.recency_weight.get(i, 1.0) for i in Intent},
            episodic_weight=policy.episodic_weight,
            unanchored_direction={i: policy.unanchored_direction.get(i, 1.0) for i in Intent},
        )
