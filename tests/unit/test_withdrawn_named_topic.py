"""Witnesses of round 24's readings of a withdrawal (workers/query/named_topic.py,
workers/extraction/dismissal.py; paper §3.3, A.9, AV7 — pass by absence, C.5): a topic and an
abbreviated verdict read as a dismissal, and a withdrawal that names what it gives up — the
topic before its verdict, the slot the ingest's retraction names or a word of the turn near
that slot's — binding a window plan its vector sits far from, though the question says none
of its words.

Every sentence is written here for the test; none comes from a paper-turns set. Stand-in
vectors (the stand-in probe reads the 4th coordinate as "gives up", and reads none here) and a
stand-in word embedder.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent
from schemas.policy import WithdrawnPolicy
from schemas.records import FactRecord
from tests.unit.nearest_memory import nearest_in
from tests.unit.test_withdrawn import LATER, NOW, ON, THEN, _candidate, _probability, _unit
from workers.extraction.dismissal import dismissals, named_topic_words
from workers.query import withdrawn
from workers.query.candidates import MergedCandidate
from workers.query.named_topic import slot_kin

RULE = ON.withdrawn
#: Round 23's rule: what a withdrawal names binds nothing below `min_cosine`.
UNNAMED = RULE.model_copy(update={"named_topic_binds": False})
NO_KIN = RULE.model_copy(update={"slot_kin_min_cosine": None})
#: Far from the plan's vector (cosine 0.2 < min_cosine 0.3), above the floor (0.15); unread by
#: the stand-in probe.
FAR = _unit(0.2, 0.0, 0.98)


def _given_up(*window: MergedCandidate, memory: Sequence[MergedCandidate] = (),
              rule: WithdrawnPolicy = RULE, query: str = "", facts: Sequence[FactRecord] = (),
              embed: withdrawn.Embed | None = None) -> dict[str, withdrawn.Withdrawn]:  # fmt: skip
    everything = [*window, *memory]

    nearest = nearest_in(everything, rule.targets)

    return withdrawn.withdrawn(
        Intent.CURRENT, window, NOW, rule, _probability,
        lambda ids: [f for f in facts if f.edge_id in ids], nearest, lambda v: [], query,
        (), embed,
    )  # fmt: skip


# --- a topic and an abbreviated verdict -------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "The Lisbon trip: cxl.",
        "pottery course: cancelled!",
        "MBA = DNS",
        "ok the allotment: canx. the waiting list is years long",
        "Kayak club -> nvm",
    ],
)
def test_a_topic_and_an_abbreviated_verdict_is_a_dismissal(text: str) -> None:
    assert [d.family for d in dismissals(text)] == ["topic and an abbreviated verdict"]


@pytest.mark.parametrize(
    "text",
    [
        "Heating: off.",  # a state, not a plan given up
        "Phone: dead.",
        "Plan: off to Lisbon on Friday",  # the verdict must end the segment
        "Is the Lisbon trip: cxl?",  # a question
        "If it rains, the picnic: cancelled.",  # a condition
        "Half marathon: DNF",  # an outcome, not a plan given up
        "Oh: nvm",  # an interjection names no topic
    ],
)
def test_no_abbreviated_verdict(text: str) -> None:
    assert not [d for d in dismissals(text) if d.family == "topic and an abbreviated verdict"]


def test_the_named_topic_is_the_words_before_the_verdict() -> None:
    assert named_topic_words("The Lisbon trip: cxl. Work said no, gutted.") == {"lisbon", "trip"}
    assert named_topic_words("not doing it, work said no") == frozenset()


# --- the dismissal's named topic binds a far plan in the window -------------------------------
VAN = _candidate("van", THEN, _unit(1.0), text="we're renting a camper van for the Lisbon trip")
VAN_OFF = _candidate(
    "van-off", LATER, FAR,
    text="The Lisbon trip: cxl. Work won't give me the week and the ferry prices were silly.",
)  # fmt: skip
CHORES = _candidate("chores", THEN, _unit(0.0, 1.0), text="remind me to descale the kettle")


def test_a_named_topic_binds_a_far_plan_in_the_window() -> None:
    # The question says no word of the withdrawal: round 22's asked topic binds nothing.
    query = "where am I driving to in May?"
    found = _given_up(VAN, VAN_OFF, CHORES, query=query)
    assert set(found) == {"van"} and found["van"].family == "topic and an abbreviated verdict"
    assert found["van"].cosine == 0.2
    assert _given_up(VAN, VAN_OFF, CHORES, query=query, rule=UNNAMED) == {}


def test_a_named_topic_needs_the_plan_in_the_window_and_saying_it() -> None:
    assert _given_up(VAN_OFF, CHORES, memory=[VAN]) == {}
    other = _candidate("van", THEN, _unit(1.0), text="we're renting a camper van for Porto")
    assert _given_up(other, VAN_OFF, CHORES) == {}


def test_a_named_topic_keeps_the_floor() -> None:
    farther = _candidate("van-off", LATER, _unit(0.1, 0.0, 0.995), text=VAN_OFF.record.edge.text)
    assert _given_up(VAN, farther, CHORES) == {}


# --- the slot an ingest retraction names, and the turn's words near it ------------------------
#: Stand-in word vectors: "puppy" near "dog" (0.8), "kitten" too (0.7); any other word its own
#: direction.
_NEAR_DOG = {"dog": _unit(1.0), "puppy": _unit(0.8, 0.6), "kitten": _unit(0.7, 0.0, 0.714)}


def _embed(texts: Sequence[str]) -> np.ndarray:
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for i, text in enumerate(texts):
        v = _NEAR_DOG.get(text)
        if v is not None:
            out[i, : len(v)] = v
        else:
            out[i, 8 + sum(map(ord, text)) % 56] = 1.0
    return out


SPANIEL = _candidate(
    "spaniel", THEN, _unit(1.0), text="spent Sunday at a breeder's, looking at spaniel puppies"
)
DOG_OFF_TEXT = (
    "the new lease bans animals, so the dog plan is dead. unsubscribed from the puppy "
    "newsletters too"
)
DOG_OFF = _candidate("dog-off", LATER, FAR, text=DOG_OFF_TEXT, drawn=("dog-off#0",))
DOG_RETRACTION = FactRecord(edge=EdgeEvent(
    edge_id="dog-off#0", user_id="u1", text="User dropped the plan to get a dog",
    categories=Category.OTHER, ingest_time=LATER, retracts=("plan.dog",),
    source_turns=("dog-off",),
))  # fmt: skip


def test_the_turns_words_near_the_slot_name_it_too() -> None:
    assert slot_kin(["dog"], DOG_OFF_TEXT, _embed, 0.6) == {"puppy"}
    assert slot_kin([], DOG_OFF_TEXT, _embed, 0.6) == frozenset()


def test_an_ingest_slot_binds_a_plan_that_says_a_narrower_word_of_the_turn() -> None:
    query = "when is the spaniel coming home?"
    found = _given_up(SPANIEL, DOG_OFF, CHORES, query=query, facts=[DOG_RETRACTION], embed=_embed)
    assert set(found) == {"spaniel"} and found["spaniel"].family == withdrawn.INGEST
    # The slot's own word only ("dog"): the plan never says it.
    assert _given_up(SPANIEL, DOG_OFF, CHORES, query=query, facts=[DOG_RETRACTION],
                     embed=_embed, rule=NO_KIN) == {}  # fmt: skip
    assert _given_up(SPANIEL, DOG_OFF, CHORES, query=query, facts=[DOG_RETRACTION],
                     embed=_embed, rule=UNNAMED) == {}  # fmt: skip
    # No embedder: the slot's own words only.
    assert _given_up(SPANIEL, DOG_OFF, CHORES, query=query, facts=[DOG_RETRACTION]) == {}


def test_a_word_near_the_slot_the_turn_never_says_names_nothing() -> None:
    # "kitten" is as near "dog" as "puppy", but the withdrawal does not say it.
    kitten = _candidate("kitten", THEN, _unit(1.0), text="we're adopting a kitten in spring")
    assert _given_up(kitten, DOG_OFF, CHORES, facts=[DOG_RETRACTION], embed=_embed) == {}
