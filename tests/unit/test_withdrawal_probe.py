"""A plan given up in words no retraction marker holds is retracted by the trained withdrawal
probe (workers/extraction/withdrawal.py; paper §3.3, A.9, AV7 selective forgetting).

The witnesses are written here, in words of their own: the rule extractor alone finds no
retraction in them (asserted), the probe-backed one retracts the plan — in the same session
(the session's plan) and sessions later (retargeting, workers/lifecycle/retargeting.py). A
turn that only weighs a withdrawal (a question, a hedge, a condition) retracts nothing, even
when the probe says yes.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from frecall.bootstrap import build, make_embedder, rule_extractor
from frecall.embedded.pipeline import EmbeddedPipeline
from frecall.settings import Settings
from schemas.categories import LifecycleState
from schemas.events import TurnEvent
from schemas.policy import WithdrawalPolicy, load_policy
from workers.app import App
from workers.extraction.rules import RuleExtractor
from workers.extraction.withdrawal import noun_phrases, target, weighed, withdrawal_fact
from workers.extraction.withdrawal_probe import WithdrawalGate, default_withdrawal_probe

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
RULES = RuleExtractor()

#: (a plan, its withdrawal in other words) — no marker of retraction.py matches the second.
GIVEN_UP = (
    ("I'm planning to open a pottery studio in the old mill",
     "Turns out the pottery studio won't work out. The lease costs too much"),
    ("I'm planning to open a pottery studio in the old mill",
     "The pottery studio is not going to be a thing. The lease costs too much"),
    ("I want to start a second degree in geology next year",
     "The second degree plan is finished. The fees are too high"),
)  # fmt: skip
CHAT = "Any idea what to cook with leftover rice?"


def turn(user: str, session: str, turn_id: str, text: str, day: float) -> TurnEvent:
    return TurnEvent(
        user_id=user, session_id=session, turn_id=turn_id, role="user", text=text,
        timestamp=T0 + timedelta(days=day),
    )  # fmt: skip


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    opened = build(Settings(data_dir=tmp_path_factory.mktemp("probe") / "data"), fsync=False)
    try:
        yield opened
    finally:
        opened.close()


def states_after(
    app: App, extractor: RuleExtractor, user: str, plan: str, off: str, later: bool
) -> dict[str, set[LifecycleState]]:
    """Lifecycle states by turn id after the plan, a chat turn and the withdrawal (the same
    session, or one 20 days later)."""
    second = ("s2", 20.0) if later else ("s1", 0.02)
    turns = [
        turn(user, "s1", "plan", plan, 0),
        turn(user, "s1", "chat", CHAT, 0.01),
        turn(user, second[0], "off", off, second[1]),
    ]
    report = EmbeddedPipeline(app, quiet=True).ingest_turn_items(
        [(i, "", t) for i, t in enumerate(turns)], extractor, "test"
    )
    assert report.ok, report
    out: dict[str, set[LifecycleState]] = {}
    for record in app.vectors.scroll(user):
        for source in record.edge.source_turns:
            out.setdefault(source, set()).add(record.lifecycle.state)
    return out


@pytest.mark.parametrize("later", [False, True], ids=["same-session", "sessions-later"])
@pytest.mark.parametrize(("plan", "off"), GIVEN_UP)
def test_a_plan_given_up_in_unlisted_words_is_retracted(
    app: App, plan: str, off: str, later: bool
) -> None:
    assert not any(f.retracts for f in RULES.extract(turn("x", "s", "t", off, 0)))
    probe = rule_extractor(load_policy(), app.embedder)
    n = GIVEN_UP.index((plan, off))
    without = states_after(app, RULES, f"rules{n}{later}", plan, off, later)
    assert without["plan"] == {LifecycleState.ACTIVE}  # the rules alone keep the plan
    states = states_after(app, probe, f"probe{n}{later}", plan, off, later)
    assert states["plan"] == {LifecycleState.RETRACTED}, (plan, off, states)
    assert states["chat"] == {LifecycleState.ACTIVE}
    assert LifecycleState.RETRACTED not in states["off"]


@pytest.mark.parametrize(
    "weighing",
    [
        "Should I give up on the pottery studio?",
        "If the lease goes up again, the pottery studio won't work out",
        "Maybe the pottery studio won't work out. The lease is steep",
        "The lease is steep. Is the pottery studio still worth it?",
    ],
)
def test_a_weighed_withdrawal_retracts_nothing_whatever_the_probe_says(weighing: str) -> None:
    context = [("project.pottery_studio", "User plans to open a pottery studio")]
    assert weighed(weighing)
    assert withdrawal_fact(weighing, [], context) is None


def test_the_target_is_the_named_plan_then_a_plan_like_name_then_the_sessions_plan() -> None:
    context = [("trip.oslo.plan", "User plans a trip to Oslo"),
               ("project.pottery_studio", "User plans to open a pottery studio")]  # fmt: skip
    assert target("the pottery studio won't work out", context) == ("project.pottery_studio",)
    assert target("it won't work out, sadly", context) == ("trip.oslo.plan",)  # the newest
    assert target("it won't work out", [("user.diet", "User is vegan")]) == ()
    assert noun_phrases("The second degree plan is finished. The fees") == [
        "The second degree plan",
        "The fees",
    ]


def test_a_turn_the_rules_already_retract_gets_no_second_retraction() -> None:
    plan = turn("r", "s", "a", "We're planning a trip to Oslo in June", 0)
    off = turn("r", "s", "b", "Scrap the Oslo trip, flights are too dear", 0.01)
    extractor = RuleExtractor(withdrawal=True)
    facts = extractor.extract(off, [plan])
    assert sum(bool(f.retracts) for f in facts) == 1


def test_the_probe_only_reads_its_own_models_vectors() -> None:
    minilm = make_embedder(Settings(embedder="minilm"))
    hashing = make_embedder(Settings(embedder="hashing"))
    assert default_withdrawal_probe().model_id == minilm.model_id
    policy = load_policy()
    assert WithdrawalGate.for_embedder(minilm, policy) is not None
    assert WithdrawalGate.for_embedder(hashing, policy) is None
    off = policy.model_copy(update={"withdrawal": WithdrawalPolicy(enabled=False)})
    assert WithdrawalGate.for_embedder(minilm, off) is None


#: A cancelling verb the turn denies, or only says it nearly did or thought about: the plan
#: stands, though a mean-pooled vector reads these as withdrawals (REVIEW-R12, finding 1).
DENIED = (
    "We haven't shelved the pottery studio.",
    "No, I didn't drop the pottery studio, the lease is signed",
    "Nobody has abandoned the pottery studio.",
    "I thought about giving up the pottery studio but no.",
    "We nearly ditched the pottery studio but we're still going ahead.",
    "We're not going to cancel the pottery studio.",
)


@pytest.mark.parametrize("denial", DENIED)
def test_a_denied_or_only_considered_withdrawal_yields_no_candidate(denial: str) -> None:
    context = [("project.pottery_studio", "User plans to open a pottery studio")]
    facts = RULES.extract(turn("d", "s", "t", denial, 0))
    assert not any(f.retracts for f in facts)  # nor do the markers retract it
    assert withdrawal_fact(denial, facts, context) is None


@pytest.mark.parametrize("denial", DENIED[:3])
def test_the_probe_keeps_a_plan_whose_withdrawal_is_denied(app: App, denial: str) -> None:
    probe = rule_extractor(load_policy(), app.embedder)
    plan = GIVEN_UP[0][0]
    states = states_after(app, probe, f"denied{DENIED.index(denial)}", plan, denial, False)
    assert states["plan"] == {LifecycleState.ACTIVE}, (denial, states)


def test_the_unnegated_cancelling_verb_still_withdraws() -> None:
    context = [("project.pottery_studio", "User plans to open a pottery studio")]
    said = "We've let the pottery studio go, the lease was too much"
    fact = withdrawal_fact(said, RULES.extract(turn("d", "s", "t", said, 0)), context)
    assert fact is not None and fact.retracts == ("project.pottery_studio",)


@pytest.mark.parametrize(
    ("context", "said"),
    [
        ([("trip.oslo.plan", "User plans a trip to Oslo")],
         "We've let the idea go, the wedding is on June 6."),
        ([], "I'm planning a trip to Rome in April."),
        ([("trip.oslo.plan", "User plans a trip to Oslo")], "We plan a trip to Rome in May."),
    ],
)  # fmt: skip
def test_a_turns_candidate_never_withdraws_a_plan_the_turn_states(
    context: list[tuple[str, str]], said: str
) -> None:
    facts = RULES.extract(turn("h", "s", "t", said, 0))
    stated = {f.slot_key for f in facts if f.slot_key}
    assert stated  # the turn states a plan
    fact = withdrawal_fact(said, facts, context)
    assert fact is None or not stated & set(fact.retracts), (said, fact)
    if not context:
        assert fact is None  # no earlier plan: nothing to withdraw


def test_the_plan_sharing_the_most_words_is_withdrawn_then_the_newest() -> None:
    context = [("trip.rome.plan", "User plans a trip to Rome in April"),
               ("trip.japan.plan", "User plans a trip to Japan in May")]  # fmt: skip
    assert target("We won't be doing the Japan trip plan.", context) == ("trip.japan.plan",)
    assert target("The Japan trip is not going to be a thing", context) == ("trip.japan.plan",)
    assert target("The trip won't work out", context) == ("trip.rome.plan",)  # a tie: newest


def test_the_probe_is_off_unless_the_policy_turns_it_on() -> None:
    assert WithdrawalPolicy().enabled is False
    assert load_policy().withdrawal.enabled is True  # the shipped default_policy.json
