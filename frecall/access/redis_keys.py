"""`KeyStore` in Redis (the distributed deployment): one hash, key id → record JSON.

The hash is `<prefix>:apikeys`, outside every key generation (`<prefix>:{user}:…` and
`<prefix>.g<N>:{user}:…`), so that `replay --from-kafka`, which drops the old generation,
keeps the keys. Its one Lua script touches that one key: one Redis Cluster slot. Every
serving process reads the same records, so a key created or revoked with `frecall keys`
applies to all of them at their next request.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

import redis

from frecall.access.keys import KeyRecord
from workers.errors import StorageError
from workers.stores.redis_client import RedisClient

T = TypeVar("T")

#: Revoke atomically: read, mark, write back only when not already revoked.
_REVOKE = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return false end
local record = cjson.decode(raw)
if record['revoked_at'] == nil or record['revoked_at'] == cjson.null then
  record['revoked_at'] = ARGV[2]
  raw = cjson.encode(record)
  redis.call('HSET', KEYS[1], ARGV[1], raw)
end
return raw
"""


class RedisKeyStore:
    """`KeyStore` over a Redis client the caller made (`workers.stores.redis_client.connect`:
    one server or a cluster), which this store closes."""

    def __init__(self, client: RedisClient, prefix: str) -> None:
        self._client = client
        self.key = f"{prefix}:apikeys"
        self._revoke = client.register_script(_REVOKE)

    def _call(self, operation: str, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except redis.RedisError as exc:
            raise StorageError("keys", operation, f"redis: {exc}") from exc

    def add(self, record: KeyRecord) -> None:
        self._call(
            "add", lambda: self._client.hset(self.key, record.key_id, record.model_dump_json())
        )

    def get(self, key_id: str) -> KeyRecord | None:
        raw = self._call("get", lambda: self._client.hget(self.key, key_id))
        return None if raw is None else KeyRecord.model_validate_json(raw)

    def all(self) -> list[KeyRecord]:
        raw = self._call("list", lambda: self._client.hgetall(self.key))
        records = [KeyRecord.model_validate_json(v) for v in raw.values()]
        return sorted(records, key=lambda r: (r.created_at, r.key_id))

    def revoke(self, key_id: str, at: datetime) -> KeyRecord | None:
        raw = self._call(
            "revoke", lambda: self._revoke(keys=[self.key], args=[key_id, at.isoformat()])
        )
        return None if raw is None else KeyRecord.model_validate_json(raw)

    def any(self) -> bool:
        return bool(self._call("any", lambda: self._client.exists(self.key)))

    def close(self) -> None:
        self._client.close()
