"""The lifecycle stage: apply an edge (or a forget) to the slot index and the vector index.

The same code runs in the embedded pipeline and in the distributed lifecycle agent. How a raw
turn's state follows its facts' is `episodes.py`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from schemas.categories import LifecycleState
from schemas.events import EdgeEvent, ForgetCommand
from schemas.policy import Policy
from schemas.records import FactRecord, Lifecycle
from workers.errors import StorageError
from workers.lifecycle.association import TO_PREFIX, Associations, is_pseudo
from workers.lifecycle.change_naming import NAMED_PREFIX, ChangeNaming
from workers.lifecycle.compaction import long_expired
from workers.lifecycle.episodes import EPISODE_PREFIX, inherited
from workers.lifecycle.facts import PendingWrites, fact_store
from workers.lifecycle.retargeting import RT_PREFIX, Retargeting
from workers.lifecycle.rules import group_key, resolve_slot
from workers.ports import FactStore, IndexedFact, SlotIndex, SparseVector, VectorIndex
from workers.text import bm25

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Transition:
    """A change of a fact's lifecycle state (published on `fr.transitions`)."""

    user_id: str
    edge_id: str
    from_state: str | None
    to_state: str
    cause: str | None


@dataclass(frozen=True, slots=True)
class ForgetReceipt:
    """What an erasure removed from the lifecycle's stores, per store (keys: the fact
    store's `name`: facts deleted; `slot_index`: the slots the erased facts were taken out
    of); the deployment adds its other stores and turns it into the caller's proof of
    deletion (`schemas.results.ForgetReceipt`, where each count is defined)."""

    user_id: str
    edge_id: str | None
    removed: Mapping[str, int] = field(default_factory=dict)
    #: Facts whose state the erasure changed (e.g. a superseded value that came back).
    changed: tuple[str, ...] = ()
    #: The slots it re-resolved.
    slots: tuple[str, ...] = ()
    #: Nothing of the user is left (a whole-user erasure took everything): bookkeeping
    #: kept per user elsewhere (processed ids, session context) may go too.
    emptied: bool = False


def _cause(lc: Lifecycle) -> str | None:
    return lc.superseded_by or lc.retracted_by or lc.duplicate_of


#: Resolutions retried when another writer changed the user's facts meanwhile (a rebalance).
MAX_ATTEMPTS = 50


