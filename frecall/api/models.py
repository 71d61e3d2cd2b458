"""Request and response models of the HTTP API (CONVENTIONS 7: apart from events and records).

Requests are in `frecall.api.inputs` (re-exported here); results reuse the `Deployment`
port's (`schemas.results`, `schemas.query`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from frecall.access.keys import KeyInfo
from frecall.api.inputs import (
    MAX_ITEMS,
    EdgeIn,
    EdgesRequest,
    KeyCreate,
    QueryRequest,
    TurnIn,
    TurnsRequest,
)
from schemas.results import FactView, ForgetReceipt, IngestReport, ItemFailure, MemoryExport

__all__ = [
    "MAX_ITEMS",
    "EdgeIn",
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


class NewKeyOut(KeyInfo):
    """The key, shown this once: only its hash is stored."""

    key: str


class Whoami(BaseModel):
    """Who the presented key is (the inspector's login checks a key with it)."""

    key_id: str | None = Field(description="null: no key is defined (the local operator)")
    tenant: str = Field(description="the tenant this request acts in")
    admin: bool
