"""Request and response models of the HTTP API (CONVENTIONS 7: apart from events and records).

Queries reuse `schemas.query` (already the API's query models), results reuse the
`Deployment` port's (`schemas.results`), and edges reuse `workers.inputs.EdgeInput` (the
`ingest-edges` line format); turns get their own input model, so that the public API does
not change when the `TurnEvent` payload gets a new version.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from frecall.access.keys import KeyInfo
from frecall.access.tenants import TENANT_PATTERN, USER_ID_PATTERN
from schemas.categories import Category
from schemas.events import TurnEvent, UtcDatetime
from schemas.query import QueryRequest as _QueryRequest
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
    "KeyCreate",
    "KeyInfo",
    "MemoryExport",
    "NewKeyOut",
    "QueryRequest",
    "TurnIn",
    "TurnsRequest",
    "ValidationErrorBody",
    "ValidationProblem",
    "Whoami",
]

#: Items per ingest request; larger batches go in several requests.
MAX_ITEMS = 1_000

#: A user id as the API accepts it (frecall.access.tenants.USER_ID_PATTERN).
ApiUserId = Annotated[str, Field(min_length=1, max_length=256, pattern=USER_ID_PATTERN)]


class TurnIn(BaseModel):
    """One conversation turn (the `frecall ingest` line format, without `schema_version`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: ApiUserId
    session_id: str = Field(min_length=1, max_length=256)
    turn_id: str = Field(min_length=1, max_length=256)
    role: Literal["user", "assistant"]
    text: str = Field(max_length=20_000)
    timestamp: UtcDatetime

    def to_event(self) -> TurnEvent:
        """The event; raises pydantic's `ValidationError` if the event schema is stricter."""
        return TurnEvent.model_validate(self.model_dump())


class TurnsRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    turns: list[TurnIn] = Field(min_length=1, max_length=MAX_ITEMS)


#: Soft membership as the API accepts it, stated fully in the schema: at least one category,
#: weights ≥ 0 and not all 0 (they are normalized to sum to 1).
_WEIGHTS_SCHEMA = {
    "type": "object",
    "propertyNames": {"enum": [c.value for c in Category]},
    "additionalProperties": {"type": "number", "minimum": 0},
    "minProperties": 1,
    "not": {"additionalProperties": {"maximum": 0}},
}


class EdgeIn(EdgeInput):
    """One pre-extracted fact (the `frecall ingest-edges` line format)."""

    user_id: ApiUserId
    category: Category | Annotated[dict[Category, float], WithJsonSchema(_WEIGHTS_SCHEMA)]


class QueryRequest(_QueryRequest):
    """One query (the `frecall query --batch` line format)."""

    user_id: ApiUserId


class EdgesRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    edges: list[EdgeIn] = Field(min_length=1, max_length=MAX_ITEMS)


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


class KeyCreate(BaseModel):
    """A new API key (`frecall keys create`): for a tenant, optionally an admin key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tenant: str = Field(pattern=TENANT_PATTERN)
    admin: bool = False
    name: str = Field(default="", max_length=200)


class NewKeyOut(KeyInfo):
    """The key, shown this once: only its hash is stored."""

    key: str


class Whoami(BaseModel):
    """Who the presented key is (the inspector's login checks a key with it)."""

    key_id: str | None = Field(description="null: no key is defined (the local operator)")
    tenant: str = Field(description="the tenant this request acts in")
    admin: bool
