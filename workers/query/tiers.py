"""Which candidates the ranking serves first, and the order of the rest (the query path's
stand-in for §3.5's distillation; moved out of `service.py` in round 19, unchanged).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from schemas.categories import Intent, LifecycleState
from schemas.policy import Policy
from scorer.scalar import ScalarScores
from scorer.score import Scores
from workers.query.candidates import MergedCandidate, relevance_tier

#: The optional LLM step at query time: (query, [(edge_id, text)], k) → the ids to keep.
Distiller = Callable[[str, list[tuple[str, str]], int], list[str]]

#: States of facts that another fact replaced or cancelled: they may have been admissible
#: at an earlier time (as_of queries), and their successors answer for them (expansion).
REPLACED_STATES = frozenset({LifecycleState.SUPERSEDED, LifecycleState.RETRACTED})


def first_tier(
    policy: Policy,
    distill: Distiller | None,
    query: str,
    merged: list[MergedCandidate],
    admissible: np.ndarray,
    intent: Intent,
    abstract: bool = False,
) -> np.ndarray:
    """The candidates the lifecycle ranking serves first (the paper's distilled top-20).

    With an LLM configured, one call selects them (§3.5); it is given the pool in σ order
    and falls back to that order on failure. Without one, the relevance tier stands in,
    joined — for the intents of `forced_tier_intents` — by the routed, category-forced
    candidates: for "what's coming up?" the answer is whatever event lies ahead, and its
    words need not resemble the question (A.13: anticipatory activation must be able to
    lift it).

    For an abstract question — none of its words tells the user's facts apart, e.g.
    "What are Diane's hobbies?" when every fact names Diane — similarity has nothing to
    go on but the name, and the routed category is the evidence (§3.3: category-forced
    retrieval bridges the gap between an abstract query and specific facts): with
    `abstract_routed_tier`, the routed candidates alone are the first tier.
    """
    if distill is None:
        routed = admissible & np.array(["forced" in m.sources for m in merged], dtype=bool)
        if abstract and policy.abstract_routed_tier and routed.any():
            # The intent is evidence too: "Which company did she leave?" asks for a
            # former value whatever category the router guessed, so the facts in a
            # state its mask prefers to active (superseded for historical questions,
            # retracted for cancelled ones) join the routed ones.
            return routed | (admissible & _preferred(policy, merged, intent))
        tier = relevance_tier(merged, policy.distill_candidates, policy.relevance_ratio, admissible)
        if intent in policy.forced_tier_intents:
            tier |= routed
        return tier
    ordered = sorted(
        (m for m, ok in zip(merged, admissible, strict=True) if ok), key=lambda m: -m.sigma
    )
    chosen = set(
        distill(
            query,
            [(m.record.edge_id, m.record.edge.text) for m in ordered],
            policy.distill_candidates,
        )
    )
    return np.array([m.record.edge_id in chosen for m in merged], dtype=bool)


def _preferred(policy: Policy, merged: list[MergedCandidate], intent: Intent) -> np.ndarray:
    """Candidates whose stored state the intent's mask weighs above active."""
    mask = policy.masks[intent]
    active = mask.get(LifecycleState.ACTIVE, 0.0)
    states = {s for s in REPLACED_STATES if mask.get(s, 0.0) > active}
    return np.array([m.record.lifecycle.state in states for m in merged], dtype=bool)


def below_tier(policy: Policy, rest: list[int], scores: Scores | ScalarScores) -> list[int]:
    """The order of the candidates after the relevance tier (`below_tier_order`).

    The tier exists so that activation reorders relevant facts instead of lifting
    unrelated ones (`relevance_tier`); among the weaker matches after it, ordering by
    the score does exactly that — a recent "Thanks, you rock!" before an older turn
    that answers. With "ageless", age tells weak matches nothing: each is scored as
    if its activation were 0 (its category's floor and α still apply, and ρ, Ω, M_q,
    D_q), except where activation is event-time validity or emotional loading — the
    evidence that lifts a deadline ahead or a worry over words the question lacks
    (A.13, B.6). Stable on ties.
    """
    if policy.below_tier_order == "score":
        return rest

    def weight(i: int) -> float:
        t = scores.terms(i)
        if t["activation"] != t["decay"]:
            return t["score"]  # event-time or emotional activation: evidence (A.13, B.6)
        # Blend at activation 0: as if every weak match were equally old.
        aged = max(t["blend"] - t["alpha"] * t["activation"], t["floor"], t["numeric_rescue"])
        return aged * t["rho"] * t["omega"] * t["mask"] * t["direction"]

    return sorted(rest, key=lambda i: -weight(i))
