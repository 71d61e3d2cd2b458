"""The inspector's parts without a browser: sessions, the fade of a fact (the scorer's own
numbers), the timeline's drawing of states, chains and events, and chain walking."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from frecall.inspector.pages import chain_of
from frecall.inspector.sessions import Sessions
from frecall.inspector.timeline import MAX_LINKED, display_state, timeline_svg
from schemas.categories import Category
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from schemas.records import FactRecord, Lifecycle, SoftPressure
from schemas.results import InspectedFact
from workers.query.fade import fade, inspected_record
from workers.query.inspect import inspect_facts

T0 = datetime(2026, 6, 1, 12, tzinfo=UTC)
POLICY = load_policy()


def edge(edge_id: str, text: str, category: Category, at: datetime, **kw: object) -> EdgeEvent:
    return EdgeEvent.model_validate(
        {
            "edge_id": edge_id,
            "user_id": "maya",
            "text": text,
            "categories": kw.pop("categories", {category: 1.0}),
            "ingest_time": at,
            **kw,
        }
    )


def fact(
    edge_id: str,
    category: Category = Category.IDENTITY_SELF_CONCEPT,
    at: datetime = T0,
    lifecycle: Lifecycle | None = None,
    event_time: datetime | None = None,
) -> InspectedFact:
    return InspectedFact(
        edge_id=edge_id,
        text=f"fact {edge_id}",
        category=category,
        state=(lifecycle or Lifecycle()).state.value,
        activation=1.0,
        why=[],
        lifecycle=lifecycle or Lifecycle(),
        event_time=event_time,
        ingest_time=at,
    )


# --- sessions ---------------------------------------------------------------------------


def test_a_session_holds_the_key_behind_a_random_token() -> None:
    sessions = Sessions()
    session = sessions.open("frk_secret")
    assert "frk_secret" not in session.token and len(session.token) >= 40
    assert sessions.get(session.token) is session
    assert sessions.get("forged") is None and sessions.get(None) is None
    sessions.close(session.token)
    assert sessions.get(session.token) is None


def test_csrf_tokens_are_per_session() -> None:
    sessions = Sessions()
    a, b = sessions.open("k1"), sessions.open("k2")
    assert a.csrf_ok(a.csrf)
    assert not a.csrf_ok(b.csrf) and not a.csrf_ok(None) and not a.csrf_ok("")


def test_idle_sessions_expire_and_the_oldest_go_first() -> None:
    idle = Sessions(idle_seconds=0.0)
    gone = idle.open("k")
    assert idle.get(gone.token) is None
    bounded = Sessions(limit=2)
    first, second, third = (bounded.open(k) for k in ("a", "b", "c"))
    assert bounded.get(first.token) is None
    assert bounded.get(second.token) is second and bounded.get(third.token) is third


# --- the fade of a fact -----------------------------------------------------------------


def test_the_fade_is_the_scorers_activation_and_the_policys_half_life() -> None:
    record = FactRecord(
        edge=edge(
            "rent",
            "rent is 950",
            Category.FINANCIAL_MATERIAL,
            T0,
            categories={"FINANCIAL_MATERIAL": 0.6, "IDENTITY_SELF_CONCEPT": 0.4},
        )
    )
    as_of = T0 + timedelta(days=10)
    got = fade(record, POLICY, as_of)
    inspected = inspect_facts("maya", [record], as_of, POLICY)
    shown = inspected.categories["FINANCIAL_MATERIAL"]["active"][0]
    assert round(got.activation, 4) == shown.activation
    # Lemma 1: timescales average linearly under soft membership.
    fin, ident = (
        POLICY.category(c).half_life_hours for c in ("FINANCIAL_MATERIAL", "IDENTITY_SELF_CONCEPT")
    )
    assert got.half_life_hours == pytest.approx(0.6 * fin + 0.4 * ident)
    activations = [s.activation for s in got.samples]
    assert activations == sorted(activations, reverse=True)  # it only fades
    assert got.samples[0].at == T0 and got.samples[-1].at > as_of
    assert got.expires_at is None and got.archivable is None and not got.anchored


def test_mentions_lengthen_the_half_life() -> None:
    once = FactRecord(edge=edge("a", "likes tea", Category.PREFERENCES_HABITS, T0))
    often = FactRecord(edge=once.edge, lifecycle=Lifecycle(mentions=5, last_mentioned_at=T0))
    assert (
        fade(often, POLICY, T0).reinforced_half_life_hours
        > fade(once, POLICY, T0).reinforced_half_life_hours
    )


def test_an_event_fact_is_anchored_expires_after_its_buffer_and_is_archivable_later() -> None:
    event = T0 + timedelta(days=5)
    record = FactRecord(
        edge=edge("dentist", "dentist on Friday", Category.OBLIGATIONS, T0, event_time=event)
    )
    got = fade(record, POLICY, T0)
    assert got.anchored
    assert got.expires_at == event + timedelta(hours=POLICY.expiry_buffer_hours)
    assert got.archivable is not None and got.archivable[0] == "expired"
    assert got.archivable[1] == got.expires_at + timedelta(days=POLICY.compaction.expired_days)
    states = {s.state for s in got.samples}
    assert {"active", "expired"} <= states


def test_soft_pressure_shows_as_omega_below_one() -> None:
    lc = Lifecycle(soft_pressures=(SoftPressure(by="maybe-move", at=T0, gamma=0.2),))
    record = FactRecord(
        edge=edge("city", "lives in Istanbul", Category.IDENTITY_SELF_CONCEPT, T0), lifecycle=lc
    )
    got = fade(record, POLICY, T0 + timedelta(days=1))
    assert got.omega == pytest.approx(0.8)
    assert got.pressures == [("maybe-move", T0, 0.2)]


# --- the timeline -----------------------------------------------------------------------


def test_the_timeline_links_a_superseded_fact_to_its_successor() -> None:
    old = fact(
        "istanbul",
        lifecycle=Lifecycle(
            state="superseded", superseded_by="london", superseded_at=T0 + timedelta(days=60)
        ),
    )
    new = fact("london", at=T0 + timedelta(days=60))
    svg = timeline_svg([old, new], T0 + timedelta(days=90), lambda e: f"/x?fact={e}", "london")
    assert svg.count('class="chain supersedes"') == 1
    assert 'data-edge="istanbul" data-state="superseded"' in svg
    assert 'data-edge="london" data-state="active"' in svg
    assert svg.count('class="selected"') == 1
    assert 'href="/x?fact=istanbul"' in svg


def test_events_ahead_of_now_are_upcoming_and_soft_pressure_is_a_state_of_its_own() -> None:
    now = T0 + timedelta(days=10)
    trip = fact("trip", Category.LOGISTICAL_CONTEXT, T0, event_time=now + timedelta(days=3))
    done = fact("dinner", Category.LOGISTICAL_CONTEXT, T0, event_time=now - timedelta(days=3))
    doubted = fact(
        "job", lifecycle=Lifecycle(soft_pressures=(SoftPressure(by="x", at=T0, gamma=0.3),))
    )
    svg = timeline_svg([trip, done, doubted], now, lambda e: e)
    assert len(re.findall(r'class="upcoming"', svg)) == 1
    assert len(re.findall(r'class="event"', svg)) == 1
    assert display_state(doubted, now) == "soft-pressured"
    assert display_state(doubted, T0 - timedelta(days=1)) == "active"


def test_a_big_memory_is_drawn_in_bulk() -> None:
    facts = [fact(f"f{i}", at=T0 + timedelta(hours=i)) for i in range(MAX_LINKED + 1)]
    svg = timeline_svg(facts, T0 + timedelta(days=60), lambda e: e)
    assert 'class="fact"' not in svg
    assert svg.count('class="dots active"') == 1
    assert svg.count("h0") == len(facts)


# --- chains ---------------------------------------------------------------------------


def test_a_chain_is_walked_both_ways_oldest_first() -> None:
    a = fact("a", lifecycle=Lifecycle(state="superseded", superseded_by="b", superseded_at=T0))
    b = fact(
        "b",
        at=T0 + timedelta(days=1),
        lifecycle=Lifecycle(state="retracted", retracted_by="c", retracted_at=T0),
    )
    c = fact("c", at=T0 + timedelta(days=2))
    other = fact("z")
    by_id = {f.edge_id: f for f in (a, b, c, other)}
    for start in ("a", "b", "c"):
        assert [(how, f.edge_id) for how, f in chain_of(by_id, start)] == [
            ("superseded by", "a"),
            ("retracted by", "b"),
            ("", "c"),
        ]
    assert [f.edge_id for _, f in chain_of(by_id, "z")] == ["z"]


def test_an_inspected_fact_carries_all_its_fade_depends_on() -> None:
    lc = Lifecycle(
        mentions=3,
        last_mentioned_at=T0 + timedelta(days=2),
        soft_pressures=(SoftPressure(by="x", at=T0 + timedelta(days=3), gamma=0.4),),
    )
    record = FactRecord(
        edge=edge(
            "mood",
            "stressed about the move",
            Category.HEALTH_WELLBEING,
            T0,
            categories={"HEALTH_WELLBEING": 0.7, "LOGISTICAL_CONTEXT": 0.3},
            emotional_loading=0.8,
            event_time=T0 + timedelta(days=20),
        ),
        lifecycle=lc,
    )
    as_of = T0 + timedelta(days=9)
    inspected = inspect_facts("maya", [record], as_of, POLICY)
    (shown,) = [f for states in inspected.categories.values() for fs in states.values() for f in fs]
    assert fade(inspected_record("maya", shown), POLICY, as_of) == fade(record, POLICY, as_of)
