"""Witness of round 26's "since" mark (workers/query/change_said.py, `_SINCE`): a state told in
the present perfect as holding from a past change up to now, "since" closing its sentence part,
says the new value holds now as "now" does (A.7.3: a change the user made orders the versions
for q_cur). A question, a "since" with its own object (a date, a school) or no perfect is none.

Every sentence is written here for the test; none comes from a paper-turns set.
"""

from __future__ import annotations

import pytest

from workers.query.change_said import says_changed


@pytest.mark.parametrize(
    "text",
    [
        "Bought a tablet in spring and I've read everything on it since; the bookcase is going.",
        "We've lived by the sea ever since.",
        "I've been cycling to work since then, the car stays home.",
    ],
)
def test_a_state_held_since_a_change_is_said(text: str) -> None:
    assert says_changed(text)


@pytest.mark.parametrize(
    "text",
    [
        "Have you been back there since?",
        "It has rained since Monday.",
        "I've known her since school.",
        "I read a lot since I was a kid.",
    ],
)
def test_no_since_mark(text: str) -> None:
    assert not says_changed(text)
