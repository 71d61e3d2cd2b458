"""A current question about a single-valued attribute asks which value holds now, with or
without a present-time word (issue 11, round 27, r27-av4; `workers/query/attribute_now.py`,
`latest_value.attribute_asks_now`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from schemas.categories import Category, Intent, LifecycleState
from schemas.events import EdgeEvent
from schemas.policy import Policy, load_policy
from schemas.records import FactRecord, Lifecycle
from workers.embedding.hashing import HashingEmbedder
from workers.embedding.minilm import MiniLMEmbedder
from workers.query import attribute_now
from workers.query.candidates import MergedCandidate
from workers.query.window_rules import WindowRules
from workers.stores.memory_vectors import InMemoryVectorIndex

POLICY = load_policy()
OFF = POLICY.model_copy(
    update={"latest_value": POLICY.latest_value.model_copy(update={"attribute_asks_now": False})}
)


def test_the_attribute_read_stands_for_a_present_time_word() -> None:
    def now(question: str, intent: Intent = Intent.CURRENT, asked: bool = True) -> bool:
        return attribute_now.asks_value_now(question, intent, asked, True, True)

    assert now("which street is her flat on?")
    # The words alone say it: no attribute needed.
    assert now("which street is her flat on these days?", asked=False)
    assert not now("which street is her flat on?", asked=False)
    # Not a question about now: another intent, a continuity word, a day on the calendar.
    assert not now("which street is her flat on?", Intent.PAST)
    assert not now("is her flat still on that street?")
    assert not now("which street was her flat on, on 4 March 2025?")
    # Not a question for one value that holds: a reason, a manner, a supposition, the past,
    # a set.
    assert not now("why is her flat on that street?")
    assert not now("how is her flat on that street?")
    assert not now("which street might her flat be on?")
    assert not now("who found her the flat on that street?")
    assert not now("which streets have all her flats been on?")
    # The copula must be the question's verb: not what someone does, an activity in
    # progress, a state towards another verb.
    assert not now("which street does she cycle along?")
    assert not now("which street is she cycling along?")
    assert not now("which street is she keen to move to?")
    assert attribute_now.asks_for_a_value("what's her street?")
    # A quantity is a value ("how much …"); a manner is not ("how is …").
    assert attribute_now.asks_for_a_value("how much is her rent?")
    assert not attribute_now.asks_for_a_value("how is her rent paid?")
    # The switch off: only the words.
    assert not attribute_now.asks_value_now("which street is her flat on?", Intent.CURRENT,
                                            True, True, False)  # fmt: skip


def _rules(embedder: MiniLMEmbedder, policy: Policy) -> WindowRules:
    return WindowRules(InMemoryVectorIndex(), embedder, policy)


def test_the_window_rules_read_the_attribute_classifier(embedder: MiniLMEmbedder) -> None:
    def holds(question: str, policy: Policy = POLICY) -> bool:
        qv = embedder.embed([question])[0]
        return _rules(embedder, policy)._holds_now(question, Intent.CURRENT, qv)

    # A single-valued attribute asked with no word of the present: the city one lives in,
    # the employer one works for.
    assert holds("which city is my flat in?")
    assert holds("who is my sister's employer?")
    assert not holds("which city is my flat in?", OFF)
    assert not holds("who is my sister's employer?", OFF)
    # Not asked of a single-valued attribute: the words decide as before.
    assert not holds("what is my favourite colour?")
    assert holds("what is my favourite colour these days?")


NOW = datetime(2026, 5, 1, 10, tzinfo=UTC)


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray([*xs, 0.0, 0.0, 0.0, 0.0, 0.0][:6], dtype=np.float32)
    return v / np.linalg.norm(v)


def _candidate(edge_id: str, at: datetime, vector: np.ndarray, by: str | None = None
               ) -> MergedCandidate:  # fmt: skip
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=f"statement {edge_id}", categories=Category.OTHER,
        ingest_time=at, episodic=True, source_turns=(edge_id,),
    )  # fmt: skip
    state = LifecycleState.SUPERSEDED if by else LifecycleState.ACTIVE
    life = Lifecycle(state=state, superseded_by=by, last_mentioned_at=at)
    return MergedCandidate(FactRecord(edge=edge, lifecycle=life), 0.6, ("dense",), vector)


OLD = _candidate("v1", NOW - timedelta(days=300), _unit(1.0, 0.0, 0.0))
REPLACED = _candidate("v2", NOW - timedelta(days=150), _unit(0.6, 0.8, 0.0), by="v3")
NEW = _candidate("v3", NOW - timedelta(days=20), _unit(0.1, 0.3, 0.95))
OTHER = _candidate("x", NOW - timedelta(days=150), _unit(0.0, 0.0, 0.0, 1.0))
RECORDS = {m.record.edge_id: m.record for m in (OLD, REPLACED, NEW, OTHER)}


class _Rules(WindowRules):
    """The window rules over hand-made vectors, the attribute reading given."""

    def __init__(self, asked: bool) -> None:
        super().__init__(InMemoryVectorIndex(), HashingEmbedder(), POLICY)
        self._newer_calibrated = True  # the test's vectors stand for MiniLM's
        self._asked = asked

    def _holds_now(self, question: str, intent: Intent, qv: np.ndarray) -> bool:
        return self._asked or super()._holds_now(question, intent, qv)

    def _read(  # type: ignore[override]
        self, _user: str, ids: list[str], _read: dict[str, FactRecord]
    ) -> dict[str, FactRecord]:
        return {i: RECORDS[i] for i in ids if i in RECORDS}


@pytest.mark.parametrize("asked", [True, False])
def test_the_chain_through_a_replaced_version_reads_it(asked: bool) -> None:
    # "where is it?" says no present-time word: only the attribute reading makes it a
    # question about which value holds now, and only then is v1 tied to v3 through v2.
    moved = _Rules(asked).moved_down(
        "u1", Intent.CURRENT, _unit(1.0), [OTHER, OLD, NEW, REPLACED], [0, 1, 2], NOW,
        "where is it?",
    )  # fmt: skip
    assert ("v1" in moved) is asked
