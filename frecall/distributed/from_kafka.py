"""`frecall replay --from-kafka`: rebuild Redis and the vector index into a new generation.

The rebuild itself is `workers.lifecycle.replay.rebuild`, the embedded replay's too; here
are the generation switch (new Redis key prefix, new vector index, then the pointer) and
the ledger's tombstones, so that a late copy of an erased edge stays out afterwards.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TypeVar

from pydantic import BaseModel

from frecall.bootstrap import make_embedder
from frecall.distributed.stores import (
    drop_prefix,
    drop_vectors,
    generation,
    indexer_group,
    open_stores,
    open_vectors,
    prefix_of,
    presence,
    require_services,
    topics_of,
)
from frecall.settings import Settings
from schemas.events import EdgeEvent, ForgetCommand
from schemas.results import ReplayReport
from schemas.streams import COMMANDS, EDGES, TRANSITIONS
from streams.kafka_io import commit_end_offsets, read_topics
from streams.topics import active_members, truncated
from workers.distributed.indexer import Indexer
from workers.errors import ConfigError
from workers.lifecycle.bulk import BulkLifecycle
from workers.lifecycle.replay import ByIssueTime, rebuild
from workers.progress import Progress
from workers.stores.redis_client import RedisClient, connect
from workers.stores.redis_presence import RedisPresence, describe

M = TypeVar("M", bound=BaseModel)


#: How long the replay marker lasts if the replay dies without removing it (seconds).
REPLAY_MARK_TTL_S = 6 * 3600


def replay_from_kafka(settings: Settings, *, bulk: bool = True) -> ReplayReport:
    """Rebuild Redis and the vector index from fr.edges + fr.commands into a new generation,
    then switch over. Run it with the workers and the serving processes stopped: it
    refuses while any of them is registered (whatever data dir it was given), and they
    refuse to start while it runs. `bulk`: batches, each slot resolved once per batch
    (workers/lifecycle/bulk.py); False: one `apply` per edge (the reference path)."""
    bootstrap, url = require_services(settings)
    client = connect(url)
    registry = presence(client, settings)
    _refuse_if_running(registry)
    who = f"pid {os.getpid()} on {socket.gethostname()}"
    if not registry.begin_replay(who, REPLAY_MARK_TTL_S):
        raise ConfigError(f"another `replay --from-kafka` is running ({registry.replaying()})")
    try:
        _refuse_if_running(registry)  # one that registered just before the mark
        return _replay(settings, bootstrap, client, bulk)
    finally:
        registry.end_replay()
        client.close()


def _refuse_if_running(registry: RedisPresence) -> None:
    running = registry.alive()
    if running:
        names = "; ".join(describe(m) for m in running)
        raise ConfigError(
            f"stop the workers and the serving processes before `replay --from-kafka` "
            f"(they open the new generation at start); running: {names}"
        )


def _replay(settings: Settings, bootstrap: str, client: RedisClient, bulk: bool) -> ReplayReport:
    topics = topics_of(settings)
    old = generation(client, settings)
    new = old + 1
    gone = truncated(bootstrap, topics.log())
    if gone:
        raise ConfigError(
            "the log was truncated by retention, a replay would lose facts or bring erased "
            f"ones back: {'; '.join(gone[:5])} (keep fr.edges and fr.commands forever)"
        )
    # A second line: consumers that predate registration (or never registered).
    for group in (settings.kafka_group, indexer_group(settings, old)):
        if active_members(bootstrap, group):
            raise ConfigError(
                f"consumer group {group} is running: stop the workers and the serving "
                "processes before `replay --from-kafka` (they open the new generation at start)"
            )
    drop_prefix(client, prefix_of(settings, new))
    started = time.monotonic()
    stores = open_stores(settings, new)
    erasures = ByIssueTime()
    users: set[str] = set()

    many = BulkLifecycle(stores.slots, stores.facts, stores.policy)

    def apply(edge: EdgeEvent) -> None:
        stores.lifecycle.apply(edge)
        stores.ledger.mark_processed(edge.user_id, edge.edge_id)
        users.add(edge.user_id)

    def apply_many(edges: list[EdgeEvent]) -> None:
        """In bulk (workers/lifecycle/bulk.py): each slot resolved once, one commit and one
        processed mark per user and batch."""
        for batch in many.apply(edges):
            if batch.transitions is None:
                for edge in batch.edges:
                    stores.lifecycle.apply(edge)
            ids = dict.fromkeys(e.edge_id for e in batch.edges)
            stores.ledger.mark_processed(batch.user_id, *ids)
            users.add(batch.user_id)

    report = rebuild(
        enumerate(_parsed(bootstrap, topics.name(COMMANDS), ForgetCommand)),
        enumerate(e for e in _parsed(bootstrap, topics.name(EDGES), EdgeEvent) if e.embedding),
        erasures,
        apply,
        Progress("replay --from-kafka"),
        apply_many=apply_many if bulk else None,
    )
    for user, at in erasures.users.items():
        stores.ledger.tombstone(user, None, at)
    for user, edge_id in erasures.edges:
        stores.ledger.tombstone(user, edge_id, datetime.now(UTC))
    dim = make_embedder(settings).dim
    drop_vectors(settings, new)  # what an earlier, interrupted attempt left
    vectors = open_vectors(settings, dim, new)
    try:
        indexer = Indexer(stores.facts, vectors)
        for user in sorted(users):
            indexer.sync(user, [r.edge_id for r in stores.facts.scroll(user)])
    finally:
        vectors.close()
    # The new index already holds every announced change: its indexer starts at the end.
    commit_end_offsets(bootstrap, indexer_group(settings, new), topics.name(TRANSITIONS))
    seconds = time.monotonic() - started  # the whole rebuild, the vector index included
    client.set(f"{settings.redis_prefix}:generation", new)  # the switch
    drop_prefix(client, prefix_of(settings, old))
    drop_vectors(settings, old)
    stores.close()
    origin = f"Kafka into generation {new}"
    update = {"users": len(users), "generation": new, "seconds": seconds, "origin": origin}
    return report.model_copy(update=update)


def _parsed(bootstrap: str, topic: str, model: type[M]) -> Iterator[M]:
    """The messages of `topic` that parse as `model` (the workers dead-lettered the rest)."""
    for message in read_topics(bootstrap, [topic]):
        try:
            yield model.model_validate_json(message.value)
        except ValueError:
            continue