class LifecycleService:
    """Applies edges: slot membership, rule resolution, and the resulting fact writes.

    Every `apply`/`forget` resolves into a `PendingWrites` buffer and commits it at once
    against the snapshot it read (`FactStore.commit`); if another worker committed for the
    same user in between, the resolution is recomputed from the new state. Slot membership
    is idempotent, so recomputing is always safe.
    """

    def __init__(
        self,
        slots: SlotIndex,
        vectors: VectorIndex | FactStore,
        policy: Policy,
        sparse: Callable[[str], SparseVector] = bm25.document_vector,
    ) -> None:
        self._slots = slots
        self._facts = fact_store(vectors)
        self._policy = policy
        self._sparse = sparse
        self._associations = Associations(slots, policy)
        self._retargeting = Retargeting(slots, policy)
        self._naming = ChangeNaming(slots, policy, self._associations)

    def apply(self, edge: EdgeEvent) -> list[Transition]:
        """Apply one edge. Idempotent: applying it again changes nothing."""
        return self.apply_changes(edge)[0]

    def apply_changes(self, edge: EdgeEvent) -> tuple[list[Transition], list[str]]:
        """`apply`, also returning every fact whose record it wrote (a state change, or
        only its soft pressure, mentions or last mention: the scorer reads them all)."""
        if edge.embedding is None:
            raise StorageError("lifecycle", "apply", f"edge {edge.edge_id} has no embedding")
        user = edge.user_id
        slot = group_key(edge)
        for fact_id in edge.episodic_of:
            self._slots.add(user, EPISODE_PREFIX + fact_id, edge)
        self._slots.add(user, slot, edge)
        for target in edge.retracts:
            self._slots.add_retraction(user, target, edge)
        touched = [slot, *edge.retracts, *self._associations.on_apply(edge)]
        touched += self._retargeting.on_apply(edge)
        touched += self._naming.on_apply(edge)
        return self._resolve_written(user, touched, {edge.edge_id}, edge.ingest_time)

    def touched_facts(self, edge: EdgeEvent) -> list[str]:
        """Every fact whose state `edge` can decide: the members of the slots it touches.

        For a worker that must re-announce an edge's effects (its first attempt committed
        but died before publishing them).
        """
        slots = [group_key(edge), *edge.retracts, *self._associations.related_slots(edge)]
        slots += self._retargeting.related_slots(edge)
        slots += self._naming.related_slots(edge)
        ids = [edge.edge_id, *self.members_of(edge.user_id, slots)]
        return list(dict.fromkeys(ids))

    def _resolve_committed(
        self, user: str, slots: list[str], applied: set[str], now: datetime
    ) -> list[Transition]:
        return self._resolve_written(user, slots, applied, now)[0]

    def _resolve_written(
        self, user: str, slots: Sequence[str], applied: set[str], now: datetime
    ) -> tuple[list[Transition], list[str]]:
        """Resolve `slots` and commit; `now` is the change's own time (not the clock), so
        that replay decides exactly as the first pass did. Returns the transitions and
        the ids of every record written."""
        for _ in range(MAX_ATTEMPTS):
            done = self.resolve_once(user, slots, applied, now)
            if done is not None:
                return done
            log.info("lifecycle: user %s changed meanwhile; resolving again", user)
        raise StorageError("lifecycle", "commit", f"user {user}: too many concurrent writers")

    def resolve_once(
        self, user: str, slots: Sequence[str], applied: set[str], now: datetime
    ) -> tuple[list[Transition], list[str]] | None:
        """Resolve `slots` (and the raw turns inheriting from what changed) and commit, once:
        None when another writer committed for the user meanwhile (nothing was written).
        The bulk path (workers/lifecycle/bulk.py) calls it with every slot of a batch."""
        pending = PendingWrites(self._facts, user)
        transitions: list[Transition] = []
        for slot in dict.fromkeys(slots):
            members = self._slots.members(user, slot)
            transitions += self._resolve(pending, user, slot, members, applied, now)
        changed = [*pending.upserts, *pending.updates]
        transitions += self._refresh_episodes(pending, user, changed, now)
        if not pending.commit():
            return None
        return transitions, [*pending.upserts, *pending.updates]

    def _refresh_episodes(
        self, pending: PendingWrites, user: str, changed: list[str], now: datetime
    ) -> list[Transition]:
        """Re-resolve the raw turns whose facts' lifecycle changed — its state, or only who
        superseded or retracted it and when, which the turn inherits too."""
        groups: dict[str, None] = {}
        for edge_id in changed:
            for raw in self._slots.members(user, EPISODE_PREFIX + edge_id):
                groups[group_key(raw)] = None
        out: list[Transition] = []
        for slot in groups:
            out += self._resolve(pending, user, slot, self._slots.members(user, slot), set(), now)
        return out

    def _resolve(
        self,
        pending: PendingWrites,
        user: str,
        slot: str,
        members: list[EdgeEvent],
        applied: set[str],
        now: datetime,
    ) -> list[Transition]:
        view = self._associations.view(user, slot, members)
        members = view.stored
        retractions = [
            *self._slots.retractions(user, slot),
            *self._retargeting.retractions(user, slot),
        ]
        annotations = resolve_slot(view.rules, retractions, self._policy)
        for edge_id, association in view.joined.items():
            annotations[edge_id] = annotations[edge_id].model_copy(
                update={"associated": association}
            )
        for member in members:
            annotations[member.edge_id] = self._named(member, annotations[member.edge_id])
        for raw in members:
            if raw.episodic and raw.episodic_of:
                facts = [r.lifecycle for r in pending.get(list(raw.episodic_of))]
                annotations[raw.edge_id] = inherited(annotations[raw.edge_id], facts)
        existing = {r.edge_id: r.lifecycle for r in pending.get(list(annotations))}
        transitions: list[Transition] = []
        for edge_id, lifecycle in annotations.items():
            before = existing.get(edge_id)
            if before == lifecycle:
                continue
            if before is None or before.state is not lifecycle.state:
                transitions.append(
                    Transition(
                        user,
                        edge_id,
                        None if before is None else before.state.value,
                        lifecycle.state.value,
                        _cause(lifecycle),
                    )
                )
            if before is not None:
                pending.update(edge_id, lifecycle)
        # A member missing from the store is written whole when it is the edge being
        # applied, or when it is current (e.g. it came back after a forget). A missing
        # member that is not current, or whose event expired long ago, was archived by
        # compaction (workers/lifecycle/compaction.py): it stays out.
        for member in members:
            if member.edge_id in existing:
                continue
            lifecycle = annotations[member.edge_id]
            record = FactRecord(edge=member, lifecycle=lifecycle)
            if member.edge_id in applied or (
                lifecycle.state is LifecycleState.ACTIVE
                and not long_expired(record, now, self._policy)
            ):
                pending.upsert(self._indexed(member, lifecycle))
        return transitions

    def _named(self, edge: EdgeEvent, lifecycle: Lifecycle) -> Lifecycle:
        """A current free edge that a later change statement names is superseded by it
        (workers/lifecycle/change_naming.py)."""
        if lifecycle.state is not LifecycleState.ACTIVE:
            return lifecycle
        naming = self._naming.naming(edge)
        if naming is None:
            return lifecycle
        return lifecycle.model_copy(
            update={
                "state": LifecycleState.SUPERSEDED,
                "superseded_by": naming.by.edge_id,
                "superseded_at": naming.by.ingest_time,
                "named_by": naming.record(),
            }
        )

    def _indexed(self, edge: EdgeEvent, lifecycle: Lifecycle) -> IndexedFact:
        assert edge.embedding is not None  # checked in apply(); replayed edges carry theirs
        return IndexedFact(
            record=FactRecord(edge=edge, lifecycle=lifecycle),
            dense=edge.embedding.to_array(),
            sparse=self._sparse(edge.text),
        )

    def forget(
        self,
        command: ForgetCommand,
        also: Sequence[str] = (),
        up_to: datetime | None = None,
    ) -> ForgetReceipt:
        """Erase one fact (re-resolving the slots it took part in) or a whole user.

        `up_to`: a whole-user erasure removes only what was ingested up to this time (the
        distributed deployment passes the command's time: a fact stated after it may be
        delivered first, since commands and edges travel on different topics); None
        removes everything. `also`: slots to re-resolve besides those the removal reports
        (a redelivered command finds nothing left to remove, but the slots it touched must
        still be resolved).
        """
        if command.edge_id is None:
            return self._forget_user(command, up_to, also)
        user = command.user_id
        episodes = self._episode_slots(user, [command.edge_id])
        touched = self._slots.remove(user, command.edge_id)
        deleted = self._facts.delete(user, [command.edge_id])
        # Facts the forgotten one superseded or retracted come back, and so do the raw
        # turns that inherited its state: state is a function of the remaining set.
        slots = self._real_slots(user, [*touched, *also, *episodes])
        transitions = self._resolve_committed(user, slots, set(), command.issued_at)
        return ForgetReceipt(
            user,
            command.edge_id,
            {self._facts.name: deleted, "slot_index": _count(touched)},
            tuple(dict.fromkeys(t.edge_id for t in transitions)),
            tuple(slots),
        )

    def _forget_user(
        self, command: ForgetCommand, cutoff: datetime | None, also: Sequence[str]
    ) -> ForgetReceipt:
        user = command.user_id
        edges: dict[str, EdgeEvent] = {}
        if cutoff is not None:
            for slot in self._slots.slots(user):
                members = self._slots.members(user, slot)
                for edge in [*members, *self._slots.retractions(user, slot)]:
                    edges[edge.edge_id] = edge
        if cutoff is None or (not also and all(e.ingest_time <= cutoff for e in edges.values())):
            removed = {
                self._facts.name: self._facts.delete_user(user),
                "slot_index": self._slots.delete_user(user),
            }
            return ForgetReceipt(user, None, removed, emptied=True)
        # Facts first, then slot membership: a crash in between leaves slot members the
        # redelivered command finds again; `also` carries the slots to re-resolve.
        erased = {i for i, e in edges.items() if e.ingest_time <= cutoff}
        erased |= {r.edge_id for r in self._facts.scroll(user) if r.edge.ingest_time <= cutoff}
        deleted = self._facts.delete(user, sorted(erased))
        episodes = self._episode_slots(user, sorted(erased))
        left: dict[str, None] = {}  # the slots the erased facts were taken out of
        for edge_id in sorted(erased):
            left.update(dict.fromkeys(self._slots.remove(user, edge_id)))
        touched = {**dict.fromkeys(also), **left, **dict.fromkeys(episodes)}
        slots = self._real_slots(user, list(touched))
        transitions = self._resolve_committed(user, slots, set(), command.issued_at)
        emptied = not self._slots.slots(user)
        if emptied:  # nothing was kept: drop the bookkeeping too
            self._slots.delete_user(user)
            self._facts.delete_user(user)
        return ForgetReceipt(
            user,
            None,
            {self._facts.name: deleted, "slot_index": _count(left)},
            tuple(dict.fromkeys(t.edge_id for t in transitions)),
            tuple(slots),
            emptied,
        )

    def _real_slots(self, user: str, keys: Sequence[str]) -> list[str]:
        """The slots to resolve after removals from `keys` (slot index keys, pseudo-slots
        included): an association's slot is resolved, and so is every slot an edge
        associated with a changed slot may now belong to."""
        slots: list[str] = []
        for key in keys:
            if key.startswith(TO_PREFIX):
                slots.append(key[len(TO_PREFIX) :])
            elif key.startswith(RT_PREFIX):
                slots.append(key[len(RT_PREFIX) :])
            elif key.startswith(NAMED_PREFIX):
                slots.append(key[len(NAMED_PREFIX) :])
            elif not key.startswith(EPISODE_PREFIX) and not is_pseudo(key):
                slots.append(key)
        slots = list(dict.fromkeys(slots))
        slots += self._associations.after_removal(user, slots)
        return list(dict.fromkeys([*slots, *self._retargeting.after_removal(user)]))

    def _episode_slots(self, user: str, edge_ids: Sequence[str]) -> list[str]:
        """The slots of the raw turns that inherit the state of these facts (they must be
        resolved again when the facts go)."""
        return [
            group_key(raw)
            for edge_id in edge_ids
            for raw in self._slots.members(user, EPISODE_PREFIX + edge_id)
        ]

    def user_slots(self, user_id: str) -> list[str]:
        """Every slot of a user (what a whole-user erasure may have to re-resolve)."""
        return [
            s
            for s in self._slots.slots(user_id)
            if not s.startswith(EPISODE_PREFIX) and not is_pseudo(s)
        ]

    def slots_of(self, user_id: str, edge_id: str) -> list[str]:
        """The slots a stored fact takes part in (its own and those it retracts)."""
        found = self._facts.get(user_id, [edge_id])
        if not found:
            return []
        edge = found[0].edge
        return [
            group_key(edge),
            *edge.retracts,
            *self._associations.related_slots(edge),
            *self._retargeting.related_slots(edge),
            *self._naming.related_slots(edge),
        ]

    def members_of(self, user_id: str, slots: Sequence[str]) -> list[str]:
        """Every fact of these slots, and the raw turns that inherit from them."""
        ids: dict[str, None] = {}
        for slot in slots:
            associated = self._associations.associated_with(user_id, slot)
            for member in [*self._slots.members(user_id, slot), *associated]:
                ids[member.edge_id] = None
                for raw in self._slots.members(user_id, EPISODE_PREFIX + member.edge_id):
                    ids[raw.edge_id] = None
        return list(ids)


def _count(slot_keys: Iterable[str]) -> int:
    """Slot memberships a removal reported, association bookkeeping aside."""
    return sum(1 for key in slot_keys if not is_pseudo(key))
