"""The embedded deployment's runner: every stage in this process, the log first.

ingest: validate → extract (turns) → embed → append to the log → apply the lifecycle rules.
The log is written before the stores, so whatever a crash leaves behind, `replay` can
rebuild. The same steps run in the distributed workers (workers/turns.py,
workers/lifecycle/service.py); only the transport differs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO, TypeVar

from schemas.events import EdgeEvent, ForgetCommand, LogRecord, TurnEvent
from schemas.results import IngestReport
from workers.app import App
from workers.embedding.attach import foreign_vector, with_embeddings
from workers.errors import FRError, InputError
from workers.extraction.withdrawal_probe import WithdrawalGate
from workers.inputs import EdgeInput, Item, Problems, read_jsonl
from workers.lifecycle.service import ForgetReceipt
from workers.ports import FactExtractor, TurnContext
from workers.progress import Progress
from workers.stores.memory_turns import InMemoryTurnContext
from workers.turns import TurnEdges, embedded, turn_edges

#: Edges per batch: embedded in one call, appended with one fsync, applied in bulk (the
#: larger, the fewer times a slot is resolved and the fewer store calls per edge).
BATCH = 1024
#: Turns per batch: each yields a few edges, embedded together.
TURN_BATCH = 64
T = TypeVar("T")

__all__ = ["EmbeddedPipeline", "Item", "forgotten_by"]


@dataclass(frozen=True, slots=True)
class _Pending:
    """An edge on its way in, with the input position it came from (for error reports)."""

    source: str
    line: int
    raw: str
    edge: EdgeEvent


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
    """Ingest and forget over one `App` (the stores of one data dir).

    Ingest takes items from a JSONL file (the CLI) or from memory (the HTTP API); every
    problem is reported as `SOURCE:POSITION: reason` on `err` (default stderr; `quiet`: not
    printed), dead-lettered, and listed in the report; the rest goes in.
    """

    def __init__(
        self, app: App, err: TextIO | None = None, *, quiet: bool = False, bulk: bool = True
    ) -> None:
        self.app = app
        #: Apply each batch in bulk (each touched slot resolved once, workers/lifecycle/bulk.py);
        #: False: one `apply` per edge, the reference path `frecall bench throughput` measures.
        self.bulk = bulk
        self.problems = Problems(app.dead_letters, err, quiet=quiet)
        #: The probe that confirms the rule extractor's candidate withdrawals from the raw
        #: turn's vector (none: they are dropped).
        self.withdrawal = WithdrawalGate.for_embedder(app.embedder, app.policy)

    def ingest_edges(self, path: Path) -> IngestReport:
        """`frecall ingest-edges FILE.jsonl`: pre-extracted facts, one JSON object a line."""
        return self.ingest_edge_items(read_jsonl(path, EdgeInput), str(path))

    def ingest_edge_items(self, items: Iterable[Item[EdgeInput]], source: str) -> IngestReport:
        report = IngestReport()
        progress = Progress(f"ingest-edges {source}")
        now = datetime.now(UTC)
        for batch in _batches(items, BATCH):
            pending = []
            for p, raw, _, edge in self.problems.valid_edges(
                batch, source, self.app.policy, now, report
            ):
                if foreign_vector(self.app.embedder, edge):
                    assert edge.embedding is not None
                    reason = (
                        f"embedding: made by {edge.embedding.model} ({edge.embedding.dim} "
                        f"values), this deployment embeds with {self.app.embedder.model_id} "
                        f"({self.app.embedder.dim}); leave it out to have the fact embedded"
                    )
                    report.failures.append(self.problems.add(source, p, reason, raw))
                    report.rejected += 1
                    continue
                pending.append(_Pending(source, p, raw, edge))
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
        context: TurnContext | None = None,
    ) -> IngestReport:
        """Turns → facts (+ raw turns) → memory.

        A turn the extractor fails on (an LLM that keeps failing, a response that does not
        parse) is dead-lettered with the reason and the raw response; its raw turn is still
        kept (Appendix AA) and the run goes on. `context` carries sessions across calls.
        """
        report = IngestReport()
        progress = Progress(f"ingest {source}")
        context = context if context is not None else InMemoryTurnContext(keep_extractions=False)
        for batch in _batches(items, TURN_BATCH):
            steps: list[tuple[int, str, TurnEdges]] = []
            for position, raw, turn in batch:
                if isinstance(turn, InputError):
                    report.failures.append(self.problems.add(source, position, turn.reason, raw))
                    report.rejected += 1
                    continue
                step = turn_edges(turn, extractor, context)
                if step.failure is not None:
                    report.failures.append(self.problems.add(source, position, step.failure, raw))
                    report.failed += 1
                report.turns += 1
                steps.append((position, raw, step))
            edges = embedded(self.app.embedder, [step for _, _, step in steps], self.withdrawal)
            pending = [
                _Pending(source, position, raw, edge)
                for (position, raw, _), mine in zip(steps, edges, strict=True)
                for edge in mine
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
        done: set[int] = set()
        if self.bulk:
            for batch in self.app.bulk.apply(edges):
                if batch.transitions is not None:
                    done.update(id(edge) for edge in batch.edges)
                    for t in batch.transitions:
                        report.count(f"{t.from_state or 'new'}->{t.to_state}")
        for p, edge in zip(pending, edges, strict=True):
            if id(edge) in done:
                report.accepted += 1
                report.edge_ids.append(edge.edge_id)
                continue
            try:
                for transition in self.app.lifecycle.apply(edge):
                    report.count(f"{transition.from_state or 'new'}->{transition.to_state}")
                report.accepted += 1
                report.edge_ids.append(edge.edge_id)
            except FRError as exc:
                # The edge is in the log: `frecall replay` will retry it.
                reason = f"apply failed: {exc}"
                report.failures.append(self.problems.add(p.source, p.line, reason, p.raw))
                report.failed += 1

    def forget(self, user_id: str, edge_id: str | None) -> ForgetReceipt:
        """Erase from every store and from the log itself; the command stays as a tombstone."""
        command = ForgetCommand.issue(user_id, edge_id)
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
