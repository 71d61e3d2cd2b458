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

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import redis

from frecall.bootstrap import make_embedder, make_extractor, make_vectors
from frecall.settings import Settings
from schemas.events import EdgeEvent, Embedding, ForgetCommand, TurnEvent
from schemas.policy import Policy, load_policy
from schemas.streams import COMMANDS, EDGES, TRANSITIONS, TURNS, FactsChanged
from streams.kafka_io import ConsumerLoop, KafkaProducer, commit_end_offsets, read_topics
from streams.progress import Progress
from streams.topics import Topics, active_members, ensure_topics, truncated
from workers.distributed.extraction import ExtractionHandler
from workers.distributed.indexer import Indexer
from workers.distributed.lifecycle import LifecycleHandler
from workers.errors import ConfigError, InputError
from workers.export import dumps_stable, export_user
from workers.inputs import EdgeInput, read_jsonl
from workers.lifecycle.service import LifecycleService
from workers.ports import VectorIndex
from workers.stores.archive import Archive
from workers.stores.dead_letters import FileDeadLetters
from workers.stores.redis_facts import RedisFactStore
from workers.stores.redis_slots import RedisSlotIndex

if TYPE_CHECKING:
    from frecall.maintenance import CompactionReport

#: Snapshots a compaction takes of a user whose facts keep changing before it skips them.
COMPACT_ATTEMPTS = 5
#: Edges embedded and produced together by `ingest-edges`.
EMBED_BATCH = 256


def distributed(settings: Settings) -> bool:
    return bool(settings.kafka_bootstrap)


def _require(settings: Settings) -> tuple[str, str]:
    if not settings.kafka_bootstrap or not settings.redis_url:
        raise ConfigError("the distributed deployment needs FR_KAFKA_BOOTSTRAP and FR_REDIS_URL")
    return settings.kafka_bootstrap, settings.redis_url


def topics_of(settings: Settings) -> Topics:
    return Topics(settings.kafka_topic_prefix)


# --- generations ------------------------------------------------------------------------


def generation(client: redis.Redis, settings: Settings) -> int:
    return int(client.get(f"{settings.redis_prefix}:generation") or 0)


def prefix_of(settings: Settings, gen: int) -> str:
    return settings.redis_prefix if gen == 0 else f"{settings.redis_prefix}.g{gen}"


def _collection(settings: Settings, gen: int) -> str:
    return settings.qdrant_collection + ("" if gen == 0 else f"_g{gen}")


def _edge_dir(settings: Settings, gen: int) -> Path:
    return settings.data_dir / ("qdrant" if gen == 0 else f"qdrant.g{gen}")


def open_vectors(settings: Settings, dim: int, gen: int) -> VectorIndex:
    """The vector index of a generation: a Qdrant server collection, or Qdrant Edge."""
    if settings.qdrant_url:
        update = {"qdrant_collection": _collection(settings, gen)}
        return make_vectors(settings.model_copy(update=update), dim)
    return make_vectors(settings, dim, _edge_dir(settings, gen))


def indexer_group(settings: Settings, gen: int) -> str:
    """The indexer's consumer group: one per vector index (a Qdrant server collection is
    shared by every serving process; a Qdrant Edge store belongs to one data dir)."""
    if settings.qdrant_url:
        return f"{settings.kafka_group}-indexer-{_collection(settings, gen)}"
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
    client = redis.Redis.from_url(_require(settings)[1])
    try:
        gen = generation(client, settings)
    finally:
        client.close()
    return settings.model_copy(update={"qdrant_collection": _collection(settings, gen)})


@dataclass
class Stores:
    """One generation's Redis stores and the lifecycle service over them."""

    client: redis.Redis
    facts: RedisFactStore
    slots: RedisSlotIndex
    lifecycle: LifecycleService
    policy: Policy

    def close(self) -> None:
        self.client.close()


def open_stores(settings: Settings, gen: int | None = None) -> Stores:
    _, url = _require(settings)
    client = redis.Redis.from_url(url)
    prefix = prefix_of(settings, generation(client, settings) if gen is None else gen)
    facts = RedisFactStore(client, prefix)
    slots = RedisSlotIndex(client, prefix)
    policy = load_policy(settings.policy_file)
    return Stores(client, facts, slots, LifecycleService(slots, facts, policy), policy)


# --- frecall worker ----------------------------------------------------------------------


