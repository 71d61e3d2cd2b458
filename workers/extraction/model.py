"""What an extractor (rule-based or LLM) hands to the lifecycle agent: one classified fact.

An `ExtractedFact` is the extraction-side half of an `EdgeEvent`: it carries the lifecycle
metadata the paper's ingestion step produces (§3, Figure 1) — category weights c, slot key κ,
event-time anchor h and confidence v — but no ids, ingest time or embedding, which the
extraction agent adds when it turns the fact into an edge.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from schemas.categories import Category, UpdateSemantics
from schemas.events import UtcDatetime, normalize_slot_key, normalize_weights

#: What the extraction stage's prototype classifier may do with a fact (`prototypes.py`):
#: "decide" its category, and its slot when it has none (a value family found the value, not
#: what it is about); "require" the same, dropping the fact when no known attribute matches;
#: "check" a rule's slot, re-slotting only on a clear contradiction ("moved to the United
#: Church of Christ" is no change of city); "withdrawal": a candidate retraction kept only if
#: the withdrawal probe reads the raw turn's vector as one (`withdrawal_probe.unconfirmed`);
#: "pastime": a habitual activity (`patterns_pastimes`) kept as a Hobbies fact only if the
#: prototypes read it as one (`classify.PASTIME_MARGIN`); "habit": "require", but a habit that
#: names no attribute in a clause read as a pastime is that pastime instead of nothing;
#: "passing": "check", for an identity told in passing (`patterns_identity_passing`) — the turn
#: is about something else, so the fact lends its raw turn no category (`stage`). None: leave
#: it (LLM facts).
PrototypeUse = Literal["decide", "require", "check", "withdrawal", "pastime", "habit", "passing"]
#: Facts that lend their raw turn no category (`stage._mixed_categories`, `classify._without`):
#: the fact answers for the turn, and the turn raised beside it would take a second place.
LENDS_NO_CATEGORY: tuple[PrototypeUse, ...] = ("pastime", "habit", "passing")

#: Soft membership must still have a clear primary category (paper §3.1, A.5): a fact whose
#: strongest weight is below this is a classification failure, not a soft fact.
MIN_PRIMARY_WEIGHT = 0.6


class ExtractedFact(BaseModel):
    """One fact stated by the user, with its lifecycle metadata.

    Contract:
    * `text` is self-contained ("User moved to London"), keeps the user's key words and
      numbers verbatim.
    * `categories` are soft weights that sum to 1 with a primary weight ≥ 0.6 (§3.1).
    * `slot_key` is a normalized "subject.attribute" key (Appendix F); a later fact of the
      same slot supersedes (update=replace, high confidence) or softly lowers (update=soft)
      the earlier ones. `retracts` names slots whose earlier facts are withdrawn.
    * `event_time` is absolute and UTC (the anchor h of §3.3), resolved from the turn time.
    * `quarantined` facts are instruction-like content kept for audit only (B.5).
    * `prototype`: what the extraction stage's classifier may change (see `PrototypeUse`);
      the rule extractor's choice, never the LLM's.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(min_length=1, max_length=5_000)
    categories: dict[Category, float]
    slot_key: str | None = None
    value: str | None = None
    confidence: float = Field(ge=0, le=1)
    update: UpdateSemantics
    event_time: UtcDatetime | None = None
    retracts: tuple[str, ...] = ()
    numeric: bool = False
    emotional_loading: float = Field(default=0.0, ge=0, le=1)
    quarantined: bool = False
    prototype: PrototypeUse | None = None

    @field_validator("categories", mode="before")
    @classmethod
    def _weights(cls, raw: object) -> dict[Category, float]:
        if not isinstance(raw, str | dict):
            raise ValueError("categories must be an id or a {id: weight} map")
        weights = normalize_weights(raw)
        if max(weights.values()) < MIN_PRIMARY_WEIGHT - 1e-9:
            raise ValueError(f"primary category weight must be ≥ {MIN_PRIMARY_WEIGHT}")
        return weights

    @field_validator("slot_key")
    @classmethod
    def _slot(cls, raw: str | None) -> str | None:
        return normalize_slot_key(raw) if raw and raw.strip() else None

    @field_validator("retracts")
    @classmethod
    def _retracts(cls, raw: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted({normalize_slot_key(k) for k in raw if k.strip()}))

    @field_validator("confidence", "emotional_loading")
    @classmethod
    def _finite(cls, raw: float) -> float:
        if not math.isfinite(raw):
            raise ValueError("must be finite")
        return raw

    @property
    def primary_category(self) -> Category:
        """The category with the largest weight (ties broken by id, as EdgeEvent does)."""
        return max(self.categories.items(), key=lambda kv: (kv[1], kv[0]))[0]
