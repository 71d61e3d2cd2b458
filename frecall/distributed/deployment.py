"""`DistributedDeployment`: the `Deployment` port over Kafka, Redis and a vector index.

Writes are produced to Kafka (turns to `fr.turns`, embedded edges to `fr.edges`, forget
commands to `fr.commands`) and applied by the `frecall worker` processes; the answer lists
the edge ids to pass as `wait_for`. The state is in Redis (the fact store is the record of
lifecycle state); queries read a vector index that one indexer per index projects from it.

`serving`: this process serves queries (`frecall serve`): it runs that indexer and owns the
index (a Qdrant Edge store in the data dir, or a Qdrant server collection). Otherwise (the
CLI) queries need a shared Qdrant server (FR_QDRANT_URL), read-your-writes is not
available, and forget returns once the command is queued unless asked to wait.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import TextIO

from frecall.bootstrap import make_distiller, make_embedder, make_vectors
from frecall.deployment import LogSource, Ranking
from frecall.distributed.compact import compact_distributed
from frecall.distributed.from_kafka import replay_from_kafka
from frecall.distributed.produce import Producers
from frecall.distributed.read_your_writes import wait_for_writes
from frecall.distributed.serving import ServingNode
from frecall.distributed.stores import (
    Stores,
    open_stores,
    reader_settings,
    require_services,
    topics_of,
)
from frecall.settings import Settings
from schemas.events import TurnEvent
from schemas.policy import Policy, load_policy
from schemas.query import QueryRequest, QueryResult
from schemas.results import (
    ForgetReceipt,
    IngestReport,
    Inspection,
    ItemFailure,
    MemoryExport,
    ReplayReport,
    UserSummary,
)
from schemas.streams import COMMANDS, DLQ, EDGES, TRANSITIONS, TURNS
from scorer.score import DEFAULT_OPTIONS, ScoringOptions
from streams.kafka_io import KafkaProducer
from streams.lag import LagReader
from streams.topics import ensure_topics
from workers.errors import ConfigError, StorageError
from workers.export import export_user
from workers.inputs import EdgeInput, Item, Problems
from workers.lifecycle.compaction import CompactionReport
from workers.ports import Embedder, VectorIndex
from workers.query.inspect import inspect_facts, summarize
from workers.query.service import QueryService

#: The topics the `frecall worker` processes consume (one consumer group, FR_KAFKA_GROUP).
WORKER_TOPICS = (TURNS, EDGES, COMMANDS)

#: How long a forget waits for the workers' receipt before it fails.
FORGET_TIMEOUT_S = 30.0


class DistributedDeployment:
    """The distributed deployment of `settings` (`frecall.wiring.open_deployment` makes it).

    Connections are opened on first use. `err`/`quiet`: where per-item problems are
    printed (the CLI: stderr; HTTP: nowhere); they are dead-lettered in the data dir.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        serving: bool = False,
        err: TextIO | None = None,
        quiet: bool = False,
    ) -> None:
        self.settings = settings
        self._err, self._quiet = err, quiet
        self._problems_: Problems | None = None
        self._lock = threading.RLock()
        self._stores: Stores | None = None
        self._producers: Producers | None = None
        self._producer: KafkaProducer | None = None
        self._embedder: Embedder | None = None
        self._node: ServingNode | None = None
        self._reader: VectorIndex | None = None
        self._queries: dict[Ranking, QueryService] = {}
        self._policy: Policy | None = None
        self._lag: LagReader | None = None
        if serving:
            bootstrap, _ = require_services(settings)
            self._writes()  # the topics exist before the indexer subscribes
            self._node = ServingNode(settings, self._opened(), self._model().dim, bootstrap)
            self._service("lifecycle")  # ready before the first request

    # --- what is opened on first use ------------------------------------------------------

    def _opened(self) -> Stores:
        with self._lock:
            if self._stores is None:
                self._stores = open_stores(self.settings)
            return self._stores

    @property
    def _problems(self) -> Problems:
        """Rejected input goes to the dead letters in Redis, per user, where the workers'
        forget reaches them (from every process that produces: a file would stay behind)."""
        with self._lock:
            if self._problems_ is None:
                self._problems_ = Problems(self._opened().letters, self._err, quiet=self._quiet)
            return self._problems_

    def _model(self) -> Embedder:
        with self._lock:
            if self._embedder is None:  # one model per process: queries and writes share it
                self._embedder = make_embedder(self.settings)
            return self._embedder

    def _writes(self) -> Producers:
        with self._lock:
            if self._producers is None:
                bootstrap, _ = require_services(self.settings)
                topics = topics_of(self.settings)
                partitions = self.settings.kafka_partitions
                ensure_topics(bootstrap, topics, partitions, self.settings.kafka_replication)
                self._producer = KafkaProducer(bootstrap)
                self._producers = Producers(self._producer, topics, self._problems)
            return self._producers

    def _service(self, ranking: Ranking) -> QueryService:
        with self._lock:
            if ranking not in self._queries:
                distill = make_distiller(self.settings)  # None unless an LLM is configured
                vectors = self._node.vectors if self._node is not None else self._shared_index()
                options = (
                    ScoringOptions(lifecycle=False) if ranking == "similarity" else DEFAULT_OPTIONS
                )
                self._queries[ranking] = QueryService(
                    vectors, self._model(), self.policy, options=options, distill=distill
                )
            return self._queries[ranking]

    def _shared_index(self) -> VectorIndex:
        if self._reader is None:
            # Only a Qdrant server can be shared with the serving process (it says so).
            self._reader = make_vectors(reader_settings(self.settings), self._model().dim)
        return self._reader

    # --- the port ---------------------------------------------------------------------------

    @property
    def policy(self) -> Policy:
        with self._lock:
            if self._policy is None:
                self._policy = load_policy(self.settings.policy_file)
            return self._policy

    def ingest_turns(self, items: Iterable[Item[TurnEvent]], source: str) -> IngestReport:
        return self._writes().turns(items, source)

    def ingest_edges(self, items: Iterable[Item[EdgeInput]], source: str) -> IngestReport:
        return self._writes().edges(items, source, self._model(), self.policy)

    def query(
        self,
        request: QueryRequest,
        *,
        ranking: Ranking = "lifecycle",
        wait_for: Sequence[str] = (),
        timeout: float = 10.0,
    ) -> QueryResult:
        service = self._service(ranking)
        if self._node is None:
            if wait_for:
                raise ConfigError("read-your-writes (wait_for) needs the serving process")
            return service.query(request)
        indexer = self._node.indexer
        if wait_for:
            bootstrap, _ = require_services(self.settings)
            wait_for_writes(
                self.settings,
                bootstrap,
                self._opened(),
                indexer,
                request.user_id,
                wait_for,
                timeout,
            )
        with indexer.lock:
            return service.query(request)

    def query_batch(
        self, items: Iterable[Item[QueryRequest]], source: str
    ) -> Iterator[QueryResult | ItemFailure]:
        return self._problems.answer_each(items, source, self.query)

    def export(self, user_id: str) -> MemoryExport:
        return MemoryExport.model_validate(export_user(self._opened().facts, user_id))

    def forget(
        self, user_id: str, edge_id: str | None = None, *, wait: bool = True
    ) -> ForgetReceipt:
        command = self._writes().forget(user_id, edge_id)
        if not wait:
            return ForgetReceipt(
                user_id=user_id,
                edge_id=edge_id,
                removed={},
                at=command.issued_at,
                command_id=command.command_id,
                pending=True,
            )
        ledger = self._opened().ledger
        deadline = time.monotonic() + FORGET_TIMEOUT_S
        receipt = ledger.receipt(user_id, command.command_id)
        while receipt is None and time.monotonic() < deadline:
            time.sleep(0.05)
            receipt = ledger.receipt(user_id, command.command_id)
        if receipt is None:
            raise StorageError("workers", "forget", f"no receipt within {FORGET_TIMEOUT_S} s")
        removed = dict(receipt)
        if self._node is not None:
            # The workers erased it from Redis, the archive and the dead letters; the proof
            # includes the vector index, counted by the indexer as it applies the erasure.
            left = max(0.0, deadline - time.monotonic())
            taken = self._node.indexer.erasure(command.command_id, left)
            if taken is None:
                raise StorageError("indexer", "forget", "the erasure is not in the vector index")
            removed["vector_index"] = taken
        return ForgetReceipt(
            user_id=user_id,
            edge_id=edge_id,
            removed=removed,
            at=datetime.now(UTC),
            command_id=command.command_id,
        )

    def inspect(self, user_id: str, as_of: datetime | None = None) -> Inspection:
        stores = self._opened()  # the record of state, not its projection
        when = as_of or datetime.now(UTC)
        return inspect_facts(user_id, stores.facts.scroll(user_id), when, stores.policy)

    def users(self) -> list[UserSummary]:
        facts = self._opened().facts
        return [summarize(u, facts.scroll(u)) for u in facts.users()]

    def count(self, user_id: str | None = None) -> int:
        if self._node is not None:
            with self._node.indexer.lock:
                return self._node.vectors.count(user_id)
        facts = self._opened().facts
        return sum(facts.count(u) for u in ([user_id] if user_id else facts.users()))

    def replay(self, source: LogSource = "log") -> ReplayReport:
        if source != "kafka":
            raise ConfigError("replay of service-backed stores is `frecall replay --from-kafka`")
        return replay_from_kafka(self.settings)

    def compact(self, as_of: datetime) -> CompactionReport:
        bootstrap, _ = require_services(self.settings)
        with self._lock:
            if self._producer is None:
                self._producer = KafkaProducer(bootstrap)
            producer = self._producer
        return compact_distributed(self.settings, self._opened(), producer, as_of)

    def consumer_lag(self) -> tuple[dict[tuple[str, str], int], int | None]:
        """For the serving process's metrics: messages the workers (`fr.turns`, `fr.edges`,
        `fr.commands`) and this process's indexer (`fr.transitions`) have not consumed, and
        how many messages `fr.dlq` holds."""
        with self._lock:
            if self._lag is None:
                bootstrap, _ = require_services(self.settings)
                topics = topics_of(self.settings)
                groups = {self.settings.kafka_group: [topics.name(t) for t in WORKER_TOPICS]}
                if self._node is not None:
                    groups[self._node.loop_group] = [topics.name(TRANSITIONS)]
                self._lag = LagReader(bootstrap, groups, topics.name(DLQ))
            reader = self._lag
        return reader.read()

    def close(self) -> None:
        with self._lock:
            if self._node is not None:
                self._node.close()
                self._node = None
            if self._producer is not None:
                self._producer.flush(10)
            if self._reader is not None:
                self._reader.close()
            if self._stores is not None:
                self._stores.close()
            self._stores = self._reader = self._producer = self._producers = None
