"""`frecall bench locomo --ablations`: the product with one policy choice undone at a time.

Every departure of the shipped policy from the paper (or choice where the paper is silent)
is measured here, on the same store and questions as the product, in the same run — the
numbers the policy file's `notes` cite. Each entry: name → (description, policy changes,
scoring options).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from schemas.categories import Category, Intent, LifecycleState
from schemas.policy import Policy
from scorer.score import ScoringOptions

FLAT = ScoringOptions(lifecycle=False)


def _other(alpha: float, floor: float) -> Callable[[Policy], dict[str, Any]]:
    def change(policy: Policy) -> dict[str, Any]:
        cats = dict(policy.categories)
        cats[Category.OTHER] = cats[Category.OTHER].model_copy(
            update={"alpha": alpha, "floor": floor}
        )
        return {"categories": cats}

    return change


def _no_told_after_history(policy: Policy) -> dict[str, Any]:
    cats = {
        c: p.model_copy(update={"told_after_is_history": False})
        for c, p in policy.categories.items()
    }
    return {"categories": cats}


def _without_superseded_for_the_past(policy: Policy) -> dict[str, Any]:
    past = {s: w for s, w in policy.masks[Intent.PAST].items() if s != LifecycleState.SUPERSEDED}
    return {"masks": {**policy.masks, Intent.PAST: past}, "raw_turn_masks": {}}


def _one_mask_for_raw_turns(policy: Policy) -> dict[str, Any]:
    """Raw turns and facts under the same M_q: the raw turns' (the previous default)."""
    return {"masks": {**policy.masks, **policy.raw_turn_masks}, "raw_turn_masks": {}}


def _fixed(**changes: Any) -> Callable[[Policy], dict[str, Any]]:
    return lambda _policy: changes


def _rule_off(*names: str) -> Callable[[Policy], dict[str, Any]]:
    """The window rules `names` (workers/query/window_rules.py) switched off."""

    def change(policy: Policy) -> dict[str, Any]:
        return {n: getattr(policy, n).model_copy(update={"enabled": False}) for n in names}

    return change


def _all_states_served(policy: Policy) -> dict[str, Any]:
    """M_q admits every stored state at its intent's highest weight: no lifecycle mask."""
    states = (
        LifecycleState.ACTIVE,
        LifecycleState.EXPIRED,
        LifecycleState.SUPERSEDED,
        LifecycleState.RETRACTED,
    )
    masks = {i: {s: max(m.values(), default=1.0) for s in states} for i, m in policy.masks.items()}
    return {"masks": masks, "raw_turn_masks": {}, "successor_expansion": False}


Ablation = tuple[str, Callable[[Policy], dict[str, Any]], ScoringOptions]

#: One stage of the ranking undone at a time, to tell which stage moved a question
#: (`--ablations --failures`: each changed question's `undone_by`).
STAGES: Mapping[str, Ablation] = {
    "no_window_rules": (
        "none of the four window rules (latest value, outdated siblings, passed mentions, "
        "pressed values)",
        _rule_off("latest_value", "outdated_siblings", "passed_mentions", "pressed_values"),
        ScoringOptions(),
    ),
    "no_latest_value": ("no latest-value rule", _rule_off("latest_value"), ScoringOptions()),
    "no_outdated_siblings": (
        "no outdated-siblings rule",
        _rule_off("outdated_siblings"),
        ScoringOptions(),
    ),
    "no_passed_mentions": (
        "no passed-mentions rule",
        _rule_off("passed_mentions"),
        ScoringOptions(),
    ),
    "no_pressed_values": (
        "no pressed-values rule",
        _rule_off("pressed_values"),
        ScoringOptions(),
    ),
    "no_routing": (
        "no category routing: neither the prior ρ nor category-forced candidates",
        _fixed(),
        ScoringOptions(routing=False),
    ),
    "no_activation": (
        "activation has no weight for any intent (w_q 0: score = σ·floors·ρ·Ω·M_q·D_q)",
        lambda policy: {"recency_weight": dict.fromkeys(policy.masks, 0.0)},
        ScoringOptions(),
    ),
    "raw_turns_unweighted": (
        "raw turns weigh as much as facts (episodic_weight 1)",
        _fixed(episodic_weight=1.0),
        ScoringOptions(),
    ),
    "no_relevance_tier": (
        "no relevance tier: the whole pool ranked by the score",
        _fixed(relevance_ratio=0.0, distill_candidates=10_000, abstract_routed_tier=False),
        ScoringOptions(),
    ),
    "no_state_mask": (
        "every stored state served (no lifecycle mask, no successor expansion)",
        _all_states_served,
        ScoringOptions(),
    ),
}

