"""Witnesses of round 26's withdrawal families (paper §3.3, A.9: the user's explicit
retraction of their own statement; AV7, selective forgetting — pass by absence, C.5).

Ingest markers (`workers/extraction/retraction.py`): the user's earlier words set aside by any
verb of setting aside ("ignore what I said about …"), "no longer" planning, a plan's verdict
said as a state ("a non-starter", "on hold for good", a named plan "is over"), the idioms of
walking away from or setting a plan aside ("bailed on", "let go of", "gave it a miss", "put a
line through", "gone off the idea of", "won't go ahead"), a contracted perfect ("'s been
called off") and a plan denied outright ("no puppy after all"). Query-time dismissals
(`workers/extraction/dismissal.py`): a stay that voids a move ("I'm staying put"), a
replacement chosen instead of the plan ("rather than buying …", bound by its topic only), a
note's topic with a bare participle verdict ("Boat plan binned."), and a note heading naming
the topic of a dismissal said later in the turn.

Every sentence is written here for the test; none comes from a paper-turns set.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from schemas.categories import Intent
from schemas.events import TurnEvent
from schemas.policy import load_policy
from tests.unit.minilm_edges import with_rule
from tests.unit.nearest_memory import nearest_in
from tests.unit.nearest_memory import told as _candidate
from tests.unit.nearest_memory import unit as _unit
from workers.extraction.dismissal import (
    BOUND_BY_TOPIC,
    REPLACEMENT,
    STAY,
    dismissals,
    heading_words,
    named_topic_words,
)
from workers.extraction.rules import RuleExtractor
from workers.query import withdrawn
from workers.query.candidates import MergedCandidate
from workers.text.bm25 import tokenize

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _retracts(text: str) -> list[tuple[str, ...]]:
    turn = TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", text=text,
                     timestamp=AT)  # fmt: skip
    return [f.retracts for f in RuleExtractor().extract(turn, []) if f.retracts
            and f.prototype != "withdrawal"]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "Ignore what I said about the canal boat.",
        "Scratch everything I told you about the Porto trip.",
        "Strike the bit about the road trip, please.",
        "I'm no longer planning to sell the flat.",
        "The MBA is on hold for good.",
        "The road trip is a non-starter now.",
        "That whole allotment idea is over.",
        "The Oslo trip is out of the question.",
        "I bailed on the half marathon.",
        "I've let go of the Oslo plan.",
        "Cross the camping trip off.",
        "The camping trip's been called off.",
        "No puppy after all.",
        "We're giving the camping trip a miss.",
        "Put a line through the road trip.",
        "I've gone off the idea of a campervan.",
        "The sabbatical won't go ahead.",
        "I've set the novel aside for good.",
    ],
)
def test_the_new_marker_families_read_a_withdrawal(text: str) -> None:
    assert _retracts(text), text


@pytest.mark.parametrize(
    "text",
    [
        "The match is over.",
        "I let go of my anger.",
        "I bailed on my friends last night, felt bad.",
        "No coffee anymore for me.",
        "I can't forget what I said about her.",
        "Did you forget what I told you about the canal boat?",
        "The game is on hold for now.",
        "My phone's been dropped twice.",
        "I parked the car for good in the garage.",
        "I gave the kids a bath.",
        "I set the book aside and made tea.",
        "My nephew has gone off to college in the autumn.",
        "I've gone off coffee completely, tea for me now.",
    ],
)
def test_nothing_given_up_reads_as_none(text: str) -> None:
    assert _retracts(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "Mum needs me close, I'm staying put, no more talk of it.",
        "We're staying where we are.",
        "I'm not going anywhere, the kids are settled.",
    ],
)
def test_a_stay_voids_a_move(text: str) -> None:
    assert [d.family for d in dismissals(text)] == [STAY]


@pytest.mark.parametrize(
    "text",
    [
        "I'm staying put tonight because of the snow.",
        "I'm not going anywhere this weekend.",
        "If I stay put, the visa lapses.",
        "Should I be staying put?",
    ],
)
def test_a_stay_for_one_evening_or_weighed_is_none(text: str) -> None:
    assert dismissals(text) == []


def test_a_replacement_names_the_plan_it_voids_and_binds_only_by_it() -> None:
    text = "I'm keeping the old hatchback rather than buying an electric van."
    assert [d.family for d in dismissals(text)] == [REPLACEMENT]
    assert REPLACEMENT in BOUND_BY_TOPIC
    # Only what was to be bought binds: not the kept car, and no light verb.
    words = named_topic_words(text)
    assert set(tokenize("van")) <= words
    assert not words & set(tokenize("old hatchback keeping"))
    assert not named_topic_words("I'm staying in Leeds rather than going freelance.") & set(
        tokenize("going leeds")
    )
    assert dismissals("I walk to work instead of driving.") == []
    assert dismissals("Should I keep the hatchback rather than buying a van?") == []


def test_a_topic_and_a_bare_participle_verdict() -> None:
    assert [d.family for d in dismissals("Boat plan binned.")] == ["topic and a bare verdict"]
    assert [d.topic for d in dismissals("Oslo move cancelled.")] == ["Oslo move"]
    assert dismissals("We cancelled.") == []


def test_a_note_heading_names_the_topic_of_a_later_dismissal() -> None:
    text = "Oslo: not for us. Dad's not well, I'm staying put, that's final."
    assert heading_words(text) == {"oslo"}
    assert "oslo" in named_topic_words(text)
    # A heading that names the kind of note names no topic; without a dismissal, nothing.
    assert heading_words("Update: I'm staying put.") == frozenset()
    assert named_topic_words("Oslo: great trip, loved it.") == frozenset()


# --- at query time (workers/query/withdrawn.py): stand-in vectors, the 4th coordinate is
# what the stand-in probe reads as "gives up" (kept low: the dismissal families read these).
NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
THEN, LATER = NOW - timedelta(days=200), NOW - timedelta(days=20)
RULE = with_rule(load_policy(), "withdrawn", enabled=True).withdrawn


def _given_up(*window: MergedCandidate, query: str = "") -> set[str]:
    return set(
        withdrawn.withdrawn(
            Intent.CURRENT, window, NOW, RULE, lambda v: 0.99 if float(v[3]) > 0.5 else 0.01,
            lambda ids: [], nearest_in(list(window), RULE.targets), lambda v: [], query,
        )
    )  # fmt: skip


def test_a_heading_binds_a_stay_to_the_move_it_voids() -> None:
    move = _candidate("move", THEN, _unit(1.0), "Plan: a two-year job in Oslo, flat hunting")
    # Mostly reasons: cosine 0.2 to the plan, under `min_cosine`; the heading names Oslo.
    stay = _candidate(
        "stay", LATER, _unit(0.2, 0.0, 0.98), "Oslo: not for us. Dad needs me, I'm staying put."
    )
    assert _given_up(move, stay, query="where am I moving?") == {"move"}
    unheaded = _candidate(
        "stay", LATER, _unit(0.2, 0.0, 0.98), "Not for us. Dad needs me, I'm staying put."
    )
    assert _given_up(move, unheaded, query="where am I moving?") == set()


def test_a_replacement_binds_only_a_statement_of_what_it_replaces() -> None:
    van = _candidate(
        "van", THEN, _unit(0.5, 0.0, 0.0, 0.0, 0.87), "ordering an electric van in May"
    )
    tyres = _candidate("tyres", THEN, _unit(0.9, 0.44), "the old hatchback needs new tyres")
    keep = _candidate(
        "keep", LATER, _unit(1.0), "I'm keeping the old hatchback rather than ordering a van."
    )
    # The hatchback statement is nearer the withdrawal and shares its words; only the van
    # statement says what was given up.
    assert _given_up(van, tyres, keep) == {"van"}
