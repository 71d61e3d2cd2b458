"""Redis `FactStore`: facts and their lifecycle, shared by every lifecycle worker.

In the distributed deployment this is the record of lifecycle state (the vector index is
a projection of it, written by the indexer). Key layout, every key of a user under the
same hash tag as the slot index (Redis Cluster: one user, one hash slot):

    {prefix}:{<user>}:facts       hash    edge_id -> FactRecord JSON (with the embedding)
    {prefix}:{<user>}:version     string  bumped by every commit and delete
    {prefix}:{<user>}:processed   set     edge ids whose effects were applied and announced
    {prefix}:{<user>}:forgotten   set     erased edge ids (tombstones)
    {prefix}:{<user>}:erased_at   string  ISO time of the last whole-user erasure
    {prefix}:{<user>}:session:<s> list    recent turns of a session (extraction context)

`commit` is one Lua script: compare the version with the snapshot, write, bump. Records for
lifecycle-only updates are read before the script; the version check makes that read safe
(if anything changed in between, the commit is refused and the caller re-resolves).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime

import redis
from pydantic import TypeAdapter, ValidationError

from schemas.events import TurnEvent
from schemas.records import FactRecord, Lifecycle
from workers.errors import StorageError
from workers.extraction.model import ExtractedFact
from workers.ports import IndexedFact
from workers.stores.redis_keys import call, glob_escape, tag, text, untag

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

# KEYS: facts, version, processed. Reply: how many facts existed.
_DELETE_USER = """
local n = redis.call('HLEN', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('INCR', KEYS[2])
return n
"""

#: How long a turn's extraction is kept for redeliveries (seconds).
EXTRACTED_TTL_S = 7 * 86_400
_FACTS = TypeAdapter(list[ExtractedFact])
#: How long a forget receipt stays readable (seconds).
RECEIPT_TTL_S = 86_400
#: Turns of context kept per session (the rule extractor looks back a few turns).
SESSION_TURNS = 8


class RedisFactStore:
    """`FactStore` (workers/ports.py) on Redis, plus the distributed pipeline's bookkeeping:
    processed-edge idempotency keys, forget tombstones and extraction session context."""

    def __init__(self, client: redis.Redis, prefix: str = "fr") -> None:
        if "{" in prefix or "}" in prefix:
            raise ValueError(f"key prefix must not contain braces: {prefix!r}")
        self._client = client
        self._prefix = prefix
        self._commit_script = client.register_script(_COMMIT)
        self._delete_script = client.register_script(_DELETE)
        self._delete_user_script = client.register_script(_DELETE_USER)
        self._delete_if_script = client.register_script(_DELETE_IF)

    def _key(self, user_id: str, name: str) -> str:
        if not user_id:
            raise ValueError("user id must not be empty")
        return f"{self._prefix}:{{{tag(user_id)}}}:{name}"

    @staticmethod
    def _decode(raw: bytes | str) -> FactRecord:
        try:
            return FactRecord.model_validate_json(raw)
        except ValidationError as exc:
            raise StorageError("redis", "get", f"corrupt fact record: {exc}") from exc

    # --- FactStore ---------------------------------------------------------------------

    def get(self, user_id: str, edge_ids: Sequence[str]) -> list[FactRecord]:
        if not edge_ids:
            return []
        key = self._key(user_id, "facts")
        raw = call("get", lambda: self._client.hmget(key, list(edge_ids)))
        return [self._decode(item) for item in raw if item is not None]

    def snapshot(self, user_id: str) -> int:
        key = self._key(user_id, "version")
        return int(call("snapshot", lambda: self._client.get(key)) or 0)

    def commit(
        self,
        user_id: str,
        snapshot: int,
        upserts: Sequence[IndexedFact],
        updates: Mapping[str, Lifecycle],
    ) -> bool:
        records = {item.record.edge_id: item.record for item in upserts}
        for record in self.get(user_id, [i for i in updates if i not in records]):
            records[record.edge_id] = record.model_copy(
                update={"lifecycle": updates[record.edge_id]}
            )
        if not records:
            return True
        args: list[str | int | float] = [snapshot]
        for edge_id, record in records.items():
            args += [edge_id, record.model_dump_json(), repr(record.edge.ingest_time.timestamp())]
        keys = [self._key(user_id, n) for n in ("facts", "version", "forgotten", "erased_at")]
        return bool(call("commit", lambda: self._commit_script(keys=keys, args=args)))

    def delete(self, user_id: str, edge_ids: Sequence[str]) -> int:
        if not edge_ids:
            return 0
        keys = [self._key(user_id, "facts"), self._key(user_id, "version")]
        return int(call("delete", lambda: self._delete_script(keys=keys, args=edge_ids)))

    def delete_if(self, user_id: str, snapshot: int, edge_ids: Sequence[str]) -> bool:
        """Delete if nothing changed the user's facts since `snapshot` (compaction decides
        on a read; a worker may have made one of them current again meanwhile)."""
        keys = [self._key(user_id, "facts"), self._key(user_id, "version")]
        args: list[str | int] = [snapshot, *edge_ids]
        return bool(call("delete_if", lambda: self._delete_if_script(keys=keys, args=args)))

    def delete_user(self, user_id: str) -> int:
        keys = [self._key(user_id, n) for n in ("facts", "version", "processed")]
        return int(call("delete_user", lambda: self._delete_user_script(keys=keys)))

    def delete_sessions(self, user_id: str) -> None:
        """Drop the user's words kept as extraction context (erasure reaches every store)."""
        pattern = glob_escape(self._key(user_id, "session:")) + "*"
        found: list[bytes] = call("delete_user", lambda: list(self._client.scan_iter(pattern)))
        if found:
            call("delete_user", lambda: self._client.delete(*found))

    # --- reading a user's memory ---------------------------------------------------------

    def scroll(self, user_id: str) -> Iterator[FactRecord]:
        key = self._key(user_id, "facts")
        for _, raw in call("scroll", lambda: self._client.hscan_iter(key)):
            yield self._decode(raw)

    def users(self) -> list[str]:
        """Every user with a fact in this store (a scan: for maintenance jobs)."""
        pattern = glob_escape(f"{self._prefix}:") + "{*}:facts"
        keys = call("users", lambda: list(self._client.scan_iter(pattern, count=1000)))
        out = []
        for key in keys:
            # The tag ends at the first "}" (user ids are encoded without braces); a session
            # key whose name happens to end in "}:facts" is not a user's facts.
            encoded, _, rest = text(key)[len(self._prefix) + 2 :].partition("}")
            if rest == ":facts":
                out.append(untag(encoded))
        return sorted(out)

    def count(self, user_id: str) -> int:
        key = self._key(user_id, "facts")
        return int(call("count", lambda: self._client.hlen(key)))

    # --- idempotency and tombstones -------------------------------------------------------

    def processed(self, user_id: str, edge_id: str) -> bool:
        key = self._key(user_id, "processed")
        return bool(call("processed", lambda: self._client.sismember(key, edge_id)))

    def mark_processed(self, user_id: str, edge_id: str) -> None:
        key = self._key(user_id, "processed")
        call("mark_processed", lambda: self._client.sadd(key, edge_id))

    def tombstone(self, user_id: str, edge_id: str | None, at: datetime) -> None:
        """Remember an erasure, so that a late copy of an erased edge is not applied."""
        if edge_id is None:
            key = self._key(user_id, "erased_at")
            call("tombstone", lambda: self._client.set(key, repr(at.timestamp())))
        else:
            key = self._key(user_id, "forgotten")
            call("tombstone", lambda: self._client.sadd(key, edge_id))

    def erased(self, user_id: str, edge_id: str, ingest_time: datetime) -> bool:
        """Whether an edge was erased: by id, or with its user before it was ingested."""
        pipe = self._client.pipeline(transaction=False)  # one round trip
        pipe.sismember(self._key(user_id, "forgotten"), edge_id)
        pipe.get(self._key(user_id, "erased_at"))
        forgotten, erased_at = call("erased", pipe.execute)
        if forgotten:
            return True
        if erased_at is None:
            return False
        return ingest_time.timestamp() <= float(text(erased_at))

    # --- extraction context -----------------------------------------------------------------

    def recent(self, turn: TurnEvent) -> list[TurnEvent]:
        """The session's turns before this one (`SessionContext` interface) — also when
        this one is redelivered after later turns were added: extraction stays the same."""
        turns = self.recent_all(turn)
        ids = [t.turn_id for t in turns]
        if turn.turn_id in ids:
            return turns[: ids.index(turn.turn_id)]  # as it was when this turn came first
        return [t for t in turns if t.timestamp <= turn.timestamp]

    def extracted(self, turn: TurnEvent) -> list[ExtractedFact] | None:
        key = self._key(turn.user_id, f"session:{turn.session_id}:extracted:{turn.turn_id}")
        raw = call("extracted", lambda: self._client.get(key))
        return None if raw is None else _FACTS.validate_json(raw)

    def remember_extracted(self, turn: TurnEvent, facts: list[ExtractedFact]) -> None:
        """Keep a turn's extraction for its redeliveries (erased with the user's sessions)."""
        key = self._key(turn.user_id, f"session:{turn.session_id}:extracted:{turn.turn_id}")
        payload = _FACTS.dump_json(facts)
        call("remember_extracted", lambda: self._client.set(key, payload, ex=EXTRACTED_TTL_S))

    def remember_slots(self, user_id: str, command_id: str, slots: Sequence[str]) -> list[str]:
        """The slots an erasure must re-resolve, kept until `forget_slots`: the first call
        stores them, a redelivered command gets the same list back."""
        key = self._key(user_id, "erasing:" + command_id)
        payload = json.dumps(list(slots))
        stored = call("remember_slots", lambda: (self._client.set(key, payload, nx=True),
                                                 self._client.get(key))[1])  # fmt: skip
        return list(json.loads(text(stored))) if stored is not None else list(slots)

    def put_receipt(self, user_id: str, command_id: str, receipt: dict[str, int]) -> None:
        """What an erasure removed, for whichever serving process answers the caller."""
        key = self._key(user_id, "receipt:" + command_id)
        # The first attempt's: a redelivered command finds nothing left and removes 0.
        call(
            "put_receipt",
            lambda: self._client.set(key, json.dumps(receipt), ex=RECEIPT_TTL_S, nx=True),
        )

    def receipt(self, user_id: str, command_id: str) -> dict[str, int] | None:
        key = self._key(user_id, "receipt:" + command_id)
        raw = call("receipt", lambda: self._client.get(key))
        return None if raw is None else dict(json.loads(text(raw)))

    def forget_slots(self, user_id: str, command_id: str) -> None:
        key = self._key(user_id, "erasing:" + command_id)
        call("forget_slots", lambda: self._client.delete(key))

    def add(self, turn: TurnEvent) -> None:
        """Append a turn to its session's context once (a redelivered turn is not re-added)."""
        if any(t.turn_id == turn.turn_id for t in self.recent_all(turn)):
            return
        key = self._key(turn.user_id, "session:" + turn.session_id)
        pipe = self._client.pipeline()
        pipe.rpush(key, turn.model_dump_json())
        pipe.ltrim(key, -SESSION_TURNS, -1)
        call("add", pipe.execute)

    def recent_all(self, turn: TurnEvent) -> list[TurnEvent]:
        key = self._key(turn.user_id, "session:" + turn.session_id)
        raw = call("recent", lambda: self._client.lrange(key, 0, -1))
        return [TurnEvent.model_validate_json(item) for item in raw]

    def close(self) -> None:
        call("close", self._client.close)
