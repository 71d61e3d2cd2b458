"""The embedded deployment's object graph: stores, services, settings (`frecall.bootstrap.build`
makes it; `frecall.embedded` runs on it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from schemas.policy import Policy
from workers.lifecycle.bulk import BulkLifecycle
from workers.lifecycle.service import LifecycleService
from workers.ports import DeadLetters, Embedder, EventLog, SlotIndex, VectorIndex
from workers.query.service import QueryService
from workers.query.tiers import Distiller
from workers.stores.archive import Archive


@dataclass
class App:
    """Everything a command needs; `close()` releases stores in reverse order of opening."""

    settings: Any  # frecall.settings.Settings; workers must not import entry points
    policy: Policy
    embedder: Embedder
    vectors: VectorIndex
    slots: SlotIndex
    log: EventLog
    dead_letters: DeadLetters
    distill: Distiller | None = None
    #: What compaction archived (embedded deployment); forget reaches it too.
    archive: Archive | None = None
    lifecycle: LifecycleService = field(init=False)
    #: The same stage over whole batches (workers/lifecycle/bulk.py).
    bulk: BulkLifecycle = field(init=False)
    queries: QueryService = field(init=False)

    def __post_init__(self) -> None:
        self.lifecycle = LifecycleService(self.slots, self.vectors, self.policy)
        self.bulk = BulkLifecycle(self.slots, self.vectors, self.policy)
        self.queries = QueryService(self.vectors, self.embedder, self.policy, distill=self.distill)

    def close(self) -> None:
        for closer in (self.log.close, self.slots.close, self.vectors.close):
            closer()
        # An embedder over HTTP holds pooled sockets; local ones have nothing to close.
        close_embedder = getattr(self.embedder, "close", None)
        if callable(close_embedder):
            close_embedder()
