"""The demoted older of a pair refill the first places last (issue 11, round 25, r25-av4).

Where fewer than `demote_to` candidates of the window stay unmoved, the window rules' demoted
block refills the first places. A candidate moved as the older of a pair — a newer statement
of the same thing named, in the window (`newer_statements`, `pressed_values`,
`outdated_siblings`, `bracketed`) — is surely an older version for a current question (A.7.3,
Eq. 37-39); one the attribute probe alone moved is as often chatter read near the attribute.
So the paired go after the others, and each after its pressers demoted with it
(`workers/query/demoted_refill.py`, `latest_value.paired_refill_last`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from schemas.policy import Policy, load_policy
from schemas.query import QueryRequest
from tests.unit.test_judge_lifted import EMBEDDER, T0, WORDS, _store
from workers.query import demoted_refill, latest_value
from workers.query.candidates import MergedCandidate
from workers.query.service import QueryService

NOW = datetime(2026, 6, 1, tzinfo=UTC)
DEFAULT = load_policy()
OFF = DEFAULT.model_copy(
    update={"latest_value": DEFAULT.latest_value.model_copy(update={"paired_refill_last": False})}
)
DEMOTE_TO = DEFAULT.latest_value.demote_to
#: A question that asks which value holds now (`newer_statements.asks_current_value`): the
#: demoted go newest first (`demoted_newest_first`) and the paired last; without a word of the
#: present (`UNMARKED`) the demoted keep their ranking order, as LoCoMo dev asks (the policy
#: note).
REQUEST = QueryRequest(user_id="u", query="the garden now", as_of=T0 + timedelta(days=30))
UNMARKED = REQUEST.model_copy(update={"query": "the garden"})


def test_the_paired_go_after_the_others_each_after_its_pressers() -> None:
    # 0 and 1 were moved by the attribute probe alone; 2 is the older of a pair whose newer
    # statement (7) stays unmoved; 3 was pressed by 2, itself pressed: 3 follows 2.
    moved = [3, 0, 2, 1]
    paired = {2: frozenset({7}), 3: frozenset({2})}
    assert demoted_refill.order(moved) == [3, 0, 2, 1]
    assert demoted_refill.order(moved, paired=paired) == [0, 1, 2, 3]
    # Newest first (`demoted_newest_first`) inside each part, the pressers still first.
    told = {0: NOW - timedelta(days=9), 1: NOW, 2: NOW - timedelta(days=5), 3: NOW}
    assert demoted_refill.order(moved, told.__getitem__, paired) == [1, 0, 2, 3]
    # A presser past the ranking (no position): paired all the same.
    assert demoted_refill.order([5, 4], paired={5: frozenset()}) == [4, 5]
    # Two pressing each other (ties of time): the order given decides, nothing is lost.
    assert demoted_refill.order([1, 0], paired={0: frozenset({1}), 1: frozenset({0})}) == [1, 0]


def test_reorder_lets_the_attribute_only_refill_first() -> None:
    # Window of 6, demote to 3: only two stay unmoved, so the demoted refill the 3rd place.
    ranked = [0, 1, 2, 3, 4, 5]
    demoted = {0, 1, 2, 3}
    assert latest_value.reorder(ranked, demoted, 6, 3) == [4, 5, 0, 1, 2, 3]
    paired = {0: frozenset({4}), 1: frozenset({4})}
    assert latest_value.reorder(ranked, demoted, 6, 3, None, paired) == [4, 5, 2, 3, 0, 1]
    assert latest_value.mask(ranked, {2}, demoted, 6, 3, None, paired) == [4, 5, 3, 0, 1, 2]


def _served(
    policy: Policy, monkeypatch: pytest.MonkeyPatch | None, request: QueryRequest = REQUEST
) -> list[str]:
    """The ranking, with (given `monkeypatch`) a rule that moves the first six candidates it
    is shown: the 1st and 2nd as the older of a pair (pressed by the 7th), the others for the
    attribute alone."""
    service = QueryService(_store(DEFAULT), EMBEDDER, policy)
    if monkeypatch is not None:
        rules: Any = service._window_rules

        def moved_down(
            _user: str, _intent: object, _qv: object, merged: list[MergedCandidate],
            ranked: Sequence[int], *args: object, **__: object,
        ) -> dict[str, list[str]]:  # fmt: skip
            ids = [merged[i].record.edge_id for i in ranked]
            pressers = args[-1]
            assert isinstance(pressers, dict)
            for older in ids[:2]:
                pressers.setdefault(older, set()).add(ids[6])
            return {e: ["moved"] for e in ids[:6]}

        monkeypatch.setattr(rules, "moved_down", moved_down)
    return [r.edge_id for r in service.query(request).results]


def test_the_query_path_refills_the_first_places_with_the_unpaired(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = _served(DEFAULT, None)
    assert len(plain) == 10
    newest_first = lambda ids: sorted(ids, key=WORDS.index, reverse=True)  # noqa: E731
    ids = _served(DEFAULT, monkeypatch)
    # Four stay unmoved; the 5th place goes to a candidate moved by the attribute alone.
    assert ids[: DEMOTE_TO - 1] == plain[6:10]
    assert ids[DEMOTE_TO - 1 :] == [*newest_first(plain[2:6]), *newest_first(plain[:2])]
    # Off: newest first alone, the older of the pair among the first five when it is newer.
    off = _served(OFF, monkeypatch)
    assert off[DEMOTE_TO - 1 :] == newest_first(plain[:6]) != ids[DEMOTE_TO - 1 :]
    # Without a word of the present the demoted keep their ranking order.
    assert _served(DEFAULT, monkeypatch, UNMARKED)[DEMOTE_TO - 1 :] == plain[:6]
    assert DEFAULT.latest_value.paired_refill_last
