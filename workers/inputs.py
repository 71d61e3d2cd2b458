"""Input line formats of the CLI and the HTTP API, and their conversion to events.

A malformed line never stops a run: the caller reports it as FILE:LINE: reason, dead-
letters it, and goes on (DESIGN §6).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from schemas.categories import Category, UpdateSemantics
from schemas.events import EdgeEvent, Embedding, UserId, UtcDatetime, normalize_weights
from schemas.policy import Policy
from schemas.query import QueryRequest
from workers.errors import InputError

M = TypeVar("M", bound=BaseModel)


class EdgeInput(BaseModel):
    """One line of `frecall ingest-edges` (pre-extracted facts, e.g. gold metadata)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: UserId
    text: str = Field(min_length=1, max_length=5_000)
    category: Category | dict[Category, Annotated[float, Field(ge=0)]]
    slot_key: str | None = None
    value: str | int | float | None = None
    confidence: float = Field(default=1.0, ge=0, le=1)
    update: UpdateSemantics | None = None
    event_time: UtcDatetime | None = None
    ingest_time: UtcDatetime | None = None
    retracts: list[str] = []
    numeric: bool = False
    edge_id: str | None = Field(default=None, min_length=1, max_length=200)
    source_turns: list[str] = []
    emotional_loading: float = Field(default=0.0, ge=0, le=1)
    quarantined: bool = False

    def derived_edge_id(self) -> str:
        """A stable id from the content, so re-ingesting the same file is idempotent."""
        basis = json.dumps(
            [self.user_id, self.slot_key, self.text, str(self.ingest_time), str(self.event_time)]
        )
        return "e-" + hashlib.sha1(basis.encode()).hexdigest()[:20]

    def to_event(self, policy: Policy, now: datetime, embedding: Embedding | None) -> EdgeEvent:
        weights = normalize_weights(
            self.category
            if isinstance(self.category, str)
            else {str(k): v for k, v in self.category.items()}
        )
        primary = max(weights.items(), key=lambda kv: (kv[1], kv[0]))[0]
        # Unstated update semantics follow the category's (Table 1): replace or accumulate.
        update = self.update or policy.category(primary).semantics
        return EdgeEvent(
            edge_id=self.edge_id or self.derived_edge_id(),
            user_id=self.user_id,
            text=self.text,
            categories=weights,
            slot_key=self.slot_key,
            value=None if self.value is None else str(self.value),
            confidence=self.confidence,
            update=update,
            event_time=self.event_time,
            ingest_time=self.ingest_time or now,
            retracts=tuple(self.retracts),
            numeric=self.numeric,
            emotional_loading=self.emotional_loading,
            quarantined=self.quarantined,
            source_turns=tuple(self.source_turns),
            embedding=embedding,
        )


def _reason(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False)[:3]:
        where = ".".join(str(p) for p in err["loc"]) or "line"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def read_jsonl(path: Path, model: type[M]) -> Iterator[tuple[int, str, M | InputError]]:
    """(line number, raw line, parsed model or the error) for every non-blank line."""
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        for lineno, raw in enumerate(fh, start=1):
            line = raw.strip()
            if not line:
                continue
            try:
                yield lineno, line, model.model_validate_json(line)
            except ValidationError as exc:
                reason = (
                    "invalid JSON" if exc.errors()[0]["type"] == "json_invalid" else _reason(exc)
                )
                yield lineno, line, InputError(str(path), lineno, reason)


__all__ = ["EdgeInput", "QueryRequest", "read_jsonl"]
