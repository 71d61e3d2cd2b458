"""Redis `SlotIndex`: the same contract as `InMemorySlotIndex`, shared by many workers.

Keys: `slot:`, `retr:`, `versions`, `slots` and `edge:` under the user's hash tag (the layout
is in workers/stores/redis_keys.py). A set per edge (rather than one hash edge_id -> list)
needs no delimiter inside slot keys and no JSON in Lua.

`add`, `add_retraction`, `remove` and `delete_user` are one Lua script each: the existence
check, the write, the version bump and the reply happen atomically in one round trip.
`remove` and `delete_user` build slot key names inside the script (they are only known
there); all of them share the user's hash tag, which Redis Cluster accepts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError

from schemas.events import EdgeEvent
from workers.errors import StorageError
from workers.ports import SlotEdges, SlotEntry
from workers.stores.memory_slots import check_args, sort_edges
from workers.stores.redis_client import RedisClient
from workers.stores.redis_keys import UserKeys, call, text

# KEYS: target hash, versions, slots, edge set. ARGV: edge_id, edge JSON, slot_key.
# Reply: {version, json...}.
_ADD = """
local version
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  version = redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
  redis.call('SADD', KEYS[3], ARGV[3])
  redis.call('SADD', KEYS[4], ARGV[3])
else
  version = tonumber(redis.call('HGET', KEYS[2], ARGV[3]) or '0')
