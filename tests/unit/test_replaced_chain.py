"""An older version tied to a replaced one moves down with it: A → B → C, where the ingest
superseded B by C and A, told before B and about the same thing, is tied to neither (issue 11,
round 26, r26-av4; `workers/query/replaced_chain.py`, `newer_statements.through_replaced`;
A.7.1: supersession along a slot's chain is transitive).

The statements are vectors written here for the test; none comes from a paper-turns set.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import numpy as np

from schemas.categories import Category, Intent, LifecycleState
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from schemas.records import FactRecord, Lifecycle
from workers.embedding.hashing import HashingEmbedder
from workers.query import replaced_chain
from workers.query.candidates import MergedCandidate
from workers.query.window_rules import WindowRules
from workers.stores.memory_vectors import InMemoryVectorIndex

NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)
FIRST = NOW - timedelta(days=300)
SECOND = NOW - timedelta(days=150)
THIRD = NOW - timedelta(days=20)
POLICY = load_policy()
RULE = POLICY.newer_statements


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray([*xs, 0.0, 0.0, 0.0, 0.0, 0.0][:6], dtype=np.float32)
    return v / np.linalg.norm(v)


#: The first version and the replaced second are about the same thing (cosine 0.6); the third
#: is told in words far from the first (cosine 0.1); two other things.
V1 = _unit(1.0, 0.0, 0.0)
V2 = _unit(0.6, 0.8, 0.0)
V3 = _unit(0.1, 0.3, 0.95)
ELSE = _unit(0.0, 0.0, 0.0, 1.0)
ELSE_TOO = _unit(0.0, 0.0, 0.0, 0.0, 1.0)


def _candidate(edge_id: str, at: datetime, vector: np.ndarray, *, keyed: bool = False,
               by: str | None = None) -> MergedCandidate:  # fmt: skip
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=f"statement {edge_id}",
        categories=Category.OTHER, ingest_time=at, episodic=not keyed,
        slot_key=f"user.{edge_id}" if keyed else None, source_turns=(edge_id,),
    )  # fmt: skip
    state = LifecycleState.SUPERSEDED if by else LifecycleState.ACTIVE
    life = Lifecycle(state=state, superseded_by=by, last_mentioned_at=at)
    return MergedCandidate(FactRecord(edge=edge, lifecycle=life), 0.6, ("dense",), vector)


OLD = _candidate("v1", FIRST, V1)
REPLACED = _candidate("v2", SECOND, V2, by="v3")
NEW = _candidate("v3", THIRD, V3)
OTHER = _candidate("x", SECOND, ELSE)
OTHER_TOO = _candidate("y", SECOND, ELSE_TOO)
RECORDS = {m.record.edge_id: m.record for m in (OLD, REPLACED, NEW, OTHER, OTHER_TOO)}


def _fetch(ids: list[str]) -> dict[str, FactRecord]:
    return {i: RECORDS[i] for i in ids if i in RECORDS}


def _moved(*window: MergedCandidate, replaced: tuple[MergedCandidate, ...] = (REPLACED,),
           shown: int = 5) -> dict[str, replaced_chain.Chained]:  # fmt: skip
    return replaced_chain.demotions(
        list(window), list(replaced), _fetch, NOW, RULE.min_cosine, RULE.min_gap_hours, shown
    )


def test_the_first_version_follows_the_replaced_one() -> None:
    out = _moved(OTHER, OLD, NEW, OTHER_TOO)
    assert out == {"v1": replaced_chain.Chained("v2", "v3", 0.6)}
    assert "v2" in replaced_chain.explain(out["v1"]) and "v3" in replaced_chain.explain(out["v1"])


def test_the_chain_is_followed_to_its_end_in_the_window() -> None:
    # v2 was replaced by v2b, which v3 replaced in turn: v3 is the end.
    mid = _candidate("v2", SECOND, V2, by="v2b")
    RECORDS["v2b"] = _candidate("v2b", SECOND + timedelta(days=60), V2, by="v3").record
    try:
        assert _moved(OLD, NEW, replaced=(mid,))["v1"].newer == "v3"
        # The end not in the window: nothing moves.
        assert _moved(OLD, OTHER, replaced=(mid,)) == {}
    finally:
        del RECORDS["v2b"]


def test_not_keyed_not_about_the_same_thing_not_nearest() -> None:
    assert _moved(_candidate("v1", FIRST, V1, keyed=True), NEW) == {}
    far = _candidate("v1", FIRST, ELSE)
    assert _moved(far, NEW) == {}
    # Another of the first places is nearer the replaced one: it is that one's version, if any.
    nearer = _candidate("z", FIRST, _unit(0.7, 0.7, 0.0))
    assert set(_moved(OLD, nearer, NEW)) == {"z"}


def test_told_in_the_replaced_ones_session_it_is_no_earlier_version() -> None:
    same = _candidate("v1", SECOND - timedelta(hours=2), V1)
    assert _moved(same, NEW) == {}
    # Told after the replaced one: no earlier version either.
    later = _candidate("v1", SECOND + timedelta(days=3), V1)
    assert _moved(later, NEW) == {}


def test_only_the_first_shown_and_the_same_whatever_the_order() -> None:
    assert _moved(OTHER, OLD, NEW, shown=1) == {}
    first = _moved(OLD, NEW, OTHER, OTHER_TOO)
    for rest in itertools.permutations([NEW, OTHER, OTHER_TOO]):
        assert _moved(OLD, *rest) == first


class _Rules(WindowRules):
    def __init__(self) -> None:
        super().__init__(InMemoryVectorIndex(), HashingEmbedder(), POLICY)
        self._newer_calibrated = True  # the test's vectors stand for MiniLM's

    def _read(  # type: ignore[override]
        self, _user: str, ids: list[str], _read: dict[str, FactRecord]
    ) -> dict[str, FactRecord]:
        return _fetch(ids)


def test_the_window_rules_move_it_for_a_question_that_asks_which_value_holds_now() -> None:
    merged = [OTHER, OLD, NEW, OTHER_TOO, REPLACED]
    ranked = [0, 1, 2, 3]  # the replaced one is masked: a match, not a candidate

    def moved(question: str) -> dict[str, list[str]]:
        return _Rules().moved_down("u1", Intent.CURRENT, V1, merged, ranked, NOW, question)

    assert "earlier version of v2" in moved("where is it now?")["v1"][0]
    assert "v1" not in moved("where was it?")
    assert POLICY.newer_statements.through_replaced
