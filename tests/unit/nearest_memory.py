"""The exact nearest-neighbour search the withdrawal rule's tests stand in for the vector store
with (`withdrawn.withdrawn`'s `nearest`): a user's memory held as candidates, searched by the
dot product of stored vectors among those told before a time, best first, ties by edge id."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

import numpy as np

from workers.ports import Hit
from workers.query.candidates import MergedCandidate


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
