"""Where the distributed deployment keeps its state: Redis key generations, the vector
index of a generation, and the stores (ports) the workers share."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

from frecall.bootstrap import make_vectors
from frecall.settings import Settings
from schemas.policy import Policy, load_policy
from streams.topics import Topics
from workers.distributed.lifecycle import LifecycleHandler
from workers.distributed.messages import Rejections
from workers.errors import ConfigError
from workers.lifecycle.bulk import BulkLifecycle
from workers.lifecycle.service import LifecycleService
from workers.ports import VectorIndex
from workers.stores.redis_archive import RedisArchive
from workers.stores.redis_client import RedisClient, connect
from workers.stores.redis_dead_letters import RedisDeadLetters
from workers.stores.redis_facts import RedisFactStore
from workers.stores.redis_ledger import RedisDeliveryLedger
from workers.stores.redis_presence import Heartbeat, RedisPresence
from workers.stores.redis_slots import RedisSlotIndex
from workers.stores.redis_turns import RedisTurnContext


def require_services(settings: Settings) -> tuple[str, str]:
    if not settings.kafka_bootstrap or not settings.redis_url:
        raise ConfigError("the distributed deployment needs FR_KAFKA_BOOTSTRAP and FR_REDIS_URL")
    return settings.kafka_bootstrap, settings.redis_url


def topics_of(settings: Settings) -> Topics:
    return Topics(settings.kafka_topic_prefix)


def generation(client: RedisClient, settings: Settings) -> int:
    return int(client.get(f"{settings.redis_prefix}:generation") or 0)


def prefix_of(settings: Settings, gen: int) -> str:
    return settings.redis_prefix if gen == 0 else f"{settings.redis_prefix}.g{gen}"


def kept_prefix(settings: Settings) -> str:
    """Where what a replay does not rebuild lives (the archive, dead letters): under no
    generation's prefix, so that no generation switch drops it."""
    return f"{settings.redis_prefix}.kept"


def presence(client: RedisClient, settings: Settings) -> RedisPresence:
    """The deployment's registry of running serving processes and workers."""
    return RedisPresence(client, settings.redis_prefix)


def register(settings: Settings, client: RedisClient, role: str) -> Heartbeat:
    """Register this process (`serve`, `worker`) for as long as it runs, so that a replay
    refuses to switch generations under it; refuse to start while a replay runs."""
    registry = presence(client, settings)
    running = registry.replaying()
    if running is not None:
        raise ConfigError(
            f"`frecall replay --from-kafka` is running ({running}): start {role} once it is done"
        )
    info = {
        "role": role,
        "data_dir": str(settings.data_dir.resolve()),
        "generation": generation(client, settings),
    }
    return Heartbeat(registry, info).start()


def collection_name(settings: Settings, gen: int) -> str:
    return settings.qdrant_collection + ("" if gen == 0 else f"_g{gen}")


def edge_dir(settings: Settings, gen: int) -> Path:
    return settings.data_dir / ("qdrant" if gen == 0 else f"qdrant.g{gen}")


def open_vectors(settings: Settings, dim: int, gen: int) -> VectorIndex:
    """The vector index of a generation: a Qdrant server collection, or Qdrant Edge."""
    if settings.qdrant_url:
        update = {"qdrant_collection": collection_name(settings, gen)}
        return make_vectors(settings.model_copy(update=update), dim)
    return make_vectors(settings, dim, edge_dir(settings, gen))


def indexer_group(settings: Settings, gen: int) -> str:
    """The indexer's consumer group: one per vector index (a Qdrant server collection is
    shared by every serving process; a Qdrant Edge store belongs to one data dir)."""
    if settings.qdrant_url:
        return f"{settings.kafka_group}-indexer-{collection_name(settings, gen)}"
    where = f"{settings.data_dir.resolve()}#{gen}"
    return f"{settings.kafka_group}-indexer-{hashlib.sha1(where.encode()).hexdigest()[:10]}"


def reader_settings(settings: Settings) -> Settings:
    """Settings for a CLI reader (query, inspect) of the distributed deployment: only a
    Qdrant server can be shared with the serving process."""
    if not settings.qdrant_url:
        raise ConfigError(
            "in the distributed deployment the serving process owns the vector index: "
            "query it over HTTP (POST /v1/query), or set FR_QDRANT_URL to share a Qdrant server"
        )
    client = connect(require_services(settings)[1])
    try:
        gen = generation(client, settings)
    finally:
        client.close()
    return settings.model_copy(update={"qdrant_collection": collection_name(settings, gen)})


@dataclass
class Stores:
    """One generation's Redis stores and the lifecycle service over them, with the archive
    and the dead letters (which no generation owns)."""

    client: RedisClient
    facts: RedisFactStore
    ledger: RedisDeliveryLedger
    turns: RedisTurnContext
    slots: RedisSlotIndex
    lifecycle: LifecycleService
    policy: Policy
    archive: RedisArchive
    letters: RedisDeadLetters

    def close(self) -> None:
        self.client.close()


def lifecycle_handler(stores: Stores, reject: Rejections, bulk: bool) -> LifecycleHandler:
    """The lifecycle worker's handler over `stores` (`bulk`: `FR_LIFECYCLE_BULK`)."""
    return LifecycleHandler(
        stores.lifecycle,
        stores.facts,
        stores.ledger,
        stores.turns,
        reject,
        stores.archive,
        bulk=BulkLifecycle(stores.slots, stores.facts, stores.policy) if bulk else None,
    )


def open_stores(settings: Settings, gen: int | None = None) -> Stores:
    _, url = require_services(settings)
    client = connect(url)
    prefix = prefix_of(settings, generation(client, settings) if gen is None else gen)
    facts = RedisFactStore(client, prefix)
    slots = RedisSlotIndex(client, prefix)
    policy = load_policy(settings.policy_file)
    return Stores(
        client,
        facts,
        RedisDeliveryLedger(client, prefix),
        RedisTurnContext(client, prefix),
        slots,
        LifecycleService(slots, facts, policy),
        policy,
        RedisArchive(client, kept_prefix(settings), prefix),
        RedisDeadLetters(client, kept_prefix(settings)),
    )


def drop_vectors(settings: Settings, gen: int) -> None:
    """Delete one generation's vector index (a Qdrant server collection, or Qdrant Edge)."""
    if not settings.qdrant_url:
        shutil.rmtree(edge_dir(settings, gen), ignore_errors=True)
        return
    from qdrant_client import QdrantClient

    key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
    client = QdrantClient(url=settings.qdrant_url, api_key=key)
    try:
        name = collection_name(settings, gen)
        if client.collection_exists(name):
            client.delete_collection(name)
    finally:
        client.close()


def drop_prefix(client: RedisClient, prefix: str) -> None:
    """Delete one generation's keys (`<prefix>:{user}:…`), not the generation pointer."""
    batch: list[bytes] = []
    for key in client.scan_iter(f"{prefix}:{{*", count=1000):
        batch.append(key)
        if len(batch) >= 500:
            client.delete(*batch)
            batch = []
    if batch:
        client.delete(*batch)
