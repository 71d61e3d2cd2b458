"""In-process `SlotIndex`: the embedded deployment's slot index and the unit tests' fake.

Same contract as `RedisSlotIndex` (one contract suite runs against both):

* `add` / `add_retraction` are idempotent on edge_id: re-adding an edge_id already in that
  slot changes nothing (the first copy is kept) and returns the unchanged version.
* A slot has one version counter shared by its members and its retractions; it grows by one
  with every change and never goes back, even when `remove` empties the slot, so that a writer
  holding an old version can always tell its resolution is stale. `delete_user` (erasure)
  forgets the counters too.
* Lists of edges are sorted by (ingest_time, edge_id); slot keys are sorted.
* `slots` lists the slots that have at least one member or retraction, and `delete_user`
  returns how many such slots it removed.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from schemas.events import EdgeEvent
from workers.ports import SlotEdges, SlotEntry


@dataclass
class _UserSlots:
    members: dict[str, dict[str, EdgeEvent]] = field(default_factory=lambda: defaultdict(dict))
    retractions: dict[str, dict[str, EdgeEvent]] = field(default_factory=lambda: defaultdict(dict))
    versions: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    # edge_id -> slot keys where it is a member or a retraction: makes `remove` cheap.
    edge_slots: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def live_slots(self) -> set[str]:
        return {k for k, v in self.members.items() if v} | {
            k for k, v in self.retractions.items() if v
        }


def sort_edges(edges: list[EdgeEvent]) -> list[EdgeEvent]:
    """The order every `SlotIndex` returns edges in: (ingest_time, edge_id)."""
    return sorted(edges, key=lambda e: (e.ingest_time, e.edge_id))


def check_args(user_id: str, edge: EdgeEvent | None = None) -> None:
    """Reject calls that would mix tenants; shared by every `SlotIndex` implementation."""
    if not user_id:
        raise ValueError("user_id must not be empty")
    if edge is not None and edge.user_id != user_id:
        raise ValueError(f"edge {edge.edge_id!r} belongs to another user than {user_id!r}")


class InMemorySlotIndex:
    """Thread-safe (one lock) `SlotIndex` held in dicts; nothing survives the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users: dict[str, _UserSlots] = {}

    def _user(self, user_id: str) -> _UserSlots:
        state = self._users.get(user_id)
        if state is None:
            state = self._users[user_id] = _UserSlots()
        return state

    def _add(
        self, retraction: bool, user_id: str, slot_key: str, edge: EdgeEvent
    ) -> tuple[int, list[EdgeEvent]]:
        check_args(user_id, edge)
        with self._lock:
            state = self._user(user_id)
            slot = (state.retractions if retraction else state.members)[slot_key]
            if edge.edge_id not in slot:
                slot[edge.edge_id] = edge
                state.versions[slot_key] += 1
                state.edge_slots[edge.edge_id].add(slot_key)
            return state.versions[slot_key], sort_edges(list(slot.values()))

    def add(self, user_id: str, slot_key: str, edge: EdgeEvent) -> tuple[int, list[EdgeEvent]]:
        return self._add(False, user_id, slot_key, edge)

    def add_retraction(
        self, user_id: str, slot_key: str, edge: EdgeEvent
    ) -> tuple[int, list[EdgeEvent]]:
        return self._add(True, user_id, slot_key, edge)

    def _list(self, retraction: bool, user_id: str, slot_key: str) -> list[EdgeEvent]:
        check_args(user_id)
        with self._lock:
            state = self._users.get(user_id)
            if state is None:
                return []
            slot = (state.retractions if retraction else state.members).get(slot_key, {})
            return sort_edges(list(slot.values()))

    def members(self, user_id: str, slot_key: str) -> list[EdgeEvent]:
        return self._list(False, user_id, slot_key)

    def retractions(self, user_id: str, slot_key: str) -> list[EdgeEvent]:
        return self._list(True, user_id, slot_key)

    def add_many(self, user_id: str, entries: Sequence[SlotEntry]) -> None:
        for entry in entries:
            self._add(entry.retraction, user_id, entry.slot_key, entry.edge)

    def read_many(self, user_id: str, slot_keys: Sequence[str]) -> dict[str, SlotEdges]:
        return {
            key: SlotEdges(self.members(user_id, key), self.retractions(user_id, key))
            for key in dict.fromkeys(slot_keys)
        }

    def remove(self, user_id: str, edge_id: str) -> list[str]:
        check_args(user_id)
        with self._lock:
            state = self._users.get(user_id)
            if state is None:
                return []
            touched = []
            for slot_key in state.edge_slots.pop(edge_id, set()):
                found = False
                for table in (state.members, state.retractions):
                    slot = table.get(slot_key)
                    if slot is not None and slot.pop(edge_id, None) is not None:
                        found = True
                        if not slot:
                            del table[slot_key]
                if found:
                    state.versions[slot_key] += 1
                    touched.append(slot_key)
            return sorted(touched)

    def delete_user(self, user_id: str) -> int:
        check_args(user_id)
        with self._lock:
            state = self._users.pop(user_id, None)
            return 0 if state is None else len(state.live_slots())

    def slots(self, user_id: str) -> list[str]:
        check_args(user_id)
        with self._lock:
            state = self._users.get(user_id)
            return [] if state is None else sorted(state.live_slots())

    def close(self) -> None:
        """Nothing to release; the data stays readable (the embedded app closes at exit)."""
