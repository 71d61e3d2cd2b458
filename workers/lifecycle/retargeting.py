"""A retraction whose slot the user never filled retracts what the user named instead (issue 11).

A retraction names a slot ("scrap the ubc exchange" → `project.exchange`), guessed from the
words of its target when the plan is not in the conversation's recent context. Said in
another session than the plan, the guess rarely matches the slot the plan was given
(`project.ubc`), or the plan was never extracted at all and only its raw turn is kept
("I'm drafting a book proposal …"): the retraction retracted nothing and the cancelled plan
stayed current (paper AV7, selective forgetting, fails).

Here a retraction is *unresolved* when none of the slots it names has a member ingested
before it. It then retracts the user's earlier edge that (a) says the head (last content
word) of one of those slots' names — the thing the user named, not a word that only says
which one: "forget about the second shop" does not reach "back in a second" — and (b) is
the most similar to it among those (cosine of the stored embeddings ≥
`association.retraction_cosine`; ties go to the smaller slot, then edge id). The edge's
slot is retracted as by any retraction (a keyed slot: its members before the retraction; a
raw turn: that turn).

Like slot association this is a function of the edge set: the target of a retraction depends
only on the user's edges ingested before it. The bookkeeping (pseudo-slots of the slot
index): every retraction of the user (`RETRACTIONS`), and per slot the retractions that may
target it (`RT_PREFIX`; a cache, re-checked whenever the slot is resolved).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from schemas.categories import Category
from schemas.events import EdgeEvent
from schemas.policy import Policy
from workers.lifecycle.association import PSEUDO_PREFIX, is_pseudo
from workers.lifecycle.rules import group_key
from workers.ports import SlotIndex
from workers.text.heads import words_by_head

RETRACTIONS = PSEUDO_PREFIX + "retractions"
RT_PREFIX = PSEUDO_PREFIX + "rt:"
#: Slot-name words that name no thing: category prefixes and plan words.
_GENERIC = frozenset(
    ("project", "plan", "idea", "thing", "stuff", "trip", "travel", "pet", "event", "me", "the")
)

#: Nouns of a user's tie to a thing, not the thing: "cancelled the gym membership" gives up
#: the gym (the money family keys "gym membership" as `user.gym` for the same reason,
#: `patterns_money.py`), and the earlier turn about the habit says "gym", rarely
#: "membership". Dropped when they end a name of several words, as change naming drops
#: container nouns (`change_naming._CONTAINERS`).
_TIES = frozenset(("membership", "subscription", "contract"))


@dataclass(frozen=True, slots=True)
class Target:
    """The slot an unresolved retraction retracts, the edge it matched, and how closely."""

    slot: str
    edge: EdgeEvent
    score: float


def named_things(retraction: EdgeEvent) -> list[tuple[str, ...]]:
    """The content words of each slot a retraction names, its head last
    (`project.ubc_exchange` → (ubc, exchange)): what the user said they are dropping."""
    out: list[tuple[str, ...]] = []
    tied: set[str] = set()  # tie nouns said after the thing they tie to
    for slot in retraction.retracts:
        stems = (_stem(w) for w in re.split(r"[._\s-]+", slot.lower())[1:] if w)
        words = tuple(w for w in stems if len(w) > 2 and w not in _GENERIC)
        while len(words) > 1 and words[-1] in _TIES:
            tied.add(words[-1])
            words = words[:-1]  # "the gym membership" names the gym
        if words:
            out.append(words)
    # `project.membership` beside `project.gym_membership` is the same name, less of it
    return [w for w in out if w not in {(t,) for t in tied}]


def named_words(retraction: EdgeEvent) -> set[str]:
    """Every content word of the slots a retraction names (`named_things`)."""
    return {w for words in named_things(retraction) for w in words}


def _names(things: list[tuple[str, ...]], edge: EdgeEvent) -> bool:
    """Whether an earlier edge is one of the things a retraction names: it says the head of
    one ("forget about the second shop" names a turn about a shop, not one that says "back
    in a second"; `workers/text/heads.py`, as change naming does)."""
    return bool(words_by_head(things, _edge_words(edge)))


def _words(text: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[a-z0-9]+", text.lower())}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def is_candidate(edge: EdgeEvent, retraction: EdgeEvent) -> bool:
    """An earlier edge of the user a retraction may take back: not a retraction, not from
    the retraction's own turn, and not a raw turn that follows its extracted facts."""
    return (
        edge.user_id == retraction.user_id
        and not edge.retracts
        and not edge.quarantined
        and edge.embedding is not None
        and retraction.embedding is not None
        and edge.embedding.model == retraction.embedding.model
        and not (edge.episodic and edge.episodic_of)
        and not set(edge.source_turns) & set(retraction.source_turns)
        and (edge.ingest_time, edge.edge_id) < (retraction.ingest_time, retraction.edge_id)
    )


def _stable_identity(edge: EdgeEvent) -> bool:
    """A keyed, undated Identity fact — a profession, a home town, a first language: who the
    user is (Table 1 row 1: identity, no decay; it changes by a new statement of the same
    slot, A.7.1). A retraction that names no slot it fills is a plan given up, guessed from
    its words; it never takes back who the user is ("up at dawn whenever a job is cancelled"
    names a job, not the user's trade; round 25). A dated one (a job about to start) is a
    plan, and stays a target."""
    if edge.slot_key is None or edge.event_time is not None or not edge.categories:
        return False
    primary = max(edge.categories.items(), key=lambda kv: kv[1])[0]
    return primary is Category.IDENTITY_SELF_CONCEPT


def _edge_words(edge: EdgeEvent) -> frozenset[str]:
    return _text_words(edge.text, edge.slot_key)


@functools.lru_cache(maxsize=1 << 17)
def _text_words(text: str, slot_key: str | None) -> frozenset[str]:
    """Kept: a user's edges are indexed by word again in every batch with a retraction."""
    return frozenset(_words(text) | _words((slot_key or "").replace(".", " ")))


def find_target(retraction: EdgeEvent, edges: Sequence[EdgeEvent], policy: Policy) -> Target | None:
    """The slot an unresolved `retraction` retracts, if any (`edges`: the user's edges)."""
    if not retraction.retracts or retraction.embedding is None:
        return None
    earlier = [e for e in edges if is_candidate(e, retraction)]
    if any(group_key(e) in retraction.retracts for e in earlier):
        return None  # resolved: the slot it names has members before it
    things = named_things(retraction)
    named = sorted(
        {e.edge_id: e for e in earlier if _names(things, e) and not _stable_identity(e)}.values(),
        key=lambda e: (e.ingest_time, e.edge_id),
    )
    return _closest(retraction, named, policy)


class UserEdges:
    """A user's edges (`Retargeting._edges`) indexed by slot and by word, for
    `find_target_indexed`: a retraction then reads the edges it may concern, not them all
    (a big user has tens of thousands)."""

    def __init__(self, edges: Sequence[EdgeEvent]) -> None:
        self.edges = list(edges)
        self.by_slot: dict[str, list[EdgeEvent]] = {}
        self.by_word: dict[str, list[EdgeEvent]] = {}
        for edge in self.edges:
            self.by_slot.setdefault(group_key(edge), []).append(edge)
            for word in _edge_words(edge):
                self.by_word.setdefault(word, []).append(edge)


def find_target_indexed(retraction: EdgeEvent, edges: UserEdges, policy: Policy) -> Target | None:
    """`find_target` over indexed edges: the same target, from the edges of the slots the
    retraction names and of the words it names only."""
    if not retraction.retracts or retraction.embedding is None:
        return None
    for slot in retraction.retracts:
        if any(is_candidate(e, retraction) for e in edges.by_slot.get(slot, ())):
            return None  # resolved: the slot it names has members before it
    things = named_things(retraction)
    named = sorted(
        {
            e.edge_id: e
            for head in sorted({words[-1] for words in things})
            for e in edges.by_word.get(head, ())
            if is_candidate(e, retraction) and _names(things, e) and not _stable_identity(e)
        }.values(),
        key=lambda e: (e.ingest_time, e.edge_id),
    )
    return _closest(retraction, named, policy)


def _closest(retraction: EdgeEvent, named: list[EdgeEvent], policy: Policy) -> Target | None:
    """The most similar of `named` (canonical order), if similar enough."""
    assert retraction.embedding is not None
    if not named:
        return None
    matrix = np.stack([e.embedding.to_array() for e in named if e.embedding is not None])
    # float64, rounded: a float32 product gives identical rows different low-order bits by
    # their position in the matrix (BLAS blocking), so a tie went to whichever row the kernel
    # favoured and replay on another CPU could differ from live (review r16, M2).
    scores = np.round(
        matrix.astype(np.float64) @ retraction.embedding.to_array().astype(np.float64), 6
    )
    score, best = min(
        zip(scores.tolist(), named, strict=True),
        key=lambda pair: (-pair[0], group_key(pair[1]), pair[1].edge_id),
    )
    if score < policy.association.retraction_cosine:
        return None
    return Target(group_key(best), best, float(score))


class Retargeting:
    """The unresolved-retraction bookkeeping of one `LifecycleService` over its slot index."""

    def __init__(
        self, slots: SlotIndex, policy: Policy, *, batch: Collection[str] | None = None
    ) -> None:
        """`batch`: the ids of the edges applied together (the bulk path's bookkeeping,
        workers/lifecycle/bulk.py). They are all in the slot index before this instance
        runs, and it adds to pseudo-slots only: the user's edges do not change while it is
        used, so they are read and indexed once per user. None: one edge at a time."""
        self._slots = slots
        self._policy = policy
        self._fixed: dict[str, UserEdges] | None = None if batch is None else {}
        self._batch = frozenset(batch or ())
        self._prior: dict[str, list[EdgeEvent]] = {}
        #: In a batch, a retraction's targets over the user's edges and over those before the
        #: batch are the same for every late edge: computed once (review r16, M1: a backfill
        #: of B edges before R retractions cost B·R·N).
        self._moves: dict[tuple[str, str], tuple[Target | None, Target | None]] = {}

    def _edges(self, user: str) -> list[EdgeEvent]:
        return self._indexed(user).edges

    def _indexed(self, user: str) -> UserEdges:
        if self._fixed is not None and user in self._fixed:
            return self._fixed[user]
        # Every edge is in its own slot (keyed or `~text:`); `~episode:` slots repeat raw turns.
        keys = [
            s for s in self._slots.slots(user) if not is_pseudo(s) and not s.startswith("~episode:")
        ]
        found: dict[str, EdgeEvent] = {}
        for slot in self._slots.read_many(user, keys).values():
            for edge in slot.members:
                found.setdefault(edge.edge_id, edge)
        indexed = UserEdges(list(found.values()))
        if self._fixed is not None:
            self._fixed[user] = indexed
        return indexed

    def target(
        self, retraction: EdgeEvent, edges: Sequence[EdgeEvent] | None = None
    ) -> Target | None:
        if edges is not None:
            return find_target(retraction, edges, self._policy)
        if self._resolved(retraction):
            return None
        return find_target_indexed(retraction, self._indexed(retraction.user_id), self._policy)

    def _resolved(self, retraction: EdgeEvent) -> bool:
        """`find_target`'s first test from the slots the retraction names alone (a keyed
        slot's members are the edges whose slot it is): most retractions name a slot that
        has members, and need not read the user's other edges."""
        named = [
            s for s in retraction.retracts if not is_pseudo(s) and not s.startswith("~episode:")
        ]
        if len(named) != len(retraction.retracts):
            return False  # not a plain slot: the whole test decides
        slots = self._slots.read_many(retraction.user_id, named)
        return any(is_candidate(e, retraction) for s in slots.values() for e in s.members)

    def on_apply(self, edge: EdgeEvent) -> list[str]:
        """Record `edge`; returns the slots whose state a retraction's new target changes."""
        user = edge.user_id
        if edge.retracts:
            self._slots.add(user, RETRACTIONS, edge)
            found = self.target(edge)
            if found is None:
                return []
            self._slots.add(user, RT_PREFIX + found.slot, edge)
            return [found.slot]
        # A late edge (ingested before a retraction delivered earlier) may change its target.
        retractions = self._slots.members(user, RETRACTIONS)
        key = (edge.ingest_time, edge.edge_id)
        # In (ingest_time, edge_id) order: the later ones are a suffix (usually empty).
        if not retractions or (retractions[-1].ingest_time, retractions[-1].edge_id) <= key:
            return []
        later = [r for r in retractions if (r.ingest_time, r.edge_id) > key]
        edges = self._edges(user)
        without = self._edges_before(user, edge)
        touched: list[str] = []
        for retraction in later:
            now, before = self._targets(retraction, edges, without)
            moved = _slot(now) != _slot(before)
            if now is not None and (moved or self._fixed is not None):
                # In a batch `before` may not be the target the store holds (see
                # `_edges_before`): the retraction is listed under its target now anyway.
                self._slots.add(user, RT_PREFIX + now.slot, retraction)
            if moved:
                touched += [s for s in (_slot(now), _slot(before)) if s]
        return touched

    def _targets(
        self, retraction: EdgeEvent, edges: list[EdgeEvent], without: list[EdgeEvent]
    ) -> tuple[Target | None, Target | None]:
        """`retraction`'s target over `edges` and over `without` (once per batch)."""
        if self._fixed is None:
            return self.target(retraction, edges), self.target(retraction, without)
        key = (retraction.user_id, retraction.edge_id)
        if key not in self._moves:
            self._moves[key] = (self.target(retraction, edges), self.target(retraction, without))
        return self._moves[key]

    def _edges_before(self, user: str, edge: EdgeEvent) -> list[EdgeEvent]:
        """The user's edges before `edge` arrived, over which a later retraction's target
        is compared with its target now: one by one, every edge but it; in a batch, every
        edge but the batch's (they arrive at once). Every edge but `edge` alone would still
        hold the rest of the batch: two edges of one new target would each hide the other's
        move, and the stored retraction would neither reach its new target nor leave its
        old one — a state no delivery order gives (tests/unit/test_bulk_lifecycle.py).

        A batch's redelivered edges were there before it, so the target before may differ
        from the one the store holds; then that one is a redelivered edge's slot (leaving
        out edges other than the closest keeps the closest), and a new target is a batch
        edge's slot: the batch resolves both anyway. What it needs besides is the retraction
        listed under its target now, which `on_apply` does."""
        if self._fixed is None:
            return [e for e in self._edges(user) if e.edge_id != edge.edge_id]
        if user not in self._prior:
            self._prior[user] = [e for e in self._edges(user) if e.edge_id not in self._batch]
        return self._prior[user]

    def retractions(self, user: str, slot: str) -> list[EdgeEvent]:
        """The unresolved retractions that currently retract `slot`."""
        if is_pseudo(slot):
            return []
        cached = self._slots.members(user, RT_PREFIX + slot)
        if not cached:
            return []
        edges = self._indexed(user)
        out = []
        for retraction in cached:
            found = find_target_indexed(retraction, edges, self._policy)
            if found is not None and found.slot == slot:
                out.append(retraction)
        return out

    def related_slots(self, edge: EdgeEvent) -> list[str]:
        found = self.target(edge) if edge.retracts else None
        return [found.slot] if found else []

    def after_removal(self, user: str) -> list[str]:
        """Slots to resolve again after a forget: every retraction's current target."""
        retractions = self._slots.members(user, RETRACTIONS)
        if not retractions:
            return []
        edges = self._indexed(user)
        touched: list[str] = []
        for retraction in retractions:
            found = find_target_indexed(retraction, edges, self._policy)
            if found is not None:
                self._slots.add(user, RT_PREFIX + found.slot, retraction)
                touched.append(found.slot)
        return touched


def _slot(target: Target | None) -> str | None:
    return target.slot if target else None
