"""A newer version found past the window takes the place of the older one it leads (issue 11,
round 26, r26-av4; `workers/query/deeper_lift.py`, `latest_value.deeper_marked_lifts`).

`newer_statements` reads pressers past the window for a question about the present; where such
a presser says the change itself and presses a shown older version, the older one moves down
and the newer one — the answer — was left past the window. For a question that asks which
value holds now it is lifted to where the demoted block starts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest

from schemas.policy import Policy, load_policy
from schemas.query import QueryRequest
from tests.unit.test_judge_lifted import EMBEDDER as HASHING
from tests.unit.test_judge_lifted import T0, _store
from workers.query import deeper_lift
from workers.query.candidates import MergedCandidate
from workers.query.service import QueryService

DEFAULT = load_policy()
OFF = DEFAULT.model_copy(
    update={"latest_value": DEFAULT.latest_value.model_copy(update={"deeper_marked_lifts": False})}
)
WINDOW, DEMOTE_TO = DEFAULT.latest_value.window, DEFAULT.latest_value.demote_to
REQUEST = QueryRequest(user_id="u", query="the garden now", as_of=T0 + timedelta(days=30))
UNMARKED = REQUEST.model_copy(update={"query": "the garden"})
IDS = [f"e{i}" for i in range(14)]


def test_the_presser_past_the_window_goes_where_the_demoted_block_starts() -> None:
    served = list(range(14))
    # 1 was demoted (the window's order: 0, 2, 3, 4, 5 unmoved first, then 1); 12 leads it.
    order = [0, 2, 3, 4, 5, 1, 6, 7, 8, 9, 10, 11, 12, 13]
    out, lifted = deeper_lift.lift(order, IDS, {"e12": "e1"}, {1}, WINDOW, DEMOTE_TO)
    assert out[:7] == [0, 2, 3, 4, 5, 12, 1] and sorted(out) == served
    assert lifted == {"e12": "e1"}
    # Fewer unmoved than the first places: it goes right after them, among the first five.
    order = [0, 2, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    out, _ = deeper_lift.lift(order, IDS, {"e12": "e1"}, {1, 3, 4, 5, 6, 7, 8, 9}, 10, 5)
    assert out[:4] == [0, 2, 12, 1]
    # Two pressers: in the order of what they lead.
    out, _ = deeper_lift.lift(served, IDS, {"e13": "e0", "e11": "e3"}, {0, 3}, WINDOW, DEMOTE_TO)
    assert out[5:7] == [13, 11]


def test_a_presser_inside_the_window_or_leading_nothing_served_stays() -> None:
    order = list(range(14))
    assert deeper_lift.lift(order, IDS, {"e7": "e1"}, {1}, WINDOW, DEMOTE_TO) == (order, {})
    assert deeper_lift.lift(order, IDS, {"e12": "gone"}, {1}, WINDOW, DEMOTE_TO) == (order, {})
    assert deeper_lift.lift(order[:11], IDS, {"e12": "e1"}, {1}, WINDOW, DEMOTE_TO)[1] == {}


def _served(policy: Policy, request: QueryRequest, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ranking, with a rule that demotes the first candidate it is shown, led by the
    12th, which it reports as a marked presser found past the window."""
    service = QueryService(_store(DEFAULT), HASHING, policy)
    rules: Any = service._window_rules

    def moved_down(
        _user: str, _intent: object, _qv: object, merged: list[MergedCandidate],
        ranked: Sequence[int], *_args: object, lifters: dict[str, str] | None = None,
        **__: object,
    ) -> dict[str, list[str]]:  # fmt: skip
        ids = [merged[i].record.edge_id for i in ranked]
        if lifters is not None:
            lifters[ids[11]] = ids[0]
        return {ids[0]: ["moved"]}

    monkeypatch.setattr(rules, "moved_down", moved_down)
    return [r.edge_id for r in service.query(request.model_copy(update={"k": 12})).results]


def test_the_query_path_lifts_the_marked_presser_for_a_now_question(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = _served(OFF, REQUEST, monkeypatch)
    assert len(plain) == 12
    lifted = _served(DEFAULT, REQUEST, monkeypatch)
    # The 12th takes the 6th place, before the demoted first candidate; the rest shift down.
    assert lifted[DEMOTE_TO] == plain[11]
    assert lifted[DEMOTE_TO + 1] == plain[DEMOTE_TO] and sorted(lifted) == sorted(plain)
    # Without a word of the present nothing is lifted.
    assert _served(DEFAULT, UNMARKED, monkeypatch) == _served(OFF, UNMARKED, monkeypatch)
    assert DEFAULT.latest_value.deeper_marked_lifts
