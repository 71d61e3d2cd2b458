"""Request and response models of the HTTP API (CONVENTIONS 7: apart from events and records).

Queries reuse `schemas.query` (already the API's query models) and edges reuse
`workers.inputs.EdgeInput` (the `ingest-edges` line format); turns get their own input model,
so that the public API does not change when the `TurnEvent` payload gets a new version.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.events import TurnEvent, UserId, UtcDatetime
from workers.inputs import EdgeInput

#: Items per ingest request; larger batches go in several requests.
MAX_ITEMS = 1_000


class TurnIn(BaseModel):
    """One conversation turn (the `frecall ingest` line format, without `schema_version`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: UserId
    session_id: str = Field(min_length=1, max_length=256)
    turn_id: str = Field(min_length=1, max_length=256)
    role: Literal["user", "assistant"]
    text: str  # any length (DESIGN §6): a pasted document is kept
    timestamp: UtcDatetime

    def to_event(self) -> TurnEvent:
        """The event; raises pydantic's `ValidationError` if the event schema is stricter."""
        return TurnEvent.model_validate(self.model_dump())


class TurnsRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    turns: list[TurnIn] = Field(min_length=1, max_length=MAX_ITEMS)


class EdgesRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    edges: list[EdgeInput] = Field(min_length=1, max_length=MAX_ITEMS)


class ItemFailure(BaseModel):
    """An item that was valid but could not be applied (extraction or store failure).

    It is also in the dead-letter log, with the same reason.
    """

    index: int = Field(description="position of the item in the request, from 0")
    reason: str


class IngestResponse(BaseModel):
    """What an ingest request did: the counts of `frecall ingest` / `ingest-edges`."""

    turns: int = Field(0, description="turns processed (POST /v1/turns)")
    accepted: int = Field(description="edges applied to the memory")
    rejected: int = Field(description="invalid items (always 0: those are answered with 422)")
    failed: int = Field(description="edges or turns that failed; see `failures`")
    transitions: dict[str, int] = Field(description='lifecycle changes, e.g. {"new->active": 3}')
    edge_ids: list[str] = Field(description="ids of the request's edges now in the memory")
    failures: list[ItemFailure] = []


class ForgetReceiptOut(BaseModel):
    """Proof of erasure (DESIGN §9): how many records each store removed."""

    user_id: str
    edge_id: str | None
    removed: dict[str, int] = Field(
        description="per store: vector_index, slot_index, log, archive "
        "(distributed: fact_store, slot_index, vector_index)"
    )
    at: datetime


class FactView(BaseModel):
    """One fact of the export: the edge (without its embedding) and its lifecycle."""

    edge: dict[str, Any]
    lifecycle: dict[str, Any]


class MemoryExport(BaseModel):
    """Every fact of a user in a stable order (the JSON of `frecall export`)."""

    user_id: str
    facts: list[FactView]


class Health(BaseModel):
    status: Literal["ok"]
    facts: int = Field(description="facts in the vector index, all users")


class ErrorBody(BaseModel):
    detail: str


class ValidationProblem(BaseModel):
    loc: list[str | int] = Field(description='where, e.g. ["body", "turns", 3, "role"]')
    msg: str
    type: str


class ValidationErrorBody(BaseModel):
    detail: list[ValidationProblem]