ABLATIONS: Mapping[str, Ablation] = {
    **STAGES,
    "no_recency_for_the_past": (
        "past and historical questions give activation no weight (recency_weight 0)",
        _fixed(recency_weight={Intent.PAST: 0.0, Intent.HISTORICAL: 0.0}),
        ScoringOptions(),
    ),
    "past_forced_tier": (
        "past questions also route to event-time categories and tier forced candidates",
        _fixed(
            forced_tier_intents=frozenset({Intent.UPCOMING, Intent.PAST}),
            event_routed_intents=frozenset({Intent.UPCOMING, Intent.PAST}),
        ),
        ScoringOptions(),
    ),
    "routed_tier_all": (
        "every intent's category-forced candidates join the first tier",
        _fixed(forced_tier_intents=frozenset(Intent)),
        ScoringOptions(),
    ),
    "no_successors": (
        "no successor expansion",
        _fixed(successor_expansion=False),
        ScoringOptions(),
    ),
    "raw_turns_own_dynamics": (
        "raw turns without a plan scored with their facts' categories (previous default)",
        _fixed(raw_turn_dynamics="facts"),
        ScoringOptions(),
    ),
    "told_after_expires": (
        "raw turns told after their event expire with it (told_after_is_history off)",
        _no_told_after_history,
        ScoringOptions(),
    ),
    "no_abstract_routed_tier": (
        "abstract questions ranked by the relevance tier like any other (previous default)",
        _fixed(abstract_routed_tier=False),
        ScoringOptions(),
    ),
    "past_without_superseded": (
        "past questions admit no superseded fact nor raw turn (M_q(past, superseded) 0)",
        _without_superseded_for_the_past,
        ScoringOptions(),
    ),
    "raw_turns_fact_masks": (
        "facts take the raw turns' M_q: past questions admit superseded facts at 0.5",
        _one_mask_for_raw_turns,
        ScoringOptions(),
    ),
    "ranking_before_10c": (
        "main's ranking before issue-10c: one M_q for facts and raw turns, order by score "
        "after the tier, relevance ratio 0.6",
        lambda policy: {
            **_one_mask_for_raw_turns(policy),
            "below_tier_order": "score",
            "relevance_ratio": 0.6,
        },
        ScoringOptions(),
    ),
    "relevance_ratio_06": (
        "relevance tier at σ ≥ 0.6·max σ (previous default)",
        _fixed(relevance_ratio=0.6),
        ScoringOptions(),
    ),
    "below_tier_by_score": (
        "candidates after the relevance tier ordered by the score (previous default)",
        _fixed(below_tier_order="score"),
        ScoringOptions(),
    ),
    "other_020_085": (
        "OTHER at α 0.20 / floor 0.85 (the previous default)",
        _other(0.20, 0.85),
        ScoringOptions(),
    ),
    "unanchored_upcoming_03": (
        "unanchored facts weigh 0.3 for upcoming questions (previous default)",
        _fixed(unanchored_direction={Intent.UPCOMING: 0.3, Intent.PAST: 0.8}),
        ScoringOptions(),
    ),
    **{
        f"sigma_{mode}": (
            f"σ normalization '{mode}'",
            _fixed(sigma_normalization=mode),
            ScoringOptions(),
        )
        for mode in ("minmax", "raw", "calibrated", "rank")
    },
    **{
        f"flat_sigma_{mode}": (
            f"similarity ranking with σ normalization '{mode}'",
            _fixed(sigma_normalization=mode),
            FLAT,
        )
        for mode in ("minmax", "raw", "calibrated", "rank")
    },
}
