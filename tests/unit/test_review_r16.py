"""Witnesses of the round-16 review fixes (notes: docs/extraction.md, "Round 16").

* M1: a batch of edges ingested before stored retractions computes each retraction's targets
  once, not once per edge (a backfill of B edges before R retractions cost B·R full scans).
* M2: a retraction's target among tied candidates goes to the smaller slot, then edge id, as
  documented — a float32 product gave identical rows different low-order bits by their row
  position, so the tie went to whichever row the BLAS kernel favoured (7 of 29 edge sets).
* L1: `RuleExtractor(context_turns=0)` reads no context (`[-0:]` was the whole list).
* L2: a cancelled trip whose slot has the placeholder name "next" is "the next trip".
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from schemas.events import TurnEvent
from schemas.policy import load_policy
from tests.unit.edge_helpers import axis, edge, vec
from tests.unit.test_stream_properties import POLICY as STREAM_POLICY
from workers.extraction.rules import RuleExtractor
from workers.extraction.slots import describe_cancel
from workers.lifecycle import retargeting
from workers.lifecycle.bulk import BulkLifecycle
from workers.lifecycle.retargeting import find_target
from workers.stores.memory_slots import InMemorySlotIndex
from workers.stores.memory_vectors import InMemoryVectorIndex

POLICY = load_policy()
DIM = 384


@pytest.mark.parametrize("fillers", range(1, 30))
def test_a_tie_goes_to_the_smaller_slot_wherever_its_row_sits(fillers: int) -> None:
    rng = np.random.default_rng(1)
    towards = rng.standard_normal(DIM).astype(np.float32)
    towards /= np.linalg.norm(towards)
    twin = (0.9 * towards + 0.44 * vec(7, DIM)).astype(np.float32)
    twin /= np.linalg.norm(twin)
    retraction = edge("zz-off", day=50, slot="pet.x.outcome", text="the dog plan is off",
                      retracts=("pet.dog.plan",), vector=towards)  # fmt: skip
    fill = [
        edge(f"f{i:03d}", day=1 + i * 0.01, slot=f"user.m{i:03d}", text=f"dog thing {i}",
             vector=vec(100 + i, DIM) * 0.1)
        for i in range(fillers)
    ]  # fmt: skip
    # The same sentence told twice, in "user.b" first and "user.a" later: a tie.
    b = edge("b", day=0.5, slot="user.b", text="my dog", vector=twin)
    a = edge("a", day=1 + fillers * 0.01 + 0.5, slot="user.a", text="my dog", vector=twin)
    target = find_target(retraction, [b, *fill, a], POLICY)
    assert target is not None
    assert target.slot == "user.a"


def test_no_context_turns_means_no_context() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    plan = TurnEvent(user_id="u", session_id="s", turn_id="t1", role="user",
                     text="I'm planning a trip to Japan in May.", timestamp=start)  # fmt: skip
    later = start + timedelta(minutes=1)
    off = TurnEvent(user_id="u", session_id="s", turn_id="t2", role="user",
                    text="Scrap the trip, it's off.", timestamp=later)  # fmt: skip
    alone = RuleExtractor(context_turns=0).extract(off, [])
    assert RuleExtractor(context_turns=0).extract(off, [plan]) == alone
    assert RuleExtractor(context_turns=1).extract(off, [plan]) != alone


def test_a_cancelled_next_trip_names_no_place_called_next() -> None:
    assert describe_cancel("trip.next") == "User cancelled the next trip"
    assert describe_cancel("trip.japan") == "User cancelled the trip to Japan"


def test_a_late_batch_computes_each_retractions_targets_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bulk = BulkLifecycle(InMemorySlotIndex(), InMemoryVectorIndex(), STREAM_POLICY)
    bulk.apply([
        edge(f"o{i}", day=100 + i * 0.001, slot=f"user.s{i % 50}", text=f"thing {i} dog", seed=i)
        for i in range(200)
    ])  # fmt: skip
    bulk.apply([
        edge(f"off{j}", day=1000 + j, slot=f"pet.x{j}.outcome", text="the dog plan is off",
             retracts=(f"pet.dog{j}.plan",), vector=axis(0))
        for j in range(2)
    ])  # fmt: skip
    calls: list[str] = []
    counted = retargeting.find_target

    def counting(retraction, edges, policy):  # type: ignore[no-untyped-def]
        calls.append(retraction.edge_id)
        return counted(retraction, edges, policy)

    monkeypatch.setattr(retargeting, "find_target", counting)
    late = [
        edge(f"l{i}", day=1 + i * 0.001, slot=f"user.t{i % 10}", text=f"late {i}", seed=10_000 + i)
        for i in range(40)
    ]  # fmt: skip
    bulk.apply(late)
    # Two retractions, each over the user's edges and over those before the batch: four.
    assert len(calls) == 4