end
local reply = redis.call('HVALS', KEYS[1])
table.insert(reply, 1, version)
return reply
"""

# `_ADD` for many entries of one user. KEYS: versions, slots, then per entry its target hash
# and its edge set. ARGV: per entry edge_id, edge JSON, slot_key. Reply: entries added.
_ADD_MANY = """
local added = 0
for i = 1, (#KEYS - 2) / 2 do
  local a = (i - 1) * 3
  if redis.call('HSETNX', KEYS[1 + 2 * i], ARGV[a + 1], ARGV[a + 2]) == 1 then
    redis.call('HINCRBY', KEYS[1], ARGV[a + 3], 1)
    redis.call('SADD', KEYS[2], ARGV[a + 3])
    redis.call('SADD', KEYS[2 + 2 * i], ARGV[a + 3])
    added = added + 1
  end
end
return added
"""
#: Entries per `_ADD_MANY` call: a script blocks its Redis node while it runs.
ADD_MANY_CHUNK = 500

# KEYS: edge set, versions, slots. ARGV: edge_id, user key base. Reply: touched slot keys.
_REMOVE = """
local touched = {}
for _, slot in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local members = ARGV[2] .. 'slot:' .. slot
  local retractions = ARGV[2] .. 'retr:' .. slot
  local n = redis.call('HDEL', members, ARGV[1]) + redis.call('HDEL', retractions, ARGV[1])
  if n > 0 then
    redis.call('HINCRBY', KEYS[2], slot, 1)
    table.insert(touched, slot)
  end
  if redis.call('EXISTS', members, retractions) == 0 then
    redis.call('SREM', KEYS[3], slot)
  end
end
redis.call('DEL', KEYS[1])
return touched
"""

# KEYS: slots, versions. ARGV: user key base. Reply: number of slots removed.
_DELETE_USER = """
local slots = redis.call('SMEMBERS', KEYS[1])
for _, slot in ipairs(slots) do
  for _, kind in ipairs({'slot:', 'retr:'}) do
    local key = ARGV[1] .. kind .. slot
    for _, edge_id in ipairs(redis.call('HKEYS', key)) do
      redis.call('DEL', ARGV[1] .. 'edge:' .. edge_id)
    end
    redis.call('DEL', key)
  end
end
redis.call('DEL', KEYS[1], KEYS[2])
return #slots
"""


class RedisSlotIndex:
    """`SlotIndex` on Redis (standalone or any node setup that accepts `redis.Redis`).

    Thread-safe as far as the client is (redis-py's pool is). Raises `StorageError` when
    Redis fails or holds a record that is not an `EdgeEvent`; `ValueError` for an empty
    user id or an edge of another user. `close` closes the client it was given.
    """

    def __init__(self, client: RedisClient, prefix: str = "fr") -> None:
        self._base = UserKeys(prefix).base
        self._client = client
        self._add_script = client.register_script(_ADD)
        self._add_many_script = client.register_script(_ADD_MANY)
        self._remove_script = client.register_script(_REMOVE)
        self._delete_user_script = client.register_script(_DELETE_USER)

    @staticmethod
    def _decode(operation: str, raw: Iterable[Any]) -> list[EdgeEvent]:
        try:
            return sort_edges([EdgeEvent.model_validate_json(item) for item in raw])
        except ValidationError as exc:
            raise StorageError("redis", operation, f"corrupt edge record: {exc}") from exc

    def _add(
        self, kind: str, user_id: str, slot_key: str, edge: EdgeEvent
    ) -> tuple[int, list[EdgeEvent]]:
        check_args(user_id, edge)
        base = self._base(user_id)
        edge_key = base + "edge:" + edge.edge_id
        keys = [base + kind + slot_key, base + "versions", base + "slots", edge_key]
        args = [edge.edge_id, edge.model_dump_json(), slot_key]
        operation = "add" if kind == "slot:" else "add_retraction"
        reply = call(operation, lambda: self._add_script(keys=keys, args=args))
        return int(reply[0]), self._decode(operation, reply[1:])

    def add(self, user_id: str, slot_key: str, edge: EdgeEvent) -> tuple[int, list[EdgeEvent]]:
        return self._add("slot:", user_id, slot_key, edge)

    def add_retraction(
        self, user_id: str, slot_key: str, edge: EdgeEvent
    ) -> tuple[int, list[EdgeEvent]]:
        return self._add("retr:", user_id, slot_key, edge)

    def _list(self, kind: str, user_id: str, slot_key: str) -> list[EdgeEvent]:
        check_args(user_id)
        key = self._base(user_id) + kind + slot_key
        operation = "members" if kind == "slot:" else "retractions"
        raw = call(operation, lambda: self._client.hvals(key))
        return self._decode(operation, raw)

    def members(self, user_id: str, slot_key: str) -> list[EdgeEvent]:
        return self._list("slot:", user_id, slot_key)

    def retractions(self, user_id: str, slot_key: str) -> list[EdgeEvent]:
        return self._list("retr:", user_id, slot_key)

    def add_many(self, user_id: str, entries: Sequence[SlotEntry]) -> None:
        """One script per `ADD_MANY_CHUNK` entries (all keys in the user's hash slot)."""
        base = self._base(user_id)
        bodies: dict[int, str] = {}  # an edge is often in two slots (its own, an episode's)
        for start in range(0, len(entries), ADD_MANY_CHUNK):
            keys, args = [base + "versions", base + "slots"], []
            for entry in entries[start : start + ADD_MANY_CHUNK]:
                edge = entry.edge
                check_args(user_id, edge)
                kind = "retr:" if entry.retraction else "slot:"
                keys += [base + kind + entry.slot_key, base + "edge:" + edge.edge_id]
                body = bodies.get(id(edge)) or bodies.setdefault(id(edge), edge.model_dump_json())
                args += [edge.edge_id, body, entry.slot_key]
            self._add_chunk(keys, args)

    def _add_chunk(self, keys: list[str], args: list[str]) -> None:
        call("add_many", lambda: self._add_many_script(keys=keys, args=args))

    def read_many(self, user_id: str, slot_keys: Sequence[str]) -> dict[str, SlotEdges]:
        """One round trip (a pipeline of HVALS, all in the user's hash slot)."""
        check_args(user_id)
        base, keys = self._base(user_id), list(dict.fromkeys(slot_keys))
        if not keys:
            return {}
        pipe = self._client.pipeline(transaction=False)
        for key in keys:
            pipe.hvals(base + "slot:" + key)
            pipe.hvals(base + "retr:" + key)
        replies = call("read_many", pipe.execute)
        return {
            key: SlotEdges(
                self._decode("read_many", replies[2 * i]),
                self._decode("read_many", replies[2 * i + 1]),
            )
            for i, key in enumerate(keys)
        }

    def remove(self, user_id: str, edge_id: str) -> list[str]:
        check_args(user_id)
        base = self._base(user_id)
        keys = [base + "edge:" + edge_id, base + "versions", base + "slots"]
        reply = call("remove", lambda: self._remove_script(keys=keys, args=[edge_id, base]))
        return sorted(text(slot) for slot in reply)

    def delete_user(self, user_id: str) -> int:
        check_args(user_id)
        base = self._base(user_id)
        keys = [base + "slots", base + "versions"]
        return int(call("delete_user", lambda: self._delete_user_script(keys=keys, args=[base])))

    def slots(self, user_id: str) -> list[str]:
        check_args(user_id)
        key = self._base(user_id) + "slots"
        return sorted(text(slot) for slot in call("slots", lambda: self._client.smembers(key)))

    def close(self) -> None:
        call("close", self._client.close)
