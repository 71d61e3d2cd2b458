"""Read-your-writes in the distributed deployment: wait until the edge ids an ingest
returned are in the vector index — or answer at once that they never will be.

`wait_for` ids belong to the query's user: the index is searched per user, so an id of
another user's write never shows up there. Rather than wait out the timeout for it, the
wait asks whether the pipeline has caught up with the user: once the workers have
committed everything on the user's partition of `fr.turns` and then of `fr.edges` (in
that order: extraction commits a turn after its edges were produced), an id the fact store
still does not have for the user was never the user's (or was erased): `NotQueryable`
says so, at once.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from frecall.distributed.stores import Stores, topics_of
from frecall.settings import Settings
from schemas.streams import EDGES, TURNS
from streams.topics import lag, partition_for
from workers.distributed.indexer import Indexer
from workers.errors import NotQueryable

#: Seconds between two checks of the workers' progress while ids are missing.
SETTLE_CHECK_S = 0.5


def wait_for_writes(
    settings: Settings,
    bootstrap: str,
    stores: Stores,
    indexer: Indexer,
    user_id: str,
    edge_ids: Sequence[str],
    timeout: float,
) -> None:
    """Return once every one of `edge_ids` is queryable for `user_id`; raise `NotQueryable`
    after `timeout`, or as soon as the missing ones cannot come."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if indexer.wait_indexed(user_id, edge_ids, min(max(left, 0.0), SETTLE_CHECK_S)):
            return
        missing = indexer.missing(user_id, edge_ids)
        if _settled(settings, bootstrap, stores, user_id, missing):
            raise NotQueryable(missing, timeout, user_id, settled=True)
        if time.monotonic() >= deadline:
            raise NotQueryable(missing, timeout, user_id)


def _settled(
    settings: Settings, bootstrap: str, stores: Stores, user_id: str, missing: list[str]
) -> bool:
    """Whether the workers have applied everything sent for the user and none of `missing`
    is in the user's fact store (were one there, only the indexer would be behind)."""
    if stores.facts.get(user_id, missing):
        return False
    topics = topics_of(settings)
    partition = [partition_for(user_id, settings.kafka_partitions)]
    for topic in (TURNS, EDGES):  # in pipeline order: see the module docstring
        if lag(bootstrap, settings.kafka_group, [topics.name(topic)], partition):
            return False
    return not stores.facts.get(user_id, missing)
