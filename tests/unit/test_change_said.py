"""Witnesses of round 25 (r25-av1): a newer turn that says the change itself marks it
(`newer_statements.change_said_marks`, `workers/query/change_said.py`), and a present-habit
do-question reads such marked pressers past the window (`deeper_marked_habit`).

The class (validation AV1, read by class): the newer version shown beside the older one, or
past the window, and kept behind it by σ — the newer wording is the weaker match for a question
asked in the old value's words — while the user said the change in words `says_now` does not
read ("Correction: …", "it's changed", "switched to …"). Sentences and vectors written here for
the test; none comes from a paper-turns set.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent
from schemas.policy import NewerStatementsPolicy, load_policy
from schemas.records import FactRecord, Lifecycle
from tests.unit.minilm_edges import with_rule
from workers.query import newer_statements
from workers.query.candidates import MergedCandidate
from workers.query.change_said import says_changed
from workers.query.present_habit import asks_attitude

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
THEN = NOW - timedelta(days=200)
LATER = NOW - timedelta(days=20)
POLICY = with_rule(load_policy(), "newer_statements", enabled=True, pressers_from=30)
RULE = POLICY.newer_statements
OFF = RULE.model_copy(update={"change_said_marks": False})
DEMOTE_TO = POLICY.latest_value.demote_to


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Small correction: it's the blue one, not the red.", True),
        ("Correction to my notes - the meeting is on Fridays.", True),
        ("ok so it's changed: green tea every night.", True),
        ("Things have changed. I cycle in now.", True),
        ("I switched to the night bus in March.", True),
        ("we've swapped back to paper maps", True),
        ("changed over to decaf after the scare", True),
        # A question states nothing: the clause asks.
        ("have you switched to the new app?", False),
        # A plan to switch is no value yet (the progressive, the infinitive).
        ("I'm switching to nights next month", False),
        ("thinking I should switch to oat milk", False),
        # A transitive "changed": something changed something, no value of the user's replaced.
        ("that trip changed my life", False),
        ("things have changed a lot around here", False),
        # "correction" not as a label opening the clause.
        ("the market saw a sharp correction this week", False),
        ("a plain statement of a value", False),
    ],
)
def test_a_change_said_in_a_statement_is_read(text: str, said: bool) -> None:
    assert says_changed(text) is said


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray([*xs, 0.0, 0.0, 0.0, 0.0][:5], dtype=np.float32)
    return v / np.linalg.norm(v)


OLD = _unit(1.0, 0.0)
NEW = _unit(0.8, 0.6)  # cosine 0.8 to OLD: about the same thing
FILL = _unit(0.0, 0.0, 0.0, 1.0)


def _candidate(
    edge_id: str, at: datetime, vector: np.ndarray, sigma: float, text: str
) -> MergedCandidate:
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=text, categories=Category.OTHER, ingest_time=at,
        episodic=True, source_turns=(edge_id.partition("#")[0],),
    )  # fmt: skip
    life = Lifecycle(last_mentioned_at=at)
    return MergedCandidate(FactRecord(edge=edge, lifecycle=life), sigma, ("dense",), vector)


STALE = _candidate("old#raw", THEN, OLD, 0.8, "I always take the aisle seat")
FILLERS = [_candidate(f"f{i}#raw", THEN, FILL, 0.5, f"filler {i}") for i in range(9)]
#: The newer version says the change, not the time of the new value; a weaker match (σ 0.1).
CORRECTED = _candidate("new#raw", LATER, NEW, 0.1, "Correction: the window seat, not the aisle.")
PLAIN = _candidate("new#raw", LATER, NEW, 0.1, "the window seat, not the aisle.")


def _led(
    question: str, window: list[MergedCandidate], deeper: tuple[MergedCandidate, ...] = (),
    rule: NewerStatementsPolicy = RULE,
) -> dict[str, newer_statements.Newer]:  # fmt: skip
    return newer_statements.demotions(
        Intent.CURRENT, question, window, NOW, rule, DEMOTE_TO, deeper
    )


def test_a_newer_turn_that_says_the_change_leads_whatever_its_sigma() -> None:
    # No present-time word in the question, no do-support, the newer turn a weaker match.
    window = [STALE, *FILLERS[:8], CORRECTED]
    led = _led("which seat is my preference?", window)
    assert set(led) == {"old#raw"}
    assert led["old#raw"].by == "new#raw" and led["old#raw"].marked
    assert "which says it holds now" in newer_statements.explain(led["old#raw"])
    # Without the switch (round 24's mark: a present-time word only) σ keeps the old first.
    assert _led("which seat is my preference?", window, rule=OFF) == {}
    # The same turn without the change said: σ keeps the old first.
    assert _led("which seat is my preference?", [STALE, *FILLERS[:8], PLAIN]) == {}


#: A do-question in the simple present about someone else, no present-time word.
HABIT = "what seat does Sam book on flights?"


@pytest.mark.parametrize(
    ("question", "habit", "reads"),
    [
        (HABIT, True, True),
        (HABIT, False, False),  # the switch off: round 21's gate, a question saying now
        ("what seat do I book these days?", False, True),
        ("what does Sam hope to get out of the trip?", True, False),  # a verb of attitude
        ("what seats does Sam book on all his flights?", True, False),  # a set
        ("what seat did Sam book?", True, False),  # the past
    ],
)
def test_a_present_habit_question_reads_past_the_window(
    question: str, habit: bool, reads: bool
) -> None:
    assert newer_statements.reads_deeper(question, habit) is reads


def test_past_the_window_a_habit_question_takes_only_a_turn_that_says_the_change() -> None:
    window = [STALE, *FILLERS]
    led = _led(HABIT, window, (CORRECTED,))
    assert set(led) == {"old#raw"} and led["old#raw"].deeper and led["old#raw"].marked
    # An unmarked deeper turn, even one that matches the question better than the old one,
    # does not: past the window nothing but the user's own mark vouches for it.
    better = _candidate("new#raw", LATER, NEW, 0.9, PLAIN.record.edge.text)
    assert _led(HABIT, window, (better,)) == {}
    # For a question that says now, the window's gates decide as before (σ passed: pressed).
    assert set(_led("what seat does Sam book now?", window, (better,))) == {"old#raw"}


def test_a_verb_of_attitude_is_read_by_its_do_support() -> None:
    assert asks_attitude("What kind of impact does she hope to have?")
    assert asks_attitude("what do I love about the place?")
    assert not asks_attitude("what does she drink before bed?")
    assert not asks_attitude("how does he get to work?")


def test_a_change_that_names_what_it_replaced_leads_only_a_statement_of_that() -> None:
    # "switched from <X> to <Y>" is about X: it leads the statement that says X ...
    named = _candidate(
        "new#raw", LATER, NEW, 0.1, "I switched from the aisle seat to the window seat."
    )
    led = _led("which seat is my preference?", [STALE, *FILLERS[:8], named])
    assert set(led) == {"old#raw"} and led["old#raw"].marked
    # ... and no other statement near it, however close their vectors (a diet's change and a
    # food allergy; a pub drink's change and a home): then σ decides, as for an unmarked turn.
    other = _candidate("new#raw", LATER, NEW, 0.1, "I switched from buses to trams.")
    assert _led("which seat is my preference?", [STALE, *FILLERS[:8], other]) == {}
    # A present-time word marks it as before, named source or not (round 24's mark).
    now = _candidate("new#raw", LATER, NEW, 0.1, "I switched from buses to trams, trams now.")
    assert set(_led("which seat is my preference?", [STALE, *FILLERS[:8], now])) == {"old#raw"}
