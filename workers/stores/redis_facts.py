"""Redis `SharedFactStore`: facts and their lifecycle, shared by every lifecycle worker.

In the distributed deployment this is the record of lifecycle state (the vector index is
a projection of it, written by the indexer). Keys `facts` and `version` under the user's
hash tag (workers/stores/redis_keys.py); the ledger's tombstones are read by `commit`.

`commit` is one Lua script: compare the version with the snapshot, write, bump. Records for
lifecycle-only updates are read before the script; the version check makes that read safe
(if anything changed in between, the commit is refused and the caller re-resolves).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pydantic import ValidationError

from schemas.records import FactRecord
from workers.errors import StorageError
from workers.ports import Updates, Upserts, records_to_write
from workers.stores.redis_client import RedisClient
from workers.stores.redis_keys import ERASED_AT, FORGOTTEN, UserKeys, call

# KEYS: facts, version, forgotten, erased_at. ARGV: snapshot, then (edge_id, json, ingest
# epoch seconds) triples. Reply: 1 written, 0 stale. A record of an erased fact (by id, or
# ingested before its user's erasure) is not written: an apply that raced a forget (two
# workers during a rebalance) cannot bring it back.
_COMMIT = """
if tonumber(redis.call('GET', KEYS[2]) or '0') ~= tonumber(ARGV[1]) then
  return 0
end
local erased_at = tonumber(redis.call('GET', KEYS[4]) or '-1e300')
for i = 2, #ARGV, 3 do
  if redis.call('SISMEMBER', KEYS[3], ARGV[i]) == 0 and tonumber(ARGV[i + 2]) > erased_at then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
redis.call('INCR', KEYS[2])
return 1
"""

# KEYS: facts, version. ARGV: edge ids. Reply: how many existed.
_DELETE = """
local n = 0
for i = 1, #ARGV do
  n = n + redis.call('HDEL', KEYS[1], ARGV[i])
end
redis.call('INCR', KEYS[2])
return n
"""

# KEYS: facts, version. ARGV: snapshot, then edge ids. Reply: 1 deleted, 0 stale.
_DELETE_IF = """
if tonumber(redis.call('GET', KEYS[2]) or '0') ~= tonumber(ARGV[1]) then
  return 0
end
for i = 2, #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
end
redis.call('INCR', KEYS[2])
return 1
"""

# KEYS: facts, version. Reply: how many facts existed.
_DELETE_USER = """
local n = redis.call('HLEN', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('INCR', KEYS[2])
return n
"""


class RedisFactStore:
    """`SharedFactStore` (workers/distributed/ports.py) on Redis. `close` closes the client."""

    name = "fact_store"

    def __init__(self, client: RedisClient, prefix: str = "fr") -> None:
        self._keys = UserKeys(prefix)
        self._client = client
        self._commit_script = client.register_script(_COMMIT)
        self._delete_script = client.register_script(_DELETE)
        self._delete_user_script = client.register_script(_DELETE_USER)
        self._delete_if_script = client.register_script(_DELETE_IF)

    @staticmethod
    def _decode(raw: bytes | str) -> FactRecord:
        try:
            return FactRecord.model_validate_json(raw)
        except ValidationError as exc:
            raise StorageError("redis", "get", f"corrupt fact record: {exc}") from exc

    def get(self, user_id: str, edge_ids: Sequence[str]) -> list[FactRecord]:
        if not edge_ids:
            return []
        key = self._keys(user_id, "facts")
        raw = call("get", lambda: self._client.hmget(key, list(edge_ids)))
        return [self._decode(item) for item in raw if item is not None]

    def snapshot(self, user_id: str) -> int:
        key = self._keys(user_id, "version")
        return int(call("snapshot", lambda: self._client.get(key)) or 0)

    def commit(self, user_id: str, snapshot: int, upserts: Upserts, updates: Updates) -> bool:
        records = records_to_write(lambda ids: self.get(user_id, ids), upserts, updates)
        if not records:
            return True
        args: list[str | int | float] = [snapshot]
        for edge_id, record in records.items():
            args += [edge_id, record.model_dump_json(), repr(record.edge.ingest_time.timestamp())]
        keys = [self._keys(user_id, n) for n in ("facts", "version", FORGOTTEN, ERASED_AT)]
        return bool(call("commit", lambda: self._commit_script(keys=keys, args=args)))

    def delete(self, user_id: str, edge_ids: Sequence[str]) -> int:
        if not edge_ids:
            return 0
        keys = [self._keys(user_id, "facts"), self._keys(user_id, "version")]
        return int(call("delete", lambda: self._delete_script(keys=keys, args=edge_ids)))

    def delete_if(self, user_id: str, snapshot: int, edge_ids: Sequence[str]) -> bool:
        keys = [self._keys(user_id, "facts"), self._keys(user_id, "version")]
        args: list[str | int] = [snapshot, *edge_ids]
        return bool(call("delete_if", lambda: self._delete_if_script(keys=keys, args=args)))

    def delete_user(self, user_id: str) -> int:
        keys = [self._keys(user_id, "facts"), self._keys(user_id, "version")]
        return int(call("delete_user", lambda: self._delete_user_script(keys=keys)))

    def scroll(self, user_id: str) -> Iterator[FactRecord]:
        key = self._keys(user_id, "facts")
        for _, raw in call("scroll", lambda: self._client.hscan_iter(key)):
            yield self._decode(raw)

    def users(self) -> list[str]:
        return self._keys.users(self._client, "facts")

    def count(self, user_id: str) -> int:
        key = self._keys(user_id, "facts")
        return int(call("count", lambda: self._client.hlen(key)))

    def close(self) -> None:
        call("close", self._client.close)
