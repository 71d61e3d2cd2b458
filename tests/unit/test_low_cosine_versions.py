"""Witnesses of `newer_statements.marked_min_cosine` (round 24, r24-lowcos;
`workers/query/low_cosine_versions.py`): a newer raw turn that says the value changed ("… now",
"these days") presses an older candidate it is *less* close to than `min_cosine` (0.3) when the
question ties the two — both in the ranking's first tier, the candidates judged relevant to it.

The class (paper A.7.3 q_cur, AV4 / AV6): two versions of one attribute told in words MiniLM does
not put near each other (a new employer named without a verb of working, a ship by its name);
the "about the same thing" gate kept the newer one from leading. The statements here are
written for the test; none comes from a paper-turns set.
"""

from __future__ import annotations

import numpy as np

from tests.unit.test_newer_statements import LATER, ON, THEN, _candidate, _unit, tier_demotions
from workers.query import newer_statements

#: The rule as the default policy has it (marked_min_cosine 0.1), every other gate as ON's.
RULE = ON.newer_statements.model_copy(update={"marked_min_cosine": 0.1, "turn_says_now": True})
#: Main's behaviour: no pair below `min_cosine` presses.
OFF = RULE.model_copy(update={"marked_min_cosine": 1.1})
DEMOTE_TO = 5
ASKED = "who am I working for?"

OLD_V = _unit(1.0, 0.0)
#: Cosine 0.2 to the old statement: below "about the same thing" (0.3), above the floor (0.1).
NEAR_ENOUGH = np.asarray([0.2, np.sqrt(1 - 0.04), 0.0, 0.0], dtype=np.float32)
#: Cosine 0.05: below the floor.
FAR = np.asarray([0.05, np.sqrt(1 - 0.0025), 0.0, 0.0], dtype=np.float32)

OLD = _candidate("old", THEN, OLD_V, sigma=0.9, text="backend at a payments startup, go all day")
MARKED = _candidate(
    "new", LATER, NEAR_ENOUGH, sigma=0.5, text="quit that job, freelancing for a shipping firm now"
)
PLAIN = _candidate(
    "new", LATER, NEAR_ENOUGH, sigma=0.5, text="freelancing for a shipping firm, invoices are hell"
)
BOTH = frozenset({"old", "new"})


_found = tier_demotions(RULE, BOTH, ASKED, DEMOTE_TO)


def test_a_marked_newer_turn_below_min_cosine_leads_when_the_question_ties_them() -> None:
    found = _found(OLD, MARKED)
    assert found == {"old": newer_statements.Newer("new", 0.2, marked=True, tied_by_question=True)}
    assert "the question ties the two" in newer_statements.explain(found["old"])
    # Without the change (main's behaviour) the pair is not "about the same thing".
    assert _found(OLD, MARKED, rule=OFF) == {}


def test_both_must_be_in_the_first_tier() -> None:
    assert _found(OLD, MARKED, tier=frozenset({"new"})) == {}
    assert _found(OLD, MARKED, tier=frozenset({"old"})) == {}
    assert _found(OLD, MARKED, tier=frozenset()) == {}


def test_the_newer_turn_must_say_the_value_changed() -> None:
    assert _found(OLD, PLAIN) == {}


def test_not_below_the_floor() -> None:
    far = _candidate("new", LATER, FAR, sigma=0.5, text=MARKED.record.edge.text)
    assert _found(OLD, far) == {}


def test_not_for_a_question_for_a_set() -> None:
    # "all my jobs": an older item is one more item of the set (AV5), not an outdated value.
    assert _found(OLD, MARKED, question="list all the jobs I've had") == {}


def test_at_or_above_min_cosine_the_rule_of_old_decides() -> None:
    # A pair "about the same thing" is led as before, without the question's tie.
    close = _candidate("new", LATER, _unit(0.8, 0.6), sigma=0.5, text=MARKED.record.edge.text)
    found = _found(OLD, close, tier=frozenset())
    assert found == {"old": newer_statements.Newer("new", 0.8, marked=True)}
