"""The serving process's indexer: `fr.transitions` → the vector index queries read."""

from __future__ import annotations

from frecall.distributed.stores import (
    Stores,
    generation,
    indexer_group,
    open_vectors,
    register,
    topics_of,
)
from frecall.settings import Settings
from schemas.streams import TRANSITIONS
from streams.kafka_io import ConsumerLoop
from workers.distributed.indexer import Indexer
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
        self.loop = ConsumerLoop(
            bootstrap,
            indexer_group(settings, gen),
            [topics_of(settings).name(TRANSITIONS)],
            self.indexer.handle,
            name="indexer",
        )
        self.loop.start()

    def close(self) -> None:
        self.loop.stop()
        self.vectors.close()
        self.heartbeat.stop()
