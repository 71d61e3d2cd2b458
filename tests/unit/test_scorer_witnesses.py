"""The paper's behavioural witnesses, encoded as table tests of the pure scorer."""

from __future__ import annotations

import itertools
import math

import pytest

from schemas.categories import Category, Intent, LifecycleState
from schemas.policy import load_policy
from scorer.decay import effective_rate, half_life_hours
from tests.unit.scorer_helpers import DAY, NOW_H, cand, ranking, score

C = Category


def test_lemma1_harmonic_mean_example_a14() -> None:
    policy = load_policy()
    rates = {c: p.decay_per_hour for c, p in policy.categories.items()}
    lam = effective_rate({C.IDENTITY_SELF_CONCEPT: 0.3, C.LOGISTICAL_CONTEXT: 0.7}, rates)
    assert lam == pytest.approx(0.00348, abs=5e-6)
    assert half_life_hours(lam) == pytest.approx(199.3, abs=0.1)


def test_scorer_uses_harmonic_mean_rate_for_soft_membership() -> None:
    from scorer.pool import Candidate
    from tests.unit.scorer_helpers import weights

    age = 199.3  # one λ_eff half-life of the A.14 example
    soft = Candidate(
        key="soft",
        weights=weights((C.IDENTITY_SELF_CONCEPT, 0.3), (C.LOGISTICAL_CONTEXT, 0.7)),
        sigma=0.5,
        ingest_h=NOW_H - age,
        last_mention_h=NOW_H - age,
    )
    s = score([soft])
    assert s.decay[0] == pytest.approx(0.5, abs=1e-3)


def test_a71_numeric_preservation_vs_logistical_suppression() -> None:
    """Same visible tuples (0.99, 180 d) vs (0.92, 1 d): the category decides (its floor and
    α; the numeric rescue alone has its own witness in test_scorer_features). Theorem 1 and
    the policy's tables are pinned in test_scorer_features and test_policy_tables."""
    fin = [
        cand("u", C.FINANCIAL_MATERIAL, 0.99, 180, numeric=True),
        cand("v", C.FINANCIAL_MATERIAL, 0.92, 1),
    ]
    log = [cand("u", C.LOGISTICAL_CONTEXT, 0.99, 180), cand("v", C.LOGISTICAL_CONTEXT, 0.92, 1)]
    assert ranking(fin) == ["u", "v"]
    assert ranking(log) == ["v", "u"]


def test_a73_current_vs_change_intent() -> None:
    e1 = cand(
        "e1", C.PREFERENCES_HABITS, 0.95, 30, state=LifecycleState.SUPERSEDED, superseded_days_ago=1
    )
    e2 = cand("e2", C.PREFERENCES_HABITS, 0.95, 1)
    assert ranking([e1, e2], Intent.CURRENT) == ["e2"]
    assert ranking([e1, e2], Intent.HISTORICAL) == ["e1", "e2"]


def test_a74_upcoming_vs_past_obligations() -> None:
    e1 = cand("e1", C.OBLIGATIONS, 0.92, 1, event_in_days=2)
    e2 = cand("e2", C.OBLIGATIONS, 0.92, 1, event_in_days=-30)
    assert ranking([e1, e2], Intent.UPCOMING) == ["e1"]
    assert ranking([e1, e2], Intent.PAST)[0] == "e2"
    assert ranking([e1, e2], Intent.CURRENT) == ["e1"]  # e2 expired beyond the 14-day buffer


def test_a13_anticipatory_shape() -> None:
    """Activation rises as the event approaches and falls fast after it (Proposition 2)."""
    event_h = NOW_H + 10 * DAY
    fact = cand("dentist", C.OBLIGATIONS, 0.8, 20, event_in_days=10)
    times = [event_h - d * DAY for d in (9, 6, 3, 1, 0)] + [event_h + d * DAY for d in (0.5, 1, 2)]
    acts = [float(score([fact], now_h=t).activation[0]) for t in times]
    before, after = acts[:5], acts[4:]
    assert all(a < b for a, b in itertools.pairwise(before))
    assert all(a > b for a, b in itertools.pairwise(after))
    # μ ≫ ν: a day after the event it has lost more than it gained over the previous nine.
    assert acts[-2] < acts[0]


def test_age_alone_cannot_express_anticipation_but_category_kernel_does() -> None:
    """An unanchored obligation only decays; an anchored one gains relevance over time."""
    anchored = cand("a", C.OBLIGATIONS, 0.8, 5, event_in_days=3)
    plain = cand("p", C.OBLIGATIONS, 0.8, 5)
    early = score([anchored, plain], now_h=NOW_H)
    later = score([anchored, plain], now_h=NOW_H + 2 * DAY)
    assert later.score[0] > early.score[0]
    assert later.score[1] < early.score[1]


def test_expiry_buffer_and_floor_do_not_rescue_passed_events() -> None:
    flight = cand("flight", C.LOGISTICAL_CONTEXT, 0.95, 3, event_in_days=-1)
    s = score([flight])
    assert s.state_name(0) == "active"  # inside the 14-day buffer, not yet expired
    assert s.floor[0] == 0.0
    assert s.validity[0] == pytest.approx(math.exp(-0.05 * 24), rel=1e-9)
    gone = score([cand("flight", C.LOGISTICAL_CONTEXT, 0.95, 20, event_in_days=-15)])
    assert gone.state_name(0) == "expired" and gone.score[0] == 0.0


def test_retracted_masked_except_for_cancelled_plans() -> None:
    plan = cand(
        "dog", C.PROJECTS_ENDEAVORS, 0.9, 10, state=LifecycleState.RETRACTED, retracted_days_ago=2
    )
    assert ranking([plan], Intent.CURRENT) == []
    assert ranking([plan], Intent.CANCELLED) == ["dog"]


def test_as_of_sees_state_as_it_was() -> None:
    old = cand(
        "istanbul",
        C.IDENTITY_SELF_CONCEPT,
        0.9,
        60,
        state=LifecycleState.SUPERSEDED,
        superseded_days_ago=10,
    )
    new = cand("london", C.IDENTITY_SELF_CONCEPT, 0.9, 10)
    assert ranking([old, new]) == ["london"]
    # Twenty days ago London was not yet stated and Istanbul was current.
    assert ranking([old, new], now_h=NOW_H - 20 * DAY) == ["istanbul"]


def test_soft_supersession_lowers_through_omega() -> None:
    istanbul = cand("istanbul", C.IDENTITY_SELF_CONCEPT, 0.9, 60, pressures=((2, 0.4),))
    s_now = score([istanbul])
    assert s_now.omega[0] == pytest.approx(0.6)
    assert s_now.state_name(0) == "active"
    s_before = score([istanbul], now_h=NOW_H - 3 * DAY)
    assert s_before.omega[0] == pytest.approx(1.0)


def test_reinforcement_slows_decay() -> None:
    once = cand("once", C.HOBBIES_RECREATION, 0.5, 30)
    often = cand("often", C.HOBBIES_RECREATION, 0.5, 30, mentions=5)
    s = score([once, often])
    assert s.decay[1] > s.decay[0]
