"""Witnesses of the round-16 review fixes (notes: docs/extraction.md, "Round 16").

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
from tests.unit.edge_helpers import edge, vec
from workers.extraction.rules import RuleExtractor
from workers.extraction.slots import describe_cancel
from workers.lifecycle.retargeting import find_target

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
