"""API request/response models for queries (kept apart from events and storage records)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from schemas.categories import Category, Intent, LifecycleState
from schemas.events import UserId, UtcDatetime


class QueryRequest(BaseModel):
    """One query (`frecall query --batch` line format)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: UserId
    query: str = Field(min_length=1, max_length=4_000)
    as_of: UtcDatetime | None = None
    intent: Intent | None = Field(default=None, description="None or 'auto': detect")
    k: int = Field(default=10, ge=1, le=200)

    @field_validator("intent", mode="before")
    @classmethod
    def _auto(cls, raw: object) -> object:
        return None if raw == "auto" else raw


class ScoredFact(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    edge_id: str
    text: str
    category: Category
    state: LifecycleState
    score: float
    terms: dict[str, float]
    why: list[str] = []
    source_turns: list[str] = []
    event_time: UtcDatetime | None = None
    ingest_time: UtcDatetime


class QueryResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    intent: Intent
    categories: dict[Category, float]
    as_of: UtcDatetime
    results: list[ScoredFact]
    candidates: int = 0
    suppressed: dict[str, int] = {}
