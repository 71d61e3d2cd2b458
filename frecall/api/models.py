"""Request and response models of the HTTP API (CONVENTIONS 7: apart from events and records).

Queries reuse `schemas.query` (already the API's query models), results reuse the
`Deployment` port's (`schemas.results`), and edges reuse `workers.inputs.EdgeInput` (the
`ingest-edges` line format); turns get their own input model, so that the public API does
not change when the `TurnEvent` payload gets a new version.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.events import TurnEvent, UserId, UtcDatetime
from schemas.results import FactView, ForgetReceipt, IngestReport, ItemFailure, MemoryExport
from workers.inputs import EdgeInput

__all__ = [
    "MAX_ITEMS",
    "EdgesRequest",
    "ErrorBody",
    "FactView",
    "ForgetReceiptOut",
    "Health",
    "IngestResponse",
    "ItemFailure",
    "MemoryExport",
    "TurnIn",
    "TurnsRequest",
    "ValidationErrorBody",
    "ValidationProblem",
]

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


class IngestResponse(IngestReport):
    """What an ingest request did: the counts of `frecall ingest` / `ingest-edges`."""


class ForgetReceiptOut(ForgetReceipt):
    """Proof of erasure: how many records each store removed (docs/architecture.md,
    "Forget")."""


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
