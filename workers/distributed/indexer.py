"""The indexer: projects `fr.transitions` into the vector index the query service reads.

It is the only writer of that index, so the index may be the single-process Qdrant Edge
store in the same process as the query service (docs/architecture.md, "The two
deployments"). Messages are hints: the facts' current records are read from the fact store,
so duplicated, re-ordered or replayed announcements converge to the fact store's state.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from pydantic import ValidationError

from schemas.streams import FactsChanged
from workers.distributed.messages import Received
from workers.errors import brief
from workers.ports import FactStore, IndexedFact, SparseVector, VectorIndex
from workers.text import bm25

log = logging.getLogger(__name__)

#: Erasures whose count is kept for the caller waiting on them (the oldest go first).
ERASURES_KEPT = 10_000


class Indexer:
    """Applies `FactsChanged` to a vector index; thread-safe with the query service via
    `lock` (take it around reads of the same index)."""

    def __init__(
        self,
        facts: FactStore,
        vectors: VectorIndex,
        sparse: Callable[[str], SparseVector] = bm25.document_vector,
    ) -> None:
        self._facts = facts
        self._vectors = vectors
        self._sparse = sparse
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self.applied = 0
        #: command id → facts the erasure took out of the index (its first delivery).
        self._erased: OrderedDict[str, int] = OrderedDict()

    def handle(self, message: Received) -> None:
        try:
            changed = FactsChanged.model_validate_json(message.value)
        except ValidationError as exc:
            log.warning("indexer: %s skipped: %s", message.position, brief(exc))
            return
        with self.lock:
            if changed.forget_user:
                # Facts said after the erasure stay; some of them may have changed state.
                removed = self._sync_user(changed.user_id)
                self.sync(changed.user_id, changed.edge_ids)
            else:
                removed = self.sync(changed.user_id, changed.edge_ids)
            if removed:
                log.info("indexer: %s: %d facts removed", changed.user_id, removed)
            if changed.command_id is not None and changed.command_id not in self._erased:
                self._erased[changed.command_id] = removed
                while len(self._erased) > ERASURES_KEPT:
                    self._erased.popitem(last=False)
            self.applied += 1
            self._changed.notify_all()

    def sync(self, user_id: str, edge_ids: Sequence[str]) -> int:
        """Make the index agree with the fact store on these facts; returns deletions."""
        ids = list(dict.fromkeys(edge_ids))
        records = {r.edge_id: r for r in self._facts.get(user_id, ids)}
        indexed = {r.edge_id: r.lifecycle for r in self._vectors.get(user_id, list(records))}
        fresh = [
            IndexedFact(r, r.edge.embedding.to_array(), self._sparse(r.edge.text))
            for r in records.values()
            if r.edge_id not in indexed and r.edge.embedding is not None
        ]
        if fresh:
            self._vectors.upsert(user_id, fresh)
        updates = {
            i: r.lifecycle for i, r in records.items() if i in indexed and indexed[i] != r.lifecycle
        }
        if updates:
            self._vectors.update_lifecycle(user_id, updates)
        gone = [i for i in ids if i not in records]
        return self._vectors.delete(user_id, gone) if gone else 0

    def _sync_user(self, user_id: str) -> int:
        """After a whole-user erasure: drop what the fact store no longer has (facts the
        user added after the erasure stay)."""
        ids = [r.edge_id for r in self._vectors.scroll(user_id)]
        kept = {r.edge_id for r in self._facts.get(user_id, ids)}
        gone = [i for i in ids if i not in kept]
        return self._vectors.delete(user_id, gone) if gone else 0

    def erasure(self, command_id: str, timeout: float) -> int | None:
        """How many facts the erasure `command_id` took out of the index, once the indexer
        has applied its announcement (None: not within `timeout`). Counted by the index,
        so that a receipt's `vector_index` is measured where it is named."""
        if not self._wait(lambda: command_id in self._erased, timeout):
            return None
        with self.lock:
            return self._erased[command_id]

    def missing(self, user_id: str, edge_ids: Sequence[str]) -> list[str]:
        """Which of `edge_ids` are not in the index."""
        with self.lock:
            found = {r.edge_id for r in self._vectors.get(user_id, list(edge_ids))}
        return [i for i in dict.fromkeys(edge_ids) if i not in found]

    def wait_indexed(self, user_id: str, edge_ids: Sequence[str], timeout: float) -> bool:
        """Read-your-writes: wait until every one of `edge_ids` is in the index."""
        return self._wait(lambda: not self.missing(user_id, edge_ids), timeout)

    def _wait(self, done: Callable[[], bool], timeout: float) -> bool:
        """Check `done` after every applied message (and twice a second) until `timeout`."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not done():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.5))
            return True
