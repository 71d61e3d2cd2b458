"""In-process `SharedFactStore`: the fake of `RedisFactStore` (one contract suite runs
against both). Thread-safe; versions and tombstone checks as the Redis scripts do them."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterator, Sequence

from schemas.records import FactRecord
from workers.distributed.ports import DeliveryLedger
from workers.ports import Updates, Upserts, records_to_write


class InMemoryFactStore:
    """`SharedFactStore` in a dict. `ledger`: whose tombstones `commit` honours."""

    name = "fact_store"

    def __init__(self, ledger: DeliveryLedger | None = None) -> None:
        self._ledger = ledger
        self._facts: dict[str, dict[str, FactRecord]] = defaultdict(dict)
        self._versions: dict[str, int] = defaultdict(int)
        self._lock = threading.RLock()

    def get(self, user_id: str, edge_ids: Sequence[str]) -> list[FactRecord]:
        with self._lock:
            facts = self._facts.get(user_id, {})
            return [facts[i] for i in edge_ids if i in facts]

    def scroll(self, user_id: str) -> Iterator[FactRecord]:
        with self._lock:
            return iter(list(self._facts.get(user_id, {}).values()))

    def snapshot(self, user_id: str) -> int:
        with self._lock:
            return self._versions[user_id]

    def commit(self, user_id: str, snapshot: int, upserts: Upserts, updates: Updates) -> bool:
        with self._lock:
            records = records_to_write(lambda ids: self.get(user_id, ids), upserts, updates)
            if not records:
                return True
            if self._versions[user_id] != snapshot:
                return False
            for edge_id, record in records.items():
                if not self._erased(user_id, record):
                    self._facts[user_id][edge_id] = record
            self._versions[user_id] += 1
            return True

    def _erased(self, user_id: str, record: FactRecord) -> bool:
        ledger = self._ledger
        return ledger is not None and ledger.erased(
            user_id, record.edge_id, record.edge.ingest_time
        )

    def delete(self, user_id: str, edge_ids: Sequence[str]) -> int:
        if not edge_ids:
            return 0
        with self._lock:
            facts = self._facts[user_id]
            found = [i for i in dict.fromkeys(edge_ids) if facts.pop(i, None) is not None]
            self._versions[user_id] += 1
            return len(found)

    def delete_if(self, user_id: str, snapshot: int, edge_ids: Sequence[str]) -> bool:
        with self._lock:
            if self._versions[user_id] != snapshot:
                return False
            self.delete(user_id, edge_ids)
            return True

    def delete_user(self, user_id: str) -> int:
        with self._lock:
            removed = len(self._facts.pop(user_id, {}))
            self._versions[user_id] += 1
            return removed

    def users(self) -> list[str]:
        with self._lock:
            return sorted(u for u, facts in self._facts.items() if facts)

    def count(self, user_id: str) -> int:
        with self._lock:
            return len(self._facts.get(user_id, {}))

    def close(self) -> None:
        pass
