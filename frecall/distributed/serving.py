"""The serving process's indexer: `fr.transitions` → the vector index queries read."""

from __future__ import annotations

from pydantic import ValidationError

from frecall.distributed.stores import (
    Stores,
    generation,
    indexer_group,
    open_vectors,
    register,
    topics_of,
)
from frecall.observability.timings import INDEXED
from frecall.settings import Settings
from schemas.streams import TRANSITIONS, FactsChanged
from streams.kafka_io import ConsumerLoop
from workers.distributed.indexer import Indexer
from workers.distributed.messages import Received
from workers.ports import VectorIndex


class ServingNode:
    """The indexer (consuming fr.transitions) over this generation's vector index: the only
    process that opens that index. Reads of the index take `indexer.lock`."""

    def __init__(self, settings: Settings, stores: Stores, dim: int, bootstrap: str) -> None:
        # Registered first: a replay refuses from here on, and none may be running now.
        self.heartbeat = register(settings, stores.client, "serve")
        gen = generation(stores.client, settings)
        try:
            self.vectors: VectorIndex = open_vectors(settings, dim, gen)
        except BaseException:
            self.heartbeat.stop()
            raise
        self.indexer = Indexer(stores.facts, self.vectors)
        self.loop_group = indexer_group(settings, gen)
        self.loop = ConsumerLoop(
            bootstrap,
            self.loop_group,
            [topics_of(settings).name(TRANSITIONS)],
            self._handle,
            name="indexer",
        )
        self.loop.start()

    def _handle(self, message: Received) -> None:
        self.indexer.handle(message)
        if INDEXED.active:  # the serving process's metrics: transitions, produce → queryable
            try:
                changed = FactsChanged.model_validate_json(message.value)
            except ValidationError:
                return  # the indexer logged and skipped it
            moves = [(t.from_state, t.to_state) for t in changed.transitions]
            INDEXED.emit(changed.edge_ids, moves)

    def close(self) -> None:
        self.loop.stop()
        self.vectors.close()
        self.heartbeat.stop()
