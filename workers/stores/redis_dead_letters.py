"""`RedisDeadLetters`: the distributed deployment's dead letters, per user, where a forget
reaches them.

Rejected input keeps its words here, never in a topic: Kafka cannot delete one user's
records from `fr.dlq`, so the letter produced there names the origin (topic, partition,
offset, key) and a reason without the input (schemas/streams.py `DeadLetter`), and the raw
message and the full reason are kept in the user's hash (field: source and position, so a
redelivered message is kept once). The producer's rejected lines (`frecall ingest` in the
distributed deployment) come here too, from every process. Input that names no user (no
message key, a line that is not a JSON object with a `user_id`) cannot be erased by user:
it is kept apart, under `unattributed`. Under `<prefix>.kept` (no generation: a replay
keeps them); format of a letter: workers/stores/dead_letters.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime

from workers.stores.dead_letters import make_letter, owner_of
from workers.stores.redis_client import RedisClient
from workers.stores.redis_keys import UserKeys, call, text

LETTERS = "dead-letters"


def _utc_now() -> datetime:
    return datetime.now(UTC)


class RedisDeadLetters:
    """`DeadLetters` on Redis, one hash per user (workers/stores/redis_keys.py)."""

    def __init__(
        self, client: RedisClient, prefix: str, *, clock: Callable[[], datetime] = _utc_now
    ) -> None:
        self._client = client
        self._keys = UserKeys(prefix)
        self._clock = clock

    def _key(self, user_id: str | None) -> str:
        if not user_id:
            return f"{self._keys.prefix}:unattributed:{LETTERS}"
        return self._keys(user_id, LETTERS)

    def put(self, source: str, position: str, reason: str, raw: str) -> None:
        """A rejected input; its user is the one its raw JSON names (or none)."""
        self.put_for(None, source, position, reason, raw)

    def put_for(
        self, user_id: str | None, source: str, position: str, reason: str, raw: str
    ) -> None:
        """A rejected input of `user_id` (a message key; None: the one the raw JSON names)."""
        key = self._key(owner_of(user_id, raw))
        entry = make_letter(self._clock(), source, position, reason, raw)
        value = json.dumps(entry, ensure_ascii=True)
        call("dead_letters", lambda: self._client.hset(key, f"{source}:{position}", value))

    def of(self, user_id: str | None) -> list[dict[str, str]]:
        """The letters of a user (None: those that name no user), oldest first."""
        rows = call("dead_letters", lambda: self._client.hvals(self._key(user_id)))
        return sorted((json.loads(text(v)) for v in rows), key=lambda d: (d["at"], d["position"]))

    def redact_user(self, user_id: str) -> int:
        key = self._key(user_id)

        def drop() -> int:
            pipe = self._client.pipeline(transaction=True)
            pipe.hlen(key)
            pipe.delete(key)
            return int(pipe.execute()[0])

        return call("redact", drop)
