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

    Forget commands are collected first and honoured for edges anywhere in the log, so a
    replay never brings an erased fact back, even from a log that was not redacted.
    """
    report = ReplayReport()
    erased_users: set[str] = set()
    erased_edges: set[tuple[str, str]] = set()
    for record in log.read():
        if isinstance(record, ForgetCommand):
            report.forget_commands += 1
            if record.edge_id is None:
                erased_users.add(record.user_id)
            else:
                erased_edges.add((record.user_id, record.edge_id))
    progress = Progress("replay", total)
    for record in log.read():
        if not isinstance(record, EdgeEvent):
            continue
        progress.tick()
        if record.user_id in erased_users or (record.user_id, record.edge_id) in erased_edges:
            report.skipped_forgotten += 1
            continue
        lifecycle.apply(record)
        report.edges += 1
    report.seconds = progress.finish()
    return report
