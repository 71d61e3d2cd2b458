"""The extraction stage: a turn → its facts as edges, plus the raw turn (Appendix AA).

The same code serves the embedded pipeline and the distributed extraction agent. Edge ids
are derived from the turn, so re-ingesting a conversation is idempotent.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from datetime import datetime

from schemas.categories import Category
from schemas.events import EdgeEvent, TurnEvent
from workers.extraction.model import ExtractedFact

#: Turns of a session kept as context for the extractor.
CONTEXT_TURNS = 20


def fact_edge_id(turn: TurnEvent, index: int) -> str:
    return f"{turn.session_id}/{turn.turn_id}#{index}"


def raw_edge_id(turn: TurnEvent) -> str:
    return f"{turn.session_id}/{turn.turn_id}#raw"


def _mixed_categories(facts: Sequence[ExtractedFact]) -> dict[Category, float]:
    """The raw turn's soft membership: the mean of its facts' (OTHER when there are none)."""
    if not facts:
        return {Category.OTHER: 1.0}
    total: dict[Category, float] = defaultdict(float)
    for fact in facts:
        for cat, w in fact.categories.items():
            total[cat] += w / len(facts)
    return dict(total)


def edges_for_turn(
    turn: TurnEvent, facts: Sequence[ExtractedFact], ingest_time: datetime | None = None
) -> list[EdgeEvent]:
    """The facts of one turn as edges (no embeddings yet), then its raw turn if the user's."""
    at = ingest_time or turn.timestamp
    edges = [
        EdgeEvent(
            edge_id=fact_edge_id(turn, i),
            user_id=turn.user_id,
            text=fact.text,
            categories=dict(fact.categories),
            slot_key=fact.slot_key,
            value=fact.value,
            confidence=fact.confidence,
            update=fact.update,
            event_time=fact.event_time,
            ingest_time=at,
            retracts=fact.retracts,
            numeric=fact.numeric,
            emotional_loading=fact.emotional_loading,
            quarantined=fact.quarantined,
            source_turns=(turn.turn_id,),
        )
        for i, fact in enumerate(facts)
    ]
    if turn.role == "user" and turn.text.strip():
        # The turn expires with a plan it announces (an anchor after the moment it was
        # said), not with what it tells of the past: "last week I went to …" was history
        # when it was said, and the rest of the turn stays findable (Appendix AA).
        anchors = [f.event_time for f in facts if f.event_time is not None and f.event_time > at]
        edges.append(
            EdgeEvent(
                edge_id=raw_edge_id(turn),
                user_id=turn.user_id,
                text=turn.text[:5_000],
                categories=_mixed_categories(facts),
                # The turn is about what its facts are about: an anchored plan's turn
                # expires with it ("flight at 6am tomorrow").
                event_time=max(anchors) if anchors else None,
                ingest_time=at,
                # Instruction-like content must not come back through the raw text (B.5).
                quarantined=any(f.quarantined for f in facts),
                source_turns=(turn.turn_id,),
                episodic=True,
                episodic_of=tuple(e.edge_id for e in edges if not e.quarantined),
            )
        )
    return edges


class SessionContext:
    """The recent turns of each (user, session), oldest first."""

    def __init__(self, size: int = CONTEXT_TURNS) -> None:
        self._turns: dict[tuple[str, str], deque[TurnEvent]] = defaultdict(
            lambda: deque(maxlen=size)
        )

    def recent(self, turn: TurnEvent) -> list[TurnEvent]:
        return list(self._turns[(turn.user_id, turn.session_id)])

    def add(self, turn: TurnEvent) -> None:
        self._turns[(turn.user_id, turn.session_id)].append(turn)
