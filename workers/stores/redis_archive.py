"""`RedisArchive`: the archive of compacted facts in the distributed deployment.

One hash per user, edge id → the archive line (`workers.stores.archive.archive_line`),
under a key prefix that no generation uses (`<prefix>.kept`, workers/stores/redis_keys.py):
`replay --from-kafka` keeps it, and the lifecycle worker that handles a forget reaches it
(a file would be on whichever machine ran `frecall compact`).

A fact erased while a compaction was deciding must not land in the archive after the
forget redacted it: `append` is one Lua script per user that skips records the ledger has
tombstoned (by id, or ingested up to the user's erasure) — the forget handler writes the
tombstone before it redacts, so either the append sees it, or the redaction comes after.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime

from schemas.records import FactRecord
from workers.stores.archive import archive_line
from workers.stores.redis_client import RedisClient
from workers.stores.redis_keys import ERASED_AT, FORGOTTEN, UserKeys, call, text

# KEYS: archive, forgotten, erased_at. ARGV: (edge_id, line, ingest epoch seconds) triples.
# Reply: how many were written (the others are erased).
_APPEND = """
local erased_at = tonumber(redis.call('GET', KEYS[3]) or '-1e300')
local n = 0
for i = 1, #ARGV, 3 do
  if redis.call('SISMEMBER', KEYS[2], ARGV[i]) == 0 and tonumber(ARGV[i + 2]) > erased_at then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    n = n + 1
  end
end
return n
"""

ARCHIVE = "archive"


class RedisArchive:
    """`ArchiveSink` on Redis, with the redaction forget needs.

    `prefix`: where the archive lives (`<prefix>.kept`); `ledger_prefix`: the generation
    whose tombstones `append` honours.
    """

    def __init__(self, client: RedisClient, prefix: str, ledger_prefix: str) -> None:
        self._client = client
        self._keys = UserKeys(prefix)
        self._ledger = UserKeys(ledger_prefix)
        self._append = client.register_script(_APPEND)

    @property
    def location(self) -> str:
        return f"redis {self._keys.prefix}:{{<user>}}:{ARCHIVE}"

    def append(self, rows: Sequence[tuple[FactRecord, str, datetime]], as_of: datetime) -> None:
        now = datetime.now(UTC)
        by_user: dict[str, list[str]] = defaultdict(list)
        for record, reason, since in rows:
            by_user[record.user_id] += [
                record.edge_id,
                archive_line(record, reason, since, as_of, now),
                repr(record.edge.ingest_time.timestamp()),
            ]
        for user, args in by_user.items():
            self._append_user(user, args)

    def _append_user(self, user_id: str, args: list[str]) -> None:
        keys = [
            self._keys(user_id, ARCHIVE),
            self._ledger(user_id, FORGOTTEN),
            self._ledger(user_id, ERASED_AT),
        ]
        call("archive", lambda: self._append(keys=keys, args=args))

    def records(self, user_id: str) -> list[FactRecord]:
        """The user's archived records, by edge id."""
        rows = call("archive", lambda: self._client.hgetall(self._keys(user_id, ARCHIVE)))
        lines = sorted((text(k), text(v)) for k, v in rows.items())
        return [FactRecord.model_validate(json.loads(line)["record"]) for _, line in lines]

    def redact(
        self, user_id: str, edge_id: str | None = None, up_to: datetime | None = None
    ) -> int:
        """Erase one archived fact, or the user's (ingested up to `up_to`, when given: what
        a whole-user erasure of the distributed deployment erases); returns how many."""
        key = self._keys(user_id, ARCHIVE)
        if edge_id is not None:
            return int(call("redact", lambda: self._client.hdel(key, edge_id)))
        cut = None if up_to is None else up_to.timestamp()
        erased = [
            r.edge_id
            for r in self.records(user_id)
            if cut is None or r.edge.ingest_time.timestamp() <= cut
        ]
        if not erased:
            return 0
        return int(call("redact", lambda: self._client.hdel(key, *erased)))