def worker_cmd(args: argparse.Namespace) -> int:
    """Run the Faust agents of the given roles until SIGINT/SIGTERM."""
    from frecall.commands import settings_from
    from streams.faust_app import create_app, run_worker

    settings = settings_from(args)
    bootstrap, _ = _require(settings)
    roles = {r.strip() for r in args.roles.split(",") if r.strip()}
    unknown = roles - {"extraction", "lifecycle"}
    if unknown or not roles:
        raise ConfigError(f"--roles: unknown {sorted(unknown)}; use extraction, lifecycle")
    topics = topics_of(settings)
    ensure_topics(bootstrap, topics, settings.kafka_partitions)
    stores = open_stores(settings)
    extraction = None
    if "extraction" in roles:
        extractor = make_extractor(settings)
        extraction = ExtractionHandler(extractor, make_embedder(settings), stores.facts)
    lifecycle = LifecycleHandler(stores.lifecycle, stores.facts) if "lifecycle" in roles else None
    app = create_app(
        bootstrap,
        topics,
        settings.kafka_partitions,
        settings.kafka_group,
        extraction=extraction,
        lifecycle=lifecycle,
        datadir=str(_mkdir(settings.data_dir / "faust")),
    )
    print(f"frecall worker: roles {sorted(roles)} on {bootstrap}", file=sys.stderr, flush=True)
    try:
        run_worker(app, args.loglevel)
    finally:
        stores.close()
    return 0


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


# --- producers (frecall ingest / ingest-edges / forget) ----------------------------------


@dataclass
class Produced:
    accepted: int = 0
    rejected: int = 0


def _reject(settings: Settings, source: str, line: int, reason: str, raw: str) -> None:
    print(f"{source}:{line}: {reason}", file=sys.stderr)
    FileDeadLetters(settings.data_dir / "dead-letters.jsonl").put(source, str(line), reason, raw)


def produce_turns(settings: Settings, path: Path) -> Produced:
    """`frecall ingest` with Kafka: validate each line, produce the valid ones to fr.turns."""
    bootstrap, _ = _require(settings)
    topics = topics_of(settings)
    ensure_topics(bootstrap, topics, settings.kafka_partitions)
    producer = KafkaProducer(bootstrap)
    report = Produced()
    progress = Progress(f"produce {path}")
    for line, raw, turn in read_jsonl(path, TurnEvent):
        progress.tick()
        if isinstance(turn, InputError):
            _reject(settings, str(path), line, turn.reason, raw)
            report.rejected += 1
            continue
        producer.produce(topics.name(TURNS), turn.user_id, turn.model_dump_json().encode())
        report.accepted += 1
    producer.flush()
    progress.finish()
    return report


def embedded_edges(settings: Settings, items: list[EdgeInput]) -> Iterator[EdgeEvent]:
    """Edges as the log keeps them: with their embedding (replay needs no model)."""
    embedder = make_embedder(settings)
    policy = load_policy(settings.policy_file)
    now = datetime.now(UTC)
    for start in range(0, len(items), EMBED_BATCH):
        edges = [item.to_event(policy, now, None) for item in items[start : start + EMBED_BATCH]]
        vectors = embedder.embed([e.text for e in edges])
        for edge, vector in zip(edges, vectors, strict=True):
            yield edge.model_copy(
                update={"embedding": Embedding.from_array(embedder.model_id, vector)}
            )


def produce_edges(settings: Settings, path: Path) -> Produced:
    """`frecall ingest-edges` with Kafka: validate, embed, produce to fr.edges."""
    bootstrap, _ = _require(settings)
    topics = topics_of(settings)
    ensure_topics(bootstrap, topics, settings.kafka_partitions)
    policy = load_policy(settings.policy_file)
    now = datetime.now(UTC)
    report = Produced()
    valid: list[EdgeInput] = []
    for line, raw, item in read_jsonl(path, EdgeInput):
        try:
            if isinstance(item, InputError):
                raise ValueError(item.reason)
            item.to_event(policy, now, None)
        except ValueError as exc:
            _reject(settings, str(path), line, str(exc), raw)
            report.rejected += 1
            continue
        valid.append(item)
    producer = KafkaProducer(bootstrap)
    progress = Progress(f"produce {path}", len(valid))
    for edge in embedded_edges(settings, valid):
        producer.produce(topics.name(EDGES), edge.user_id, edge.model_dump_json().encode())
        report.accepted += 1
        progress.tick()
    producer.flush()
    progress.finish()
    return report


def produce_forget(settings: Settings, user_id: str, edge_id: str | None) -> ForgetCommand:
    bootstrap, _ = _require(settings)
    topics = topics_of(settings)
    ensure_topics(bootstrap, topics, settings.kafka_partitions)
    command = ForgetCommand(
        command_id=str(uuid.uuid4()),
        user_id=user_id,
        edge_id=edge_id,
        issued_at=datetime.now(UTC),
    )
    producer = KafkaProducer(bootstrap)
    producer.produce(topics.name(COMMANDS), user_id, command.model_dump_json().encode())
    producer.flush()
    return command


