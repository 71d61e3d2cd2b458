"""Witnesses of the one gate that says whether a withdrawal is the user's own
(workers/extraction/own_withdrawal.py; paper §3.3, A.9: a retraction is the user's explicit
retraction of their own plan; review R14, B4 and B5).

Every sentence is invented for this test (none comes from a paper-turns set). A negated, wished
or reported "withdrawal", and the end of somebody else's plan, withdraw nothing — on the ingest's
two paths (the markers, `retraction.find`, and the probe's candidate, `withdrawal_fact`) and at
query time (`not_the_users`, read by `workers/query/withdrawn.py`); the user's own plain
withdrawal still withdraws on all three.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas.events import TurnEvent
from workers.extraction.own_withdrawal import not_the_users
from workers.extraction.rules import RuleExtractor
from workers.extraction.withdrawal import withdrawal_fact

RULES = RuleExtractor()
CONTEXT = [("project.boat", "User is restoring an old sailing boat with his brother")]

#: Not the user's withdrawal: denied, nobody's, wished, somebody else's word or plan, taken back.
NOT_THE_USERS = (
    "the boat plan is not dead, keep the varnish",  # a negated verdict
    "the boat project isn't off, we sand it on Saturday",
    "nobody said the boat plan is dead",  # nobody's word
    "I never said the boat plan was off",
    "my husband thinks the boat plan is dead but he's wrong",  # somebody else's word
    "my uncle told me to scrap the boat plan",
    "I wish the boat plan were dead, it eats every weekend",  # a wish
    "my cousin's boat idea is dead, the marina said no",  # somebody else's plan
    "ignore what I said about cancelling the boat plan",  # a withdrawal taken back
    "scrap what I said about dropping the boat plan, it's on",
)
#: The user's own, plain: still a withdrawal.
OWN = (
    "the boat plan is dead, we sold the trailer",
    "we scrapped the boat project",
    "I said the boat plan is dead and I meant it",
    "my daughter's boat party is off",  # the party is hers, the plan the user's
    "Let's scrap the boat plan, it costs too much",  # a contraction, not an owner
    "Today's plan is off, the boat stays in the shed",
    "the boat plan is off, my husband says hi",  # another clause's word is not this one's
)


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        user_id="u1", session_id="s9", turn_id="t1", role="user", text=text,
        timestamp=datetime(2026, 5, 1, tzinfo=UTC),
    )  # fmt: skip


@pytest.mark.parametrize("said", NOT_THE_USERS)
def test_what_is_not_the_users_withdrawal_withdraws_nothing_on_any_path(said: str) -> None:
    assert not_the_users(said)  # the query-time rule's gate
    facts = RULES.extract(_turn(said))
    assert not any(f.retracts for f in facts), facts  # the markers
    assert withdrawal_fact(said, facts, CONTEXT) is None  # the probe's candidate


@pytest.mark.parametrize("said", OWN)
def test_the_users_own_withdrawal_still_passes_the_gate(said: str) -> None:
    assert not not_the_users(said)


def test_the_markers_still_retract_the_users_own_plain_withdrawal() -> None:
    facts = RULES.extract(_turn("the boat plan is dead, we sold the trailer"))
    assert any(f.retracts for f in facts)
