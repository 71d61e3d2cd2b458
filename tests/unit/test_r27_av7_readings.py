"""Witnesses of round 27's r27-av7 readings (docs/extraction.md, "Round 27 (r27-av7)"):

* "leave it as it is" keeps what it names: the manner phrase is no reason clause after a
  dismissive imperative (`dismissal._END`), so it dismisses nothing (AV9: a kept value stayed
  withdrawn by its own "leave it");
* a slash with spaces either side is a line break written inline (verse, notes, texting): a
  sentence (`clauses.sentences`) and a dismissal's segment (`dismissal._LINE_SLASH`) end there;
* a job line ("Job: …", "- role: …", "current position: …") and a clause that drops "I'm"
  ("employed as a …", "<rank> <role> at <Name>") key the
  profession (`patterns_identity_passing._JOB_FIELD`, `_DROPPED_I`, AV3 / AV9);
* round 26's "since" mark needs a holder: "a lot has happened since then" changes no value
  (`change_said._NO_HOLDER`).

Every sentence is written here for the test; none comes from a paper-turns set.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas.events import TurnEvent
from workers.extraction.clauses import sentences
from workers.extraction.dismissal import dismissals
from workers.extraction.own_withdrawal import asserts
from workers.extraction.rules import RuleExtractor
from workers.query.change_said import says_changed

AT = datetime(2026, 3, 2, 18, tzinfo=UTC)


def _facts(text: str, normalize: bool = False) -> list[tuple[str | None, str | None]]:
    turn = TurnEvent(user_id="u", session_id="s", turn_id="t", role="user", text=text, timestamp=AT)
    return [(f.slot_key, f.value) for f in RuleExtractor(normalize=normalize).extract(turn)]


@pytest.mark.parametrize(
    "text",
    [
        "Bike field: leave it as it is, and note that I might look at an e-bike one day.",
        "The address line? Leave it as is.",
        "leave it as things stand for now",
    ],
)
def test_leave_it_as_it_is_keeps_what_it_names(text: str) -> None:
    assert dismissals(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "the kayak idea: forget it, as it costs a fortune",
        "drop it as it is too dear",
        "leave it",
    ],
)
def test_a_dismissive_imperative_still_reads(text: str) -> None:
    assert [d.family for d in dismissals(text)] == ["dismissive imperative"]


def test_a_spaced_slash_ends_a_line() -> None:
    assert sentences("grey gulls at dawn / a boat in the harbour / mine at last") == [
        "grey gulls at dawn",
        "a boat in the harbour",
        "mine at last",
    ]
    # no spaces: a word pair, a rate, a date — one sentence
    assert len(sentences("It runs 24/7 and/or at 30 km/h on 3/4.")) == 1


def test_a_dismissal_set_in_verse_lines_is_read() -> None:
    text = "the sailing trip? no thanks / I've called it off, not doing it / too much wind"
    assert [d.family for d in dismissals(text)] == ["negated pro-verb"]


def test_a_plan_told_in_verse_lines_is_asserted() -> None:
    # one line of it is vague about when ("someday"); the others state the plan outright
    assert asserts("someday, I've made up my mind / the coast path, all of it / boots this week")


@pytest.mark.parametrize(
    ("text", "value", "normalize"),
    [
        ("Job: theatre nurse at the county hospital.", "theatre nurse", False),
        ("current role: senior surveyor with a housing trust", "senior surveyor", False),
        ("- job: claims analyst @ a society\n- need: an email", "claims analyst", True),
        ("Employed as a welder at the shipyard, nights mostly.", "welder", False),
        ("cold dawn / head gardener at Ashcombe Hall / soil on me", "head gardener", False),
    ],
)
def test_a_job_line_or_a_dropped_subject_keys_the_profession(
    text: str, value: str, normalize: bool
) -> None:
    assert ("user.profession", value) in _facts(text, normalize)


@pytest.mark.parametrize(
    "text",
    [
        "The job: a roofer came round about the gutters.",
        "the head gardener at Ashcombe Hall was very rude to us",
        "My brother: employed as a welder, hates it.",
    ],
)
def test_no_profession_of_the_users(text: str) -> None:
    assert all(slot != "user.profession" for slot, _ in _facts(text))


@pytest.mark.parametrize(
    "text",
    [
        "A lot has happened since then!",
        "Wow, so much has changed since.",
        "Things have been hectic ever since.",
    ],
)
def test_catching_up_since_changes_no_value(text: str) -> None:
    assert not says_changed(text)


def test_a_holder_since_still_marks() -> None:
    assert says_changed("Got an e-bike in March and I've ridden it to work since.")
