"""Input line formats of the CLI and the HTTP API, their conversion to events, and where
per-item problems go.

A malformed line never stops a run: it is reported as FILE:LINE: reason, dead-lettered, and
the run goes on (docs/architecture.md, "Entry points").
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Annotated, TextIO, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from schemas.categories import Category, UpdateSemantics
from schemas.events import EdgeEvent, Embedding, UserId, UtcDatetime, normalize_weights
from schemas.policy import Policy
from schemas.query import QueryRequest
from schemas.results import IngestReport, ItemFailure
from workers.errors import InputError
from workers.ports import DeadLetters

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
R = TypeVar("R")

#: An input item: (position — a line number or a list index, raw text, parsed or the error).
Item = tuple[int, str, T | InputError]


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
    #: The fact's vector, made by the deployment's embedder (`model` is its id): a fact that
    #: carries it is not embedded again (bulk loads, exports of another deployment).
    embedding: Embedding | None = None

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
            embedding=embedding or self.embedding,
        )


def _reason(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False)[:3]:
        where = ".".join(str(p) for p in err["loc"]) or "line"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def read_jsonl(path: Path, model: type[M]) -> Iterator[Item[M]]:
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


def listed(models: Sequence[M], *, exclude_unset: bool = False) -> list[Item[M]]:
    """Items already parsed (an HTTP request's, an SDK call's): positions from 0."""
    return [(i, m.model_dump_json(exclude_unset=exclude_unset), m) for i, m in enumerate(models)]


class Problems:
    """Where per-item problems go: `SOURCE:POSITION: reason` on `err` (default: stderr as
    it is when the problem occurs; `quiet`: not printed — the HTTP API answers them
    instead), and the dead-letter log, with the raw item."""

    def __init__(
        self, dead_letters: DeadLetters, err: TextIO | None = None, *, quiet: bool = False
    ) -> None:
        self.dead_letters = dead_letters
        self.err = err
        self.quiet = quiet

    def add(self, source: str, position: int, reason: str, raw: str) -> ItemFailure:
        if not self.quiet:
            print(f"{source}:{position}: {reason}", file=self.err or sys.stderr)
        self.dead_letters.put(source, str(position), reason, raw)
        return ItemFailure(index=position, reason=reason)

    def valid_edges(
        self,
        items: Iterable[Item[EdgeInput]],
        source: str,
        policy: Policy,
        now: datetime,
        report: IngestReport,
    ) -> Iterator[tuple[int, str, EdgeInput, EdgeEvent]]:
        """(position, raw, item, its event) of every valid edge item; an invalid one is
        reported, dead-lettered and counted as rejected in `report`."""
        for position, raw, item in items:
            try:
                if isinstance(item, InputError):
                    raise ValueError(item.reason)
                edge = item.to_event(policy, now, None)
            except ValueError as exc:  # pydantic's ValidationError included
                report.failures.append(self.add(source, position, str(exc), raw))
                report.rejected += 1
                continue
            yield position, raw, item, edge

    def answer_each(
        self, items: Iterable[Item[M]], source: str, answer: Callable[[M], R]
    ) -> Iterator[R | ItemFailure]:
        """`answer` each valid item, in order; an invalid one is reported and yields its
        failure in its place (a batch's output stays aligned with its input)."""
        for position, raw, item in items:
            if isinstance(item, InputError):
                yield self.add(source, position, item.reason, raw)
            else:
                yield answer(item)


__all__ = ["EdgeInput", "Item", "Problems", "QueryRequest", "listed", "read_jsonl"]
