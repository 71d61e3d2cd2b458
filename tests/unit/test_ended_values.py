"""Witnesses of `newer_statements.ended_value_marks` (round 25, lead;
`workers/query/ended_values.py`): a newer raw turn that says something the older turn names is
over ("the boiler's gone", "sold the hatchback") marks the change for that pair, as a turn that
says "now" does — the σ condition is waived, so the newer version leads a current question
whose words match the older one better (A.7.1; the paper's Table 13 tells changes this way:
"Left Google, joining Anthropic", "stopped the bear tours").

The statements here are written for the test; none comes from a paper-turns set.
"""

from __future__ import annotations

import numpy as np
import pytest

from schemas.categories import Intent
from tests.unit.test_newer_statements import LATER, NOW, ON, THEN, _candidate, _unit
from workers.query import newer_statements
from workers.query.ended_values import says_ended

RULE = ON.newer_statements.model_copy(update={"ended_value_marks": True})
OFF = RULE.model_copy(update={"ended_value_marks": False})
#: A question that does not say "now": only a marked newer turn presses whatever its σ.
ASKED = "how is the cottage heated?"

OLDER = "the cottage runs on a coal stove, I haul the scuttle in every night"


@pytest.mark.parametrize(
    "newer",
    [
        "installer came Tuesday. The coal stove's gone to the tip",  # subject, possessive 's
        "the stove is officially dead, long live the radiators",  # copula + adverb
        "sold the old coal stove to a collector",  # verb, then the object within reach
        "no more scuttles for me",  # "no more" + the named thing
        "got rid of the stove at last",
        "coal = over",
        "stove retired",  # the ending right after the named word
    ],
)
def test_an_ending_said_of_what_the_older_turn_names(newer: str) -> None:
    assert says_ended(OLDER, newer)


@pytest.mark.parametrize(
    "newer",
    [
        "sold my bike to a neighbour",  # an ending, but of something the older turn never named
        "stopped by the stove shop to look at radiators",  # a visit, not an end
        "by tonight I'll have done the coal delivery run",  # a perfect's "done"
        "the stove keeps falling over on the uneven hearth",  # a verb's "over"
        "the stove is lovely this winter. the film was over at ten",  # ending in another clause
        "thinking about whether the stove should go",  # no ending predicate
    ],
)
def test_no_ending_of_what_the_older_turn_names(newer: str) -> None:
    assert not says_ended(OLDER, newer)


def _window(newer_text: str) -> tuple[object, object]:
    # The older statement matches the question better (σ 0.9 against 0.5): without a mark,
    # the σ condition keeps the newer one from pressing it.
    old = _candidate("old", THEN, _unit(1.0, 0.0), sigma=0.9, text=OLDER)
    new = _candidate("new", LATER, _unit(0.6, 0.8), sigma=0.5, text=newer_text)
    return old, new


def test_a_newer_turn_that_ends_the_older_value_leads_and_says_why() -> None:
    window = _window("heat pump fitted this week. The coal stove's gone to the tip")
    found = newer_statements.demotions(Intent.CURRENT, ASKED, window, NOW, RULE, 5)
    assert found == {"old": newer_statements.Newer("new", 0.6, ended=True)}
    assert "says this one's value is over" in newer_statements.explain(found["old"])
    # Off (main's behaviour before round 25): the σ condition holds the pair apart.
    assert newer_statements.demotions(Intent.CURRENT, ASKED, window, NOW, OFF, 5) == {}


def test_a_newer_turn_that_ends_something_else_presses_nothing() -> None:
    window = _window("heat pump fitted this week. Sold the old van to a lad in town")
    assert newer_statements.demotions(Intent.CURRENT, ASKED, window, NOW, RULE, 5) == {}


def test_the_mark_keeps_every_other_gate() -> None:
    old, new = _window("the coal stove's gone to the tip")
    # A pair not about the same thing (cosine 0) is not pressed, however the ending is said.
    far = _candidate("new", LATER, _unit(0.0, 0.0, 1.0), sigma=0.5, text=new.record.edge.text)  # type: ignore[attr-defined]
    assert newer_statements.demotions(Intent.CURRENT, ASKED, (old, far), NOW, RULE, 5) == {}
    # A turn told before the older one presses nothing of it.
    early = _candidate(
        "new",
        THEN - (LATER - THEN),
        _unit(0.6, 0.8),
        sigma=0.5,
        text=new.record.edge.text,  # type: ignore[attr-defined]
    )
    found = newer_statements.demotions(Intent.CURRENT, ASKED, (old, early), NOW, RULE, 5)
    assert "old" not in found
    assert np.isclose(float(np.dot(old.vector, new.vector)), 0.6)  # type: ignore[attr-defined]
