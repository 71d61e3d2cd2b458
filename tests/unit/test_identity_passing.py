"""Identity told in passing (round 25, AV3): an occupation or an origin said on the way to
something else is a Stable Identity fact (`workers/extraction/patterns_identity_passing.py`).

Witnesses: the rule extractor keys each grammatical family in the profession or home-town
slot (without the family these turns are fact-less); the guards (someone else's job or birth,
a pastime, a wish, a visit); a wish later in the clause does not soften the trade; the raw turn
keeps its own category; a plan's withdrawal guessed from its words never takes back who the
user is (`retargeting._stable_identity`); a question in the attribute's own words routes to
Identity. The sentences are written here, not taken from any telling.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas.categories import Category, LifecycleState, UpdateSemantics
from schemas.events import TurnEvent
from schemas.policy import load_policy
from tests.unit.edge_helpers import axis, edge, near
from workers.extraction.rules import RuleExtractor
from workers.extraction.stage import edges_for_turn
from workers.lifecycle.service import LifecycleService
from workers.query.routing import _KEYWORDS
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

AT = datetime(2026, 3, 2, 18, tzinfo=UTC)
POLICY = load_policy()


def _facts(text: str) -> list[tuple[str | None, str | None]]:
    turn = TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", text=text, timestamp=AT)
    return [(f.slot_key, f.value) for f in RuleExtractor().extract(turn)]


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        # a role bare after a colon, held for a span (the agent noun's form, no job list)
        ("Let me set the scene: lock-keeper on the Avon these twenty years. Any tips for a sign?",
         "user.profession", "lock-keeper"),
        # "I'm a …" with the span said after the role ("been doing it N years")
        ("For the cover letter: I'm a court stenographer, certified, been doing it nine years.",
         "user.profession", "court stenographer"),
        ("I've been a wheelwright since 1998, mostly carts for shows.",
         "user.profession", "wheelwright"),
        # a form's field
        ("Details for the insurer. Occupation: freelance bookbinder and restorer.",
         "user.profession", "freelance bookbinder and restorer"),
        # what the user does for a living
        ("I repair church clocks for a living, so ladders are normal for me.",
         "user.profession", "repair church clocks"),
        # an origin: birth, upbringing, childhood, "back home", "<Place>, where I grew up"
        ("born and bred in Dundee, so the rain doesn't bother me", "user.hometown", "Dundee"),
        ("my gran taught me this when I was a kid out in Tromsø", "user.hometown", "Tromsø"),
        ("The ferry to Galway, where I grew up, is cancelled again.", "user.hometown", "Galway"),
        ("Things are calmer back home in Kilkenny these days.", "user.hometown", "Kilkenny"),
        # a first language
        ("Portuguese is my mother tongue, English came later.", "user.first_language",
         "Portuguese"),
    ],
)  # fmt: skip
def test_an_identity_told_in_passing_is_keyed(text: str, slot: str, value: str) -> None:
    assert (slot, value) in _facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "my uncle was born in Cork and never left",  # someone else's birth
        "I've been a keen swimmer since 2015.",  # a pastime, not a job
        "I've been a member since 2019, the fees keep going up.",  # a relation
        "Reminder: my accountant for ten years is retiring.",  # someone else's role
        "I'd love to paint landscapes for a living.",  # a wish
        "I applied to be a park ranger, fingers crossed, they've hired for ten years.",  # applied
        "We visited Bruges last week and loved it.",  # a visit
        "what do you do for a living?",  # a question
    ],
)
def test_someone_elses_a_pastime_a_wish_or_a_visit_is_no_identity(text: str) -> None:
    slots = {slot for slot, _ in _facts(text)}
    assert not slots & {"user.profession", "user.hometown", "user.first_language"}


def test_a_wish_later_in_the_clause_does_not_soften_the_trade() -> None:
    """The clause's hedge ("I'd like …") is about the wish after the trade: the profession
    stays a committed replace (`hedge_scope`), or a later change of job could not supersede
    it and a soft fact would weigh nothing (AV4 asks the newest job)."""
    text = "after fifteen years of shoeing horses for a living I'd like to find a desk job"
    turn = TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", timestamp=AT, text=text)
    (fact,) = [f for f in RuleExtractor().extract(turn) if f.slot_key == "user.profession"]
    assert fact.update is UpdateSemantics.REPLACE and fact.confidence >= 0.95


def test_the_raw_turn_keeps_its_own_category() -> None:
    """The turn is about something else (a request); raised to Identity beside its fact it
    took a second place for one identity."""
    text = "Recipe for soda bread please. born and raised in Sligo, so make it proper."
    turn = TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", timestamp=AT, text=text)
    facts = RuleExtractor().extract(turn)
    assert any(f.slot_key == "user.hometown" for f in facts)
    raw = [e for e in edges_for_turn(turn, facts) if e.episodic]
    assert raw and all(e.categories == {Category.OTHER: 1.0} for e in raw)


def test_a_plan_withdrawn_by_its_words_never_takes_back_who_the_user_is() -> None:
    """An unresolved retraction (its slot never filled) guesses its target by a named word:
    "… whenever a job is cancelled" names a job. A keyed, undated Identity fact (the user's
    trade) shares the word and the vector, but is no plan: it stays active; a raw turn that
    names the job is still taken back."""
    job = axis(0)
    vectors = InMemoryVectorIndex()
    svc = LifecycleService(InMemorySlotIndex(), vectors, POLICY)
    trade = edge("s1/trade#0", day=0, slot="user.profession", update="replace", vector=job,
                 text="User's job title (role at work) is farrier (every job on the yard)",
                 category={Category.IDENTITY_SELF_CONCEPT: 0.8,
                           Category.PROJECTS_ENDEAVORS: 0.2})  # fmt: skip
    svc.apply(trade.model_copy(update={"source_turns": ("s1/trade",)}))
    off = edge("s3/off#0", day=30, slot=None, update="accumulate",
               vector=near(job, POLICY.association.retraction_cosine + 0.3, 5),
               text="User dropped the job plan", retracts=("project.whenever_job",),
               category=Category.PROJECTS_ENDEAVORS)  # fmt: skip
    svc.apply(off.model_copy(update={"source_turns": ("s3/off",)}))
    states = {r.edge_id: r.lifecycle.state for r in vectors.scroll("u1")}
    assert states["s1/trade#0"] is LifecycleState.ACTIVE


@pytest.mark.parametrize(
    "question",
    ["What's my trade?", "What does she do for a living?", "Where did I grow up?",
     "Which town am I originally from?", "What's her home town?"],
)  # fmt: skip
def test_a_question_in_the_attributes_own_words_is_cued_to_identity(question: str) -> None:
    assert _KEYWORDS[Category.IDENTITY_SELF_CONCEPT].search(question)
