"""The lifecycle worker's logic: `fr.edges` and `fr.commands` in, `fr.transitions` out.

At-least-once delivery made exactly-once in effect:
* an edge whose effects were applied *and announced* is in the user's processed set and
  is skipped when it comes again;
* applying is idempotent (slot membership by edge id, state a function of the set), and a
  commit is refused when another worker changed the user meanwhile (snapshot/CAS);
* an edge applied before a crash but never announced is announced again in full (every
  fact of the slots it touches), since `apply` finds nothing left to change.
The processed mark is written only after the announcement was acknowledged (`confirm`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pydantic import ValidationError

from schemas.events import EdgeEvent, ForgetCommand
from schemas.streams import TRANSITIONS, FactsChanged, StateChange
from workers.distributed.messages import Outgoing, Received, Rejections
from workers.distributed.ports import DeliveryLedger, RedactableArchive
from workers.errors import brief
from workers.lifecycle.bulk import BulkLifecycle
from workers.lifecycle.rules import group_key
from workers.lifecycle.service import LifecycleService, Transition
from workers.ports import FactStore, TurnContext

log = logging.getLogger(__name__)


@dataclass
class Handled:
    """What to produce, and what to record once it was produced."""

    outgoing: list[Outgoing] = field(default_factory=list)
    confirm: Callable[[], None] | None = None


def _changes(transitions: list[Transition]) -> tuple[StateChange, ...]:
    return tuple(
        StateChange(edge_id=t.edge_id, from_state=t.from_state, to_state=t.to_state, cause=t.cause)
        for t in transitions
    )


def _announce(changed: FactsChanged) -> Outgoing:
    return Outgoing(TRANSITIONS, changed.user_id, changed.model_dump_json().encode())


class LifecycleHandler:
    """Applies edges and forget commands with the same `LifecycleService` as embedded.

    `facts` is the store `lifecycle` writes (read here to tell a first delivery from a
    redelivery); `ledger` keeps processed ids, tombstones and receipts; `turns` is the
    extraction context, erased with its user; `reject` dead-letters what cannot be
    processed, and its user's letters are erased with the user, as is `archive`, where
    compaction put facts. `bulk`: the same stage over whole batches (`handle_edges`).
    """

    def __init__(
        self,
        lifecycle: LifecycleService,
        facts: FactStore,
        ledger: DeliveryLedger,
        turns: TurnContext,
        reject: Rejections,
        archive: RedactableArchive,
        bulk: BulkLifecycle | None = None,
    ) -> None:
        self._lifecycle = lifecycle
        self._bulk = bulk
        self._facts = facts
        self._ledger = ledger
        self._turns = turns
        self._reject = reject
        self._archive = archive

    def handle_edge(self, message: Received) -> Handled:
        edge = self._parsed(message)
        if not isinstance(edge, EdgeEvent):
            return edge
        if not self._fresh(edge.user_id, [edge]):
            return Handled()
        applied_before = bool(self._facts.get(edge.user_id, [edge.edge_id]))
        transitions, written = self._lifecycle.apply_changes(edge)
        before = [edge] if applied_before else []
        return self._announced(edge.user_id, [edge], transitions, written, before, message)

    def handle_edges(self, messages: Sequence[Received]) -> list[Handled]:
        """A batch of fr.edges: without `bulk`, `handle_edge` for each; with it, each user's
        new edges applied at once (workers/lifecycle/bulk.py: each slot resolved once, one
        commit) and announced in one `FactsChanged`, processed once it is out. A user the
        bulk path hands back is handled one message at a time."""
        if self._bulk is None:
            return [self.handle_edge(m) for m in messages]
        out: list[Handled] = []
        by_user: dict[str, list[tuple[Received, EdgeEvent]]] = {}
        for message in messages:
            edge = self._parsed(message)
            if isinstance(edge, EdgeEvent):
                by_user.setdefault(edge.user_id, []).append((message, edge))
            else:
                out.append(edge)
        fresh: list[EdgeEvent] = []
        for user, pairs in by_user.items():
            fresh += self._fresh(user, [e for _, e in pairs])
        for batch in self._bulk.apply(fresh):
            user = batch.user_id
            if batch.transitions is None:
                out += [self.handle_edge(m) for m, _ in by_user[user]]
                continue
            before = [e for e in batch.edges if e.edge_id in batch.existed]
            first = by_user[user][0][0]
            out.append(
                self._announced(user, batch.edges, batch.transitions, batch.written, before, first)
            )
        return out

    def _parsed(self, message: Received) -> EdgeEvent | Handled:
        """The message's edge, or its dead letter."""
        try:
            edge = EdgeEvent.model_validate_json(message.value)
        except ValidationError as exc:
            return Handled([self._reject(message, "not an edge event", brief(exc))])
        if edge.embedding is None:
            return Handled([self._reject(message, "edge has no embedding")])
        return edge

    def _fresh(self, user: str, edges: list[EdgeEvent]) -> list[EdgeEvent]:
        """The edges still to apply: neither erased nor processed (applied and announced
        before: a redelivery). One call to the ledger for all of them."""
        settled = self._ledger.settled(user, [(e.edge_id, e.ingest_time) for e in edges])
        out = []
        for edge, (erased, processed) in zip(edges, settled, strict=True):
            if erased:
                log.info("lifecycle: %s of %s was erased; dropped", edge.edge_id, user)
            elif not processed:
                out.append(edge)
        return out

    def _announced(
        self,
        user: str,
        edges: list[EdgeEvent],
        transitions: list[Transition],
        written: list[str],
        applied_before: list[EdgeEvent],
        message: Received,
    ) -> Handled:
        """The announcement of applied edges (every fact to read again), marking them
        processed once it is out."""
        ids = [*(e.edge_id for e in edges), *written]
        for edge in applied_before:
            ids += self._lifecycle.touched_facts(edge)
        settled = self._ledger.settled(user, [(e.edge_id, e.ingest_time) for e in edges])
        for edge, (erased, _) in zip(edges, settled, strict=True):
            if erased:
                # A forget ran meanwhile (another worker, during a rebalance): the commit did
                # not write this fact, and its slot membership goes too.
                erasure = ForgetCommand(
                    command_id=f"late:{edge.edge_id}",
                    user_id=user,
                    edge_id=edge.edge_id,
                    issued_at=edge.ingest_time,
                )
                receipt = self._lifecycle.forget(erasure, also=[group_key(edge), *edge.retracts])
                ids += self._lifecycle.members_of(user, receipt.slots)
        changed = FactsChanged(
            user_id=user,
            edge_ids=tuple(dict.fromkeys(ids)),
            transitions=_changes(transitions),
            source=message.position,
        )
        done = list(dict.fromkeys(e.edge_id for e in edges))
        return Handled([_announce(changed)], lambda: self._ledger.mark_processed(user, *done))

    def handle_command(self, message: Received) -> Handled:
        try:
            command = ForgetCommand.model_validate_json(message.value)
        except ValidationError as exc:
            return Handled([self._reject(message, "not a command", brief(exc))])
        user, edge_id = command.user_id, command.edge_id
        # The tombstone first: an edge of this fact/user still in flight stays out.
        self._ledger.tombstone(user, edge_id, command.issued_at)
        command_id = command.command_id
        if edge_id is None:
            # The slots to re-resolve are kept until the announcement is out (a crash
            # midway leaves facts the redelivered command must still find and re-resolve).
            also = self._ledger.remember_slots(user, command_id, self._lifecycle.user_slots(user))
            receipt = self._lifecycle.forget(command, also=also, up_to=command.issued_at)
            if receipt.emptied:
                self._ledger.forget_processed(user)
            self._turns.forget_user(user)
            ids = [*receipt.changed, *self._lifecycle.members_of(user, receipt.slots)]
        else:
            # Which slots to re-resolve is kept until the announcement is out: a redelivered
            # command finds the fact gone, yet must finish what the first attempt began.
            also = self._ledger.remember_slots(
                user, command.command_id, self._lifecycle.slots_of(user, edge_id)
            )
            receipt = self._lifecycle.forget(command, also=also)
            ids = [edge_id, *self._lifecycle.members_of(user, receipt.slots)]
        removed = dict(receipt.removed)
        # After the tombstone: an archival racing this erasure either saw the tombstone or
        # wrote before this redaction (workers/stores/redis_archive.py).
        up_to = command.issued_at if edge_id is None else None
        removed["archive"] = self._archive.redact(user, edge_id, up_to)
        if edge_id is None:
            removed["dead_letters"] = self._reject.letters.redact_user(user)
        self._ledger.put_receipt(user, command.command_id, removed)
        changed = FactsChanged(
            user_id=user,
            edge_ids=tuple(dict.fromkeys(ids)),
            forget_user=edge_id is None,
            command_id=command.command_id,
            receipt=removed,
            source=message.position,
        )
        return Handled([_announce(changed)], lambda: self._ledger.forget_slots(user, command_id))
