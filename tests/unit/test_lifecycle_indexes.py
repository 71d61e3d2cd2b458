"""The lifecycle bookkeeping's indexes give the answers of the scans they replace (issue 13).

A big user's ingest no longer re-reads and re-scans everything per fact: association's
anchors are prepared once into a matrix (`workers/lifecycle/anchor_matrix.py`), retargeting
indexes a user's edges by slot and word (`UserEdges`) and tests the named slots first. Each
must answer exactly as the scan does — same match, same score to the bit (Ω and the `why`
depend on it) — over growing lists, ties, late anchors, and what the index does not cover.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.categories import Category
from schemas.events import EdgeEvent
from schemas.policy import load_policy
from tests.unit.edge_helpers import edge
from workers.lifecycle import anchor_matrix
from workers.lifecycle.association import _scan_match, best_match
from workers.lifecycle.retargeting import (
    Retargeting,
    UserEdges,
    find_target,
    find_target_indexed,
)
from workers.lifecycle.rules import group_key
from workers.ports import SlotEntry
from workers.stores.memory_slots import InMemorySlotIndex, sort_edges

POLICY = load_policy()
#: Few distinct directions: equal scores (ties) are common, and many pass the thresholds.
DIRECTIONS = [np.eye(6, dtype=np.float32)[i] for i in range(3)] + [
    (np.ones(6, dtype=np.float32) / np.sqrt(6)).astype(np.float32),
    (np.array([1, 1, 0, 0, 0, 0], dtype=np.float32) / np.sqrt(2)).astype(np.float32),
]
SLOTS = ["drink.a", "drink.b", "city.c", "rent.d"]


def anchor(i: int, day: int, direction: int, slot: int) -> EdgeEvent:
    return edge(f"a{i:03d}", day=day, slot=SLOTS[slot], vector=DIRECTIONS[direction],
                value=f"v{i % 3}")  # fmt: skip


def free(i: int, day: int, direction: int) -> EdgeEvent:
    return edge(f"f{i:03d}", day=day, slot=None, update="accumulate", category=Category.OTHER,
                vector=DIRECTIONS[direction], value=f"v{i % 2}")  # fmt: skip


anchors_st = st.lists(
    st.tuples(st.integers(0, 30), st.integers(0, 4), st.integers(0, 3)), max_size=25
)
frees_st = st.lists(st.tuples(st.integers(0, 31), st.integers(0, 4)), min_size=1, max_size=8)


def _same(edge_: EdgeEvent, anchors: Sequence[EdgeEvent]) -> None:
    got, want = best_match(edge_, anchors, POLICY), _scan_match(edge_, anchors, POLICY)
    assert got == want  # the slot, the anchor, the score to the bit, hard or soft


@settings(max_examples=150, deadline=None)
@given(anchors_st, frees_st)
def test_prepared_anchors_match_as_the_scan_does(
    specs: list[tuple[int, int, int]], frees: list[tuple[int, int]]
) -> None:
    anchors = sort_edges([anchor(i, *spec) for i, spec in enumerate(specs)])
    for j, (day, direction) in enumerate(frees):
        _same(free(j, day, direction), anchors)


@settings(max_examples=100, deadline=None)
@given(anchors_st, frees_st)
def test_a_growing_anchor_list_keeps_matching_as_the_scan_does(
    specs: list[tuple[int, int, int]], frees: list[tuple[int, int]]
) -> None:
    """Each anchor arrives as a new list (a slot index's next read, or the bulk path's
    insert): in time order the preparation grows in place, out of order it is made again."""
    held: list[EdgeEvent] = []
    for i, spec in enumerate(specs):
        held = sort_edges([*held, anchor(i, *spec)])
        for j, (day, direction) in enumerate(frees):
            _same(free(j, day, direction), held)
        _same(free(99, 40, i % 5), list(held))  # a copy: the same edges, another list


def test_what_the_preparation_does_not_cover_is_left_to_the_scan() -> None:
    mixed = sort_edges(
        [anchor(1, 1, 0, 0), anchor(2, 2, 0, 1).model_copy(update={"user_id": "u2"})]
    )
    assert anchor_matrix.prepare(mixed).usable is False
    _same(free(1, 5, 0), mixed)
    twice = [anchor(1, 1, 0, 0), anchor(1, 1, 0, 0)]
    assert anchor_matrix.prepare(twice).usable is False
    _same(free(1, 5, 0), twice)
    # The free edge's own id among the anchors (another copy of it): the scan decides.
    own = sort_edges(
        [anchor(1, 1, 0, 0), anchor(2, 2, 0, 1).model_copy(update={"edge_id": "f001"})]
    )
    assert anchor_matrix.prepare(own).earlier(free(1, 5, 0)) is None
    _same(free(1, 5, 0), own)


WORDS = ["book", "exchange", "ubc", "garden", "trip", "novel"]


def _edges(specs: list[tuple[int, int, int, int, bool]]) -> list[EdgeEvent]:
    out = []
    for i, (day, direction, word, slot, keyed) in enumerate(specs):
        text = f"I am working on the {WORDS[word]} and the {WORDS[(word + 1) % 6]}"
        key = f"project.{WORDS[slot]}" if keyed else None
        e = edge(f"e{i:03d}", day=day, slot=key, vector=DIRECTIONS[direction], text=text,
                 category=Category.PROJECTS_ENDEAVORS)  # fmt: skip
        out.append(e.model_copy(update={"source_turns": (f"t{i}",)}))
    return out


def _retraction(day: int, direction: int, named: Sequence[int]) -> EdgeEvent:
    e = edge("r000", day=day, slot=None, update="accumulate", vector=DIRECTIONS[direction],
             retracts=tuple(f"project.{WORDS[n]}" for n in named), text="scrap it",
             category=Category.PROJECTS_ENDEAVORS)  # fmt: skip
    return e.model_copy(update={"source_turns": ("tr",)})


edges_st = st.lists(
    st.tuples(st.integers(0, 20), st.integers(0, 4), st.integers(0, 5), st.integers(0, 5),
              st.booleans()),
    max_size=20,
)  # fmt: skip
retraction_st = st.tuples(
    st.integers(0, 21), st.integers(0, 4), st.lists(st.integers(0, 5), min_size=1, max_size=2)
)


@settings(max_examples=150, deadline=None)
@given(edges_st, retraction_st)
def test_indexed_retargeting_finds_the_scans_target(
    specs: list[tuple[int, int, int, int, bool]], retraction: tuple[int, int, list[int]]
) -> None:
    edges = _edges(specs)
    r = _retraction(*retraction)
    want = find_target(r, edges, POLICY)
    assert find_target_indexed(r, UserEdges(edges), POLICY) == want
    # Through the slot index, as the lifecycle asks: the named slots tested first.
    slots = InMemorySlotIndex()
    slots.add_many("u1", [SlotEntry(group_key(e), e) for e in edges])
    for fixed in (False, True):
        batch = [e.edge_id for e in edges] if fixed else None
        assert Retargeting(slots, POLICY, batch=batch).target(r) == want
