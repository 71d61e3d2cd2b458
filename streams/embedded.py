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

from schemas.events import EdgeEvent, Embedding, ForgetCommand, LogRecord
from streams.progress import Progress
from workers.app import App
from workers.errors import FRError, InputError
from workers.inputs import EdgeInput, read_jsonl
from workers.lifecycle.service import ForgetReceipt

log = logging.getLogger(__name__)

BATCH = 256
T = TypeVar("T")


@dataclass
class IngestReport:
    accepted: int = 0
    rejected: int = 0
    failed: int = 0
    transitions: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.rejected == 0 and self.failed == 0


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
    """Ingest, forget and export over one `App` (the stores of one data dir)."""

    def __init__(self, app: App, err: TextIO | None = None) -> None:
        self.app = app
        self.err = err if err is not None else sys.stderr

    def _reject(self, problem: InputError, raw: str, report: IngestReport) -> None:
        print(str(problem), file=self.err)
        self.app.dead_letters.put(problem.source, str(problem.line), problem.reason, raw)
        report.rejected += 1

    def ingest_edges(self, path: Path) -> IngestReport:
        """`frecall ingest-edges FILE.jsonl`: pre-extracted facts, one JSON object a line."""
        report = IngestReport()
        progress = Progress(f"ingest-edges {path.name}")
        now = datetime.now(UTC)
        parsed = read_jsonl(path, EdgeInput)
        for batch in _batches(parsed, BATCH):
            good: list[tuple[int, str, EdgeInput]] = []
            for lineno, raw, item in batch:
                if isinstance(item, InputError):
                    self._reject(item, raw, report)
                else:
                    good.append((lineno, raw, item))
            if good:
                self._ingest_batch(str(path), good, now, report)
            progress.tick(len(batch))
        progress.finish()
        return report

    def _ingest_batch(
        self,
        source: str,
        items: list[tuple[int, str, EdgeInput]],
        now: datetime,
        report: IngestReport,
    ) -> None:
        embedder, policy = self.app.embedder, self.app.policy
        vectors = embedder.embed([item.text for _, _, item in items])
        events: list[tuple[int, str, EdgeEvent]] = []
        for (lineno, raw, item), vector in zip(items, vectors, strict=True):
            try:
                embedding = Embedding.from_array(embedder.model_id, vector)
                events.append((lineno, raw, item.to_event(policy, now, embedding)))
            except ValueError as exc:
                self._reject(InputError(source, lineno, str(exc)), raw, report)
        self.app.log.append([event for _, _, event in events])
        for lineno, raw, event in events:
            try:
                for transition in self.app.lifecycle.apply(event):
                    key = f"{transition.from_state or 'new'}->{transition.to_state}"
                    report.transitions[key] = report.transitions.get(key, 0) + 1
                report.accepted += 1
            except FRError as exc:
                # The edge is in the log: `frecall replay` will retry it.
                print(f"{source}:{lineno}: {exc}", file=self.err)
                self.app.dead_letters.put(source, str(lineno), f"apply failed: {exc}", raw)
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
        removed_from_log = self.app.log.redact(lambda r: not forgotten_by(command, r))
        return ForgetReceipt(user_id, edge_id, {**receipt.removed, "log": removed_from_log})


def forgotten_by(command: ForgetCommand, record: LogRecord) -> bool:
    """Whether `record` is an edge that `command` erases."""
    if not isinstance(record, EdgeEvent) or record.user_id != command.user_id:
        return False
    return command.edge_id is None or record.edge_id == command.edge_id
