"""One table row per scoring feature: the feature alone flips the order of two candidates.

Each pair is built so that switching the feature off (the same candidates without the flag,
or the query without routing) gives the opposite order — a witness that the feature does
something, and that it does it for the reason its paper section gives. Orders are exact.
"""

from __future__ import annotations

import numpy as np
import pytest

from schemas.categories import CATEGORY_INDEX, Category, Intent, LifecycleState
from schemas.policy import load_policy
from scorer.pool import Candidate
from scorer.tables import PolicyTables
from tests.unit.scorer_helpers import DAY, NOW_H, cand, ranking, weights

C = Category
#: The shipped policy with `recency_weight` set for questions about the past (not shipped:
#: see the policy's note; a deployment may set it).
NO_RECENCY_FOR_THE_PAST = PolicyTables.compile(
    load_policy().model_copy(update={"recency_weight": {Intent.PAST: 0.0, Intent.HISTORICAL: 0.0}})
)


def _flag(c: Candidate, **changes: object) -> Candidate:
    return Candidate(**{**{f: getattr(c, f) for f in Candidate.__slots__}, **changes})


def test_theorem1_exact_orders_in_both_histories() -> None:
    """A.2, eqs. 5-7: the same (σ, Δt) profiles, (0.96, 30 d) and (0.94, 1 d).

    H (one slot, e_n supersedes e_o): a current-state query is served e_n alone (eq. 6).
    H' (different slots, both active): eq. 7 says e_o ≻ e_n "because e_o is the more
    semantically aligned fact". Eq. 2 with Tables 48/49 — the paper's own score — does not
    give that order: 29 days of decay outweigh a σ gap of 0.02 in every category
    (Preferences: 0.929 for e_n vs 0.816 for e_o). We ship Eq. 2 and assert its order (a
    documented departure from eq. 7, see the policy note on `recency_weight`); eq. 7's order
    holds once age is given no weight, which a deployment can set per intent.
    """
    e_o_h = cand(
        "e_o", C.PREFERENCES_HABITS, 0.96, 30, state=LifecycleState.SUPERSEDED,
        superseded_days_ago=1,
    )  # fmt: skip
    e_n = cand("e_n", C.PREFERENCES_HABITS, 0.94, 1)
    e_o = cand("e_o", C.PREFERENCES_HABITS, 0.96, 30)
    assert ranking([e_o_h, e_n]) == ["e_n"]
    for intent in (Intent.CURRENT, Intent.PAST, Intent.HISTORICAL):
        assert ranking([e_o, e_n], intent) == ["e_n", "e_o"]  # Eq. 2 (departure from eq. 7)
    for intent in (Intent.PAST, Intent.HISTORICAL):
        assert ranking([e_o, e_n], intent, tables=NO_RECENCY_FOR_THE_PAST) == ["e_o", "e_n"]


def test_numeric_rescue_alone_lifts_an_old_number_appendix_h() -> None:
    """A.7.1 with a category whose floor does not already protect the number (Projects,
    floor 0.75): only the numeric rescue (0.95·σ for σ ≥ 0.85, App. H) keeps it first."""
    u = cand("u", C.PROJECTS_ENDEAVORS, 0.99, 180, numeric=True)
    v = cand("v", C.PROJECTS_ENDEAVORS, 0.92, 1)
    assert ranking([u, v]) == ["u", "v"]
    assert ranking([_flag(u, numeric=False), v]) == ["v", "u"]


def test_numeric_rescue_needs_a_strong_match() -> None:
    u = cand("u", C.PROJECTS_ENDEAVORS, 0.84, 180, numeric=True)
    v = cand("v", C.PROJECTS_ENDEAVORS, 0.80, 1)
    assert ranking([u, v]) == ["v", "u"]  # σ 0.84 < 0.85: no rescue


def test_tentative_weight_alone_puts_a_committed_value_first() -> None:
    """App. F: "thinking about moving to London" is not where the user lives."""
    committed = cand("istanbul", C.IDENTITY_SELF_CONCEPT, 0.90, 10)
    maybe = cand("london?", C.IDENTITY_SELF_CONCEPT, 0.95, 2, tentative=True)
    assert ranking([committed, maybe]) == ["istanbul", "london?"]
    assert ranking([committed, _flag(maybe, tentative=False)]) == ["london?", "istanbul"]


def test_episodic_weight_alone_puts_the_fact_before_its_raw_turn() -> None:
    """App. AA: the raw turn is a fallback; on near-equal evidence the fact leads."""
    fact = cand("fact", C.PREFERENCES_HABITS, 0.90, 1)
    turn = cand("turn", C.PREFERENCES_HABITS, 0.93, 1, episodic=True)
    assert ranking([fact, turn]) == ["fact", "turn"]
    assert ranking([fact, _flag(turn, episodic=False)]) == ["turn", "fact"]


def test_emotional_loading_alone_lifts_a_fresh_fact_b6() -> None:
    """B.6: emotional loading briefly boosts activation (α 0.40 for the signal)."""
    calm = cand("calm", C.LOGISTICAL_CONTEXT, 0.88, 0.25)
    upset = cand("upset", C.LOGISTICAL_CONTEXT, 0.86, 0.25, emotion=0.8)
    assert ranking([calm, upset]) == ["upset", "calm"]
    assert ranking([calm, _flag(upset, emotion=0.0)]) == ["calm", "upset"]


