"""The window rules judge the candidates their own moves lift into the first places (issue 11,
round 20: AV1 / AV6 stale answers). Each rule judges only what it finds among the first
`demote_to` (or the window): a demotion lifts the candidate below into them, and masking lifts
one from past the window; with one pass such a candidate was served unjudged — an older value
in the top 5 whose newer statement stood right there in the window. Paper: for a current
question the newer statement leads (A.7.3, Eq. 37-39); the rules are a function of the
ranking they judge, so they are asked of the ranking they produce (`WindowRules.settle`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from schemas.categories import Category, Intent
from schemas.events import EdgeEvent, Embedding
from schemas.policy import Policy, load_policy
from schemas.query import QueryRequest
from workers.embedding.hashing import HashingEmbedder
from workers.lifecycle.service import LifecycleService
from workers.query import window_rules
from workers.query.candidates import MergedCandidate
from workers.query.service import QueryService
from workers.query.window_rules import _keeping
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

DEFAULT = load_policy()
#: On by default since round 22 (r22-av6: narrowed by `judge_lifted_said_now`).
POLICY = DEFAULT
ONCE = DEFAULT.model_copy(
    update={"latest_value": DEFAULT.latest_value.model_copy(update={"judge_lifted": 0})}
)
EMBEDDER = HashingEmbedder(dim=64)
T0 = datetime(2026, 3, 1, tzinfo=UTC)
DEMOTE_TO = POLICY.latest_value.demote_to
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliet", "kilo", "lima"]  # fmt: skip
REQUEST = QueryRequest(user_id="u", query="the garden", as_of=T0 + timedelta(days=30))


def _store(policy: Policy) -> InMemoryVectorIndex:
    vectors = InMemoryVectorIndex()
    svc = LifecycleService(InMemorySlotIndex(), vectors, policy)
    for day, word in enumerate(WORDS):
        text = f"User mentioned the garden {word}"
        svc.apply(
            EdgeEvent(
                edge_id=word,
                user_id="u",
                text=text,
                categories=Category.HOBBIES_RECREATION,
                confidence=0.97,
                ingest_time=T0 + timedelta(days=day),
                embedding=Embedding.from_array(EMBEDDER.model_id, EMBEDDER.embed([text])[0]),
            )
        )
    return vectors


def _served(
    policy: Policy, outdated: set[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], list[str], int]:
    """(plain ranking, ranking with a rule that demotes every `outdated` candidate it finds
    among the first `demote_to` of the ranking it is given, how often the rule was asked)."""
    service = QueryService(_store(policy), EMBEDDER, policy)
    plain = [r.edge_id for r in service.query(REQUEST).results]
    rules: Any = service._window_rules
    asked = []

    def moved_down(
        _user: str, _intent: object, _qv: object, merged: list[MergedCandidate],
        ranked: Sequence[int], *_: object, **__: object,
    ) -> dict[str, list[str]]:  # fmt: skip
        asked.append(1)
        first = [merged[i].record.edge_id for i in ranked[:DEMOTE_TO]]
        return {e: [f"{e} is outdated"] for e in first if e in outdated}

    monkeypatch.setattr(rules, "moved_down", moved_down)
    return plain, [r.edge_id for r in service.query(REQUEST).results], len(asked)


def test_a_candidate_a_demotion_lifts_into_the_top_is_judged_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = _served(POLICY, set(), monkeypatch)[0]
    assert len(plain) == 10
    # The 2nd is outdated, and so is the 6th, which the 2nd's demotion lifts to 5th.
    outdated = {plain[1], plain[5]}
    _, ids, asked = _served(POLICY, outdated, monkeypatch)
    assert min(ids.index(e) for e in outdated) >= DEMOTE_TO
    assert ids[:DEMOTE_TO] == [e for e in plain if e not in outdated][:DEMOTE_TO]
    assert asked == 2  # the second pass found it; no third one is needed to see that
    # One pass, as before (the default): the lifted one is served 5th, unjudged (stale).
    _, once, asked_once = _served(ONCE, outdated, monkeypatch)
    assert once.index(plain[5]) == DEMOTE_TO - 1 and asked_once == 1
    assert DEFAULT.latest_value.judge_lifted == 1


def test_a_later_pass_keeps_the_first_places_for_candidates_no_rule_moved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = _served(POLICY, set(), monkeypatch)[0]
    # A rule that finds everything outdated: without the cap the demoted would fill the
    # first places again in their old order — the first-ranked, oldest value back on top.
    _, ids, _ = _served(POLICY, set(plain), monkeypatch)
    assert ids[:DEMOTE_TO] == plain[DEMOTE_TO : 2 * DEMOTE_TO]


def test_keeping_counts_only_the_first_pass_window() -> None:
    window = ["a", "b", "c", "d", "e", "f", "g", "x"]  # "x" masking lifted past the window
    judged = frozenset("abcdefg")
    fresh = {"c": ["c"], "d": ["d"], "x": ["x"]}
    # 7 judged, none moved: two may go (7 -> 5), in window order, then nothing more.
    assert list(_keeping(fresh, window, judged, set(), 5)) == ["c", "d"]
    # One already moved: only one more may go; two: none.
    assert list(_keeping(fresh, window, judged, {"a"}, 5)) == ["c"]
    assert _keeping(fresh, window, judged, {"a", "b"}, 5) == {}
    # A candidate masking lifted past the window counts for no judged place.
    assert list(_keeping({"x": ["x"], "g": ["g"]}, window, judged, {"a", "b", "c"}, 5)) == []
    assert list(_keeping({"x": ["x"]}, window, judged, {"a"}, 5)) == ["x"]


def _newer_rule_seen(
    policy: Policy, question: str, lifted: bool, monkeypatch: pytest.MonkeyPatch
) -> list[bool]:
    """The `unmarked_single_value` each call of `newer_statements.demotions` was given by
    `WindowRules._newer` (none: the rule was not asked)."""
    service = QueryService(_store(policy), EMBEDDER, policy)
    rules: Any = service._window_rules
    rules._newer_calibrated = True  # the hashing embedder stands in for MiniLM here
    seen: list[bool] = []

    def demotions(
        _intent: object, _q: str, _w: object, _t: object, rule: Any, *_rest: object
    ) -> dict:
        seen.append(rule.unmarked_single_value)
        return {}

    monkeypatch.setattr(window_rules.newer_statements, "demotions", demotions)
    rules._newer("u", Intent.CURRENT, [], [], REQUEST.as_of, question, {}, lifted)
    return seen


def test_a_later_pass_presses_only_where_the_present_was_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Round 22 (r22-av6): on LoCoMo dev the lifted candidates an unmarked pressing demoted
    were the evidence as often as not; a set's lifted item is one more item (AV5)."""
    assert POLICY.latest_value.judge_lifted_said_now
    on = POLICY.newer_statements.unmarked_single_value
    assert on  # the first pass keeps the unmarked reading
    one = "What does he drink at the pub?"
    assert _newer_rule_seen(POLICY, one, False, monkeypatch) == [on]
    assert _newer_rule_seen(POLICY, one, True, monkeypatch) == [False]
    assert _newer_rule_seen(POLICY, "What books has he read?", True, monkeypatch) == []
    assert _newer_rule_seen(POLICY, "What books has he read?", False, monkeypatch) == [on]
    wide = POLICY.model_copy(
        update={
            "latest_value": POLICY.latest_value.model_copy(update={"judge_lifted_said_now": False})
        }
    )
    assert _newer_rule_seen(wide, one, True, monkeypatch) == [on]


