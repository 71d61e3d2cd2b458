"""Ports: what the domain needs from the outside world, as `typing.Protocol`s.

Every port has an in-memory fake in `workers/stores/memory_*.py` used by unit tests instead
of mocks (docs/architecture.md has the table: port → adapters → fake). Every store call
takes a user id: there is no code path that searches across tenants. The distributed
pipeline's own ports (the shared fact store, the delivery ledger) are in
workers/distributed/ports.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from schemas.categories import Category, LifecycleState
from schemas.events import EdgeEvent, LogRecord, TurnEvent
from schemas.records import FactRecord, Lifecycle

if TYPE_CHECKING:
    from workers.extraction.model import ExtractedFact


@dataclass(frozen=True, slots=True)
class SparseVector:
    """BM25 term weights; indices are stable token hashes (see workers/text/bm25.py)."""

    indices: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class TermCounts:
    """The lexical statistics of one user's memory, exact and live (deleted facts are out).

    facts: how many facts the user has in the index (every state);
    containing: for each term asked about, how many of those facts contain it.
    """

    facts: int
    containing: Mapping[int, int]


@dataclass(frozen=True, slots=True)
class IndexedFact:
    """A record ready for the vector index: its dense and BM25 sparse vectors."""

    record: FactRecord
    dense: np.ndarray
    sparse: SparseVector


@dataclass(frozen=True, slots=True)
class Hit:
    """A search result: the record, the source's raw score, and its dense vector.

    The record of a search hit may come without its edge's embedding (it is `dense`).
    `sparse`: the stored term weights, on hits of `search_sparse` (the query path scores
    them exactly itself: workers/query/lexical.py).
    """

    record: FactRecord
    score: float
    dense: np.ndarray | None = None
    sparse: SparseVector | None = None

    @property
    def edge_id(self) -> str:
        return self.record.edge_id


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Restrictions applied inside the store (always on top of the user id).

    states: admit only these stored lifecycle states (None: all).
    ingested_before: hide facts whose ingest time is later (as_of queries; bi-temporal).
    categories: admit only facts whose primary category is one of these (category-forced).
    """

    states: frozenset[LifecycleState] | None = None
    ingested_before: datetime | None = None
    categories: frozenset[Category] | None = field(default=None)


#: What one lifecycle resolution writes: whole records (with their vectors) …
Upserts = Sequence[IndexedFact]
#: … and lifecycle-only changes of stored records, by edge id.
Updates = Mapping[str, Lifecycle]


def records_to_write(
    stored: Callable[[list[str]], list[FactRecord]], upserts: Upserts, updates: Updates
) -> dict[str, FactRecord]:
    """Every record a commit writes: the upserts, and the `stored` records (read by edge id)
    that only change their lifecycle, with the new one."""
    records = {item.record.edge_id: item.record for item in upserts}
    for record in stored([i for i in updates if i not in records]):
        records[record.edge_id] = record.model_copy(update={"lifecycle": updates[record.edge_id]})
    return records


class VectorIndex(Protocol):
    """Facts with a named dense vector, a BM25 term-frequency sparse vector and a payload.

    Implementations: Qdrant Edge (embedded default), Qdrant server via qdrant-client,
    in-memory fake. Raises `StorageError` on backend failure.

    Searches are deterministic: results are ordered by score, then by edge id, and the cut
    at `limit` follows that order, so the same facts give the same hits whatever order they
    were written in. They are exact, except the dense searches of users above the adapter's
    `SearchPlan` size (workers/stores/search_plan.py), which may use an HNSW graph. The
    store applies no statistics of its own to sparse vectors (no IDF modifier): inverse document
    frequencies are the caller's, from `term_counts` over one user's facts
    (docs/architecture.md, "Lexical statistics").
    """

    def upsert(self, user_id: str, items: Sequence[IndexedFact]) -> None:
        """Insert or replace facts (keyed by (user_id, edge_id))."""

    def update_lifecycle(self, user_id: str, updates: Mapping[str, Lifecycle]) -> None:
        """Replace the lifecycle annotations of existing facts; unknown ids are ignored."""

    def get(self, user_id: str, edge_ids: Sequence[str]) -> list[FactRecord]:
        """The records that exist among `edge_ids` (any order)."""

    def delete(self, user_id: str, edge_ids: Sequence[str]) -> int:
        """Remove facts; returns how many existed."""

    def delete_user(self, user_id: str) -> int:
        """Remove every fact of a user; returns how many existed."""

    def search_dense(
        self, user_id: str, vector: np.ndarray, limit: int, flt: SearchFilter,
        *, exact: bool = False,
    ) -> list[Hit]:  # fmt: skip
        """Top `limit` by cosine similarity, best first, with dense vectors. `exact`: never
        the approximate index, whatever the user's size — for a caller whose decision must be
        a function of the stored facts alone, not of the graph's build history."""

    def search_sparse(
        self, user_id: str, sparse: SparseVector, limit: int, flt: SearchFilter
    ) -> list[Hit]:
        """Top `limit` by the sparse dot product with `sparse` (the query's weights: the
        caller's IDF), best first, with dense vectors and the stored sparse vectors."""

    def term_counts(self, user_id: str, terms: Sequence[int]) -> TermCounts:
        """How many facts the user has, and how many of them contain each of `terms`
        (sparse indices), counted over the live facts now."""

    def scroll(self, user_id: str) -> Iterator[FactRecord]:
        """Every fact of a user, any order."""

    def count(self, user_id: str | None = None) -> int:
        """Facts of one user, or of all users when None."""

    def close(self) -> None: ...