def test_emotional_boost_decays_fast() -> None:
    calm = cand("calm", C.LOGISTICAL_CONTEXT, 0.88, 5)
    upset = cand("upset", C.LOGISTICAL_CONTEXT, 0.86, 5, emotion=0.8)
    assert ranking([calm, upset]) == ["calm", "upset"]


def test_routing_prior_alone_flips_two_categories() -> None:
    """§3.3 / Model 1: ρ(c|q) favours the category the query is about."""
    food = cand("food", C.PREFERENCES_HABITS, 0.90, 5)
    money = cand("money", C.FINANCIAL_MATERIAL, 0.91, 5)
    assert ranking([food, money]) == ["money", "food"]
    routing = np.zeros(len(CATEGORY_INDEX))
    routing[CATEGORY_INDEX[C.PREFERENCES_HABITS]] = 0.9
    routing[CATEGORY_INDEX[C.FINANCIAL_MATERIAL]] = 0.1
    assert ranking([food, money], routing=routing) == ["food", "money"]


def test_soft_membership_alone_slows_decay_lemma1() -> None:
    """A.14: 30 % Identity / 70 % Logistical decays at the harmonic mean (199.3 h half-life),
    so after ten days it beats a pure Logistical fact with a slightly better match."""
    soft = cand(
        "soft", C.LOGISTICAL_CONTEXT, 0.80, 10,
        weights_=weights((C.IDENTITY_SELF_CONCEPT, 0.3), (C.LOGISTICAL_CONTEXT, 0.7)),
    )  # fmt: skip
    pure = cand("pure", C.LOGISTICAL_CONTEXT, 0.82, 10)
    assert ranking([soft, pure]) == ["soft", "pure"]
    hard = _flag(soft, weights=weights((C.LOGISTICAL_CONTEXT, 1.0)))
    assert ranking([hard, pure]) == ["pure", "soft"]


def test_recency_weight_per_intent_when_a_deployment_sets_it() -> None:
    """`recency_weight`: "what did she do at the lake?" need not prefer yesterday's facts."""
    old = cand("old", C.HOBBIES_RECREATION, 0.90, 200)
    new = cand("new", C.HOBBIES_RECREATION, 0.86, 1)
    tables = NO_RECENCY_FOR_THE_PAST
    assert ranking([old, new], Intent.CURRENT, tables=tables) == ["new", "old"]
    assert ranking([old, new], Intent.PAST, tables=tables) == ["old", "new"]
    assert ranking([old, new], Intent.PAST) == ["new", "old"]  # shipped: Eq. 2


def test_omega_alone_flips_a_value_in_doubt() -> None:
    """Model 1: a later soft update lowers the value it puts in doubt (Ω = 1 - γ)."""
    doubted = cand("doubted", C.PREFERENCES_HABITS, 0.92, 5, pressures=((1, 0.45),))
    other = cand("other", C.PREFERENCES_HABITS, 0.90, 5)
    assert ranking([doubted, other]) == ["other", "doubted"]
    assert ranking([_flag(doubted, pressures=()), other]) == ["doubted", "other"]


@pytest.mark.parametrize(
    ("intent", "expected"),
    [
        (Intent.UPCOMING, ["soon", "plain"]),  # D_q: unanchored facts × 0.3
        (Intent.CURRENT, ["plain", "soon"]),
    ],
)
def test_event_direction_of_upcoming_questions_a74(intent: Intent, expected: list[str]) -> None:
    soon = cand("soon", C.OBLIGATIONS, 0.60, 3, event_in_days=18)
    plain = cand("plain", C.HOBBIES_RECREATION, 0.95, 30)
    assert ranking([soon, plain], intent) == expected


def test_anticipation_lifts_the_nearer_of_two_events_a13() -> None:
    near = cand("near", C.OBLIGATIONS, 0.80, 10, event_in_days=3)
    far = cand("far", C.OBLIGATIONS, 0.82, 10, event_in_days=40)
    assert ranking([near, far], Intent.UPCOMING) == ["near", "far"]
    without_anchor = [_flag(near, event_h=None), _flag(far, event_h=None)]
    assert ranking(without_anchor, Intent.CURRENT) == ["far", "near"]
    later = NOW_H + 37 * DAY  # the far one is 3 days ahead; the near one has expired
    assert ranking([near, far], Intent.UPCOMING, now_h=later) == ["far"]


def test_a_past_question_keeps_a_superseded_raw_turn_but_not_a_superseded_fact() -> None:
    """`raw_turn_masks`: "Did Tomas complete his thesis?" asks what happened; "writing his
    thesis", replaced by "defended his thesis", is no answer — but the raw turn that said
    "my laptop crashed last week" stays an episode when a fact drawn from it was replaced.
    With one mask for both (the previous default: superseded at 0.5 for past questions)
    the superseded fact is served too."""
    old = cand(
        "writing", C.PROJECTS_ENDEAVORS, 0.95, 60, state=LifecycleState.SUPERSEDED,
        superseded_days_ago=20,
    )  # fmt: skip
    turn = _flag(old, key="turn", episodic=True)
    new = cand("defended", C.PROJECTS_ENDEAVORS, 0.90, 20)
    assert ranking([old, turn, new], Intent.PAST) == ["defended", "turn"]
    policy = load_policy()
    one_mask = PolicyTables.compile(
        policy.model_copy(
            update={
                "masks": {**policy.masks, Intent.PAST: policy.raw_turn_masks[Intent.PAST]},
                "raw_turn_masks": {},
            }
        )
    )
    assert ranking([old, turn, new], Intent.PAST, tables=one_mask) == [
        "defended",
        "writing",
        "turn",
    ]
