"""The distributed deployment's wiring (FR_KAFKA_BOOTSTRAP + FR_REDIS_URL set).

Topology (README "Distributed"): `frecall worker` processes run the Faust agents —
extraction (`fr.turns` → `fr.edges`) and lifecycle (`fr.edges`, `fr.commands` →
Redis slot index + fact store → `fr.transitions`). `frecall serve` runs the query service
and the indexer, the one writer of the vector index, which projects `fr.transitions` into
it: a Qdrant server (FR_QDRANT_URL) in production, or the single-process Qdrant Edge store
in the data dir, owned by that serving process.

Generations: `replay --from-kafka` rebuilds into a new Redis key prefix and a new vector
index, then switches the `<prefix>:generation` pointer; processes opened later use it.
"""

from frecall.distributed.compact import compact_distributed
from frecall.distributed.from_kafka import replay
from frecall.distributed.produce import (
    Produced,
    embedded_edges,
    export_document,
    produce_edges,
    produce_forget,
    produce_turns,
)
from frecall.distributed.serving import ServingNode
from frecall.distributed.stores import (
    Stores,
    distributed,
    generation,
    indexer_group,
    open_stores,
    open_vectors,
    prefix_of,
    reader_settings,
    topics_of,
)
from frecall.distributed.worker import worker_cmd

__all__ = [
    "Produced",
    "ServingNode",
    "Stores",
    "compact_distributed",
    "distributed",
    "embedded_edges",
    "export_document",
    "generation",
    "indexer_group",
    "open_stores",
    "open_vectors",
    "prefix_of",
    "produce_edges",
    "produce_forget",
    "produce_turns",
    "reader_settings",
    "replay",
    "topics_of",
    "worker_cmd",
]
