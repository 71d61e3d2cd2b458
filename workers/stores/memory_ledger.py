"""In-process `DeliveryLedger`: the fake of `RedisDeliveryLedger` (same contract suite)."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime


class InMemoryDeliveryLedger:
    """`DeliveryLedger` in dicts (receipts do not expire here)."""

    def __init__(self) -> None:
        self._processed: dict[str, set[str]] = defaultdict(set)
        self._forgotten: dict[str, set[str]] = defaultdict(set)
        self._erased_at: dict[str, datetime] = {}
        self._erasing: dict[tuple[str, str], list[str]] = {}
        self._receipts: dict[tuple[str, str], dict[str, int]] = {}
        self._lock = threading.Lock()

    def processed(self, user_id: str, edge_id: str) -> bool:
        with self._lock:
            return edge_id in self._processed.get(user_id, ())

    def mark_processed(self, user_id: str, *edge_ids: str) -> None:
        with self._lock:
            self._processed[user_id].update(edge_ids)

    def forget_processed(self, user_id: str) -> None:
        with self._lock:
            self._processed.pop(user_id, None)

    def tombstone(self, user_id: str, edge_id: str | None, at: datetime) -> None:
        with self._lock:
            if edge_id is None:
                self._erased_at[user_id] = at
            else:
                self._forgotten[user_id].add(edge_id)

    def erased(self, user_id: str, edge_id: str | None, ingest_time: datetime) -> bool:
        with self._lock:
            if edge_id is not None and edge_id in self._forgotten.get(user_id, ()):
                return True
            erased_at = self._erased_at.get(user_id)
            return erased_at is not None and ingest_time <= erased_at

    def settled(
        self, user_id: str, edges: Sequence[tuple[str, datetime]]
    ) -> list[tuple[bool, bool]]:
        return [(self.erased(user_id, e, t), self.processed(user_id, e)) for e, t in edges]

    def remember_slots(self, user_id: str, command_id: str, slots: Sequence[str]) -> list[str]:
        with self._lock:
            return list(self._erasing.setdefault((user_id, command_id), list(slots)))

    def forget_slots(self, user_id: str, command_id: str) -> None:
        with self._lock:
            self._erasing.pop((user_id, command_id), None)

    def put_receipt(self, user_id: str, command_id: str, removed: dict[str, int]) -> None:
        with self._lock:
            self._receipts.setdefault((user_id, command_id), dict(removed))

    def receipt(self, user_id: str, command_id: str) -> dict[str, int] | None:
        with self._lock:
            found = self._receipts.get((user_id, command_id))
            return None if found is None else dict(found)
