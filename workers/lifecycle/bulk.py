"""The lifecycle stage in bulk: a batch of edges, each touched slot resolved once.

A slot's state is a function of the set of its edges (docs/architecture.md, "Lifecycle
state"), so applying a batch one edge at a time — each `apply` re-reading and re-resolving
its slot — and adding the whole batch to the slot index and then resolving every touched
slot once end in the same records. The bulk path does the latter with the *same*
resolution code (`LifecycleService.resolve_once`), over views that serve what it reads
from data fetched in a few calls:

* the slot index: `SlotIndex.add_many` writes the batch's memberships in one call
  (one SQLite transaction), `read_many` reads the touched slots, the episode links of their
  members and the raw turns' slots back in three;
* the fact store: each record is read once per batch (`_ReadOnce`), and every write of a
  user is one commit (one vector-index upsert, one Redis script).

Where the one-by-one path could decide differently, the user's batch is handed back
(`UserBatch.transitions is None`) for the caller to apply one by one:

* a member of a touched slot that is neither stored nor in the batch (compaction archived
  it): whether it comes back depends on the time of the edge that resolves the slot;
* an edge id twice in the batch, or in the batch and in the store, with different content
  (the first copy wins in the slot index, but which slot resolves last decides its record);
* an edge without an embedding, a store failure, or another writer committing for the
  user meanwhile (the one-by-one path reports, retries and re-reads).

Transitions are the batch's net changes (a fact new in the batch and superseded by a later
one in it is `new->superseded`, where the one-by-one path reports `new->active` then
`active->superseded`).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from schemas.events import EdgeEvent
from schemas.policy import Policy
from schemas.records import FactRecord
from workers.errors import FRError
from workers.lifecycle.association import ANCHORS, TO_PREFIX, Associations, is_free, is_pseudo
from workers.lifecycle.change_naming import CHANGES, NAMED_PREFIX, ChangeNaming
from workers.lifecycle.episodes import EPISODE_PREFIX
from workers.lifecycle.facts import fact_store
from workers.lifecycle.retargeting import RETRACTIONS, RT_PREFIX, Retargeting
from workers.lifecycle.rules import group_key
from workers.lifecycle.service import LifecycleService, Transition
from workers.ports import (
    FactStore,
    SlotEdges,
    SlotEntry,
    SlotIndex,
    SparseVector,
    Updates,
    Upserts,
    VectorIndex,
)
from workers.text import bm25


@dataclass(frozen=True, slots=True)
class UserBatch:
    """One user's edges of a batch, in input order; `transitions` None: not applied, the
    caller must apply them one by one (see the module docstring for when)."""

    user_id: str
    edges: list[EdgeEvent]
    transitions: list[Transition] | None
    #: Every fact whose record the batch wrote (what an indexer must read again).
    written: list[str] = field(default_factory=list)
    #: The batch's edges that were stored before it (redeliveries).
    existed: frozenset[str] = frozenset()


class BulkLifecycle:
    """Applies batches of edges to the same stores a `LifecycleService` writes."""

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

    def apply(self, edges: Sequence[EdgeEvent]) -> list[UserBatch]:
        """Apply `edges`, user by user (users are independent: every store is per user)."""
        by_user: dict[str, list[EdgeEvent]] = {}
        for edge in edges:
            by_user.setdefault(edge.user_id, []).append(edge)
        out = []
        for user, batch in by_user.items():
            done = self._apply_user(user, batch)
            if done is None:
                out.append(UserBatch(user, batch, None))
            else:
                out.append(UserBatch(user, batch, *done))
        return out

    def _apply_user(
        self, user: str, batch: list[EdgeEvent]
    ) -> tuple[list[Transition], list[str], frozenset[str]] | None:
        unique: dict[str, EdgeEvent] = {}
        for edge in batch:
            if edge.embedding is None:
                return None
            first = unique.setdefault(edge.edge_id, edge)
            if first is not edge and first != edge:
                return None
        try:
            return self._resolve(user, unique)
        except FRError:
            return None

    def _resolve(
        self, user: str, unique: dict[str, EdgeEvent]
    ) -> tuple[list[Transition], list[str], frozenset[str]] | None:
        entries: list[SlotEntry] = []
        touched: dict[str, None] = {}
        for edge in unique.values():  # the order and the entries of `LifecycleService.apply`
            entries += [SlotEntry(EPISODE_PREFIX + f, edge) for f in edge.episodic_of]
            entries.append(SlotEntry(group_key(edge), edge))
            entries += [SlotEntry(t, edge, retraction=True) for t in edge.retracts]
            touched.update(dict.fromkeys([group_key(edge), *edge.retracts]))
        facts = _ReadOnce(self._facts, user)  # the snapshot, before anything is read
        self._slots.add_many(user, entries)
        # Association (workers/lifecycle/association.py) records each edge as `apply` does,
        # in the same order; its lists are read once and written at once for the batch.
        bookkeeping = _Bookkeeping(self._slots, user)
        associations = Associations(bookkeeping, self._policy)
        for edge in unique.values():
            touched.update(dict.fromkeys(associations.on_apply(edge)))
        # So does retraction retargeting (workers/lifecycle/retargeting.py): a target is a
        # function of the edges ingested before the retraction, whichever came first here;
        # a late edge's effect on it is judged against the edges from before the batch.
        retargeting = Retargeting(bookkeeping, self._policy, batch=unique.keys())
        for edge in unique.values():
            touched.update(dict.fromkeys(retargeting.on_apply(edge)))
        # And change statements naming earlier free edges (workers/lifecycle/change_naming.py).
        naming = ChangeNaming(bookkeeping, self._policy, associations)
        for edge in unique.values():
            touched.update(dict.fromkeys(naming.on_apply(edge)))
        bookkeeping.flush()
        # What the resolution reads, fetched in a few round trips (each slot's association
        # list and retargeted retractions too: one round trip per key otherwise).
        view = _SlotView(self._slots, user)
        view.load([ANCHORS, *_side_lists(touched)])
        view.fetch(list(touched))
        links = view.fetch([EPISODE_PREFIX + m.edge_id for m in view.all_members()])
        raw_slots = [group_key(raw) for raw in links]
        view.load([*raw_slots, *_side_lists(raw_slots)])
        if any(view.members(user, RT_PREFIX + s) for s in [*touched, *raw_slots]):
            view.fetch_edge_slots()  # retargeting re-checks those targets over every edge
        # What change naming reads for each free member it resolves, in the same call.
        view.load([NAMED_PREFIX + group_key(m) for m in view.all_members() if is_free(m)])
        needed = [m.edge_id for m in view.all_members()]
        stored = {r.edge_id: r.edge for r in facts.get(user, needed)}
        if any(i not in stored and i not in unique for i in needed):
            return None  # an archived member: the one-by-one path decides by time
        if any(stored.get(i, e) != e for i, e in unique.items()):
            return None  # an id stored with other content: which slot wins is order's
        service = LifecycleService(view, facts, self._policy, self._sparse)
        now = max(e.ingest_time for e in unique.values())
        done = service.resolve_once(user, list(touched), set(unique), now)
        return None if done is None else (*done, frozenset(unique).intersection(stored))


class _SlotView:
    """A `SlotIndex` whose reads of fetched slots come from memory; the rest go through."""

    def __init__(self, base: SlotIndex, user: str) -> None:
        self._base = base
        self._user = user
        self._known: dict[str, SlotEdges] = {}

    def fetch(self, keys: Sequence[str]) -> list[EdgeEvent]:
        """Read these slots in one call; returns their members."""
        self.load(keys)
        return [m for k in dict.fromkeys(keys) for m in self._known[k].members]

    def load(self, keys: Sequence[str]) -> None:
        """Read the slots not read yet, in one call (`fetch` without the members: a big
        user's anchor list is tens of thousands of edges, read on every match)."""
        missing = [k for k in dict.fromkeys(keys) if k not in self._known]
        if missing:
            self._known.update(self._base.read_many(self._user, missing))

    def fetch_edge_slots(self) -> None:
        """Read every slot holding the user's edges in one call (keyed and `~text:` ones;
        not association lists nor episodes): what `Retargeting` reads, one by one, to
        find a retraction's target."""
        self.fetch(
            [
                s
                for s in self.slots(self._user)
                if not is_pseudo(s) and not s.startswith(EPISODE_PREFIX)
            ]
        )

    def all_members(self) -> Iterator[EdgeEvent]:
        """The members of every fetched slot, and the edges associated with them: every
        fact a resolution of these slots may write."""
        for key, slot in self._known.items():
            if key.startswith(TO_PREFIX) or not (key.startswith(EPISODE_PREFIX) or is_pseudo(key)):
                yield from slot.members

    def _slot(self, user_id: str, slot_key: str) -> SlotEdges:
        if user_id == self._user:  # read once: nothing writes through the view meanwhile
            self.load([slot_key])
            return self._known[slot_key]
        return SlotEdges(
            self._base.members(user_id, slot_key), self._base.retractions(user_id, slot_key)
        )

    def members(self, user_id: str, slot_key: str) -> list[EdgeEvent]:
        return self._slot(user_id, slot_key).members

    def retractions(self, user_id: str, slot_key: str) -> list[EdgeEvent]:
        return self._slot(user_id, slot_key).retractions

    def read_many(self, user_id: str, slot_keys: Sequence[str]) -> dict[str, SlotEdges]:
        if user_id == self._user:
            self.load(slot_keys)  # the missing ones in one call, not one each
        return {k: self._slot(user_id, k) for k in slot_keys}

    # Writes never go through the view: the bulk path writes before it resolves.
    def add(self, user_id: str, slot_key: str, edge: EdgeEvent) -> tuple[int, list[EdgeEvent]]:
        raise AssertionError("read-only view")

    def add_retraction(
        self, user_id: str, slot_key: str, edge: EdgeEvent
    ) -> tuple[int, list[EdgeEvent]]:
        raise AssertionError("read-only view")

    def add_many(self, user_id: str, entries: Sequence[SlotEntry]) -> None:
        raise AssertionError("read-only view")

    def remove(self, user_id: str, edge_id: str) -> list[str]:
        raise AssertionError("read-only view")

    def delete_user(self, user_id: str) -> int:
        raise AssertionError("read-only view")

    def slots(self, user_id: str) -> list[str]:
        return self._base.slots(user_id)

    def close(self) -> None:
        """The base index is the caller's."""


class _Bookkeeping(_SlotView):
    """The slot index as association's bookkeeping sees it during one batch
    (`Associations.on_apply`): each list it reads is read once, what it adds is kept here
    (`flush` writes it all with one `add_many`), and reads see those additions — the same
    answers, in the same order, as one `add` per call would give."""

    def __init__(self, base: SlotIndex, user: str) -> None:
        super().__init__(base, user)
        self.load([ANCHORS, RETRACTIONS, CHANGES])  # every batch's lists, in one call
        self._pending: list[SlotEntry] = []
        self._keys: set[str] | None = None  # the user's slot keys, with the new ones
        self._sorted: list[str] = []  # `_keys` in order
        self._ids: dict[str, set[str]] = {}  # the member ids of the slots added to

    def add(self, user_id: str, slot_key: str, edge: EdgeEvent) -> tuple[int, list[EdgeEvent]]:
        if user_id != self._user:
            raise ValueError(f"edge {edge.edge_id!r} belongs to another user than {self._user!r}")
        self.load([slot_key])
        slot = self._known[slot_key]
        ids = self._ids.get(slot_key)
        if ids is None:
            ids = self._ids[slot_key] = {m.edge_id for m in slot.members}
        if edge.edge_id not in ids:  # the first copy wins
            ids.add(edge.edge_id)
            # A new list (readers may hold the old one: association prepares anchor lists by
            # identity), in `sort_edges` order without sorting it again: a big user's anchor
            # list is tens of thousands of edges.
            members = list(slot.members)
            insort(members, edge, key=_order)
            self._known[slot_key] = SlotEdges(members, slot.retractions)
            self._pending.append(SlotEntry(slot_key, edge))
            if self._keys is not None and slot_key not in self._keys:
                self._keys.add(slot_key)
                insort(self._sorted, slot_key)
        return 0, self._known[slot_key].members  # the version: unused by the bookkeeping

    def slots(self, user_id: str) -> list[str]:
        if user_id != self._user:
            return self._base.slots(user_id)
        if self._keys is None:
            self._keys = {*self._base.slots(user_id), *(e.slot_key for e in self._pending)}
            self._sorted = sorted(self._keys)
        return list(self._sorted)  # kept sorted as keys come: a big user has thousands

    def flush(self) -> None:
        self._base.add_many(self._user, self._pending)
        self._pending = []


def _side_lists(slots: Iterable[str]) -> list[str]:
    """The association list and the retargeted retractions of each slot."""
    return [k for slot in slots for k in (TO_PREFIX + slot, RT_PREFIX + slot)]


def _order(edge: EdgeEvent) -> tuple[datetime, str]:
    return (edge.ingest_time, edge.edge_id)  # `sort_edges`'s key


class _ReadOnce:
    """A `FactStore` that reads each record (or its absence) once; writes go through.

    Its snapshot is taken before the first read, so that a commit fails (and the caller
    falls back) if another writer changed the user's facts after anything was read."""

    def __init__(self, base: FactStore, user_id: str) -> None:
        self._base = base
        self.name = base.name
        self._snapshot = base.snapshot(user_id)
        self._cache: dict[tuple[str, str], FactRecord | None] = {}

    def get(self, user_id: str, edge_ids: Sequence[str]) -> list[FactRecord]:
        missing = [i for i in dict.fromkeys(edge_ids) if (user_id, i) not in self._cache]
        if missing:
            found = {r.edge_id: r for r in self._base.get(user_id, missing)}
            for edge_id in missing:
                self._cache[(user_id, edge_id)] = found.get(edge_id)
        records = (self._cache[(user_id, i)] for i in edge_ids)
        return [r for r in records if r is not None]

    def scroll(self, user_id: str) -> Iterator[FactRecord]:
        return self._base.scroll(user_id)

    def snapshot(self, user_id: str) -> int:
        return self._snapshot

    def commit(self, user_id: str, snapshot: int, upserts: Upserts, updates: Updates) -> bool:
        self._cache.clear()
        return self._base.commit(user_id, snapshot, upserts, updates)

    def delete(self, user_id: str, edge_ids: Sequence[str]) -> int:
        self._cache.clear()
        return self._base.delete(user_id, edge_ids)

    def delete_user(self, user_id: str) -> int:
        self._cache.clear()
        return self._base.delete_user(user_id)


def apply_all(
    bulk: BulkLifecycle, exact: Callable[[EdgeEvent], object], edges: Sequence[EdgeEvent]
) -> None:
    """Apply `edges` in bulk, and one by one (`exact`) the users the bulk path hands back."""
    for batch in bulk.apply(edges):
        if batch.transitions is None:
            for edge in batch.edges:
                exact(edge)
