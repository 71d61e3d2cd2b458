"""Fact stores for the lifecycle stage: a direct one over a vector index, and the
per-resolution write buffer that makes one `apply` all-or-nothing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from schemas.records import FactRecord, Lifecycle
from workers.ports import FactStore, IndexedFact, Updates, Upserts, VectorIndex


class DirectFacts:
    """`FactStore` over a `VectorIndex` that has one writer (the embedded deployment, replay).

    With a single writer nothing can change between snapshot and commit, so every commit
    succeeds; the vector index is the record of lifecycle state.
    """

    name = "vector_index"

    def __init__(self, vectors: VectorIndex) -> None:
        self._vectors = vectors

    def get(self, user_id: str, edge_ids: Sequence[str]) -> list[FactRecord]:
        return self._vectors.get(user_id, edge_ids)

    def scroll(self, user_id: str) -> Iterator[FactRecord]:
        return self._vectors.scroll(user_id)

    def snapshot(self, user_id: str) -> int:
        return 0

    def commit(self, user_id: str, snapshot: int, upserts: Upserts, updates: Updates) -> bool:
        if upserts:
            self._vectors.upsert(user_id, upserts)
        if updates:
            self._vectors.update_lifecycle(user_id, updates)
        return True

    def delete(self, user_id: str, edge_ids: Sequence[str]) -> int:
        return self._vectors.delete(user_id, edge_ids)

    def delete_if(self, user_id: str, snapshot: int, edge_ids: Sequence[str]) -> bool:
        self._vectors.delete(user_id, edge_ids)
        return True

    def delete_user(self, user_id: str) -> int:
        return self._vectors.delete_user(user_id)

    def count(self, user_id: str) -> int:
        return self._vectors.count(user_id)


def fact_store(store: VectorIndex | FactStore) -> FactStore:
    """A `FactStore` as given, or a direct one over a plain vector index."""
    return store if isinstance(store, FactStore) else DirectFacts(store)


class PendingWrites:
    """The writes of one resolution, read back through (a later step of the same `apply`
    sees the states an earlier step decided) and committed at once."""

    def __init__(self, store: FactStore, user_id: str) -> None:
        self._store = store
        self._user = user_id
        self._snapshot = store.snapshot(user_id)
        self.upserts: dict[str, IndexedFact] = {}
        self.updates: dict[str, Lifecycle] = {}

    def get(self, edge_ids: Sequence[str]) -> list[FactRecord]:
        found = {r.edge_id: r for r in self._store.get(self._user, edge_ids)}
        out: list[FactRecord] = []
        for edge_id in edge_ids:
            if edge_id in self.upserts:
                out.append(self.upserts[edge_id].record)
            elif edge_id in found:
                record = found[edge_id]
                if edge_id in self.updates:
                    record = record.model_copy(update={"lifecycle": self.updates[edge_id]})
                out.append(record)
        return out

    def upsert(self, item: IndexedFact) -> None:
        self.upserts[item.record.edge_id] = item
        self.updates.pop(item.record.edge_id, None)

    def update(self, edge_id: str, lifecycle: Lifecycle) -> None:
        if edge_id in self.upserts:
            item = self.upserts[edge_id]
            record = item.record.model_copy(update={"lifecycle": lifecycle})
            self.upserts[edge_id] = IndexedFact(record, item.dense, item.sparse)
        else:
            self.updates[edge_id] = lifecycle

    def commit(self) -> bool:
        if not self.upserts and not self.updates:
            return True
        return self._store.commit(
            self._user, self._snapshot, list(self.upserts.values()), self.updates
        )
