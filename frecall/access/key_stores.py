"""`KeyStore` adapters: in memory (tests), SQLite in the data dir (the embedded deployment).

The SQLite file (`keys.sqlite`) is apart from the deployment's stores, so that `frecall keys
create` works while `frecall serve` holds the data dir: the server reads a key's record on
every request (a primary-key lookup), so a revocation applies to the next request.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Final, TypeVar

from frecall.access.keys import KeyRecord
from workers.errors import StorageError

KEYS_FILE: Final = "keys.sqlite"
T = TypeVar("T")


class InMemoryKeyStore:
    """`KeyStore` fake: records in a dict."""

    def __init__(self) -> None:
        self._records: dict[str, KeyRecord] = {}
        self._lock = threading.Lock()

    def add(self, record: KeyRecord) -> None:
        with self._lock:
            self._records[record.key_id] = record

    def get(self, key_id: str) -> KeyRecord | None:
        return self._records.get(key_id)

    def all(self) -> list[KeyRecord]:
        return sorted(self._records.values(), key=lambda r: (r.created_at, r.key_id))

    def revoke(self, key_id: str, at: datetime) -> KeyRecord | None:
        with self._lock:
            record = self._records.get(key_id)
            if record is None or record.revoked_at is not None:
                return record
            self._records[key_id] = record.model_copy(update={"revoked_at": at})
            return self._records[key_id]

    def any(self) -> bool:
        return bool(self._records)

    def close(self) -> None:
        pass


class SqliteKeyStore:
    """`KeyStore` in `<data dir>/keys.sqlite` (WAL: readers never wait for a writer)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA busy_timeout=5000")
                db.execute(
                    "CREATE TABLE IF NOT EXISTS api_keys "
                    "(key_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, record TEXT NOT NULL)"
                )
            except (OSError, sqlite3.Error) as exc:
                raise StorageError("keys", "open", f"{self.path}: {exc}") from exc
            self._db = db
        return self._db

    def _call(self, operation: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            try:
                return fn(self._conn())
            except sqlite3.Error as exc:
                raise StorageError("keys", operation, f"{self.path}: {exc}") from exc

    def add(self, record: KeyRecord) -> None:
        self._call(
            "add",
            lambda db: db.execute(
                "INSERT INTO api_keys VALUES (?, ?, ?)",
                (record.key_id, record.created_at.isoformat(), record.model_dump_json()),
            ),
        )

    def get(self, key_id: str) -> KeyRecord | None:
        row = self._call(
            "get",
            lambda db: db.execute(
                "SELECT record FROM api_keys WHERE key_id = ?", (key_id,)
            ).fetchone(),
        )
        return None if row is None else KeyRecord.model_validate_json(row[0])

    def all(self) -> list[KeyRecord]:
        rows = self._call(
            "list",
            lambda db: db.execute(
                "SELECT record FROM api_keys ORDER BY created_at, key_id"
            ).fetchall(),
        )
        return [KeyRecord.model_validate_json(r[0]) for r in rows]

    def revoke(self, key_id: str, at: datetime) -> KeyRecord | None:
        def revoke(db: sqlite3.Connection) -> KeyRecord | None:
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute(
                    "SELECT record FROM api_keys WHERE key_id = ?", (key_id,)
                ).fetchone()
                if row is None:
                    return None
                record = KeyRecord.model_validate_json(row[0])
                if record.revoked_at is None:
                    record = record.model_copy(update={"revoked_at": at})
                    db.execute(
                        "UPDATE api_keys SET record = ? WHERE key_id = ?",
                        (record.model_dump_json(), key_id),
                    )
                return record
            finally:
                db.execute("COMMIT")

        return self._call("revoke", revoke)

    def any(self) -> bool:
        if not self.path.exists():  # a data dir without keys: nothing to create
            return False
        row = self._call("any", lambda db: db.execute("SELECT 1 FROM api_keys LIMIT 1").fetchone())
        return row is not None

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
