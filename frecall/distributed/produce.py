"""Producers behind `frecall ingest`, `ingest-edges` and `forget` (and the HTTP API), and
the export from the fact store."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from frecall.bootstrap import make_embedder
from frecall.distributed.stores import (
    open_stores,
    require_services,
    topics_of,
)
from frecall.settings import Settings
from schemas.events import EdgeEvent, ForgetCommand, TurnEvent
from schemas.policy import Policy, load_policy
from schemas.streams import COMMANDS, EDGES, TURNS
from streams.kafka_io import KafkaProducer
from streams.progress import Progress
from streams.topics import ensure_topics
from workers.embedding.attach import with_embeddings
from workers.errors import InputError
from workers.export import dumps_stable, export_user
from workers.inputs import EdgeInput, read_jsonl
from workers.ports import Embedder
from workers.stores.dead_letters import FileDeadLetters

#: Edges embedded and produced together by `ingest-edges`.
EMBED_BATCH = 256


@dataclass
class Produced:
    accepted: int = 0
    rejected: int = 0


def _reject(settings: Settings, source: str, line: int, reason: str, raw: str) -> None:
    print(f"{source}:{line}: {reason}", file=sys.stderr)
    FileDeadLetters(settings.data_dir / "dead-letters.jsonl").put(source, str(line), reason, raw)


def produce_turns(settings: Settings, path: Path) -> Produced:
    """`frecall ingest` with Kafka: validate each line, produce the valid ones to fr.turns."""
    bootstrap, _ = require_services(settings)
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


def embedded_edges(
    embedder: Embedder, policy: Policy, items: Sequence[EdgeInput]
) -> Iterator[EdgeEvent]:
    """Edges as the log keeps them: with their embedding (replay needs no model)."""
    now = datetime.now(UTC)
    for start in range(0, len(items), EMBED_BATCH):
        batch = items[start : start + EMBED_BATCH]
        yield from with_embeddings(embedder, [item.to_event(policy, now, None) for item in batch])


def produce_edges(settings: Settings, path: Path) -> Produced:
    """`frecall ingest-edges` with Kafka: validate, embed, produce to fr.edges."""
    bootstrap, _ = require_services(settings)
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
    for edge in embedded_edges(make_embedder(settings), policy, valid):
        producer.produce(topics.name(EDGES), edge.user_id, edge.model_dump_json().encode())
        report.accepted += 1
        progress.tick()
    producer.flush()
    progress.finish()
    return report


def produce_forget(settings: Settings, user_id: str, edge_id: str | None) -> ForgetCommand:
    bootstrap, _ = require_services(settings)
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
