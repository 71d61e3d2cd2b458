"""Witnesses of `newer_statements.small_tier_max` (round 26, r26-av6;
`workers/query/small_tier.py`): an unmarked newer raw turn that matches the question a little
less well than an older statement still leads it when both are among the few candidates of a
small first tier — two answers to one question (A.7.3 q_cur, §3.5) — and not in a large tier,
where a later on-topic remark is no newer version (round 25: LoCoMo dev).

The class (AV6): a newer version told with no word of change, the older one the better match for
a question asked in its words. The statements here are written for the test; none comes from a
paper-turns set.
"""

from __future__ import annotations

import numpy as np

from tests.unit.test_newer_statements import LATER, ON, THEN, _candidate, _unit, tier_demotions
from workers.query import newer_statements

#: The rule as the default policy has it (small_tier_max 4, small_tier_min_cosine 0.3,
#: small_tier_sigma_ratio 0.7).
RULE = ON.newer_statements.model_copy(
    update={
        "small_tier_max": 4,
        "small_tier_min_cosine": 0.3,
        "small_tier_sigma_ratio": 0.7,
        "unmarked_single_value": True,
    }
)
#: Main's behaviour: no small tier waives σ.
OFF = RULE.model_copy(update={"small_tier_max": 0})
DEMOTE_TO = 5
#: A current question without a present-time word (the unmarked reading, σ kept).
ASKED = "who is her fiance?"

OLD_V = _unit(1.0, 0.0)
#: Cosine 0.4 to the old statement: about the same thing.
CLOSE = np.asarray([0.4, np.sqrt(1 - 0.16), 0.0, 0.0], dtype=np.float32)
#: Cosine 0.2: not about the same thing.
APART = np.asarray([0.2, np.sqrt(1 - 0.04), 0.0, 0.0], dtype=np.float32)

OLD = _candidate("old", THEN, OLD_V, sigma=0.7, text="my fiance Oswin proposed on the pier")
NEWER = _candidate("new", LATER, CLOSE, sigma=0.6, text="Bertil and I set a date for June")
BOTH = frozenset({"old", "new"})


_found = tier_demotions(RULE, BOTH, ASKED, DEMOTE_TO)


def test_an_unmarked_newer_turn_in_a_small_tier_leads_whatever_its_sigma() -> None:
    found = _found(OLD, NEWER)
    assert found == {"old": newer_statements.Newer("new", 0.4, few=True)}
    assert "the few the question singles out" in newer_statements.explain(found["old"])
    # Main's behaviour: the newer turn is the weaker match, so it presses nothing.
    assert _found(OLD, NEWER, rule=OFF) == {}


def test_not_in_a_larger_tier() -> None:
    crowd = frozenset({"old", "new", "a", "b", "c"})
    assert _found(OLD, NEWER, tier=crowd) == {}


def test_both_must_be_in_the_tier() -> None:
    assert _found(OLD, NEWER, tier=frozenset({"old", "x"})) == {}
    assert _found(OLD, NEWER, tier=frozenset({"new", "x"})) == {}
    assert _found(OLD, NEWER, tier=frozenset()) == {}


def test_the_two_must_be_about_the_same_thing() -> None:
    apart = _candidate("new", LATER, APART, sigma=0.6, text=NEWER.record.edge.text)
    assert _found(OLD, apart) == {}


def test_not_a_much_weaker_match() -> None:
    # σ 0.4 is below 0.7 of the older's 0.7: a remark the tier kept, not a second answer.
    weak = _candidate("new", LATER, CLOSE, sigma=0.4, text=NEWER.record.edge.text)
    assert _found(OLD, weak) == {}


def test_not_for_a_question_for_a_set() -> None:
    assert _found(OLD, NEWER, question="which friends has she told about the wedding?") == {}


def test_the_other_gates_hold() -> None:
    # The same session (less than a day later) presses nothing, as without the tier.
    soon = _candidate("new", THEN, CLOSE, sigma=0.6, text=NEWER.record.edge.text)
    assert _found(OLD, soon) == {}
    # Nor does a fact (only a raw turn is the user's newer word).
    fact = _candidate("new", LATER, CLOSE, sigma=0.6, raw=False, text=NEWER.record.edge.text)
    assert _found(OLD, fact) == {}
