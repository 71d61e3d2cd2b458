"""Masking a candidate does not lift a demoted one back into the first `demote_to` (issue 11,
AV4 chains of versions: a middle version demoted by a newer one rose to 5th when a withdrawn
candidate above it was masked). Paper: for a current question the newer version leads every
older one (A.7.3, Eq. 37-39); the M_q mask admits active facts only (§3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from schemas.categories import Category
from schemas.events import EdgeEvent, Embedding
from schemas.policy import load_policy
from schemas.query import QueryRequest
from workers.embedding.hashing import HashingEmbedder
from workers.lifecycle.service import LifecycleService
from workers.query import latest_value
from workers.query.service import QueryService
from workers.query.withdrawn import Withdrawn
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

POLICY = load_policy()
EMBEDDER = HashingEmbedder(dim=64)
T0 = datetime(2026, 3, 1, tzinfo=UTC)
DEMOTE_TO = POLICY.latest_value.demote_to
WINDOW = POLICY.latest_value.window


def test_a_masked_candidate_does_not_lift_a_demoted_one() -> None:
    ranked = list(range(12))
    # 6 was moved down to 5 by a window rule; masking 0 used to lift it to 4.
    out = latest_value.mask(ranked, {0}, {5}, 10, 5)
    assert out.index(5) == 5 and out[-1] == 0
    assert out[:5] == [1, 2, 3, 4, 6]


def test_without_demotions_masking_only_moves_the_masked_last() -> None:
    assert latest_value.mask([3, 1, 2, 0], {1}, set(), 10, 5) == [3, 2, 0, 1]
    # A masked candidate that was also demoted stays masked (after every other).
    assert latest_value.mask([0, 1, 2, 3, 4, 5, 6], {5}, {5}, 10, 2) == [0, 1, 2, 3, 4, 6, 5]


def test_a_short_window_keeps_the_demoted_after_every_kept_one() -> None:
    # Fewer than demote_to candidates left unmasked: the demoted ranks after all of them.
    assert latest_value.mask([0, 1, 2, 3], {0}, {1}, 10, 5) == [2, 3, 1, 0]


WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]


def _store() -> InMemoryVectorIndex:
    vectors = InMemoryVectorIndex()
    svc = LifecycleService(InMemorySlotIndex(), vectors, POLICY)
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


@pytest.mark.parametrize("masked_rank", [0, 2])
def test_the_query_path_keeps_a_demotion_when_another_candidate_is_masked(
    monkeypatch: pytest.MonkeyPatch, masked_rank: int
) -> None:
    service = QueryService(_store(), EMBEDDER, POLICY)
    request = QueryRequest(user_id="u", query="the garden", as_of=T0 + timedelta(days=30))
    plain = [r.edge_id for r in service.query(request).results]
    assert len(plain) > DEMOTE_TO + 1
    demoted, masked = plain[1], plain[masked_rank if masked_rank != 1 else 0]
    # The two rules' verdicts, fixed.
    rules: Any = service._window_rules

    def moved_down(*_: object, **__: object) -> dict[str, list[str]]:
        return {demoted: ["a newer statement leads it"]}

    def withdrawn(*_: object) -> dict[str, Withdrawn]:
        return {masked: Withdrawn(by="x", target=masked, probability=0.9, cosine=0.9,
                                  told_in=masked, plan_cosine=1.0)}  # fmt: skip

    monkeypatch.setattr(rules, "moved_down", moved_down)
    monkeypatch.setattr(rules, "withdrawn", withdrawn)
    ids = [r.edge_id for r in service.query(request).results]
    assert ids[-1] == masked
    assert ids.index(demoted) >= DEMOTE_TO  # it stood 5th (index 4) before the fix
    assert ids[:DEMOTE_TO] == [e for e in plain if e not in (demoted, masked)][:DEMOTE_TO]
