"""Rebuild materialized stores from the log (the source of truth)."""

from __future__ import annotations

from dataclasses import dataclass

from schemas.events import EdgeEvent, ForgetCommand
from streams.progress import Progress
from workers.lifecycle.service import LifecycleService
from workers.ports import EventLog


@dataclass
class ReplayReport:
    edges: int = 0
    skipped_forgotten: int = 0
    forget_commands: int = 0
    seconds: float = 0.0


def rebuild(log: EventLog, lifecycle: LifecycleService, total: int | None = None) -> ReplayReport:
    """Apply every edge of the log to (empty) stores behind `lifecycle`.

    Forget commands are collected first and honoured by log position: an edge (of the
    erased fact, or of the erased user) that comes before its forget command is skipped,
    even in a log that was not redacted; what the user said after the erasure stays.
    """
    report = ReplayReport()
    user_erased_at: dict[str, int] = {}
    edge_erased_at: dict[tuple[str, str], int] = {}
    for position, record in enumerate(log.read()):
        if isinstance(record, ForgetCommand):
            report.forget_commands += 1
            if record.edge_id is None:
                user_erased_at[record.user_id] = position
            else:
                edge_erased_at[(record.user_id, record.edge_id)] = position
    progress = Progress("replay", total)
    for position, record in enumerate(log.read()):
        if not isinstance(record, EdgeEvent):
            continue
        progress.tick()
        if position < max(
            user_erased_at.get(record.user_id, -1),
            edge_erased_at.get((record.user_id, record.edge_id), -1),
        ):
            report.skipped_forgotten += 1
            continue
        lifecycle.apply(record)
        report.edges += 1
    report.seconds = progress.finish()
    return report
