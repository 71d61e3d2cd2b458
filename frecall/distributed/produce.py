"""Writes of the distributed deployment: turns, embedded edges and forget commands produced
to Kafka, each keyed by user id (one user's messages stay in order on one partition)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime

from schemas.events import EdgeEvent, ForgetCommand, TurnEvent
from schemas.policy import Policy
from schemas.results import IngestReport
from schemas.streams import COMMANDS, EDGES, TURNS
from streams.kafka_io import KafkaProducer
from streams.topics import Topics
from workers.embedding.attach import with_embeddings
from workers.errors import InputError
from workers.extraction.stage import raw_edge_id
from workers.inputs import EdgeInput, Item, Problems
from workers.ports import Embedder
from workers.progress import Progress

#: Edges embedded and produced together.
EMBED_BATCH = 256


def embedded_edges(
    embedder: Embedder, policy: Policy, items: Sequence[EdgeInput]
) -> Iterator[EdgeEvent]:
    """Edges as the log keeps them: with their embedding (replay needs no model)."""
    now = datetime.now(UTC)
    for start in range(0, len(items), EMBED_BATCH):
        batch = items[start : start + EMBED_BATCH]
        yield from with_embeddings(embedder, [item.to_event(policy, now, None) for item in batch])


class Producers:
    """The deployment's writes to its topics, through one idempotent producer."""

    def __init__(self, producer: KafkaProducer, topics: Topics, problems: Problems) -> None:
        self._producer = producer
        self._topics = topics
        self._problems = problems

    def _send(self, logical: str, key: str, value: bytes) -> None:
        self._producer.produce(self._topics.name(logical), key, value)

    def turns(self, items: Iterable[Item[TurnEvent]], source: str) -> IngestReport:
        """Valid turns to fr.turns; `edge_ids` are the user turns' raw edges: once one is
        queryable, so are the facts extracted from its turn (it is the turn's last edge)."""
        report = IngestReport(queued=True)
        progress = Progress(f"produce {source}")
        for position, raw, turn in items:
            progress.tick()
            if isinstance(turn, InputError):
                report.failures.append(self._problems.add(source, position, turn.reason, raw))
                report.rejected += 1
                continue
            self._send(TURNS, turn.user_id, turn.model_dump_json().encode())
            report.turns += 1
            if turn.role == "user":
                report.edge_ids.append(raw_edge_id(turn))
        self._producer.flush()
        progress.finish()
        return report

    def edges(
        self, items: Iterable[Item[EdgeInput]], source: str, embedder: Embedder, policy: Policy
    ) -> IngestReport:
        """Valid edges, embedded, to fr.edges (validated first: nothing is half-sent)."""
        report = IngestReport(queued=True)
        now = datetime.now(UTC)
        checked = self._problems.valid_edges(items, source, policy, now, report)
        valid = [item for _, _, item, _ in checked]
        progress = Progress(f"produce {source}", len(valid))
        for edge in embedded_edges(embedder, policy, valid):
            self._send(EDGES, edge.user_id, edge.model_dump_json().encode())
            report.accepted += 1
            report.edge_ids.append(edge.edge_id)
            progress.tick()
        self._producer.flush()
        progress.finish()
        return report

    def forget(self, user_id: str, edge_id: str | None) -> ForgetCommand:
        command = ForgetCommand.issue(user_id, edge_id)
        self._send(COMMANDS, user_id, command.model_dump_json().encode())
        self._producer.flush()
        return command
