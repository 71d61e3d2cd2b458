"""Witnesses of `newer_statements.unmarked_single_value` (issue-11ag): a newer raw turn about
the same thing leads an earlier statement for a current question that asks for one value, even
when neither the question nor the newer turn says "now" — but never for a question that asks
for a set (AV5 broad aggregation: an older item is one more item, not an outdated value).

The class it answers (paper A.7.3 q_cur, AV1 / AV4 / AV6): a value and its replacement both
told in words no rule keys, the asker's question unmarked ("where does she live?"), the user's
newer words unmarked too ("we've got our own place in the valley"). The statements here are
written for the test; none comes from a paper-turns set or LoCoMo.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from schemas.categories import Intent
from schemas.policy import NewerStatementsPolicy, load_policy
from tests.unit.minilm_edges import with_rule
from tests.unit.test_newer_statements import ABOUT, ABOUT_TOO, ELSE, LATER, NOW, THEN
from tests.unit.test_newer_statements_marked import _candidate
from workers.query import newer_statements
from workers.query.candidates import MergedCandidate

POLICY = with_rule(load_policy(), "latest_value", enabled=False)
# The do-question's own waiver of the σ gate ("where do we live?", present_habit_leads) is
# witnessed in test_present_habit.py; here the unmarked reading alone.
ON = with_rule(
    POLICY, "newer_statements", enabled=True, unmarked_single_value=True, present_habit_leads=False
)
OFF = with_rule(
    POLICY, "newer_statements", enabled=True, unmarked_single_value=False, present_habit_leads=False
)
DEMOTE_TO = POLICY.latest_value.demote_to

OLD = _candidate("old", THEN, ABOUT, sigma=0.7, text="we rent the flat above the bakery")
NEW = _candidate("new", LATER, ABOUT_TOO, sigma=0.7, text="we've got our own place in the valley")


def _demoted(*window: MergedCandidate, question: str, rule: NewerStatementsPolicy = ON
             .newer_statements, intent: Intent = Intent.CURRENT) -> set[str]:  # fmt: skip
    return set(newer_statements.demotions(intent, question, window, NOW, rule, DEMOTE_TO))


def test_the_default_policy_turns_it_on() -> None:
    assert load_policy().newer_statements.unmarked_single_value


def test_an_unmarked_newer_turn_leads_an_unmarked_single_value_question() -> None:
    question = "where do we live?"
    assert not newer_statements.asks_now(question)
    assert not newer_statements.says_now(NEW.record.edge.text)
    assert _demoted(OLD, NEW, question=question) == {"old"}
    # Without the switch, the question or the newer turn had to say "now".
    assert _demoted(OLD, NEW, question=question, rule=OFF.newer_statements) == set()


def test_a_question_for_a_set_keeps_every_item() -> None:
    for question in ("what places have we lived in?", "list all the homes we've had"):
        assert newer_statements.asks_for_many(question)
        assert _demoted(OLD, NEW, question=question) == set()


@pytest.mark.parametrize(
    "newer",
    [
        _candidate("new", LATER, ABOUT_TOO, sigma=0.5, text="our own place in the valley"),  # σ
        _candidate("new", LATER, ELSE, text="our own place in the valley"),  # about else
        _candidate("new", THEN + timedelta(hours=3), ABOUT_TOO, text="our own place"),  # same day
        _candidate("new", LATER, ABOUT_TOO, raw=False, text="User lives in the valley"),  # a fact
        _candidate("new", THEN - timedelta(days=3), ABOUT_TOO, text="our own place"),  # older
    ],
)
def test_every_other_gate_still_holds(newer: MergedCandidate) -> None:
    # (An older "newer" is itself led by OLD, the newest: only OLD's fate is asked here.)
    assert "old" not in _demoted(OLD, newer, question="where do we live?")


def test_only_current_questions() -> None:
    for intent in (Intent.HISTORICAL, Intent.PAST, Intent.UPCOMING):
        assert _demoted(OLD, NEW, question="where did we live?", intent=intent) == set()


@pytest.mark.parametrize(
    ("question", "many"),
    [
        ("What sports does Ola play?", True),
        ("Which kinds of films does she like?", True),
        ("What are the names of her cats?", True),
        ("List every language I speak", True),
        ("What hobbies have I picked up?", True),
        ("What is Ola's job?", False),
        ("What was his address?", False),
        ("What does Ola do for a living?", False),
        ("What makes her anxious?", False),
        ("Which bus does she take to work?", False),
        ("How much is my rent?", False),
        ("Where does Ola live?", False),
        ("What is this about?", False),
        # A frequency is no set: one amount, one habit (round 20).
        ("How much does she pay for insurance each year?", False),
        ("What does he eat every morning?", False),
        ("Name each of her kids", True),
        ("Which cats has every neighbour got?", True),
    ],
)
def test_what_asks_for_a_set(question: str, many: bool) -> None:
    assert newer_statements.asks_for_many(question) is many