def export_document(settings: Settings, user_id: str) -> str:
    """`frecall export` from the fact store (the record of lifecycle state)."""
    stores = open_stores(settings)
    try:
        return dumps_stable(export_user(stores.facts, user_id))
    finally:
        stores.close()


# --- frecall replay --from-kafka -------------------------------------------------------------


def replay(settings: Settings) -> dict[str, Any]:
    """Rebuild Redis and the vector index from fr.edges + fr.commands into a new generation,
    then switch over. Run it with the workers and the serving process stopped."""
    bootstrap, url = _require(settings)
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
    _drop_prefix(client, prefix_of(settings, new))
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
        stores.facts.mark_processed(edge.user_id, edge.edge_id)
        users.add(edge.user_id)
        edges += 1
    for user, at in erased_users.items():
        stores.facts.tombstone(user, None, at)
    for user, edge_id in erased_edges:
        stores.facts.tombstone(user, edge_id, datetime.now(UTC))
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
    _drop_prefix(client, prefix_of(settings, old))
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


def drop_vectors(settings: Settings, gen: int) -> None:
    """Delete one generation's vector index (a Qdrant server collection, or Qdrant Edge)."""
    if not settings.qdrant_url:
        shutil.rmtree(_edge_dir(settings, gen), ignore_errors=True)
        return
    from qdrant_client import QdrantClient

    key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
    client = QdrantClient(url=settings.qdrant_url, api_key=key)
    try:
        name = _collection(settings, gen)
        if client.collection_exists(name):
            client.delete_collection(name)
    finally:
        client.close()


def _drop_prefix(client: redis.Redis, prefix: str) -> None:
    """Delete one generation's keys (`<prefix>:{user}:…`), not the generation pointer."""
    batch: list[bytes] = []
    for key in client.scan_iter(f"{prefix}:{{*", count=1000):
        batch.append(key)
        if len(batch) >= 500:
            client.delete(*batch)
            batch = []
    if batch:
        client.delete(*batch)


# --- the serving process: indexer + query service ---------------------------------------


class ServingNode:
    """The indexer (consuming fr.transitions) and what the HTTP API needs to write and read
    in the distributed deployment. The only process that opens the vector index."""

    def __init__(self, settings: Settings, dim: int) -> None:
        bootstrap, _ = _require(settings)
        self.settings = settings
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


# --- frecall compact (distributed) ---------------------------------------------------------


def compact_distributed(settings: Settings, archive: Archive, as_of: datetime) -> CompactionReport:
    """Archive long-dead facts from the fact store (the record of state) and announce them
    on fr.transitions, so that every indexer drops them from its vector index.

    The decision is made on a snapshot and applied only if the user's facts did not change
    meanwhile (else decided again): a fact a worker just made current stays.
    """
    from frecall.maintenance import CompactionReport
    from workers.lifecycle.compaction import archivable

    bootstrap, _ = _require(settings)
    topics = topics_of(settings)
    stores = open_stores(settings)
    facts = stores.facts
    producer = KafkaProducer(bootstrap)
    report = CompactionReport(as_of=as_of)
    try:
        users = facts.users()
        for user in users:
            report.users += 1
            for _ in range(COMPACT_ATTEMPTS):
                snapshot = facts.snapshot(user)
                records = {r.edge_id: r for r in facts.scroll(user)}
                decided = archivable(records.values(), as_of, stores.policy)
                ids = [a.edge_id for a in decided]
                if not ids:
                    break
                # Archived first: a crash before the delete loses nothing (a later run
                # archives it again; readers keep the last copy of an edge id).
                archive.append(
                    [(records[a.edge_id], a.reason, a.dead_since) for a in decided], as_of
                )
                if facts.delete_if(user, snapshot, ids):
                    break
            else:
                print(f"compact: {user} kept changing; skipped this time", file=sys.stderr)
                continue
            report.scanned += len(records)
            if not ids:
                continue
            report.archived += len(ids)
            report.by_reason.update(a.reason for a in decided)
            changed = FactsChanged(user_id=user, edge_ids=tuple(ids), source="compact")
            producer.produce(topics.name(TRANSITIONS), user, changed.model_dump_json().encode())
        producer.flush()
        report.remaining = sum(facts.count(u) for u in users)
    finally:
        stores.close()
    return report
