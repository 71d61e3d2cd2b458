"""Redis `TurnContext`: the recent turns of each session and each turn's extraction,
shared by the extraction workers (a partition may move to another worker at any time).

Keys `session:<s>` (a list, the last `SESSION_TURNS` turns) and
`session:<s>:extracted:<turn>` (with a TTL) under the user's hash tag
(workers/stores/redis_keys.py).
"""

from __future__ import annotations

from pydantic import TypeAdapter

from schemas.events import TurnEvent
from workers.extraction.model import ExtractedFact
from workers.stores.memory_turns import turns_before
from workers.stores.redis_client import RedisClient
from workers.stores.redis_keys import UserKeys, call

#: How long a turn's extraction is kept for redeliveries (seconds).
EXTRACTED_TTL_S = 7 * 86_400
#: Turns of context kept per session (the rule extractor looks back a few turns).
SESSION_TURNS = 8
_FACTS = TypeAdapter(list[ExtractedFact])


class RedisTurnContext:
    """`TurnContext` (workers/ports.py) on Redis."""

    def __init__(self, client: RedisClient, prefix: str = "fr") -> None:
        self._keys = UserKeys(prefix)
        self._client = client

    def _session(self, turn: TurnEvent, suffix: str = "") -> str:
        return self._keys(turn.user_id, f"session:{turn.session_id}{suffix}")

    def recent(self, turn: TurnEvent) -> list[TurnEvent]:
        return turns_before(self.recent_all(turn), turn)

    def recent_all(self, turn: TurnEvent) -> list[TurnEvent]:
        """Every turn kept for the session of `turn`, oldest first."""
        key = self._session(turn)
        raw = call("recent", lambda: self._client.lrange(key, 0, -1))
        return [TurnEvent.model_validate_json(item) for item in raw]

    def add(self, turn: TurnEvent) -> None:
        if any(t.turn_id == turn.turn_id for t in self.recent_all(turn)):
            return
        key = self._session(turn)
        pipe = self._client.pipeline(transaction=True)  # a MULTI on one slot, in a cluster too
        pipe.rpush(key, turn.model_dump_json())
        pipe.ltrim(key, -SESSION_TURNS, -1)
        call("add", pipe.execute)

    def extracted(self, turn: TurnEvent) -> list[ExtractedFact] | None:
        key = self._session(turn, f":extracted:{turn.turn_id}")
        raw = call("extracted", lambda: self._client.get(key))
        return None if raw is None else _FACTS.validate_json(raw)

    def remember_extracted(self, turn: TurnEvent, facts: list[ExtractedFact]) -> None:
        key = self._session(turn, f":extracted:{turn.turn_id}")
        payload = _FACTS.dump_json(facts)
        call("remember_extracted", lambda: self._client.set(key, payload, ex=EXTRACTED_TTL_S))

    def forget_user(self, user_id: str) -> None:
        self._keys.delete_matching(self._client, user_id, "session:")
