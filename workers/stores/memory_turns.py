"""In-process `TurnContext`: the embedded deployment's session context and the fake of
`RedisTurnContext` (one contract suite runs against both)."""

from __future__ import annotations

import threading
from collections import defaultdict, deque

from schemas.events import TurnEvent
from workers.extraction.model import ExtractedFact
from workers.extraction.stage import CONTEXT_TURNS


def turns_before(session: list[TurnEvent], turn: TurnEvent) -> list[TurnEvent]:
    """The turns of `session` that came before `turn`: as they were when it came first, if
    it is there already (a redelivery), else those not later than it."""
    ids = [t.turn_id for t in session]
    if turn.turn_id in ids:
        return session[: ids.index(turn.turn_id)]
    return [t for t in session if t.timestamp <= turn.timestamp]


class InMemoryTurnContext:
    """The last `size` turns of each (user, session), oldest first.

    `keep_extractions`: remember each turn's facts for its redeliveries. In one process there
    are none (and the cache would grow without bound): the embedded deployment turns it off.
    """

    def __init__(self, size: int = CONTEXT_TURNS, *, keep_extractions: bool = True) -> None:
        self._size = size
        self._keep = keep_extractions
        self._turns: dict[tuple[str, str], deque[TurnEvent]] = defaultdict(
            lambda: deque(maxlen=self._size)
        )
        self._extracted: dict[tuple[str, str, str], list[ExtractedFact]] = {}
        self._lock = threading.Lock()

    def recent(self, turn: TurnEvent) -> list[TurnEvent]:
        return turns_before(self.recent_all(turn), turn)

    def recent_all(self, turn: TurnEvent) -> list[TurnEvent]:
        """Every turn kept for the session of `turn`, oldest first."""
        with self._lock:
            return list(self._turns.get((turn.user_id, turn.session_id), ()))

    def add(self, turn: TurnEvent) -> None:
        with self._lock:
            session = self._turns[(turn.user_id, turn.session_id)]
            if all(t.turn_id != turn.turn_id for t in session):
                session.append(turn)

    def extracted(self, turn: TurnEvent) -> list[ExtractedFact] | None:
        with self._lock:
            return self._extracted.get((turn.user_id, turn.session_id, turn.turn_id))

    def remember_extracted(self, turn: TurnEvent, facts: list[ExtractedFact]) -> None:
        if self._keep:
            with self._lock:
                self._extracted[(turn.user_id, turn.session_id, turn.turn_id)] = list(facts)

    def forget_user(self, user_id: str) -> None:
        with self._lock:
            for key in [k for k in self._turns if k[0] == user_id]:
                del self._turns[key]
            for done in [k for k in self._extracted if k[0] == user_id]:
                del self._extracted[done]
