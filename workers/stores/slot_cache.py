"""The parsed edges of a user's big slots, kept between reads (issue 13).

A big user's bookkeeping slots (association anchors, free edges by month: tens of thousands
of edges) are read in every batch that touches the user; read back from SQLite and parsed
(≈ 60 µs an edge with its embedding) they made one user's ingest slower with every fact it
held. `SqliteSlotIndex` keeps them here instead, parsed, and keeps them current itself: its
own writes add to them or drop them, and a commit by another connection (SQLite's
`data_version`) clears them all.

Readers get copies of the lists (they may sort or extend them); the edges are shared.
"""

from __future__ import annotations

from bisect import insort
from collections import OrderedDict
from datetime import datetime

from schemas.events import EdgeEvent
from workers.ports import SlotEdges

#: Slots this size or larger are kept (smaller ones are one cheap query).
MIN_EDGES = 256
#: Edges kept in all (≈ 4 KB each parsed, so ≤ ≈ 2 GB): the largest slots of the busiest
#: users. A user of 100,000 facts (the largest of 10,000 Zipf-1.0 users at 1M facts) has an
#: anchor list of that size plus its free-edge months; at 200,000 they evicted each other
#: and every batch re-read and re-sorted the anchors (43 % of the 1M step, py-spy).
MAX_EDGES = 500_000


def _order(edge: EdgeEvent) -> tuple[datetime, str]:
    return (edge.ingest_time, edge.edge_id)  # every slot index's order


class SlotCache:
    """(user, slot) → its members and retractions, in slot index order; LRU by edges."""

    def __init__(self, min_edges: int = MIN_EDGES, max_edges: int = MAX_EDGES) -> None:
        self._min, self._max = min_edges, max_edges
        self._slots: OrderedDict[tuple[str, str], SlotEdges] = OrderedDict()
        self._size = 0

    def get(self, user: str, slot: str) -> SlotEdges | None:
        found = self._slots.get((user, slot))
        if found is None:
            return None
        self._slots.move_to_end((user, slot))
        return SlotEdges(list(found.members), list(found.retractions))

    def put(self, user: str, slot: str, edges: SlotEdges) -> None:
        size = len(edges.members) + len(edges.retractions)
        if size < self._min or size > self._max:
            return
        self.drop(user, slot)
        self._slots[(user, slot)] = SlotEdges(list(edges.members), list(edges.retractions))
        self._size += size
        self._evict()

    def _evict(self) -> None:
        while self._size > self._max:
            _, old = self._slots.popitem(last=False)
            self._size -= len(old.members) + len(old.retractions)

    def added(self, user: str, slot: str, edge: EdgeEvent, retraction: bool) -> None:
        """A row the index just inserted (new: not in the slot before)."""
        found = self._slots.get((user, slot))
        if found is not None:
            insort(found.retractions if retraction else found.members, edge, key=_order)
            self._size += 1
            self._evict()

    def drop(self, user: str, slot: str) -> None:
        old = self._slots.pop((user, slot), None)
        if old is not None:
            self._size -= len(old.members) + len(old.retractions)

    def drop_user(self, user: str) -> None:
        for key in [k for k in self._slots if k[0] == user]:
            self.drop(*key)

    def clear(self) -> None:
        self._slots.clear()
        self._size = 0
