"""Persistent in-process `SlotIndex` for the embedded deployment (stdlib sqlite3).

Same contract as `InMemorySlotIndex` and `RedisSlotIndex` (one contract suite runs against
all three). Each call is one transaction, so a crash never leaves a half-applied change;
WAL mode keeps readers and the single writer apart.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from pathlib import Path

from schemas.events import EdgeEvent
from workers.errors import StorageError
from workers.ports import SlotEdges, SlotEntry
from workers.stores.memory_slots import check_args, sort_edges
from workers.stores.slot_cache import MIN_EDGES, SlotCache

_SCHEMA = """
CREATE TABLE IF NOT EXISTS slot_edges (
    user_id TEXT NOT NULL, slot_key TEXT NOT NULL, kind INTEGER NOT NULL,
    edge_id TEXT NOT NULL, ingest_time TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (user_id, slot_key, kind, edge_id)
);
CREATE INDEX IF NOT EXISTS slot_edges_by_edge ON slot_edges (user_id, edge_id);
CREATE TABLE IF NOT EXISTS slot_versions (
    user_id TEXT NOT NULL, slot_key TEXT NOT NULL, version INTEGER NOT NULL,
    PRIMARY KEY (user_id, slot_key)
);
"""
_MEMBER, _RETRACTION = 0, 1
#: Edges kept parsed (`SqliteSlotIndex._parse`): ~4 KB each with their JSON.
PARSED_CACHE = 8192
#: Slot keys per `IN (…)` query (SQLite's default limit of host parameters is 32,766).
_KEYS_PER_QUERY = 500


def _ingest_key(edge: EdgeEvent) -> str:
    # Fixed-width UTC ISO strings sort chronologically.
    return edge.ingest_time.strftime("%Y-%m-%dT%H:%M:%S.%f")


class SqliteSlotIndex:
    """Slot membership in one SQLite file inside the data dir."""

    def __init__(self, path: Path, *, cache_min_edges: int = MIN_EDGES) -> None:
        self._path = path
        self._lock = threading.Lock()
        #: Recently read or written edges by their JSON text (LRU): slots are read again and
        #: again (a slot on every edge that joins it, a user's association anchors on every
        #: free edge), and parsing an edge with its embedding costs more than the query.
        self._parsed: OrderedDict[str, EdgeEvent] = OrderedDict()
        #: Big slots kept parsed between reads (workers/stores/slot_cache.py), valid while
        #: no other connection commits (`data_version`).
        self._cache = SlotCache(min_edges=cache_min_edges)
        self._data_version: int | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise StorageError("slot index", "open", f"{path}: {exc}") from exc

    def _bump(self, user_id: str, slot_key: str) -> None:
        self._db.execute(
            "INSERT INTO slot_versions VALUES (?, ?, 1) ON CONFLICT (user_id, slot_key) "
            "DO UPDATE SET version = version + 1",
            (user_id, slot_key),
        )

    def _version(self, user_id: str, slot_key: str) -> int:
        row = self._db.execute(
            "SELECT version FROM slot_versions WHERE user_id = ? AND slot_key = ?",
            (user_id, slot_key),
        ).fetchone()
        return int(row[0]) if row else 0

    def _current(self) -> None:
        """Clear the cache if another connection committed since the last look."""
        (version,) = self._db.execute("PRAGMA data_version").fetchone()
        if version != self._data_version:
            self._cache.clear()
            self._data_version = int(version)

    def _edges(self, user_id: str, slot_key: str, kind: int) -> list[EdgeEvent]:
        self._current()
        cached = self._cache.get(user_id, slot_key)
        if cached is not None:
            return cached.retractions if kind == _RETRACTION else cached.members
        rows = self._db.execute(
            "SELECT body FROM slot_edges WHERE user_id = ? AND slot_key = ? AND kind = ? "
            "ORDER BY ingest_time, edge_id",
            (user_id, slot_key, kind),
        ).fetchall()
        return [self._parse(body) for (body,) in rows]

    def _parse(self, body: str) -> EdgeEvent:
        edge = self._parsed.get(body)
        if edge is None:
            edge = EdgeEvent.model_validate_json(body)
            self._remember(body, edge)
        else:
            self._parsed.move_to_end(body)
        return edge

    def _remember(self, body: str, edge: EdgeEvent) -> None:
        self._parsed[body] = edge
        if len(self._parsed) > PARSED_CACHE:
            self._parsed.popitem(last=False)

    def _add(
        self, kind: int, user_id: str, slot_key: str, edge: EdgeEvent
    ) -> tuple[int, list[EdgeEvent]]:
        check_args(user_id, edge)
        with self._lock:
            self._current()
            with self._transaction("add"):
                cur = self._insert(kind, user_id, slot_key, edge)
                if cur.rowcount:
                    self._bump(user_id, slot_key)
            if cur.rowcount:
                self._cache.added(user_id, slot_key, edge, kind == _RETRACTION)
            return self._version(user_id, slot_key), self._edges(user_id, slot_key, kind)

    def _insert(self, kind: int, user_id: str, slot_key: str, edge: EdgeEvent) -> sqlite3.Cursor:
        return self._db.execute(
            "INSERT OR IGNORE INTO slot_edges VALUES (?, ?, ?, ?, ?, ?)",
            (
                user_id,
                slot_key,
                kind,
                edge.edge_id,
                _ingest_key(edge),
                edge.model_dump_json(),
            ),
        )

    def _transaction(self, operation: str) -> _Transaction:
        return _Transaction(self._db, operation)

    def add(self, user_id: str, slot_key: str, edge: EdgeEvent) -> tuple[int, list[EdgeEvent]]:
        return self._add(_MEMBER, user_id, slot_key, edge)

    def add_retraction(
        self, user_id: str, slot_key: str, edge: EdgeEvent
    ) -> tuple[int, list[EdgeEvent]]:
        return self._add(_RETRACTION, user_id, slot_key, edge)

    def members(self, user_id: str, slot_key: str) -> list[EdgeEvent]:
        check_args(user_id)
        with self._lock:
            return self._edges(user_id, slot_key, _MEMBER)

    def retractions(self, user_id: str, slot_key: str) -> list[EdgeEvent]:
        check_args(user_id)
        with self._lock:
            return self._edges(user_id, slot_key, _RETRACTION)

    def add_many(self, user_id: str, entries: Sequence[SlotEntry]) -> None:
        """One transaction; each slot's version grows by the rows it gained, as one `add`
        per entry would have made it."""
        if not entries:
            return
        rows: dict[tuple[str, int, str], tuple[str, str, int, str, str, str]] = {}
        edges: dict[tuple[str, int, str], EdgeEvent] = {}
        bodies: dict[int, str] = {}  # an edge is often in two slots (its own, an episode's)
        for entry in entries:
            check_args(user_id, entry.edge)
            edge, kind = entry.edge, _RETRACTION if entry.retraction else _MEMBER
            key = (entry.slot_key, kind, edge.edge_id)
            if key not in rows:  # the first copy wins, as with `add`
                body = bodies.get(id(edge)) or bodies.setdefault(id(edge), edge.model_dump_json())
                rows[key] = (user_id, entry.slot_key, kind, edge.edge_id, _ingest_key(edge), body)
                edges[key] = edge
        with self._lock:
            self._current()
            with self._transaction("add_many"):
                have = self._existing(user_id, list(rows))
                new = [row for key, row in rows.items() if key not in have]
                self._db.executemany("INSERT INTO slot_edges VALUES (?, ?, ?, ?, ?, ?)", new)
                gained = Counter(row[1] for row in new)
                self._db.executemany(
                    "INSERT INTO slot_versions VALUES (?, ?, ?) ON CONFLICT (user_id, slot_key) "
                    "DO UPDATE SET version = version + excluded.version",
                    [(user_id, slot, n) for slot, n in gained.items()],
                )
            # What was just written parses back to the same objects: reads reuse them.
            for row in new:
                edge = edges[(row[1], row[2], row[3])]
                self._remember(row[5], edge)
                self._cache.added(user_id, row[1], edge, row[2] == _RETRACTION)

    def _existing(
        self, user_id: str, keys: list[tuple[str, int, str]]
    ) -> set[tuple[str, int, str]]:
        # By edge id (the `slot_edges_by_edge` index): the rows of these edges only, not every
        # row of their slots — a big user's bookkeeping slots hold tens of thousands.
        found: set[tuple[str, int, str]] = set()
        edge_ids = sorted({k[2] for k in keys})
        for start in range(0, len(edge_ids), _KEYS_PER_QUERY):
            chunk = edge_ids[start : start + _KEYS_PER_QUERY]
            marks = ",".join("?" * len(chunk))
            found.update(
                self._db.execute(
                    "SELECT slot_key, kind, edge_id FROM slot_edges "
                    f"WHERE user_id = ? AND edge_id IN ({marks})",
                    (user_id, *chunk),
                )
            )
        return found

    def read_many(self, user_id: str, slot_keys: Sequence[str]) -> dict[str, SlotEdges]:
        check_args(user_id)
        wanted = list(dict.fromkeys(slot_keys))
        out: dict[str, SlotEdges] = {}
        with self._lock:
            self._current()
            for key in wanted:
                cached = self._cache.get(user_id, key)
                if cached is not None:
                    out[key] = cached
            keys = [k for k in wanted if k not in out]
            found: dict[str, tuple[list[EdgeEvent], list[EdgeEvent]]] = {k: ([], []) for k in keys}
            for start in range(0, len(keys), _KEYS_PER_QUERY):
                chunk = keys[start : start + _KEYS_PER_QUERY]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    "SELECT slot_key, kind, body FROM slot_edges "
                    f"WHERE user_id = ? AND slot_key IN ({marks})",
                    (user_id, *chunk),
                ).fetchall()
                for slot, kind, body in rows:
                    found[slot][kind].append(self._parse(body))
            for key, (members, retractions) in found.items():
                out[key] = SlotEdges(sort_edges(members), sort_edges(retractions))
                self._cache.put(user_id, key, out[key])
        return {k: out[k] for k in wanted}

    def remove(self, user_id: str, edge_id: str) -> list[str]:
        check_args(user_id)
        with self._lock, self._transaction("remove"):
            slots = sorted(
                {
                    key
                    for (key,) in self._db.execute(
                        "SELECT slot_key FROM slot_edges WHERE user_id = ? AND edge_id = ?",
                        (user_id, edge_id),
                    )
                }
            )
            self._db.execute(
                "DELETE FROM slot_edges WHERE user_id = ? AND edge_id = ?", (user_id, edge_id)
            )
            for key in slots:
                self._bump(user_id, key)
                self._cache.drop(user_id, key)
            return slots

    def delete_user(self, user_id: str) -> int:
        check_args(user_id)
        with self._lock, self._transaction("delete_user"):
            count = len(self._live_slots(user_id))
            self._db.execute("DELETE FROM slot_edges WHERE user_id = ?", (user_id,))
            self._db.execute("DELETE FROM slot_versions WHERE user_id = ?", (user_id,))
            self._cache.drop_user(user_id)
            return count

    def _live_slots(self, user_id: str) -> list[str]:
        rows = self._db.execute(
            "SELECT DISTINCT slot_key FROM slot_edges WHERE user_id = ? ORDER BY slot_key",
            (user_id,),
        )
        return [key for (key,) in rows]

    def slots(self, user_id: str) -> list[str]:
        check_args(user_id)
        with self._lock:
            return self._live_slots(user_id)

    def close(self) -> None:
        with self._lock:
            self._db.close()


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, rolling back and raising `StorageError` on failure."""

    def __init__(self, db: sqlite3.Connection, operation: str) -> None:
        self._db, self._operation = db, operation

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self._db.execute("COMMIT")
            return
        self._db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise StorageError("slot index", self._operation, str(exc)) from exc
