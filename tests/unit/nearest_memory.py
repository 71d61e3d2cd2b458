"""The stand-in memory of the withdrawal rule's tests: statements as window candidates over
five-coordinate vectors (`unit`, `told`), and the exact nearest-neighbour search the tests
stand in for the vector store with (`withdrawn.withdrawn`'s `nearest`): a user's memory held
as candidates, searched by the dot product of stored vectors among those told before a time,
best first, ties by edge id."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

import numpy as np

from schemas.categories import Category
from schemas.events import EdgeEvent
from schemas.records import FactRecord, Lifecycle
from workers.ports import Hit
from workers.query.candidates import MergedCandidate


def unit(*xs: float) -> np.ndarray:
    """The unit vector of the first coordinates `xs` among five (the tests' stand-in probe
    reads the 4th as "gives up")."""
    v = np.asarray([*xs, 0.0, 0.0, 0.0, 0.0][:5], dtype=np.float32)
    return v / np.linalg.norm(v)


def told(edge_id: str, at: datetime, vector: np.ndarray, text: str, *, raw: bool = True,
         turn: str | None = None) -> MergedCandidate:  # fmt: skip
    """User "u1"'s statement `text` told at `at` as a candidate (σ 0.6, dense): a raw turn, or
    a keyed project fact without `raw`; its turn is its own id unless `turn` is given."""
    edge = EdgeEvent(
        edge_id=edge_id, user_id="u1", text=text, categories=Category.OTHER, ingest_time=at,
        episodic=raw, slot_key=None if raw else f"project.{edge_id}",
        source_turns=(turn or edge_id,),
    )  # fmt: skip
    return MergedCandidate(
        FactRecord(edge=edge, lifecycle=Lifecycle(last_mentioned_at=at)), 0.6, ("dense",), vector
    )


def nearest_in(
    memory: Sequence[MergedCandidate], targets: int
) -> Callable[[np.ndarray, datetime], list[Hit]]:
    """`nearest(vector, before)` over `memory`: its `targets` best hits told before `before`."""

    def nearest(vector: np.ndarray, before: datetime) -> list[Hit]:
        hits = [
            Hit(m.record, float(np.dot(vector, m.vector)), m.vector)
            for m in memory
            if m.vector is not None and m.record.edge.ingest_time < before
        ]
        return sorted(hits, key=lambda h: (-h.score, h.record.edge_id))[:targets]

    return nearest
