"""The serving process: the indexer (fr.transitions → the vector index) and what the
HTTP API needs."""

from __future__ import annotations

from frecall.distributed.stores import (
    generation,
    indexer_group,
    open_stores,
    open_vectors,
    require_services,
    topics_of,
)
from frecall.settings import Settings
from schemas.streams import TRANSITIONS
from streams.kafka_io import ConsumerLoop, KafkaProducer
from streams.topics import ensure_topics
from workers.distributed.indexer import Indexer
from workers.ports import Embedder


class ServingNode:
    """The indexer (consuming fr.transitions) and what the HTTP API needs to write and read
    in the distributed deployment. The only process that opens the vector index."""

    def __init__(self, settings: Settings, embedder: Embedder) -> None:
        bootstrap, _ = require_services(settings)
        self.settings = settings
        self.embedder = embedder  # one model per process, shared by queries and writes
        dim = embedder.dim
        self.topics = topics_of(settings)
        ensure_topics(bootstrap, self.topics, settings.kafka_partitions)
        self.stores = open_stores(settings)
        gen = generation(self.stores.client, settings)
        self.vectors = open_vectors(settings, dim, gen)
        self.indexer = Indexer(self.stores.facts, self.vectors)
        self.producer = KafkaProducer(bootstrap)
        self.loop = ConsumerLoop(
            bootstrap,
            indexer_group(settings, gen),
            [self.topics.name(TRANSITIONS)],
            self.indexer.handle,
            name="indexer",
        )

    def start(self) -> None:
        self.loop.start()

    def produce(self, logical: str, key: str, value: bytes) -> None:
        self.producer.produce(self.topics.name(logical), key, value)

    def close(self) -> None:
        self.loop.stop()
        self.producer.flush(10)
        self.vectors.close()
        self.stores.close()
