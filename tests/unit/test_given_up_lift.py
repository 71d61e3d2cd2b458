"""Witnesses of round 24's answer to a question about what was given up
(workers/query/given_up.py; paper A.9, AV7; LifecycleBench C.5 counts the plan's turn as
gold): the plan a window withdrawal gives up, ranked past the window, moves up to just after
its withdrawal; the same reading as for a current question, which masks it instead.

Every sentence is written here for the test; none comes from a paper-turns set. Stand-in
vectors; the stand-in probe reads the 4th coordinate as "gives up".
"""

from __future__ import annotations

from collections.abc import Sequence

from schemas.categories import Intent
from tests.unit.nearest_memory import nearest_in
from tests.unit.test_withdrawn import (
    GIVES_UP,
    LATER,
    NOW,
    ON,
    PLAN,
    THEN,
    _candidate,
    _probability,
    _unit,
)
from workers.query import given_up, withdrawn
from workers.query.candidates import MergedCandidate

RULE = ON.withdrawn
PLAN_TURN = _candidate("plan", THEN, PLAN, text="I'm going to volunteer at the animal shelter")
OFF = _candidate("off", LATER, GIVES_UP, text="I've given up on the shelter volunteering")
FILLER = [_candidate(f"f{i}", THEN, _unit(0.0, 0.0, 1.0), text=f"filler {i}") for i in range(12)]


def _found(ranking: Sequence[MergedCandidate], intent: Intent = Intent.CANCELLED,
           lift: bool = True) -> dict[str, withdrawn.Withdrawn]:  # fmt: skip
    nearest = nearest_in(ranking, RULE.targets)

    return withdrawn.withdrawn(
        intent, list(ranking[:10]), NOW, RULE, _probability, lambda ids: [], nearest,
        lambda v: [], "what did I give up on?", ranking, None, lift,
    )  # fmt: skip


def test_the_given_up_plan_past_the_window_moves_up_to_its_withdrawal() -> None:
    ranking = [FILLER[0], OFF, *FILLER[1:], PLAN_TURN]  # the plan 14th
    found = _found(ranking)
    assert set(found) == {"plan"} and found["plan"].by == "off"
    served, lifted = given_up.lift(list(range(len(ranking))), ranking, found, 10)
    assert [ranking[i].record.edge_id for i in served[:4]] == ["f0", "off", "plan", "f1"]
    assert lifted == {"plan": "off"}
    assert given_up.explain("off").startswith("lifted: the plan a window withdrawal gives up")


def test_only_for_a_question_about_what_was_given_up() -> None:
    ranking = [FILLER[0], OFF, *FILLER[1:], PLAN_TURN]
    # The lifting reading answers no current question; the masking one no cancelled question.
    assert _found(ranking, intent=Intent.CURRENT) == {}
    assert _found(ranking, lift=False) == {}


def test_nothing_moves_without_a_withdrawal_in_the_window_or_with_the_plan_in_it() -> None:
    ranking = [FILLER[0], OFF, *FILLER[1:], PLAN_TURN]
    found = _found(ranking)
    # The withdrawal past the window: the plan stays where it is.
    late = [*FILLER, OFF, PLAN_TURN]
    assert given_up.lift(list(range(len(late))), late, found, 10) == (list(range(len(late))), {})
    # The plan already in the window stays where it is.
    near = [OFF, FILLER[0], PLAN_TURN, *FILLER[1:]]
    assert given_up.lift(list(range(len(near))), near, found, 10) == (list(range(len(near))), {})