@runtime_checkable
class FactStore(Protocol):
    """The lifecycle stage's view of stored facts: reads, and all-or-nothing writes per user.

    `commit` applies every write of one resolution at once, and only if nothing changed
    the user's facts since `snapshot` (optimistic concurrency: two workers racing on one
    user — e.g. during a Kafka rebalance — cannot overwrite each other's newer state; the
    loser re-resolves). Adapters: `DirectFacts` over any `VectorIndex` (single writer),
    `RedisFactStore` (many workers), `InMemoryFactStore` (their fake).

    `name` is the store's name in a forget receipt (`vector_index` when the vector index is
    the record of state, `fact_store` when a shared fact store is): the count is named once,
    where it is made.
    """

    name: str

    def get(self, user_id: str, edge_ids: Sequence[str]) -> list[FactRecord]: ...

    def scroll(self, user_id: str) -> Iterator[FactRecord]:
        """Every stored fact of a user, any order."""

    def snapshot(self, user_id: str) -> int:
        """A token for the user's facts as of now (a version counter)."""

    def commit(self, user_id: str, snapshot: int, upserts: Upserts, updates: Updates) -> bool:
        """Write everything if the user's facts are still at `snapshot`; False otherwise."""

    def delete(self, user_id: str, edge_ids: Sequence[str]) -> int: ...

    def delete_user(self, user_id: str) -> int: ...


@dataclass(frozen=True, slots=True)
class SlotEntry:
    """One write of `SlotIndex.add_many`: `edge` as a member of `slot_key`, or (retraction)
    as a retraction of it."""

    slot_key: str
    edge: EdgeEvent
    retraction: bool = False


@dataclass(frozen=True, slots=True)
class SlotEdges:
    """A slot's members and retractions, each sorted by (ingest_time, edge_id)."""

    members: list[EdgeEvent]
    retractions: list[EdgeEvent]


class SlotIndex(Protocol):
    """Per-user slot membership: which edges compete in a slot, and its retractions.

    `add` is atomic (Redis: one Lua script) and idempotent on edge_id; the returned version
    increases with every change of the slot so that writers can discard stale resolutions.
    """

    def add(self, user_id: str, slot_key: str, edge: EdgeEvent) -> tuple[int, list[EdgeEvent]]:
        """Add `edge` to the slot; returns (version, every member including it)."""

    def add_retraction(
        self, user_id: str, slot_key: str, edge: EdgeEvent
    ) -> tuple[int, list[EdgeEvent]]:
        """Record that `edge` retracts the slot; returns (version, every retraction)."""

    def members(self, user_id: str, slot_key: str) -> list[EdgeEvent]: ...

    def retractions(self, user_id: str, slot_key: str) -> list[EdgeEvent]: ...

    def add_many(self, user_id: str, entries: Sequence[SlotEntry]) -> None:
        """`add`/`add_retraction` of every entry, in order, in one call (the bulk path: one
        transaction, one round trip); the same idempotence and version bumps."""

    def read_many(self, user_id: str, slot_keys: Sequence[str]) -> dict[str, SlotEdges]:
        """Members and retractions of each slot (an entry for every key, empty if none)."""

    def remove(self, user_id: str, edge_id: str) -> list[str]:
        """Remove an edge from every slot (as member and as retraction); returns slot keys."""

    def delete_user(self, user_id: str) -> int:
        """Remove every slot of a user; returns how many keys were removed."""

    def slots(self, user_id: str) -> list[str]: ...

    def close(self) -> None: ...


class EventLog(Protocol):
    """The append-only source of truth. `read` yields records in append order."""

    def append(self, records: Sequence[LogRecord]) -> None: ...

    def read(self) -> Iterator[LogRecord]:
        """All intact records; a torn last record is skipped with a warning."""

    def redact(self, keep: Callable[[LogRecord], bool]) -> int:
        """Rewrite the log keeping only records for which `keep` is true (erasure)."""

    def close(self) -> None: ...


class DeadLetters(Protocol):
    """Where rejected input goes, with the reason: nothing is dropped silently."""

    def put(self, source: str, position: str, reason: str, raw: str) -> None: ...

    def redact_user(self, user_id: str) -> int:
        """Drop the letters of a user's input (erasure); returns how many."""


class Embedder(Protocol):
    """Text to L2-normalized float32 vectors of shape (n, dim). Raises `EmbeddingError`."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class FactExtractor(Protocol):
    """Turn → classified facts (rule extractor or LLM). Raises `ExtractionError`.

    `context` is the recent turns of the same session, oldest first (for references
    such as "scrap it"). Assistant turns yield no facts: memory is what the user said.
    """

    def extract(self, turn: TurnEvent, context: Sequence[TurnEvent]) -> list[ExtractedFact]: ...


class TurnContext(Protocol):
    """What extraction remembers of a session: its recent turns (for references such as
    "scrap it") and, for redeliveries, what a turn already yielded.

    Adapters: `InMemoryTurnContext` (embedded; the fake), `RedisTurnContext` (shared by the
    extraction workers). Raises `StorageError` on backend failure.
    """

    def recent(self, turn: TurnEvent) -> list[TurnEvent]:
        """The session's turns before `turn`, oldest first — also when `turn` is delivered
        again after later turns were added, so that its extraction does not change."""

    def add(self, turn: TurnEvent) -> None:
        """Append a turn to its session once (a redelivered turn is not added again)."""

    def extracted(self, turn: TurnEvent) -> list[ExtractedFact] | None:
        """What an earlier delivery of this turn extracted (None: not seen, or not kept)."""

    def remember_extracted(self, turn: TurnEvent, facts: list[ExtractedFact]) -> None: ...

    def forget_user(self, user_id: str) -> None:
        """Drop the user's words kept as context (erasure reaches every store)."""