def test_a_later_pass_leaves_the_first_places_the_first_pass_judged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A later pass judges what the first pass's moves lifted, not what it already judged in
    the first places and kept (a newer turn lifted into the window is no reason to read
    those again: round 22, r22-av6)."""
    service = QueryService(_store(POLICY), EMBEDDER, POLICY)
    plain = [r.edge_id for r in service.query(REQUEST).results]
    rules: Any = service._window_rules
    calls: list[int] = []

    def moved_down(
        _user: str, _intent: object, _qv: object, merged: list[MergedCandidate],
        ranked: Sequence[int], *_: object, **__: object,
    ) -> dict[str, list[str]]:  # fmt: skip
        calls.append(1)
        first = [merged[i].record.edge_id for i in ranked[:DEMOTE_TO]]
        # The first pass finds the 2nd outdated; a later one would also find the 1st.
        outdated = {plain[1]} if len(calls) == 1 else {plain[0], plain[1], plain[5]}
        return {e: ["outdated"] for e in first if e in outdated}

    monkeypatch.setattr(rules, "moved_down", moved_down)
    ids = [r.edge_id for r in service.query(REQUEST).results]
    assert ids[0] == plain[0]  # judged and kept by the first pass: left in place
    assert ids.index(plain[5]) >= DEMOTE_TO  # lifted by the first pass's move: judged
