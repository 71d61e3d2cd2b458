"""The `Deployment` port: the one seam between the entry points and the two deployments.

Every entry point — the CLI commands, the HTTP API, the demo, the benchmarks' use of the
product, and the SDK, MCP server and inspector to come — asks a `Deployment` and nothing
else. `frecall.wiring.open_deployment` chooses the implementation once, from the settings:
`EmbeddedDeployment` (frecall/embedded/) or `DistributedDeployment` (frecall/distributed/).
Results are the typed models of `schemas.results` (and `schemas.query.QueryResult`), the
same in both deployments. docs/architecture.md describes both.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Literal, Protocol

from schemas.events import TurnEvent
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
from workers.inputs import EdgeInput, Item
from workers.lifecycle.compaction import CompactionReport

#: How results are ranked: the lifecycle score, or plain similarity (what a flat memory
#: store returns; the demo and the query playground show both side by side).
Ranking = Literal["lifecycle", "similarity"]

#: Which log `replay` rebuilds from: the data dir's file log, or `fr.edges` + `fr.commands`.
LogSource = Literal["log", "kafka"]


class Deployment(Protocol):
    """One deployment of the memory, as every entry point uses it.

    Thread-safe: the HTTP API calls it from its thread pool. Every method raises `FRError`
    subclasses only (`ConfigError` for what this deployment cannot do, `StorageError` when a
    store or the broker fails, `NotQueryable` when `wait_for` times out). Per-item problems
    of an ingest are not raised: they are reported, dead-lettered and listed in the result.
    """

    @property
    def policy(self) -> Policy:
        """The lifecycle policy in force (for validating input before it is sent)."""

    def ingest_turns(self, items: Iterable[Item[TurnEvent]], source: str) -> IngestReport:
        """Conversation turns through extraction into the memory. `items` come from a file
        (`workers.inputs.read_jsonl`) or from memory (`workers.inputs.listed`); `source`
        names them in problem reports (a path, `http:/v1/turns`)."""

    def ingest_edges(self, items: Iterable[Item[EdgeInput]], source: str) -> IngestReport:
        """Pre-extracted facts into the memory (a given `edge_id` is kept)."""

    def query(
        self,
        request: QueryRequest,
        *,
        ranking: Ranking = "lifecycle",
        wait_for: Sequence[str] = (),
        timeout: float = 10.0,
    ) -> QueryResult:
        """Rank a user's facts. Read-your-writes: first wait (up to `timeout` s) until the
        `wait_for` edge ids (as an ingest of this user's writes returned them) are
        queryable. They are the user's own: an id that is not — another user's, an erased
        one — raises `NotQueryable` (`settled`) as soon as the deployment knows it cannot
        come (embedded: at once; distributed: once the workers have caught up with the
        user's partition), not after the timeout."""

    def query_batch(
        self, items: Iterable[Item[QueryRequest]], source: str
    ) -> Iterator[QueryResult | ItemFailure]:
        """One answer per item, in order: a result, or the failure of an invalid item."""

    def export(self, user_id: str) -> MemoryExport:
        """Every fact of the user with its lifecycle, in a stable order."""

    def forget(
        self, user_id: str, edge_id: str | None = None, *, wait: bool = True
    ) -> ForgetReceipt:
        """Erase one fact, or (edge_id None) the whole user, from every store. `wait`
        False may return a `pending` receipt (the distributed deployment queues the
        command); the embedded deployment always erases before it answers."""

    def inspect(self, user_id: str, as_of: datetime | None = None) -> Inspection:
        """The user's memory by category and state as of a time (default now)."""

    def users(self) -> list[UserSummary]:
        """Every user with facts, sorted, with counts by category and state."""

    def count(self, user_id: str | None = None) -> int:
        """Facts held (of one user, or of all) where queries read them."""

    def replay(self, source: LogSource = "log") -> ReplayReport:
        """Rebuild every materialized store from the log, honouring forget commands."""

    def compact(self, as_of: datetime) -> CompactionReport:
        """Archive the facts long dead at `as_of` so that the active store stays bounded."""

    def close(self) -> None:
        """Release every store, client and thread this deployment opened."""
