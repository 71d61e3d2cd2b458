"""`frecall replay --from-kafka`: rebuild Redis and the vector index into a new generation."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import redis

from frecall.bootstrap import make_embedder
from frecall.distributed.stores import (
    drop_prefix,
    drop_vectors,
    generation,
    indexer_group,
    open_stores,
    open_vectors,
    prefix_of,
    require_services,
    topics_of,
)
from frecall.settings import Settings
from schemas.events import EdgeEvent, ForgetCommand
from schemas.streams import COMMANDS, EDGES, TRANSITIONS
from streams.kafka_io import commit_end_offsets, read_topics
from streams.progress import Progress
from streams.topics import active_members, truncated
from workers.distributed.indexer import Indexer
from workers.errors import ConfigError


def replay(settings: Settings) -> dict[str, Any]:
    """Rebuild Redis and the vector index from fr.edges + fr.commands into a new generation,
    then switch over. Run it with the workers and the serving process stopped."""
    bootstrap, url = require_services(settings)
    topics = topics_of(settings)
    client = redis.Redis.from_url(url)
    old = generation(client, settings)
    new = old + 1
    gone = truncated(bootstrap, topics.log())
    if gone:
        raise ConfigError(
            "the log was truncated by retention, a replay would lose facts or bring erased "
            f"ones back: {'; '.join(gone[:5])} (keep fr.edges and fr.commands forever)"
        )
    for group in (settings.kafka_group, indexer_group(settings, old)):
        if active_members(bootstrap, group):
            raise ConfigError(
                f"consumer group {group} is running: stop the workers and the serving "
                "process before `replay --from-kafka` (they open the new generation at start)"
            )
    drop_prefix(client, prefix_of(settings, new))
    stores = open_stores(settings, new)
    erased_users: dict[str, datetime] = {}
    erased_edges: set[tuple[str, str]] = set()
    commands = 0
    for message in read_topics(bootstrap, [topics.name(COMMANDS)]):
        try:
            command = ForgetCommand.model_validate_json(message.value)
        except ValueError:
            continue  # the workers dead-lettered it too
        commands += 1
        if command.edge_id is None:
            erased_users[command.user_id] = max(
                command.issued_at, erased_users.get(command.user_id, command.issued_at)
            )
        else:
            erased_edges.add((command.user_id, command.edge_id))
    progress = Progress("replay --from-kafka")
    edges = skipped = 0
    users: set[str] = set()
    for message in read_topics(bootstrap, [topics.name(EDGES)]):
        progress.tick()
        try:
            edge = EdgeEvent.model_validate_json(message.value)
        except ValueError:
            continue
        if edge.embedding is None:
            continue
        erased_at = erased_users.get(edge.user_id)
        if (edge.user_id, edge.edge_id) in erased_edges or (
            erased_at is not None and edge.ingest_time <= erased_at
        ):
            skipped += 1
            continue
        stores.lifecycle.apply(edge)
        stores.ledger.mark_processed(edge.user_id, edge.edge_id)
        users.add(edge.user_id)
        edges += 1
    for user, at in erased_users.items():
        stores.ledger.tombstone(user, None, at)
    for user, edge_id in erased_edges:
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
    seconds = progress.finish()
    client.set(f"{settings.redis_prefix}:generation", new)  # the switch
    drop_prefix(client, prefix_of(settings, old))
    drop_vectors(settings, old)
    stores.close()
    client.close()
    return {
        "edges": edges,
        "skipped_forgotten": skipped,
        "forget_commands": commands,
        "users": len(users),
        "generation": new,
        "seconds": round(seconds, 3),
        "edges_per_s": round(edges / seconds, 1) if seconds else None,
    }
