"""Storage records: an edge plus the lifecycle annotations the rules derived for it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from schemas.categories import LifecycleState
from schemas.events import EdgeEvent, UtcDatetime


class SoftPressure(BaseModel):
    """A later, low-confidence same-slot edge: contributes (1 - γ) to Ω (paper Model 1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    by: str
    at: UtcDatetime
    gamma: float = Field(ge=0, le=1)


class Association(BaseModel):
    """How a fact without a slot key took part in a slot's lifecycle (issue 11): the keyed
    fact it matched, how closely (cosine of the embeddings), and whether it superseded
    (`hard`) or only softly pressed the slot's earlier values."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    slot: str
    anchor: str
    similarity: float = Field(ge=-1, le=1)
    hard: bool


class ChangeMention(BaseModel):
    """Why a fact without a slot key was superseded by a later change statement (issue 11;
    workers/lifecycle/change_naming.py): the statement, the content words of what it said
    ended that the fact contains ("I left Google" → googl), and how closely the two match
    (cosine of the embeddings)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    by: str
    words: tuple[str, ...]
    similarity: float = Field(ge=-1, le=1)


class Lifecycle(BaseModel):
    """ξ and its provenance. Bi-temporal: every change records the transaction time."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    state: LifecycleState = LifecycleState.ACTIVE
    superseded_by: str | None = None
    superseded_at: UtcDatetime | None = None
    retracted_by: str | None = None
    retracted_at: UtcDatetime | None = None
    duplicate_of: str | None = None
    mentions: int = Field(default=1, ge=1)
    last_mentioned_at: UtcDatetime | None = None
    soft_pressures: tuple[SoftPressure, ...] = ()
    associated: Association | None = None
    named_by: ChangeMention | None = None


class FactRecord(BaseModel):
    """What the stores hold for one fact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    edge: EdgeEvent
    lifecycle: Lifecycle = Lifecycle()

    @property
    def edge_id(self) -> str:
        return self.edge.edge_id

    @property
    def user_id(self) -> str:
        return self.edge.user_id
