"""The embedded deployment's runner: every stage in-process, the log first.

ingest: validate → embed → append to the log → apply the lifecycle rules. The log is
written before the stores, so whatever a crash leaves behind, `replay` can rebuild.
"""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO, TypeVar

from schemas.events import EdgeEvent, ForgetCommand, LogRecord, TurnEvent
from streams.progress import Progress
from workers.app import App
from workers.embedding.attach import with_embeddings
from workers.errors import ExtractionError, FRError, InputError
from workers.extraction.classify import embedded_edges
from workers.extraction.model import ExtractedFact
from workers.extraction.stage import SessionContext, extraction_turn
from workers.inputs import EdgeInput, read_jsonl
from workers.lifecycle.service import ForgetReceipt
from workers.ports import FactExtractor

log = logging.getLogger(__name__)

BATCH = 256
#: Turns per batch: each yields a few edges, embedded together.
TURN_BATCH = 64
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class _Pending:
    """An edge on its way in, with the input position it came from (for error reports)."""

    source: str
    line: int
    raw: str
    edge: EdgeEvent


@dataclass
class IngestReport:
    turns: int = 0
    accepted: int = 0
    rejected: int = 0
    failed: int = 0
    transitions: dict[str, int] = field(default_factory=dict)
    #: Edges applied, in input order.
    edge_ids: list[str] = field(default_factory=list)
    #: (position, reason) of every rejected or failed input item.
    failures: list[tuple[int, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.rejected == 0 and self.failed == 0


#: An input item: (position — a line number or a list index, raw text, parsed or the error).
Item = tuple[int, str, T | InputError]


def _batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


class EmbeddedPipeline:
    """Ingest, forget and export over one `App` (the stores of one data dir).

    Ingest takes items from a JSONL file (the CLI) or from memory (the HTTP API); every
    problem is reported as `SOURCE:POSITION: reason` on `err`, dead-lettered, and listed
    in the report; the rest goes in.
    """

    def __init__(self, app: App, err: TextIO | None = None) -> None:
        self.app = app
        self.err = err if err is not None else sys.stderr

    def _problem(
        self, source: str, position: int, reason: str, raw: str, report: IngestReport
    ) -> None:
        print(f"{source}:{position}: {reason}", file=self.err)
        self.app.dead_letters.put(source, str(position), reason, raw)
        report.failures.append((position, reason))

    def ingest_edges(self, path: Path) -> IngestReport:
        """`frecall ingest-edges FILE.jsonl`: pre-extracted facts, one JSON object a line."""
        return self.ingest_edge_items(read_jsonl(path, EdgeInput), str(path))

    def ingest_edge_items(self, items: Iterable[Item[EdgeInput]], source: str) -> IngestReport:
        report = IngestReport()
        progress = Progress(f"ingest-edges {source}")
        now = datetime.now(UTC)
        for batch in _batches(items, BATCH):
            pending: list[_Pending] = []
            for position, raw, item in batch:
                try:
                    if isinstance(item, InputError):
                        raise ValueError(item.reason)
                    edge = item.to_event(self.app.policy, now, None)
                except ValueError as exc:
                    self._problem(source, position, str(exc), raw, report)
                    report.rejected += 1
                    continue
                pending.append(_Pending(source, position, raw, edge))
            self._commit(pending, report)
            progress.tick(len(batch))
        progress.finish()
        return report

    def ingest_turns(self, path: Path, extractor: FactExtractor) -> IngestReport:
        """`frecall ingest FILE.jsonl`: conversation turns → facts (+ raw turns) → memory."""
        return self.ingest_turn_items(read_jsonl(path, TurnEvent), extractor, str(path))

    def ingest_turn_items(
        self,
        items: Iterable[Item[TurnEvent]],
        extractor: FactExtractor,
        source: str,
        context: SessionContext | None = None,
    ) -> IngestReport:
        """Turns → facts (+ raw turns) → memory.

        A turn the extractor fails on (an LLM that keeps failing, a response that does not
        parse) is dead-lettered with the reason and the raw response; its raw turn is still
        kept (Appendix AA) and the run goes on. `context` carries sessions across calls.
        """
        report = IngestReport()
        progress = Progress(f"ingest {source}")
        context = context if context is not None else SessionContext()
        for batch in _batches(items, TURN_BATCH):
            extracted: list[tuple[int, str, TurnEvent, list[ExtractedFact]]] = []
            for position, raw, turn in batch:
                if isinstance(turn, InputError):
                    self._problem(source, position, turn.reason, raw, report)
                    report.rejected += 1
                    continue
                window = extraction_turn(turn)  # a long turn: its bounded window
                try:
                    facts = extractor.extract(window, context.recent(turn))
                except ExtractionError as exc:
                    detail = getattr(exc, "raw_response", None)
                    reason = f"extraction failed: {exc}" + (
                        f"; raw response: {detail}" if detail else ""
                    )
                    self._problem(source, position, reason, raw, report)
                    report.failed += 1
                    facts = []
                finally:
                    context.add(window)
                report.turns += 1
                extracted.append((position, raw, turn, facts))
            embedded = embedded_edges([(t, f) for _, _, t, f in extracted], self.app.embedder)
            pending = [
                _Pending(source, position, raw, edge)
                for (position, raw, _, _), edges in zip(extracted, embedded, strict=True)
                for edge in edges
            ]
            self._commit(pending, report, embedded=True)
            progress.tick(len(batch))
        progress.finish()
        return report

    def _commit(
        self, pending: list[_Pending], report: IngestReport, embedded: bool = False
    ) -> None:
        """Embed, append to the log, then apply: the log is written before any store."""
        if not pending:
            return
        edges = [p.edge for p in pending]
        edges = edges if embedded else with_embeddings(self.app.embedder, edges)
        self.app.log.append(edges)
        for p, edge in zip(pending, edges, strict=True):
            try:
                for transition in self.app.lifecycle.apply(edge):
                    key = f"{transition.from_state or 'new'}->{transition.to_state}"
                    report.transitions[key] = report.transitions.get(key, 0) + 1
                report.accepted += 1
                report.edge_ids.append(edge.edge_id)
            except FRError as exc:
                # The edge is in the log: `frecall replay` will retry it.
                self._problem(p.source, p.line, f"apply failed: {exc}", p.raw, report)
                report.failed += 1

    def forget(self, user_id: str, edge_id: str | None) -> ForgetReceipt:
        """Erase from every store and from the log itself; the command stays as a tombstone."""
        command = ForgetCommand(
            command_id=str(uuid.uuid4()),
            user_id=user_id,
            edge_id=edge_id,
            issued_at=datetime.now(UTC),
        )
        self.app.log.append([command])
        receipt = self.app.lifecycle.forget(command)
        removed = {**receipt.removed}
        removed["log"] = self.app.log.redact(lambda r: not forgotten_by(command, r))
        if self.app.archive is not None:
            removed["archive"] = self.app.archive.redact(user_id, edge_id)
        if edge_id is None:
            removed["dead_letters"] = self.app.dead_letters.redact_user(user_id)
        return ForgetReceipt(user_id, edge_id, removed)


def forgotten_by(command: ForgetCommand, record: LogRecord) -> bool:
    """Whether `record` is an edge that `command` erases."""
    if not isinstance(record, EdgeEvent) or record.user_id != command.user_id:
        return False
    return command.edge_id is None or record.edge_id == command.edge_id
