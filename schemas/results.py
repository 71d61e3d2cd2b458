"""What a deployment answers: the typed results of the `Deployment` port (frecall/deployment.py).

The same types in the embedded and the distributed deployment, for every entry point (the
CLI, the HTTP API, the demo and the benchmarks; the SDK, the MCP server and the inspector
build on them too). Queries answer with `schemas.query.QueryResult`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, field_validator

from schemas.categories import Category, LifecycleState
from schemas.records import Lifecycle


class ItemFailure(BaseModel):
    """An input item that was rejected (invalid) or failed (extraction or a store).

    It is also in the dead-letter log, with the same reason.
    """

    index: int = Field(
        description="position of the item: its index in a request (from 0), or its line in a "
        "file (from 1)"
    )
    reason: str


class IngestReport(BaseModel):
    """What an ingest did (`frecall ingest` / `ingest-edges`, `POST /v1/turns` / `/v1/edges`)."""

    turns: int = Field(0, description="turns processed (POST /v1/turns)")
    accepted: int = Field(0, description="edges applied to the memory (queued: produced)")
    rejected: int = Field(0, description="invalid items (always 0 over HTTP: those get a 422)")
    failed: int = Field(0, description="edges or turns that failed; see `failures`")
    transitions: dict[str, int] = Field(
        default_factory=dict,
        description="lifecycle changes, net per batch (up to 1,024 edges): a fact new and "
        'superseded within one batch counts once, as "new->superseded"; e.g. {"new->active": 3}',
    )
    edge_ids: list[str] = Field(
        default_factory=list,
        description="ids of the edges now in the memory (queued: pass them as `wait_for`)",
    )
    failures: list[ItemFailure] = []
    #: The writes were queued (the distributed deployment applies them asynchronously): the
    #: counts say what was sent, `edge_ids` what to wait for. Not part of the HTTP body.
    queued: bool = Field(False, exclude=True)

    @property
    def ok(self) -> bool:
        return self.rejected == 0 and self.failed == 0

    def count(self, transition: str) -> None:
        self.transitions[transition] = self.transitions.get(transition, 0) + 1


#: The stores a forget receipt may count, each named once, where its count is made.
RECEIPT_STORES = frozenset(
    {"vector_index", "fact_store", "slot_index", "log", "archive", "dead_letters"}
)


class ForgetReceipt(BaseModel):
    """Proof of erasure: how many records each store removed (one schema, both deployments).

    Each count is measured by the store it names, as it erased (a redelivered command finds
    nothing left: the distributed workers keep the first attempt's counts):

    * `vector_index`: facts (points) deleted from the vector index — embedded, the record
      of lifecycle state; distributed, its projection, counted by the serving process's
      indexer as it applies the erasure (absent when the CLI answered: the index belongs
      to the serving process);
    * `fact_store`: facts deleted from the shared fact store in Redis (distributed only:
      embedded, the vector index is the fact store);
    * `slot_index`: the slots the erased facts were taken out of, as members or as
      retractions, the links of raw turns to their facts included (a whole-user erasure:
      every slot the user had);
    * `log`: edges rewritten out of the embedded log file (embedded only: Kafka topics
      cannot be rewritten, the forget command on `fr.commands` is the tombstone every
      replay honours);
    * `archive`: facts deleted from the archive of compacted facts (the file embedded,
      Redis distributed);
    * `dead_letters`: rejected input deleted from the dead letters (whole-user erasures
      only; distributed, they include the raw value of every `fr.dlq` letter of the user,
      which the topic itself never holds).

    A receipt whose erasure was only queued (`pending`: the distributed CLI does not wait
    for the workers) has no counts yet; `command_id` names the command on `fr.commands`.
    """

    user_id: str
    edge_id: str | None
    removed: dict[str, int] = Field(
        description="per store, records removed: vector_index, fact_store (distributed), "
        "slot_index, log (embedded), archive, dead_letters (whole-user erasures); "
        "see ForgetReceipt"
    )
    at: datetime
    command_id: str | None = Field(None, exclude=True)
    pending: bool = Field(False, exclude=True)

    @field_validator("removed")
    @classmethod
    def _known_stores(cls, removed: dict[str, int]) -> dict[str, int]:
        unknown = set(removed) - RECEIPT_STORES
        if unknown:
            raise ValueError(f"unknown stores in a receipt: {sorted(unknown)}")
        return removed


class FactView(BaseModel):
    """One fact of the export: the edge (without its embedding) and its lifecycle."""

    edge: dict[str, Any]
    lifecycle: dict[str, Any]


class MemoryExport(BaseModel):
    """Every fact of a user in a stable order (the JSON of `frecall export`)."""

    user_id: str
    facts: list[FactView]


class InspectedFact(BaseModel):
    """One fact as `inspect` shows it: its state as of a time and why it persists or fades."""

    edge_id: str
    text: str
    category: Category
    state: str = Field(description="a lifecycle state, or `expired` (as of the time asked)")
    activation: float
    why: list[str]
    lifecycle: Lifecycle
    event_time: datetime | None = None
    ingest_time: datetime
    #: Soft category membership (paper §3.1) and emotional loading (B.6): with the fields
    #: above, everything the fact's activation depends on (the inspector's decay curve).
    categories: dict[Category, float] = {}
    emotional_loading: float = 0.0


class Inspection(BaseModel):
    """A user's memory by category and state as of a time (`frecall inspect`)."""

    user_id: str
    as_of: datetime
    facts: int
    #: category → state → facts (categories in ontology order, states sorted).
    categories: dict[str, dict[str, list[InspectedFact]]]


class UserSummary(BaseModel):
    """One user of a deployment, with counts of the stored facts."""

    user_id: str
    facts: int
    by_category: dict[str, int]
    by_state: dict[LifecycleState, int]


class ReplayReport(BaseModel):
    """What a replay rebuilt. `users` and `generation`: distributed replays only."""

    edges: int = 0
    skipped_forgotten: int = 0
    forget_commands: int = 0
    seconds: float = 0.0
    users: int | None = None
    generation: int | None = None
    #: Where it replayed from, for people ("the log", "Kafka into generation 2").
    origin: str = Field("the log", exclude=True)

    @property
    def edges_per_s(self) -> float | None:
        return round(self.edges / self.seconds, 1) if self.seconds else None

    def describe(self) -> str:
        """One line for people (`frecall replay`, the demo)."""
        return (
            f"replayed {self.edges} facts from {self.origin} in {self.seconds:.1f} s "
            f"({self.skipped_forgotten} forgotten facts skipped)"
        )

    def summary(self) -> dict[str, Any]:
        """The JSON of `frecall replay --json`."""
        document = self.model_dump(exclude_none=True)
        document["seconds"] = round(self.seconds, 3)
        document["edges_per_s"] = self.edges_per_s
        return document
