"""The extraction stage: a turn → its facts as edges, plus the raw turn (Appendix AA).

The same code serves the embedded pipeline and the distributed extraction agent. Edge ids
are derived from the turn, so re-ingesting a conversation is idempotent. A turn of any
length is kept whole, as raw chunks; extraction reads a bounded window of it
(`long_turns`).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from datetime import datetime

from schemas.categories import Category
from schemas.events import EdgeEvent, TurnEvent
from workers.extraction.long_turns import extraction_turn, raw_chunks
from workers.extraction.model import LENDS_NO_CATEGORY, ExtractedFact

__all__ = [
    "SessionContext",
    "edges_for_turn",
    "extraction_turn",
    "fact_edge_id",
    "raw_edge_id",
    "raw_edge_id_of",
]

#: Turns of a session kept as context for the extractor.
CONTEXT_TURNS = 20


def fact_edge_id(turn: TurnEvent, index: int) -> str:
    return f"{turn.session_id}/{turn.turn_id}#{index}"


def raw_edge_id(turn: TurnEvent, part: int = 1) -> str:
    """The raw turn's id (its first chunk; the n-th chunk of a long turn is `#raw.n`)."""
    suffix = "" if part == 1 else f".{part}"
    return f"{turn.session_id}/{turn.turn_id}#raw{suffix}"


def raw_edge_id_of(fact_id: str) -> str | None:
    """The id of the raw turn a fact (`fact_edge_id`) was drawn from; None for any other id
    (a raw turn's own, a chunk's, a gold fact's)."""
    head, sep, tail = fact_id.rpartition("#")
    return f"{head}#raw" if sep and tail.isdigit() else None


def says_kind(fact: ExtractedFact) -> bool:
    """Whether the extractor said the fact's category itself (`EdgeEvent.kind_said`): a rule
    family that knows what it looks for, or a model — not a value family, whose category the
    prototypes decide ("decide", "require", "habit"), nor a pastime, which they may veto. A
    checked slot ("check", "passing") is the family's unless the prototypes re-slot it
    (`classify._checked` clears it then)."""
    return fact.prototype in (None, "check", "passing")


def _mixed_categories(facts: Sequence[ExtractedFact]) -> dict[Category, float]:
    """The raw turn's soft membership: the mean of its facts' (OTHER when there are none).

    A pastime read from the turn's habitual aspect (`patterns_pastimes`) lends the turn no
    category: the fact itself answers the question for the set, and the turn raised beside it
    would take a second of the first places for one item (docs/extraction.md, round 24). So
    does an identity told in passing (`patterns_identity_passing`): the turn asks for
    something else, and raised to Identity beside its fact it took a second and third place
    for one identity (round 25)."""
    facts = [f for f in facts if f.prototype not in LENDS_NO_CATEGORY]
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
            kind_said=says_kind(fact),
        )
        for i, fact in enumerate(facts)
    ]
    if turn.role == "user" and turn.text.strip():
        edges += _raw_edges(turn, facts, edges, at)
    return edges


def _raw_edges(
    turn: TurnEvent, facts: Sequence[ExtractedFact], fact_edges: list[EdgeEvent], at: datetime
) -> list[EdgeEvent]:
    """The raw turn, whole, as chunks; the first chunk (`#raw`) comes last, so that a
    reader waiting for it knows the whole turn is in."""
    anchors = [f.event_time for f in facts if f.event_time is not None]
    quarantined = any(f.quarantined for f in facts)
    served = tuple(e.edge_id for e in fact_edges if not e.quarantined)
    categories = _mixed_categories(facts)
    lending = [f for f in facts if f.prototype not in LENDS_NO_CATEGORY]
    kind_said = bool(lending) and all(says_kind(f) for f in lending)
    chunks = raw_chunks(turn.text)
    out: list[EdgeEvent] = []
    for part, chunk in enumerate(chunks, start=1):
        out.append(
            EdgeEvent(
                edge_id=raw_edge_id(turn, part),
                user_id=turn.user_id,
                text=chunk.text,
                categories=categories,
                # The turn is about what its facts are about: an anchored plan's turn
                # expires with it ("flight at 6am tomorrow").
                event_time=max(anchors) if anchors and chunk.in_window else None,
                ingest_time=at,
                # Instruction-like content must not come back through the raw text (B.5).
                quarantined=(quarantined and chunk.in_window) or chunk.instruction,
                source_turns=(turn.turn_id,),
                episodic=True,
                episodic_of=served if chunk.in_window else (),
                kind_said=kind_said and chunk.in_window,
            )
        )
    return out[1:] + out[:1]


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
