"""Redis `DeliveryLedger`: processed ids, tombstones, erasure bookkeeping and receipts.

Keys `processed`, `forgotten`, `erased_at`, `erasing:<command>` and `receipt:<command>`
under the user's hash tag (workers/stores/redis_keys.py). The fact store's commit script
reads `forgotten` and `erased_at` as well.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from workers.stores.redis_client import RedisClient
from workers.stores.redis_keys import ERASED_AT, FORGOTTEN, UserKeys, call, text

#: How long a forget receipt stays readable (seconds).
RECEIPT_TTL_S = 86_400


class RedisDeliveryLedger:
    """`DeliveryLedger` (workers/distributed/ports.py) on Redis."""

    def __init__(self, client: RedisClient, prefix: str = "fr") -> None:
        self._keys = UserKeys(prefix)
        self._client = client

    def processed(self, user_id: str, edge_id: str) -> bool:
        key = self._keys(user_id, "processed")
        return bool(call("processed", lambda: self._client.sismember(key, edge_id)))

    def mark_processed(self, user_id: str, *edge_ids: str) -> None:
        if not edge_ids:
            return
        key = self._keys(user_id, "processed")
        call("mark_processed", lambda: self._client.sadd(key, *edge_ids))

    def forget_processed(self, user_id: str) -> None:
        key = self._keys(user_id, "processed")
        call("forget_processed", lambda: self._client.delete(key))

    def tombstone(self, user_id: str, edge_id: str | None, at: datetime) -> None:
        if edge_id is None:
            key = self._keys(user_id, ERASED_AT)
            call("tombstone", lambda: self._client.set(key, repr(at.timestamp())))
        else:
            key = self._keys(user_id, FORGOTTEN)
            call("tombstone", lambda: self._client.sadd(key, edge_id))

    def erased(self, user_id: str, edge_id: str | None, ingest_time: datetime) -> bool:
        pipe = self._client.pipeline(transaction=False)  # one round trip
        pipe.sismember(self._keys(user_id, FORGOTTEN), edge_id or "")
        pipe.get(self._keys(user_id, ERASED_AT))
        forgotten, erased_at = call("erased", pipe.execute)
        if forgotten and edge_id is not None:
            return True
        if erased_at is None:
            return False
        return ingest_time.timestamp() <= float(text(erased_at))

    def settled(
        self, user_id: str, edges: Sequence[tuple[str, datetime]]
    ) -> list[tuple[bool, bool]]:
        if not edges:
            return []
        forgotten, processed = self._keys(user_id, FORGOTTEN), self._keys(user_id, "processed")
        pipe = self._client.pipeline(transaction=False)  # one round trip, one hash slot
        pipe.get(self._keys(user_id, ERASED_AT))
        for edge_id, _ in edges:
            pipe.sismember(forgotten, edge_id)
            pipe.sismember(processed, edge_id)
        replies = call("settled", pipe.execute)
        erased_at = None if replies[0] is None else float(text(replies[0]))
        out = []
        for i, (_, ingest_time) in enumerate(edges):
            by_user = erased_at is not None and ingest_time.timestamp() <= erased_at
            out.append((bool(replies[1 + 2 * i]) or by_user, bool(replies[2 + 2 * i])))
        return out

    def remember_slots(self, user_id: str, command_id: str, slots: Sequence[str]) -> list[str]:
        key = self._keys(user_id, "erasing:" + command_id)
        payload = json.dumps(list(slots))
        stored = call("remember_slots", lambda: (self._client.set(key, payload, nx=True),
                                                 self._client.get(key))[1])  # fmt: skip
        return list(json.loads(text(stored))) if stored is not None else list(slots)

    def forget_slots(self, user_id: str, command_id: str) -> None:
        key = self._keys(user_id, "erasing:" + command_id)
        call("forget_slots", lambda: self._client.delete(key))

    def put_receipt(self, user_id: str, command_id: str, removed: dict[str, int]) -> None:
        key = self._keys(user_id, "receipt:" + command_id)
        payload = json.dumps(removed)
        call("put_receipt", lambda: self._client.set(key, payload, ex=RECEIPT_TTL_S, nx=True))

    def receipt(self, user_id: str, command_id: str) -> dict[str, int] | None:
        key = self._keys(user_id, "receipt:" + command_id)
        raw = call("receipt", lambda: self._client.get(key))
        return None if raw is None else dict(json.loads(text(raw)))
