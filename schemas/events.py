"""Log and topic payloads: versioned, frozen, `extra="forbid"` (CONVENTIONS 7).

The log (`fr.edges` + `fr.commands`) is the source of truth: an `EdgeEvent` carries its
embedding and the embedder id so that replay needs neither a model nor an LLM.
"""

from __future__ import annotations

import base64
import math
import uuid
from datetime import UTC, datetime
from functools import lru_cache
from typing import Annotated, Literal

import numpy as np
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from schemas.categories import Category, UpdateSemantics


def _aware(value: datetime) -> datetime:
    """Naive timestamps are read as UTC; all times are stored timezone-aware in UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


UtcDatetime = Annotated[datetime, AfterValidator(_aware)]
UserId = Annotated[str, Field(min_length=1, max_length=256, pattern=r"^[^\s]+$")]


def normalize_weights(raw: Category | str | dict[str, float]) -> dict[Category, float]:
    """Soft category membership (paper §3.1): weights ≥ 0 that sum to 1."""
    if isinstance(raw, str):
        return {Category(raw): 1.0}
    weights = {Category(k): float(v) for k, v in raw.items()}
    if not weights or any(not math.isfinite(w) or w < 0 for w in weights.values()):
        raise ValueError("category weights must be finite and ≥ 0")
    total = sum(weights.values())
    if total <= 0:
        raise ValueError("category weights must not all be zero")
    if abs(total - 1.0) <= 1e-9:
        # Already normalized: dividing again would move some weights by an ulp, and a
        # read-back (log replay, store round trip) must give the same event, bit for bit.
        return {k: w for k, w in sorted(weights.items()) if w > 0}
    return {k: w / total for k, w in sorted(weights.items()) if w > 0}


class Embedding(BaseModel):
    """A vector in the log: float32 little-endian, base64, with the model that made it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    dim: int = Field(gt=0)
    b64: str

    @classmethod
    def from_array(cls, model: str, vector: np.ndarray) -> Embedding:
        arr = np.asarray(vector, dtype="<f4")
        return cls(model=model, dim=int(arr.shape[0]), b64=base64.b64encode(arr.tobytes()).decode())

    def to_array(self) -> np.ndarray:
        """The vector, read-only (decoded once per text: see `_decoded`)."""
        arr = _decoded(self.b64)
        if arr.shape[0] != self.dim:
            raise ValueError(f"embedding has {arr.shape[0]} values, header says {self.dim}")
        return arr


@lru_cache(maxsize=8192)
def _decoded(b64: str) -> np.ndarray:
    """A vector decoded once per base64 text: the lifecycle decodes the same embeddings again
    and again (every association and retargeting match stacks the user's anchors, every
    supersession test decodes both edges) — 12 decodes per edge in a bulk replay
    (`frecall bench throughput`). The array is read-only (a view of immutable bytes), so
    sharing it between callers is safe. ≈ 8k vectors of 384 floats: ≈ 30 MB at most."""
    return np.frombuffer(base64.b64decode(b64), dtype="<f4")


class TurnEvent(BaseModel):
    """One conversation turn (`frecall ingest` line format, topic `fr.turns`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    user_id: UserId
    session_id: str = Field(min_length=1)
    turn_id: str = Field(min_length=1)
    role: Literal["user", "assistant"]
    #: Any length: a long turn is kept whole, as chunks (workers/extraction/long_turns.py).
    text: str
    timestamp: UtcDatetime


class EdgeEvent(BaseModel):
    """One extracted fact with its lifecycle metadata (c, κ, h, t) and confidence v.

    ξ (lifecycle state) is *not* part of the event: it is derived from the set of a slot's
    edges by the lifecycle rules, so that any arrival order converges (docs/architecture.md,
    "Lifecycle state").
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    kind: Literal["edge"] = "edge"
    edge_id: str = Field(min_length=1, max_length=200)
    user_id: UserId
    text: str = Field(min_length=1, max_length=5_000)
    categories: dict[Category, float]
    slot_key: str | None = None
    value: str | None = None
    confidence: float = Field(default=1.0, ge=0, le=1)
    update: UpdateSemantics = UpdateSemantics.ACCUMULATE
    event_time: UtcDatetime | None = None
    ingest_time: UtcDatetime
    retracts: tuple[str, ...] = ()
    numeric: bool = False
    emotional_loading: float = Field(default=0.0, ge=0, le=1)
    quarantined: bool = False
    source_turns: tuple[str, ...] = ()
    #: A raw-turn (episodic) edge: the user's turn kept verbatim, so that what extraction
    #: missed stays findable (paper Appendix AA). It inherits the lifecycle state of the
    #: facts extracted from the same turn (`episodic_of`, their edge ids).
    episodic: bool = False
    episodic_of: tuple[str, ...] = ()
    #: The category is one the extractor named, not the nearest prototype examples' mix: a
    #: family that knows what it looks for (a home, an employer), a model, or a value family's
    #: fact the prototypes matched to a known single-valued attribute (a drink, a car) — not a
    #: category mix, a per-item template (a hobby, a condition) nor a raw turn without facts.
    #: A raw turn's when every fact it lends its categories from is. False in older logs.
    kind_said: bool = False
    embedding: Embedding | None = None

    @field_validator("categories", mode="before")
    @classmethod
    def _weights(cls, raw: object) -> dict[Category, float]:
        if isinstance(raw, str | dict):
            return normalize_weights(raw)
        raise ValueError("category must be an id or a {id: weight} map")

    @field_validator("slot_key")
    @classmethod
    def _slot(cls, raw: str | None) -> str | None:
        return normalize_slot_key(raw) if raw else None

    @field_validator("retracts")
    @classmethod
    def _retracts(cls, raw: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted({normalize_slot_key(k) for k in raw if k.strip()}))

    @property
    def primary_category(self) -> Category:
        return max(self.categories.items(), key=lambda kv: (kv[1], kv[0]))[0]


def normalize_slot_key(raw: str) -> str:
    """Slot keys are normalized (subject, attribute) strings (paper Appendix F)."""
    key = "_".join(raw.strip().lower().split())
    return key.replace("-", "_")


class ForgetCommand(BaseModel):
    """Erase one fact or a whole user from every store; replay honours it
    (docs/architecture.md, "Forget")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    kind: Literal["forget"] = "forget"
    command_id: str = Field(min_length=1)
    user_id: UserId
    edge_id: str | None = None
    issued_at: UtcDatetime

    @classmethod
    def issue(cls, user_id: str, edge_id: str | None) -> ForgetCommand:
        """A new command, issued now, with a fresh id."""
        return cls(
            command_id=str(uuid.uuid4()),
            user_id=user_id,
            edge_id=edge_id,
            issued_at=datetime.now(UTC),
        )


LogRecord = Annotated[EdgeEvent | ForgetCommand, Field(discriminator="kind")]
