"""A plan named by a noun and withdrawn sessions later, in other words, is masked (paper AV7).

Through the product's offline path — the rule extractor, MiniLM, the lifecycle — a plan is
stated ("Drew up plans for a cabin at the coast"), the user chats, and weeks later, in
another session with no context, withdraws it under another name ("The cabin plan is
dead."). Whatever the plan became (a keyed fact, or only its raw turn), everything kept of
its turn must be retracted (so the scorer masks it), and nothing else. No assertion names a
pattern module or a slot key: which mechanism gets there — the extractor keying both under
one slot, or retraction retargeting (workers/lifecycle/retargeting.py) joining the
retraction to the plan it names — is not the behaviour.

`WITHDRAWN` holds without any noun-plan pattern: retargeting finds the plan's raw turn by a
word the withdrawal shares with it. `KEYED_HERE` shares no such word with the plan, or is not
similar enough for retargeting (cosine under `association.retraction_cosine`): only the
extractor keying the plan under the slot its withdrawal guesses gets there
(workers/extraction/patterns_ventures.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from frecall.bootstrap import build
from frecall.embedded.pipeline import EmbeddedPipeline
from frecall.settings import Settings
from schemas.categories import LifecycleState
from schemas.events import TurnEvent
from workers.app import App
from workers.extraction import retraction
from workers.extraction.rules import RuleExtractor

T0 = datetime(2026, 1, 5, 10, tzinfo=UTC)
EXTRACTOR = RuleExtractor()

#: (the plan as first stated, its withdrawal sessions later in other words)
WITHDRAWN = (
    ("Drew up plans for a cabin at the coast", "The cabin plan is dead."),
    ("My summer project: a cabin at my uncle's land", "We called off the cabin project."),
    ("We're redoing the kitchen this spring", "Forget I mentioned the kitchen reno."),
    ("The kitchen renovation starts soon", "I'm dropping the new kitchen, too expensive"),
    ("Picked tiles for the new kitchen", "The new kitchen is off the table."),
    ("Got quotes for a new kitchen", "We called off the kitchen, the quote was double"),
    ("Shortlisted three architecture master's programmes", "Scrap the master's."),
    ("Sent off my application for the Seoul exchange", "The exchange is not happening"),
    ("Working on the exchange application for Kyoto", "We called off the exchange"),
    ("I'm working on a book proposal about street food", "Scrap the book."),
    ("We want to do Iceland next summer", "Forget I mentioned Iceland."),
    ("Saving up for a big Morocco trip", "The Morocco trip isn't happening."),
    ("Started an itinerary for New Zealand", "The New Zealand trip is off"),
    ("We really want a dog", "The dog thing is dead"),
    ("We're on the waiting list for a Maine Coon kitten", "The cat thing is dead"),
    ("My side hustle plan: a food truck", "The side hustle? not happening anymore."),
    ("My side hustle plan: a bike repair shop", "Scrap the bike repair shop"),
    ("my side business is a little bakery", "forget about the bakery"),
    ("I'm going to open a coffee cart at weekends", "We called off the coffee cart"),
    ("Working on a business plan for a bike repair shop", "the business idea is off the table"),
    ("I'm starting a pottery shop on the side", "Change of plans: the side hustle isn't happening"),
    ("My plan is a semester abroad in Copenhagen", "my semester abroad? dead, the visa never came"),
    # A verdict that the plan will not take place (round 5).
    ("Drew up plans for a cabin at the coast", "The cabin's dead."),
    ("We're redoing the kitchen this spring", "The kitchen reno won't happen"),
    ("Sent off my application for the Seoul exchange", "The exchange isn't going ahead"),
)  # fmt: skip
KEYED_HERE = (
    ("My side hustle plan: a food truck", "the business idea is off the table"),
    ("our side gig idea: a market stall selling plants", "The business is dead"),
    ("My plan is a semester abroad in Copenhagen", "the exchange is off"),
    ("my big plan is a year abroad in Seoul", "The exchange? not happening anymore."),
    ("our plan is to do a semester abroad in Lisbon", "No more the exchange"),
    ("I want to go back to uni for a master's in data science", "No more master's plans"),
)  # fmt: skip
CHAT = "What should I cook tonight?"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    opened = build(Settings(data_dir=tmp_path_factory.mktemp("withdrawn") / "data"), fsync=False)
    try:
        yield opened
    finally:
        opened.close()


def states_after(app: App, user: str, plan: str, withdrawal: str) -> dict[str, set[LifecycleState]]:
    """The lifecycle states of what was kept of each turn, by turn id."""
    said = [("s1", "plan", plan, 0), ("s1", "chat", CHAT, 0.01), ("s2", "off", withdrawal, 20)]
    turns = [
        TurnEvent(
            user_id=user,
            session_id=s,
            turn_id=t,
            role="user",
            text=text,
            timestamp=T0 + timedelta(days=day),
        )
        for s, t, text, day in said
    ]
    report = EmbeddedPipeline(app, quiet=True).ingest_turn_items(
        [(i, "", t) for i, t in enumerate(turns)], EXTRACTOR, "test"
    )
    assert report.ok, report
    out: dict[str, set[LifecycleState]] = {}
    for record in app.vectors.scroll(user):
        for turn in record.edge.source_turns:
            out.setdefault(turn, set()).add(record.lifecycle.state)
    return out


@pytest.mark.parametrize(("plan", "withdrawal"), WITHDRAWN + KEYED_HERE)
def test_a_plan_withdrawn_in_other_words_is_masked(app: App, plan: str, withdrawal: str) -> None:
    user = f"u{(WITHDRAWN + KEYED_HERE).index((plan, withdrawal))}"
    states = states_after(app, user, plan, withdrawal)
    assert states["plan"] == {LifecycleState.RETRACTED}, (plan, withdrawal, states)
    assert states["chat"] == {LifecycleState.ACTIVE}
    assert LifecycleState.RETRACTED not in states["off"]


#: (a plan, a withdrawal only weighed: a condition, a hedge, a question) — the plan stands
#: (paper Appendix F, AV9: a tentative change leaves both values; "maybe we'll scrap it"
#: retracts nothing).
WEIGHED = (
    ("Drew up plans for a cabin at the coast", "If we called off the cabin project I'd be gutted"),
    ("Working on the exchange application for Kyoto", "if the visa fails we cancel the exchange"),
    ("I'm working on a book proposal about street food", "I might give up the book"),
    ("Saving up for a big Morocco trip", "kinda thinking about dropping the Morocco trip"),
    ("We're redoing the kitchen this spring", "should I scrap the kitchen reno?"),
    ("Sent off my application for the Seoul exchange", "the exchange probably won't happen"),
)  # fmt: skip


@pytest.mark.parametrize(("plan", "withdrawal"), WEIGHED)
def test_a_withdrawal_only_weighed_keeps_the_plan(app: App, plan: str, withdrawal: str) -> None:
    user = f"w{WEIGHED.index((plan, withdrawal))}"
    states = states_after(app, user, plan, withdrawal)
    assert states["plan"] == {LifecycleState.ACTIVE}, (plan, withdrawal, states)


@pytest.mark.parametrize(
    "said",
    ["my grandpa's dead", "the sun won't happen to rise", "I think the party won't happen",
     "if the visa fails the exchange won't happen"],
)  # fmt: skip
def test_a_verdict_on_what_is_no_plan_or_only_a_guess_retracts_nothing(said: str) -> None:
    turn = TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", text=said,
                     timestamp=T0)  # fmt: skip
    assert not [f for f in EXTRACTOR.extract(turn) if f.retracts]


#: The markers' own cancelling verbs, negated or only nearly done: nothing is withdrawn
#: (REVIEW-R12, finding 9; `clauses.denied_before`).
DENIED = (
    ("We're redoing the kitchen this spring", "We haven't abandoned the kitchen reno."),
    ("Drew up plans for a cabin at the coast", "No, we never ditched the cabin project"),
    ("Drew up plans for a cabin at the coast", "We almost abandoned the cabin project"),
    ("Saving up for a big Morocco trip", "I didn't cancel the Morocco trip, it's on"),
    ("Saving up for a big Morocco trip", "We came close to calling off the Morocco trip"),
)  # fmt: skip


@pytest.mark.parametrize(("plan", "denial"), DENIED)
def test_a_denied_cancelling_verb_keeps_the_plan(plan: str, denial: str) -> None:
    said = [
        TurnEvent(user_id="u", session_id="s", turn_id=t, role="user", text=text,
                  timestamp=T0 + timedelta(minutes=i))
        for i, (t, text) in enumerate((("plan", plan), ("off", denial)))
    ]  # fmt: skip
    assert not [f for f in EXTRACTOR.extract(said[1], said[:1]) if f.retracts], denial
    undenied = denial.replace("haven't ", "have ").replace("never ", "").replace("almost ", "")
    if undenied != denial:  # the same verb, not denied, withdraws the plan
        plain = said[1].model_copy(update={"text": undenied})
        assert [f for f in EXTRACTOR.extract(plain, said[:1]) if f.retracts], undenied


def test_the_marker_withdraws_the_plan_sharing_the_most_words() -> None:
    said = [
        TurnEvent(user_id="u", session_id="s", turn_id=t, role="user", text=text,
                  timestamp=T0 + timedelta(minutes=i))
        for i, (t, text) in enumerate((
            ("a", "We're planning a trip to Lisbon in June."),
            ("b", "We're also planning a trip to Porto in July."),
            ("c", "Scrap the Lisbon trip, it's too hot then."),
        ))
    ]  # fmt: skip
    retracted = [f.retracts for f in EXTRACTOR.extract(said[2], said[:2]) if f.retracts]
    assert retracted == [("trip.lisbon.plan",)], retracted
    plans = [("trip.porto.plan", "User plans a trip to Porto"),
             ("trip.lisbon.plan", "User plans a trip to Lisbon")]  # fmt: skip
    assert retraction.resolve("the Lisbon trip", plans) == ("trip.lisbon.plan",)
    assert retraction.resolve("the trip", plans) == ("trip.porto.plan",)  # a tie: the newest
