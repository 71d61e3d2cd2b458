"""`EmbeddedDeployment`: the `Deployment` port with every stage in this process.

Stores live in the data dir (Qdrant Edge, the SQLite slot index, the append-only file log;
or a Qdrant server / Redis slot index when configured) and are opened on first use, so a
command that needs none of them loads no model. Writes (ingest, forget, compaction, replay)
and exports hold one lock: the lifecycle stage's read-modify-write spans the slot index and
the vector index, and each store only locks its own calls. Queries run concurrently. Writes
are applied before they return, so a caller always reads its own writes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Protocol, TextIO, runtime_checkable

from frecall.bootstrap import build, make_extractor
from frecall.deployment import LogSource, Ranking
from frecall.embedded.pipeline import EmbeddedPipeline
from frecall.embedded.replay import replay_data_dir
from frecall.settings import Settings
from schemas.events import EdgeEvent, TurnEvent
from schemas.policy import Policy
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
from scorer.score import ScoringOptions
from workers.app import App
from workers.errors import ConfigError, NotQueryable
from workers.export import export_user
from workers.inputs import EdgeInput, Item
from workers.lifecycle.compaction import CompactionReport, compact
from workers.ports import EventLog, FactExtractor
from workers.query.inspect import inspect_facts, summarize
from workers.query.service import QueryService
from workers.stores.memory_turns import InMemoryTurnContext

log = logging.getLogger(__name__)


def users_in_log(log: EventLog) -> list[str]:
    """Every user with at least one fact in the log, sorted."""
    return sorted({r.user_id for r in log.read() if isinstance(r, EdgeEvent)})


#: Facts written by one call from which the vector index's HNSW graphs are built after it.
BULK_WRITE = 5_000


@runtime_checkable
class IndexBuilder(Protocol):
    """A vector index whose approximate index is built on demand (Qdrant Edge)."""

    def build_graphs(self) -> bool: ...


class EmbeddedDeployment:
    """The embedded deployment of `settings` (`frecall.wiring.open_deployment` makes it).

    `app`: stores someone else opened and will close (a test, a host process); otherwise
    they are opened on first use and closed by `close`. `extractor`: the one to extract
    turns with; otherwise made on the first ingest of turns from `extractor_choice`.
    `rebuildable`: every store is in the data dir, so `replay` may rebuild them.
    `err`/`quiet`: where per-item problems are printed (the CLI: stderr; HTTP: nowhere).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        app: App | None = None,
        extractor: FactExtractor | None = None,
        extractor_choice: str = "auto",
        fsync: bool = True,
        rebuildable: bool = True,
        err: TextIO | None = None,
        quiet: bool = False,
    ) -> None:
        self.settings = settings
        self._app = app
        self._owned = app is None
        self._extractor = extractor
        # An extractor this deployment makes is closed with it (the LLM's pooled sockets).
        self._owns_extractor = extractor is None
        self._choice = extractor_choice
        self._fsync = fsync
        self._rebuildable = rebuildable
        self._err, self._quiet = err, quiet
        self._writes = threading.Lock()
        self._opening = threading.Lock()
        # Sessions continue across calls: "scrap it" may refer to an earlier request.
        self._turns = InMemoryTurnContext(keep_extractions=False)
        self._similarity: QueryService | None = None

    @classmethod
    def over(cls, app: App, extractor: FactExtractor, *, quiet: bool = True) -> EmbeddedDeployment:
        """Over stores the caller opened and closes (tests; a process embedding the API)."""
        return cls(app.settings, app=app, extractor=extractor, quiet=quiet)

    def open(self) -> None:
        """Open the stores and make the extractor now (a server fails at start, not on its
        first request); the query-time LLM call shares the extractor's client."""
        self._extractor_now()
        _ = self.app

    def _extractor_now(self) -> FactExtractor:
        if self._extractor is None:
            self._extractor = make_extractor(self.settings, self._choice)
        return self._extractor

    @property
    def app(self) -> App:
        """The deployment's stores and services, opened on first use."""
        with self._opening:
            if self._app is None:
                self._app = build(self.settings, fsync=self._fsync, extractor=self._extractor)
                self._similarity = None
            return self._app

    @property
    def policy(self) -> Policy:
        return self.app.policy

    def _pipeline(self) -> EmbeddedPipeline:
        return EmbeddedPipeline(self.app, self._err, quiet=self._quiet)

    def ingest_turns(self, items: Iterable[Item[TurnEvent]], source: str) -> IngestReport:
        extractor = self._extractor_now()  # before the stores: a bad choice fails fast
        with self._writes:
            report = self._pipeline().ingest_turn_items(items, extractor, source, self._turns)
            self._build_index_after(report.accepted)
            return report

    def ingest_edges(self, items: Iterable[Item[EdgeInput]], source: str) -> IngestReport:
        with self._writes:
            report = self._pipeline().ingest_edge_items(items, source)
            self._build_index_after(report.accepted)
            return report

    def _build_index_after(self, written: int) -> None:
        """Build the vector index's HNSW graphs after a bulk write (workers/stores/
        search_plan.py) when a user is large enough to use one: Qdrant Edge has no
        background optimizer, and a build holds the writes for seconds to minutes, so small
        writes (an HTTP request's) never pay it; large users' searches stay exact until a
        bulk load or a replay builds them."""
        vectors = self.app.vectors
        if written >= BULK_WRITE and isinstance(vectors, IndexBuilder):
            vectors.build_graphs()

    def query(
        self,
        request: QueryRequest,
        *,
        ranking: Ranking = "lifecycle",
        wait_for: Sequence[str] = (),
        timeout: float = 10.0,
    ) -> QueryResult:
        app = self.app
        if wait_for:
            # Writes were applied before they answered: nothing to wait for, but an id
            # that is not in the user's memory never will be (another user's, erased).
            found = {r.edge_id for r in app.vectors.get(request.user_id, list(wait_for))}
            missing = [i for i in dict.fromkeys(wait_for) if i not in found]
            if missing:
                raise NotQueryable(missing, timeout, request.user_id, settled=True)
        if ranking == "similarity":
            return self._flat(app).query(request)
        return app.queries.query(request)

    def _flat(self, app: App) -> QueryService:
        if self._similarity is None:
            flat = ScoringOptions(lifecycle=False)
            self._similarity = QueryService(app.vectors, app.embedder, app.policy, options=flat)
        return self._similarity

    def query_batch(
        self, items: Iterable[Item[QueryRequest]], source: str
    ) -> Iterator[QueryResult | ItemFailure]:
        return self._pipeline().problems.answer_each(items, source, self.query)

    def export(self, user_id: str) -> MemoryExport:
        with self._writes:  # a state between two writes
            return MemoryExport.model_validate(export_user(self.app.vectors, user_id))

    def forget(
        self, user_id: str, edge_id: str | None = None, *, wait: bool = True
    ) -> ForgetReceipt:
        with self._writes:
            receipt = self._pipeline().forget(user_id, edge_id)
            if edge_id is None:
                self._turns.forget_user(user_id)
        log.info("forgot user %s edge %s: %s", user_id, edge_id, dict(receipt.removed))
        return ForgetReceipt(
            user_id=user_id, edge_id=edge_id, removed=dict(receipt.removed), at=datetime.now(UTC)
        )

    def inspect(self, user_id: str, as_of: datetime | None = None) -> Inspection:
        app = self.app
        return inspect_facts(
            user_id, app.vectors.scroll(user_id), as_of or datetime.now(UTC), app.policy
        )

    def users(self) -> list[UserSummary]:
        app = self.app
        with self._writes:
            users = users_in_log(app.log)
        return [summarize(u, app.vectors.scroll(u)) for u in users]

    def count(self, user_id: str | None = None) -> int:
        return self.app.vectors.count(user_id)

    def replay(self, source: LogSource = "log") -> ReplayReport:
        if source != "log":
            raise ConfigError(
                "the distributed deployment needs FR_KAFKA_BOOTSTRAP and FR_REDIS_URL"
            )
        if not self._rebuildable:
            raise ConfigError("replay of service-backed stores is `frecall replay --from-kafka`")
        if not self._owned:
            raise ConfigError("replay needs the data dir's stores closed: open the deployment")
        with self._writes:
            with self._opening:
                if self._app is not None:  # the replay opens the data dir itself
                    self._app.close()
                    self._app = None
                report = replay_data_dir(self.settings)
            self._build_index_after(BULK_WRITE)
            return report

    def compact(self, as_of: datetime) -> CompactionReport:
        with self._writes:
            app = self.app
            report = compact(app.vectors, app.archive, users_in_log(app.log), as_of, app.policy)
            report.remaining = app.vectors.count()
            return report

    def close(self) -> None:
        with self._opening:
            if self._app is not None and self._owned:
                self._app.close()
            self._app = None
            close_extractor = getattr(self._extractor, "close", None)
            if self._owns_extractor and callable(close_extractor):
                close_extractor()
                self._extractor = None
