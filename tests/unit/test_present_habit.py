"""Witnesses of `newer_statements.present_habit_leads` (round 22, r22-latest): a do-support
question in the simple present ("which choir do I sing in?") asks which value holds now
without a present-time word, so `shown_newer_leads` waives σ for it as for "… now?".

The statements are written here for the test; none comes from a paper-turns set."""

from __future__ import annotations

import numpy as np
import pytest

from tests.unit.test_newer_statements_shown import (
    LATER,
    OLD,
    RULE,
    WEAKER,
    _candidate,
    _demoted,
    _unit,
)
from workers.query import newer_statements
from workers.query.present_habit import asks_others_habit, asks_present_habit

OFF = RULE.model_copy(update={"present_habit_leads": False})


@pytest.mark.parametrize(
    "question",
    [
        "which choir do I sing in?",
        "what car does my brother drive?",
        "what do we pay for rent?",
        "where do I live?",
        "which bank don't I use?",
    ],
)
def test_a_simple_present_do_question_asks_the_value_that_holds_now(question: str) -> None:
    assert asks_present_habit(question)
    assert newer_statements.asks_current_value(question, present_habit=True)
    assert not newer_statements.asks_current_value(question, present_habit=False)


@pytest.mark.parametrize(
    "question",
    [
        "what is my native language?",  # the copula: a stable property
        "when's my birthday?",
        "which choir did I sing in?",  # the past
        "which choir will I join?",  # the future
        "do you know which choir I sing in?",  # to the assistant
        "how does that work",  # no question mark: no question
        "what does Priya love about her job?",  # a third person by name
    ],
)
def test_not_the_copula_the_past_or_the_assistant(question: str) -> None:
    assert not asks_present_habit(question)
    assert not newer_statements.asks_current_value(question, present_habit=True)


@pytest.mark.parametrize(
    "question",
    [
        "do I still sing in a choir?",  # continuity: names the earlier state
        "which choir do I sing in, on 3 March 2026?",  # its own date
    ],
)
def test_not_continuity_nor_a_dated_question(question: str) -> None:
    assert not newer_statements.asks_current_value(question, present_habit=True)


def test_the_shown_newer_version_leads_a_present_do_question() -> None:
    assert _demoted(OLD, WEAKER, question="which choir do I sing in?") == {"old"}
    # Switch off: the σ condition holds, as before round 22.
    assert _demoted(OLD, WEAKER, question="which choir do I sing in?", rule=OFF) == set()


# Round 23 (lead): a do-question about someone else ("what car does Sam drive?") — the waiver
# holds only for two versions closer than `present_habit_others_min_cosine` (0.6).
#: Cosine 0.45 to OLD's vector: close enough for the asker's own do-question (0.4), not for
#: a third person's.
MIDDLING = _candidate("new", LATER, _unit(0.45, float(np.sqrt(1 - 0.45**2))), 0.4)


@pytest.mark.parametrize(
    "question",
    ["what car does Sam drive?", "where do the kids go to school?", "which gym does he use?"],
)
def test_a_third_person_do_question_is_read_by_the_wider_family_only(question: str) -> None:
    assert asks_others_habit(question)
    assert not asks_present_habit(question)
    assert not newer_statements.asks_current_value(question, present_habit=True)
    assert newer_statements.asks_current_value(question, present_habit=True, others=True)


def test_a_third_person_do_question_lets_only_a_close_newer_version_lead() -> None:
    question = "which choir does Sam sing in?"
    assert RULE.present_habit_others_min_cosine == 0.6
    assert _demoted(OLD, WEAKER, question=question) == {"old"}  # cosine 0.8
    assert _demoted(OLD, MIDDLING, question=question) == set()  # 0.45: a remark on the topic
    assert _demoted(OLD, MIDDLING, question="which choir do I sing in?") == {"old"}
    never = RULE.model_copy(update={"present_habit_others_min_cosine": 1.1})
    assert _demoted(OLD, WEAKER, question=question, rule=never) == set()
    assert not asks_others_habit("do you know which choir Sam sings in?")
