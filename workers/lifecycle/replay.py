"""Rebuilding lifecycle state from the log, honouring forget commands — the one
implementation behind `frecall replay` (the file log) and `replay --from-kafka`.

The log is the source of truth: edges carry their embeddings, so a replay needs no model.
Forget commands are read first; an edge they erase is skipped, so replay never brings an
erased fact back. What "erases" means depends on the log's shape:

* one ordered log (the embedded file log): a command erases the edges of its fact, or of
  its user, that come *before* it — what the user said after an erasure stays;
* two topics without an order between them (`fr.edges`, `fr.commands`): a command erases
  its fact whenever it was said, and its user's facts ingested up to the command's time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Protocol

from schemas.events import EdgeEvent, ForgetCommand
from schemas.results import ReplayReport
from workers.progress import Progress


class Erasures(Protocol):
    """The forget commands of a log, and whether they erase an edge at a position."""

    def note(self, position: int, command: ForgetCommand) -> None: ...

    def erases(self, position: int, edge: EdgeEvent) -> bool: ...


class ByLogPosition:
    """Erasures in one ordered log: a command erases what came before it."""

    def __init__(self) -> None:
        self._users: dict[str, int] = {}
        self._edges: dict[tuple[str, str], int] = {}

    def note(self, position: int, command: ForgetCommand) -> None:
        if command.edge_id is None:
            self._users[command.user_id] = position
        else:
            self._edges[(command.user_id, command.edge_id)] = position

    def erases(self, position: int, edge: EdgeEvent) -> bool:
        return position < max(
            self._users.get(edge.user_id, -1), self._edges.get((edge.user_id, edge.edge_id), -1)
        )


class ByIssueTime:
    """Erasures from a commands topic read apart from the edges: by id, or by time."""

    def __init__(self) -> None:
        #: The latest whole-user erasure of each user.
        self.users: dict[str, datetime] = {}
        #: Erased facts: (user id, edge id).
        self.edges: set[tuple[str, str]] = set()

    def note(self, position: int, command: ForgetCommand) -> None:
        if command.edge_id is None:
            at = self.users.get(command.user_id, command.issued_at)
            self.users[command.user_id] = max(command.issued_at, at)
        else:
            self.edges.add((command.user_id, command.edge_id))

    def erases(self, position: int, edge: EdgeEvent) -> bool:
        if (edge.user_id, edge.edge_id) in self.edges:
            return True
        erased_at = self.users.get(edge.user_id)
        return erased_at is not None and edge.ingest_time <= erased_at


def rebuild(
    commands: Iterable[tuple[int, ForgetCommand]],
    edges: Iterable[tuple[int, EdgeEvent]],
    erasures: Erasures,
    apply: Callable[[EdgeEvent], object],
    progress: Progress,
    *,
    apply_many: Callable[[list[EdgeEvent]], object] | None = None,
    batch: int = 50_000,
) -> ReplayReport:
    """Note every command, then apply every edge that no command erases, in log order.

    `apply` writes one edge into empty stores (the lifecycle service of a new generation);
    `apply_many`, when given, takes the kept edges `batch` at a time instead (the bulk path,
    workers/lifecycle/bulk.py: the larger the batch, the fewer times a slot is resolved).
    Rules are order-independent, so the result equals the state the first pass built.
    """
    report = ReplayReport()
    for position, command in commands:
        report.forget_commands += 1
        erasures.note(position, command)
    pending: list[EdgeEvent] = []
    for position, edge in edges:
        progress.tick()
        if erasures.erases(position, edge):
            report.skipped_forgotten += 1
            continue
        report.edges += 1
        if apply_many is None:
            apply(edge)
            continue
        pending.append(edge)
        if len(pending) >= batch:
            apply_many(pending)
            pending = []
    if pending and apply_many is not None:
        apply_many(pending)
    report.seconds = progress.finish()
    return report
